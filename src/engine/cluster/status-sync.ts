import { isDeepStrictEqual } from 'node:util';
import type { Clock, Timer } from '../../util/clock.js';
import { isStaticPod, podRef } from '../api/pod-util.js';
import type { Pod, PodCondition, PodStatus } from '../api/v1.js';
import type { EventStream } from '../events.js';
import type { PodManager } from '../pod-manager.js';
import type { StatusManager } from '../status/status-manager.js';
import { ClusterError, type PodApi } from './client.js';
import { compareStrings } from '../../util/compare.js';

/** The kubelet's status manager resyncs every pod this often (syncPeriod). */
const BATCH_SYNC_PERIOD_MS = 10_000;

/**
 * How many pods' statuses are written at a time (one patch at a time for
 * each pod, in the order its changes came). The kubelet writes one after
 * another; in a burst each waited for every patch before its own, most of
 * it the apiserver's and etcd's round trip (bench/notes/sli.md).
 */
const PATCHES_AT_ONCE = 4;

/** The pod conditions the kubelet owns; any other type in the apiserver's status is kept as it is. */
const KUBELET_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized', 'ContainersReady', 'PodReadyToStartContainers']);

export interface StatusSyncDeps {
  client: Pick<PodApi, 'patchPodStatus' | 'deletePod'>;
  podManager: PodManager;
  statusManager: StatusManager;
  events: EventStream;
  clock: Clock;
  /** True once the pod's worker has stopped every container (the API object may then go). */
  isTerminated: (uid: string) => boolean;
  warn: (message: string) => void;
}

/**
 * The apiserver half of the kubelet's status manager: each change of a pod's
 * status becomes a strategic merge patch of its status subresource (with a
 * UID precondition), a static pod's status goes to its mirror pod, and a pod
 * being deleted whose containers are all stopped is deleted for good (grace
 * 0), as the kubelet does. Conditions the kubelet does not own stay as the
 * apiserver has them; a terminal phase is never taken back. Every pod is
 * looked at again every 10 s, so a failed patch is retried. Up to four pods
 * are written at a time, each pod's patches in order.
 */
export class StatusSync {
  private readonly dirty = new Set<string>();
  /** What was last written for each pod, so an echo from the watch does not patch again. */
  private readonly written = new Map<string, PodStatus>();
  private readonly deleted = new Set<string>();
  /** The pods whose status is being written now. */
  private readonly syncing = new Set<string>();
  private lanes = 0;
  private draining: Promise<void> | undefined;
  private drained: (() => void) | undefined;
  private timer: Timer | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly deps: StatusSyncDeps) {}

  start(): void {
    this.unsubscribe = this.deps.events.subscribe((e) => {
      // PodSynced too: a pod synced because its mirror pod came or changed gets its status there at once.
      if (e.type === 'StatusChanged' || e.type === 'PodSynced' || e.type === 'PodTerminated' || e.type === 'WorkerFinished')
        this.mark(e.uid);
    });
    this.timer = this.deps.clock.setInterval(() => {
      for (const pod of this.deps.podManager.getPods()) this.mark(pod.metadata.uid!);
    }, BATCH_SYNC_PERIOD_MS);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.timer?.cancel();
    await this.draining;
  }

  /** Resolves once every pod marked so far has been synced (or failed to). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private mark(uid: string): void {
    if (!uid || this.stopped) return;
    this.dirty.add(uid);
    if (this.lanes < PATCHES_AT_ONCE) void this.lane();
  }

  /** Syncs marked pods, one at a time, until none is left that another lane is not syncing. */
  private async lane(): Promise<void> {
    if (this.lanes++ === 0) this.draining = new Promise((resolve) => (this.drained = resolve));
    try {
      for (let uid = this.next(); uid !== undefined && !this.stopped; uid = this.next()) {
        this.dirty.delete(uid);
        this.syncing.add(uid);
        try {
          await this.syncPod(uid);
        } catch (err) {
          this.deps.warn(`status of pod ${uid}: ${(err as Error).message}`);
        } finally {
          this.syncing.delete(uid);
        }
      }
    } finally {
      if (--this.lanes === 0) {
        this.draining = undefined;
        this.drained?.();
      }
    }
  }

  /** The pod marked first that no lane is syncing (a pod marked again while synced waits for that sync). */
  private next(): string | undefined {
    for (const uid of this.dirty) if (!this.syncing.has(uid)) return uid;
    return undefined;
  }

  private async syncPod(uid: string): Promise<void> {
    const pod = this.deps.podManager.getPodByUid(uid);
    if (!pod) {
      this.written.delete(uid);
      this.deleted.delete(uid);
      return;
    }
    const status = this.deps.statusManager.getPodStatus(uid);
    const target = isStaticPod(pod) ? this.deps.podManager.getMirrorPodByPod(pod) : pod;
    if (status && target) await this.patch(target, status);
    if (!isStaticPod(pod) && pod.metadata.deletionTimestamp && this.deps.isTerminated(uid) && !this.deleted.has(uid)) {
      // Every container is stopped: the pod object can go now (the kubelet's canBeDeleted).
      try {
        await this.deps.client.deletePod(pod.metadata.namespace!, pod.metadata.name!, uid, 0);
        this.deleted.add(uid);
      } catch (err) {
        if (ClusterError.notFound(err) || ClusterError.conflict(err)) this.deleted.add(uid);
        else throw err;
      }
    }
  }

  private async patch(target: Pod, status: PodStatus): Promise<void> {
    const key = target.metadata.uid!;
    const old = target.status ?? {};
    const merged = mergePodStatus(old, status);
    if (!merged) {
      this.deps.warn(`pod ${podRef(target)}: the apiserver has it ${old.phase}; not changing a finished pod to ${status.phase}`);
      return;
    }
    if (sameStatus(merged, old) || isDeepStrictEqual(this.written.get(key), merged)) return;
    try {
      // The copy of the pod the watch brought may predate the last patch (a mirror pod's often does):
      // what that patch wrote and this one lacks is deleted too, or a reason would stay on the apiserver for good.
      const status = withDeletions(merged, old, this.written.get(key));
      await this.deps.client.patchPodStatus(target.metadata.namespace!, target.metadata.name!, { metadata: { uid: key }, status });
      this.written.set(key, merged);
    } catch (err) {
      // Gone or replaced under the same name: the source will tell the node.
      if (ClusterError.notFound(err) || ClusterError.conflict(err)) return;
      throw err;
    }
  }
}

