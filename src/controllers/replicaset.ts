import { ClusterError } from '../engine/cluster/client.js';
import { rfc3339, type Pod } from '../engine/api/v1.js';
import { selectorMatches, type ReplicaSet } from '../engine/api/workloads.js';
import {
  createPod,
  isPodActive,
  isPodTerminating,
  isPodAvailable,
  isPodReady,
  objectKey,
  omitZeroCounts,
  podFromTemplate,
  podReadyCondition,
  podsControlledByShared,
  recordSyncFailed,
  splitKey,
  watchOwned,
  WorkQueue,
  type Controller,
  type ControllerDeps,
} from './controller.js';

/** The replica set controller's burstReplicas: at most this many pods made or deleted in one sync. */
const BURST_REPLICAS = 500;

/**
 * The ReplicaSet controller (pkg/controller/replicaset) for one node: keeps
 * `replicas` active pods named `<rs>-<5 random>`, deletes the extra ones
 * ranked as upstream ranks them (unbound, pending, not ready and newest
 * first), and reports replicas, fully labelled, ready and available counts.
 */
export class ReplicaSetController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(deps.clock, (key) => this.sync(key), recordSyncFailed(deps, 'ReplicaSet'));
  }

  start(): void {
    this.unsubscribe = watchOwned(this.deps.store, this.queue, 'ReplicaSet', 'Pod');
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const rs = this.deps.store.get<ReplicaSet>('ReplicaSet', namespace, name);
    if (!rs || rs.metadata.deletionTimestamp) return;
    // Read only: the count, and the pods to delete by name.
    const pods = podsControlledByShared(this.deps.store, namespace, rs.metadata.uid!);
    const active = pods.filter(isPodActive);
    const wanted = rs.spec.replicas ?? 1;
    const diff = active.length - wanted;
    let createError: string | undefined;
    if (diff < 0) createError = this.create(rs, Math.min(-diff, BURST_REPLICAS));
    else if (diff > 0) this.remove(rs, active, Math.min(diff, BURST_REPLICAS));
    this.updateStatus(rs, createError);
  }

  private create(rs: ReplicaSet, count: number): string | undefined {
    for (let i = 0; i < count; i++) {
      const pod = podFromTemplate(this.deps, rs.spec.template, rs, { generateName: `${rs.metadata.name}-` });
      try {
        const made = createPod(this.deps.store, pod);
        this.deps.record({ object: rs, type: 'Normal', reason: 'SuccessfulCreate', message: `Created pod: ${made.metadata.name}` });
      } catch (err) {
        const message = `Error creating: ${(err as Error).message}`;
        this.deps.record({ object: rs, type: 'Warning', reason: 'FailedCreate', message });
        return message;
      }
    }
    return undefined;
  }

  private remove(rs: ReplicaSet, active: readonly Pod[], count: number): void {
    for (const pod of [...active].sort((a, b) => deletionRank(a, b, this.deps.clock.now())).slice(0, count)) {
      try {
        this.deps.store.delete('Pod', pod.metadata.namespace!, pod.metadata.name!, { uid: pod.metadata.uid });
        this.deps.record({ object: rs, type: 'Normal', reason: 'SuccessfulDelete', message: `Deleted pod: ${pod.metadata.name}` });
      } catch (err) {
        if (!ClusterError.notFound(err)) throw err;
      }
    }
  }

  private updateStatus(rs: ReplicaSet, createError: string | undefined): void {
    const now = this.deps.clock.now();
    const owned = podsControlledByShared(this.deps.store, rs.metadata.namespace!, rs.metadata.uid!);
    const active = owned.filter(isPodActive);
    const minReady = rs.spec.minReadySeconds ?? 0;
    const templateLabels = rs.spec.template.metadata?.labels ?? {};
    const ready = active.filter(isPodReady);
    const available = active.filter((p) => isPodAvailable(p, minReady, now));
    const conditions = (rs.status?.conditions ?? []).filter((c) => c.type !== 'ReplicaFailure');
    if (createError)
      conditions.push({
        type: 'ReplicaFailure',
        status: 'True',
        lastTransitionTime: rfc3339(now),
        reason: 'FailedCreate',
        message: createError,
      });
    const status: NonNullable<ReplicaSet['status']> = {
      replicas: active.length,
      fullyLabeledReplicas: active.filter((p) => selectorMatches({ matchLabels: templateLabels }, p.metadata.labels)).length,
      readyReplicas: ready.length,
      availableReplicas: available.length,
      // A pointer upstream: written, 0 included, once the controller has synced the ReplicaSet.
      terminatingReplicas: owned.filter(isPodTerminating).length,
      observedGeneration: rs.metadata.generation,
      ...(conditions.length > 0 ? { conditions } : {}),
    };
    // ReplicaSetStatus: replicas is always written, the other counts are omitempty.
    const written = omitZeroCounts(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']);
    this.deps.store.updateStatus('ReplicaSet', rs.metadata.namespace!, rs.metadata.name!, written, rs.metadata.uid);
    // A ready pod becomes available after minReadySeconds: look again then.
    if (minReady > 0 && ready.length > available.length) {
      const soonest = Math.min(
        ...ready
          .filter((p) => !isPodAvailable(p, minReady, now))
          .map((p) => Date.parse(podReadyCondition(p)?.lastTransitionTime ?? '') + minReady * 1000 - now),
      );
      this.queue.addAfter(objectKey(rs), Math.max(soonest, 1));
    }
  }
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/** controller.ActivePods' order: the pod to delete first sorts first. */
export function deletionRank(a: Pod, b: Pod, now: number): number {
  const bound = (p: Pod) => (p.spec.nodeName ? 1 : 0);
  if (bound(a) !== bound(b)) return bound(a) - bound(b);
  const phase = (p: Pod) => PHASE_RANK[p.status?.phase ?? 'Pending'] ?? 0;
  if (phase(a) !== phase(b)) return phase(a) - phase(b);
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
  const readySince = (p: Pod) => Date.parse(podReadyCondition(p)?.lastTransitionTime ?? '') || now;
  if (isPodReady(a) && readySince(a) !== readySince(b)) return readySince(b) - readySince(a);
  const restarts = (p: Pod) => Math.max(0, ...(p.status?.containerStatuses ?? []).map((c) => c.restartCount));
  if (restarts(a) !== restarts(b)) return restarts(b) - restarts(a);
  return Date.parse(b.metadata.creationTimestamp ?? '') - Date.parse(a.metadata.creationTimestamp ?? '');
}
