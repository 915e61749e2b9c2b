// The Deployment controller's helpers, after pkg/controller/deployment/util:
// conditions, the rolling update's fenceposts, the pod-template-hash, the
// revision of a set of ReplicaSets.
import { rfc3339 } from '../engine/api/v1.js';
import type { Deployment, PodTemplateSpec, ReplicaSet, WorkloadCondition } from '../engine/api/workloads.js';
import { canonicalJson } from '../engine/config/static-pod.js';
import { safeEncode } from './store.js';
import { compareStrings } from '../util/compare.js';

export const RevisionAnnotation = 'deployment.kubernetes.io/revision';
export const HASH_LABEL = 'pod-template-hash';

/**
 * Sets a condition as deploymentutil.SetDeploymentCondition does: a
 * condition of the same status and reason is left as it is; a status that
 * stays keeps its transition time; the update time is now.
 */
export function setCondition(
  conditions: WorkloadCondition[],
  c: Omit<WorkloadCondition, 'lastUpdateTime' | 'lastTransitionTime'>,
  now: number,
): void {
  const i = conditions.findIndex((x) => x.type === c.type);
  const old = conditions[i];
  if (old && old.status === c.status && old.reason === c.reason && old.message === c.message) return;
  const at = rfc3339(now);
  const next: WorkloadCondition = {
    type: c.type,
    status: c.status,
    lastUpdateTime: at,
    lastTransitionTime: old && old.status === c.status ? old.lastTransitionTime : at,
    reason: c.reason,
    message: c.message,
  };
  if (i >= 0) conditions[i] = next;
  else conditions.push(next);
}

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable down, never both 0. */
export function fenceposts(d: Deployment): { surge: number; unavailable: number } {
  const replicas = d.spec.replicas ?? 1;
  const rolling = d.spec.strategy?.rollingUpdate ?? {};
  const surge = scaled(rolling.maxSurge ?? '25%', replicas, true);
  let unavailable = scaled(rolling.maxUnavailable ?? '25%', replicas, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable: Math.min(unavailable, replicas) };
}

function scaled(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  if (!percent) return Number(value) || 0;
  const exact = (Number(percent[1]) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * The pod-template-hash: FNV-1a over the template (and the collision count),
 * its decimal spelled with the name generator's characters, as
 * controller.ComputeHash. The template is hashed as canonical JSON, not as
 * Go's struct dump, so the value differs from a cluster's; its shape does not.
 */
export function templateHash(template: PodTemplateSpec, collisionCount?: number): string {
  let hash = 0x811c9dc5;
  const bytes = Buffer.from(canonicalJson(template) + (collisionCount !== undefined ? `#${collisionCount}` : ''));
  for (const b of bytes) {
    hash ^= b;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return safeEncode(String(hash));
}

/**
 * A template as EqualIgnoreHash compares it: two templates are the same
 * when their keys are, the pod-template-hash label aside.
 */
export function templateKey(t: PodTemplateSpec): string {
  const labels = { ...t.metadata?.labels };
  delete labels[HASH_LABEL];
  return canonicalJson({ ...t, metadata: { ...t.metadata, labels } });
}

export function maxRevision(sets: ReplicaSet[]): number {
  return Math.max(0, ...sets.map((rs) => Number(rs.metadata.annotations?.[RevisionAnnotation] ?? 0) || 0));
}

export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  return (
    compareStrings(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? '') ||
    compareStrings(a.metadata.name ?? '', b.metadata.name ?? '')
  );
}

export function sum<T>(items: T[], f: (item: T) => number): number {
  return items.reduce((n, item) => n + f(item), 0);
}

/**
 * GetTerminatingReplicaCountForReplicaSets: the sum of the sets' terminating
 * pods; none when a set the controller has synced does not say (a set never
 * synced counts for nothing).
 */
export function terminatingReplicas(sets: ReplicaSet[]): number | undefined {
  let total = 0;
  for (const rs of sets) {
    const count = rs.status?.terminatingReplicas;
    if (count === undefined) {
      if (!rs.status?.observedGeneration) continue;
      return undefined;
    }
    total += count;
  }
  return total;
}
