// The finalizers of a deletion, as the apiserver sets them for the garbage
// collector (deletionFinalizersForGarbageCollection) and the store reads them.
import type { KubeObject } from '../engine/api/workloads.js';

/** How a delete treats the objects the deleted one controls, as metav1.DeletionPropagation. */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** The finalizer an owner carries while its dependents are deleted in the foreground. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';

/** The finalizer an owner carries while the garbage collector takes its reference out of its dependents (metav1.FinalizerOrphanDependents). */
export const ORPHAN_FINALIZER = 'orphan';

/**
 * The apiserver's deletionFinalizersForGarbageCollection: O's finalizers
 * with the one POLICY asks the garbage collector for, in place of the other.
 */
export function gcFinalizers(o: KubeObject, policy: PropagationPolicy): string[] | undefined {
  const kept = (o.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND_FINALIZER && f !== ORPHAN_FINALIZER);
  if (policy === 'Foreground') kept.push(FOREGROUND_FINALIZER);
  if (policy === 'Orphan') kept.push(ORPHAN_FINALIZER);
  return kept.length > 0 ? kept : undefined;
}

/**
 * The kinds whose registry strategy's DefaultGarbageCollectionPolicy is
 * OrphanDependents, kept for backwards compatibility in the version served
 * (batch/v1 Jobs, v1 ReplicationControllers). The apps/v1 workloads and
 * batch/v1 CronJobs have DeleteDependents, and the rest the generic store's
 * none: both delete in the background.
 */
const ORPHAN_BY_DEFAULT = new Set(['Job', 'ReplicationController']);

/**
 * shouldOrphanDependents and shouldDeleteDependentsInForeground: without a
 * policy in the delete, the first of those finalizers on O chooses it, else
 * its kind's default (a Job's pods stay, without their reference to it).
 */
export function defaultPolicy(o: KubeObject): PropagationPolicy {
  for (const f of o.metadata.finalizers ?? []) {
    if (f === ORPHAN_FINALIZER) return 'Orphan';
    if (f === FOREGROUND_FINALIZER) return 'Foreground';
  }
  return ORPHAN_BY_DEFAULT.has(o.kind) ? 'Orphan' : 'Background';
}

/**
 * The policy the garbage collector's attemptToDeleteItem sends for an
 * object none of whose owners is left: an orphan finalizer it carries
 * first, then foregroundDeletion, else Background. Always explicit: a Job
 * it collects takes its pods, whatever a Job's default.
 */
export function collectorPolicy(finalizers: string[]): PropagationPolicy {
  if (finalizers.includes(ORPHAN_FINALIZER)) return 'Orphan';
  return finalizers.includes(FOREGROUND_FINALIZER) ? 'Foreground' : 'Background';
}

/** Finalizers a controller keeps in memory, not held here: the Job controller's pod tracking (see docs/workloads.md). */
const IN_MEMORY_FINALIZERS = new Set(['batch.kubernetes.io/job-tracking']);

/** Whether FINALIZERS hold a deletion. */
export function holds(finalizers: string[] | undefined): boolean {
  return (finalizers ?? []).some((f) => !IN_MEMORY_FINALIZERS.has(f));
}
