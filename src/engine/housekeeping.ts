import { isTerminalPhase, podRef } from './api/pod-util.js';
import type { MirrorPods } from './cluster/mirror-pods.js';
import type { RunningPod } from './container/types.js';
import type { EventStream } from './events.js';
import type { PodCache } from './pleg/pod-cache.js';
import type { PodManager } from './pod-manager.js';
import type { PodWorkers } from './pod-workers.js';
import type { ReasonCache } from './status/reason-cache.js';
import type { StatusManager } from './status/status-manager.js';

/** Housekeeping as /node shows it. */
export interface HousekeepingState {
  passes: number;
  last?: { at: string; durationMs: number };
  /** The pass under way: for how long, and its step (a pass that never ends holds up every later one). */
  running?: { forMs: number; step: string };
}

/** What a pass reads and changes: only the parts of each component it uses, so a test can fake them. */
export interface HousekeepingDeps {
  podManager: Pick<PodManager, 'getPods' | 'getPodByUid'>;
  podWorkers: Pick<PodWorkers, 'syncKnownPods' | 'isKnown' | 'updatePod'>;
  statusManager: Pick<StatusManager, 'removeOrphanedStatuses' | 'deletePodStatus'>;
  reasons: ReasonCache;
  podCache: PodCache;
  events: EventStream;
  mirrorPods?: Pick<MirrorPods, 'deleteOrphans'>;
  /** Whether admission turned the pod away (it never gets a worker). */
  isRejected: (uid: string) => boolean;
  /**
   * The runtime's pods as the PLEG last saw them (undefined before its first
   * relist): a pass reads them there rather than listing the runtime again.
   */
  runtimePods: () => RunningPod[] | undefined;
}

/**
 * The kubelet's HandlePodCleanups, every two seconds once all sources are
 * seen, beside the sync loop rather than in it (one pass at a time): workers
 * of pods no longer desired are told to terminate, a pod created again with
 * the UID of one that ended (a static pod's manifest put back) is started
 * anew, pods the runtime runs
 * that no worker knows (orphans, e.g. left by an earlier run) are killed,
 * finished state (statuses, cached runtime state of pods gone from the
 * runtime) is forgotten, and dead containers beyond the newest of each name
 * are garbage-collected.
 */
export class Housekeeping {
  /** The pass under way: when it started (performance.now()) and what it is doing. */
  private current: { started: number; step: string } | undefined;
  private passes = 0;
  private last: { at: string; durationMs: number } | undefined;

  constructor(private readonly deps: HousekeepingDeps) {}

  /** What /node says of housekeeping: the passes done, the last one, and the one under way (for how long, at which step). */
  state(): HousekeepingState {
    const now = this.current && { forMs: Math.round(performance.now() - this.current.started), step: this.current.step };
    return { passes: this.passes, last: this.last, running: now };
  }

  async handlePodCleanups(): Promise<void> {
    if (this.current) return;
    this.current = { started: performance.now(), step: 'workers' };
    const started = this.current.started;
    try {
      await this.cleanup(this.current);
    } finally {
      this.current = undefined;
    }
    const durationMs = performance.now() - started;
    this.passes++;
    this.last = { at: new Date().toISOString(), durationMs: Math.round(durationMs * 10) / 10 };
    this.deps.events.emit({
      type: 'Housekeeping',
      pod: '',
      uid: '',
      message: `pods cleaned up in ${durationMs.toFixed(1)}ms`,
      detail: { durationMs },
    });
  }

  private async cleanup(pass: { step: string }): Promise<void> {
    const { podManager, podWorkers, statusManager, events } = this.deps;
    const desired = new Set(podManager.getPods().map((p) => p.metadata.uid!));
    const workers = podWorkers.syncKnownPods(desired);
    this.restartReusedUids();
    const known = new Set([...desired, ...workers.keys()]);
    statusManager.removeOrphanedStatuses(known);

    // As the PLEG last saw the runtime (its relist every period and the events since): listing the
    // runtime every pass, as the kubelet does, decodes every pod's sandboxes and containers again.
    pass.step = 'orphans';
    const runningPods = this.deps.runtimePods();
    if (!runningPods) return;
    // The sync loop goes on while a pass waits on the runtime: a pod is an orphan only if, now,
    // no source wants it and no worker knows it (a pod added meanwhile has both).
    const knownNow = (uid: string) => known.has(uid) || podWorkers.isKnown(uid) || podManager.getPodByUid(uid) !== undefined;
    for (const pod of runningPods) {
      if (knownNow(pod.uid)) continue;
      const live =
        pod.containers.some((c) => c.state === 'running' || c.state === 'created') || pod.sandboxes.some((s) => s.state === 'ready');
      if (live) {
        events.emit({
          type: 'OrphanKilled',
          pod: `${pod.namespace}/${pod.name}`,
          uid: pod.uid,
          reason: 'Killing',
          message: 'no source wants this pod: stopping it',
        });
        podWorkers.updatePod({ updateType: 'kill', runningPod: pod });
      } else {
        // A dead orphan stays in the runtime for the container collector's next pass (its
        // evictSandboxes), as in the kubelet, and so does its cache entry: a pod that comes back
        // with its UID (a static pod's manifest put back) must see the stopped sandbox, or it
        // makes its first sandbox with the name that one holds. The entry goes with the pod.
        this.deps.reasons.remove(pod.uid);
      }
    }

    // Pods gone from the runtime that no worker or source knows: their cache entries go too (the
    // runtime's last events for a removed pod write one after the pod was deleted).
    const inRuntime = new Set(runningPods.map((p) => p.uid));
    for (const [uid] of [...this.deps.podCache.entries()]) if (!knownNow(uid) && !inRuntime.has(uid)) this.deps.podCache.forget(uid);

    pass.step = 'mirror pods';
    await this.deps.mirrorPods?.deleteOrphans();
  }

  /**
   * Admitted pods no worker knows: created again with the UID of a life that
   * has ended, whose worker syncKnownPods just forgot. Each starts afresh, its
   * last life's status and reasons forgotten (its exited containers stay, and
   * count as its restarts, as in the kubelet).
   */
  private restartReusedUids(): void {
    const { podManager, podWorkers, statusManager, events } = this.deps;
    for (const pod of podManager.getPods()) {
      const uid = pod.metadata.uid!;
      if (podWorkers.isKnown(uid) || this.deps.isRejected(uid) || isTerminalPhase(pod)) continue;
      statusManager.deletePodStatus(uid);
      this.deps.reasons.remove(uid);
      events.emit({
        type: 'PodRestarted',
        pod: podRef(pod),
        uid,
        message: 'created again with the UID of a pod that had ended: starting it anew',
      });
      podWorkers.updatePod({ updateType: 'create', pod });
    }
  }
}