/**
 * The status to write: the kubelet's, with the apiserver's conditions of
 * other owners kept; undefined when it would take a finished pod back to a
 * running phase (the kubelet's mergePodStatus and its terminal-phase check).
 */
export function mergePodStatus(old: PodStatus, status: PodStatus): PodStatus | undefined {
  const terminal = (phase: string | undefined) => phase === 'Succeeded' || phase === 'Failed';
  if (terminal(old.phase) && !terminal(status.phase)) return undefined;
  const others: PodCondition[] = (old.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type));
  const conditions = [...(status.conditions ?? []).map((c) => keepTransitionTime(c, old.conditions)), ...others];
  return { ...status, conditions };
}

/** The fields a status or a condition may have one moment and not the next. */
export const DELETABLE = ['reason', 'message'] as const;

/**
 * The status as a strategic merge patch must say it: conditions are merged
 * by type, so a reason or message the old condition had and the new one
 * lacks (Ready's, once it turns True) is deleted with null, as the kubelet's
 * two-way merge patch deletes it; so are the status's own. `old` is the
 * apiserver's status as last seen, `written` what the last patch wrote.
 */
export function withDeletions(status: PodStatus, old: PodStatus, written?: PodStatus): PodStatus {
  const nulls = (now: object, ...before: (object | undefined)[]) =>
    Object.fromEntries(DELETABLE.filter((k) => before.some((b) => b && k in b) && !(k in now)).map((k) => [k, null]));
  const conditions = (status.conditions ?? []).map(
    (c) =>
      ({
        ...c,
        ...nulls(
          c,
          old.conditions?.find((o) => o.type === c.type),
          written?.conditions?.find((o) => o.type === c.type),
        ),
      }) as PodCondition,
  );
  return { ...status, ...nulls(status, old, written), conditions } as PodStatus;
}

/** A condition whose status did not change keeps the transition time the apiserver has. */
function keepTransitionTime(c: PodCondition, old: PodCondition[] | undefined): PodCondition {
  const before = old?.find((o) => o.type === c.type);
  return before && before.status === c.status && before.lastTransitionTime ? { ...c, lastTransitionTime: before.lastTransitionTime } : c;
}

/** Whether two statuses say the same: conditions in any order, a null (a probe time) as absent. */
export function sameStatus(a: PodStatus, b: PodStatus): boolean {
  const byType = (s: PodStatus) => [...(s.conditions ?? [])].sort((x, y) => compareStrings(x.type, y.type));
  return sameAsJson({ ...a, conditions: byType(a) }, { ...b, conditions: byType(b) });
}

/** Whether A and B would read the same as JSON, a null or undefined field as one left out. */
function sameAsJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? undefined) === (b ?? undefined);
  if (typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((x, i) => sameAsJson(x, other[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k in x) if (!sameAsJson(x[k], y[k])) return false;
  for (const k in y) if (!(k in x) && !sameAsJson(undefined, y[k])) return false;
  return true;
}
