import { setMaxListeners } from 'node:events';
import type { Clock, Timer } from '../util/clock.js';
import { isTerminalPhase, podRef } from './api/pod-util.js';
import { KubeletConstants } from './config/kubelet-config.js';
import type { Pod, PodStatus } from './api/v1.js';
import { runsAnything, type RunningPod } from './container/types.js';
import type { EventStream } from './events.js';
import type { PodCache } from './pleg/pod-cache.js';
import { jitter, type WorkQueue } from './work-queue.js';
import type { PodSyncer, SyncOutcome, SyncPodResult, TerminatingRead, UpdateType } from './pod-syncer.js';

/** A pod's grace period when neither its spec nor its deletion gives one. */
const DEFAULT_GRACE = KubeletConstants.defaultTerminationGracePeriodSeconds;

/** The kubelet's jitter factors for the resync interval and for retries after a failed sync. */
const RESYNC_JITTER = 0.5;
const BACKOFF_JITTER = 0.5;

export interface UpdatePodOptions {
  updateType: UpdateType;
  /** The desired pod; absent only when killing a pod the runtime runs but no source wants. */
  pod?: Pod;
  runningPod?: RunningPod;
  /** For kills: a shorter grace period, and a callback once the pod is terminated. */
  gracePeriodOverride?: number;
  onTerminated?: () => void;
  /** For kills: changes the status the pod is stopped with (the kubelet's PodStatusFunc: a node shutdown fails the pod). */
  statusFn?: (status: PodStatus) => void;
  /**
   * For kills: the kubelet evicts the pod (its eviction manager, or a preemption; not a node
   * shutdown). Its content may then go as soon as its containers die (KillPodOptions.Evict).
   */
  evict?: boolean;
}

export type WorkerState = 'syncing' | 'terminating' | 'terminated';

/** One pod's worker, as the TUI and housekeeping see it. */
export interface PodWorkerInfo {
  uid: string;
  pod: string;
  state: WorkerState;
  working: boolean;
  finished: boolean;
  lastSyncTime: number;
  lastError?: string;
}

interface PodSyncStatus extends PodWorkerInfo {
  desired?: Pod;
  runningPod?: RunningPod;
  pending?: UpdatePodOptions;
  gracePeriod?: number;
  statusFn?: (status: PodStatus) => void;
  onTerminated: (() => void)[];
  retry?: Timer;
  /** Aborts the syncPod under way when the pod is killed (the kubelet cancels the sync's context). */
  syncAbort?: AbortController;
  /**
   * The pod was created again with the same UID (a static pod's manifest
   * removed and put back) while this life of it ended: once it has ended,
   * syncKnownPods forgets the worker and housekeeping starts the pod anew.
   */
  restartRequested?: boolean;
  /** The kubelet evicted the pod: its dead containers may all go (the kubelet's IsEvicted). */
  evicted?: boolean;
  /** The pod was deleted (a deletion timestamp), or no source wants it (the kubelet's IsDeleted). */
  deleted?: boolean;
  /** Terminal when its worker began (a restart over a finished Job's pod): if the runtime runs none of it, only cleaned up (kubernetes#105523). */
  endedBefore?: boolean;
}

export interface PodWorkersOptions {
  syncer: PodSyncer;
  cache: PodCache;
  workQueue: WorkQueue;
  clock: Clock;
  random: () => number;
  events: EventStream;
  /** How often a pod syncs when nothing happens to it (syncFrequency); no retry waits longer. */
  resyncInterval: number;
  /** How long a failed sync waits before the next, unless a back-off it met ends sooner. */
  backOffPeriod: number;
  /**
   * Called after each sync with when it ended and how: it changed the runtime
   * (the evented PLEG relists the pod, or takes the pod from the runtime's
   * events when they show all of RUNTIME_EVENTS), left it untouched (the
   * cached status stands as current), or failed (a relist of the pod follows,
   * one period on). After a terminating sync, READ is its read of the runtime
   * after the kill, which stands as the pod's relist.
   */
  afterSync?: (pod: Pod, syncedAt: number, outcome: SyncOutcome, runtimeEvents?: string[], read?: TerminatingRead) => void;
  /** Called as a pod's sync or terminating sync starts (the evented PLEG holds the pod's hints until afterSync). */
  syncStarted?: (uid: string) => void;
}

/**
 * One serial worker per pod UID (the kubelet's podWorkers). Updates that
 * arrive while a worker is busy coalesce to the latest, except that a kill is
 * never overwritten. Each worker moves one way through syncing → terminating
 * → terminated, one function per state, and waits for a runtime status newer
 * than its last sync before acting again.
 */
export class PodWorkers {
  private readonly statuses = new Map<string, PodSyncStatus>();
  private readonly abort = new AbortController();
  private readonly loops = new Set<Promise<void>>();

  constructor(private readonly opts: PodWorkersOptions) {
    // Every waiting worker listens on this one signal; a node with many pods has many.
    setMaxListeners(0, this.abort.signal);
  }

  updatePod(options: UpdatePodOptions): void {
    if (this.abort.signal.aborted) return;
    const uid = options.pod?.metadata.uid ?? options.runningPod?.uid;
    if (!uid) return;
    const { events } = this.opts;
    let status = this.statuses.get(uid);
    if (!status) {
      const orphan = !options.pod;
      const ref = options.pod ? podRef(options.pod) : `${options.runningPod!.namespace}/${options.runningPod!.name}`;
      status = {
        uid,
        pod: ref,
        state: orphan ? 'terminating' : 'syncing',
        working: false,
        finished: false,
        lastSyncTime: 0,
        onTerminated: [],
        endedBefore: !orphan && isTerminalPhase(options.pod!),
      };
      this.statuses.set(uid, status);
      events.emit({ type: 'WorkerStarted', pod: ref, uid, message: orphan ? 'terminating a pod no source wants' : 'pod worker started' });
    }
    if (options.onTerminated) {
      status.onTerminated.push(options.onTerminated);
      // A pod already stopped answers at once.
      this.runTerminatedCallbacks(status);
    }
    // Once a pod is being torn down, its UID cannot come back to this worker (as in the kubelet).
    if (status.state !== 'syncing' && options.updateType === 'create') {
      status.restartRequested = true;
      this.runTerminatedCallbacks(status);
      return;
    }
    if (status.finished) {
      this.runTerminatedCallbacks(status);
      return;
    }
    if (options.pod) status.desired = options.pod;
    if (options.runningPod) status.runningPod = options.runningPod;
    if (options.statusFn && status.state !== 'terminated') status.statusFn = options.statusFn;
    const pod = options.pod;
    const deleting = !!pod?.metadata.deletionTimestamp;
    const terminal = pod !== undefined && isTerminalPhase(pod);
    if (status.state === 'syncing' && (options.updateType === 'kill' || deleting || terminal)) {
      // As the kubelet's switch: a deletion first, then a terminal phase, then a kill that may be an eviction.
      if (deleting) status.deleted = true;
      else if (!terminal && options.evict) status.evicted = true;
      this.startTerminating(status);
    }
    // An orphan (a pod only the runtime knows) counts as deleted.
    if (!options.pod && options.runningPod) status.deleted = true;
    if (status.state === 'terminating') {
      const grace =
        options.gracePeriodOverride ??
        pod?.metadata.deletionGracePeriodSeconds ??
        status.desired?.metadata.deletionGracePeriodSeconds ??
        status.desired?.spec.terminationGracePeriodSeconds ??
        DEFAULT_GRACE;
      status.gracePeriod = status.gracePeriod === undefined ? grace : Math.min(status.gracePeriod, grace);
    }
    const keepKill = status.pending?.updateType === 'kill' && options.updateType !== 'kill';
    status.pending = { ...options, updateType: keepKill ? 'kill' : options.updateType };
    if (!status.working) this.startLoop(status);
  }

  /**
   * Terminates workers of pods no longer desired, and forgets finished ones
   * and those whose pod was created again; returns what is known (a desired
   * pod missing from it is to be started anew).
   */
  syncKnownPods(desired: Set<string>): Map<string, PodWorkerInfo> {
    for (const status of [...this.statuses.values()]) {
      if (desired.has(status.uid) && !status.restartRequested) continue;
      if (status.finished && !status.working) {
        status.retry?.cancel();
        this.statuses.delete(status.uid);
        this.opts.workQueue.forget(status.uid);
        continue;
      }
      if (desired.has(status.uid)) continue;
      // A pod no source wants counts as deleted, whatever ended it (the kubelet's orphaned pods).
      status.deleted = true;
      if (status.state === 'syncing') this.updatePod({ updateType: 'kill', pod: status.desired });
    }
    return new Map([...this.statuses].map(([uid, s]) => [uid, info(s)]));
  }

  isKnown(uid: string): boolean {
    return this.statuses.has(uid);
  }

  couldHaveRunningContainers(uid: string): boolean {
    const s = this.statuses.get(uid);
    return s !== undefined && s.state !== 'terminated';
  }

  /**
   * Whether every dead container of the pod, and its other content, may go (the kubelet's
   * ShouldPodContentBeRemoved): an evicted pod at once, a deleted one once terminated; a pod no
   * worker knows once every pod the sources gave reached its worker (PODS_SYNCED).
   */
  shouldPodContentBeRemoved(uid: string, podsSynced: boolean): boolean {
    const s = this.statuses.get(uid);
    if (!s) return podsSynced;
    return s.evicted === true || (s.deleted === true && s.state === 'terminated');
  }

  workers(): PodWorkerInfo[] {
    return [...this.statuses.values()].map(info);
  }

  /** Stops taking work and waits (bounded) for syncs in flight to end. */
  async stop(timeoutMs = 10_000): Promise<void> {
    this.abort.abort(new Error('pod workers stopped'));
    // A sync in flight leaves alone what it has not started (a pod waiting for its volumes stops waiting).
    for (const s of this.statuses.values()) {
      s.retry?.cancel();
      s.syncAbort?.abort();
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.loops]), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  private startTerminating(status: PodSyncStatus): void {
    status.state = 'terminating';
    status.syncAbort?.abort();
    // A pod that ended before is told stopping only once the runtime shows something of it running.
    if (!status.endedBefore) this.tellTerminating(status);
  }

  private tellTerminating(status: PodSyncStatus): void {
    this.opts.events.emit({ type: 'PodTerminating', pod: status.pod, uid: status.uid, reason: 'Killing', message: 'stopping the pod' });
  }

  private startLoop(status: PodSyncStatus): void {
    status.working = true;
    const loop = this.workerLoop(status).finally(() => {
      status.working = false;
      this.loops.delete(loop);
      // An update that arrived as the loop ended must not be stranded.
      if (status.pending && !this.abort.signal.aborted) this.startLoop(status);
    });
    this.loops.add(loop);
  }

  private async workerLoop(status: PodSyncStatus): Promise<void> {
    const { syncer, cache, clock, events } = this.opts;
    const signal = this.abort.signal;
    while (status.pending && !signal.aborted) {
      const update = status.pending;
      status.pending = undefined;
      // A finished pod has nothing left to do: an update that came while it cleaned up ends here, as
      // the kubelet's worker ends, rather than waiting for a newer status (with the evented PLEG, up to
      // a full relist away) while housekeeping waits for the worker to end.
      if (status.finished) break;
      let next: 'resync' | 'now' | 'done' = 'done';
      let backOff: SyncPodResult['backOff'];
      let runtimeUntouched = false;
      let runtimeEvents: string[] | undefined;
      let terminatingRead: TerminatingRead | undefined;
      const stateBefore = status.state;
      const started = clock.now();
      try {
        const cached = await cache.getNewerThan(status.uid, status.lastSyncTime, signal);
        if (cached.error) throw new Error(`the pod's runtime status is unknown: ${cached.error.message}`);
        if (status.state === 'syncing') {
          status.syncAbort = new AbortController();
          this.opts.syncStarted?.(status.uid);
          const result = await syncer
            .syncPod(update.updateType, status.desired!, cached.status, status.syncAbort.signal)
            .finally(() => (status.syncAbort = undefined));
          status.lastSyncTime = clock.now();
          backOff = result.backOff;
          runtimeUntouched = result.runtimeUntouched === true;
          runtimeEvents = result.runtimeEvents;
          if (result.terminal && status.state === 'syncing') {
            this.startTerminating(status);
            status.gracePeriod ??= status.desired!.spec.terminationGracePeriodSeconds ?? DEFAULT_GRACE;
            next = 'now';
          } else next = result.requeue ? 'now' : 'resync';
        } else if (status.state === 'terminating' && status.endedBefore && !runsAnything(cached.status)) {
          status.endedBefore = false;
          status.state = 'terminated';
          runtimeUntouched = true;
          this.runTerminatedCallbacks(status);
          next = 'now';
        } else if (status.state === 'terminating') {
          if (status.endedBefore) this.tellTerminating(status);
          status.endedBefore = false;
          if (status.desired) {
            this.opts.syncStarted?.(status.uid);
            terminatingRead = await syncer.syncTerminatingPod(
              status.desired,
              cached.status,
              status.gracePeriod ?? DEFAULT_GRACE,
              status.statusFn,
            );
          } else await syncer.syncTerminatingRuntimePod(status.runningPod!);
          status.lastSyncTime = clock.now();
          status.state = 'terminated';
          events.emit({ type: 'PodTerminated', pod: status.pod, uid: status.uid, message: 'all containers stopped' });
          this.runTerminatedCallbacks(status);
          if (status.desired) next = 'now';
          else status.finished = true;
        } else if (!status.finished) {
          await syncer.syncTerminatedPod(status.desired!, cached.status);
          status.lastSyncTime = clock.now();
          status.finished = true;
          events.emit({ type: 'WorkerFinished', pod: status.pod, uid: status.uid, message: 'pod terminated and cleaned up' });
        }
        status.lastError = undefined;
        events.emit({
          type: 'PodSynced',
          pod: status.pod,
          uid: status.uid,
          detail: { updateType: update.updateType, state: stateBefore, durationMs: clock.now() - started },
        });
        if (status.desired && !status.finished)
          this.opts.afterSync?.(
            status.desired,
            status.lastSyncTime,
            runtimeUntouched ? 'untouched' : 'changed',
            runtimeEvents,
            terminatingRead,
          );
      } catch (err) {
        if (signal.aborted) return;
        // As the kubelet: a retry waits for a runtime status newer than this failed attempt.
        status.lastSyncTime = clock.now();
        status.lastError = (err as Error).message;
        events.emit({
          type: 'SyncFailed',
          pod: status.pod,
          uid: status.uid,
          reason: 'FailedSync',
          message: `error syncing pod, skipping: ${status.lastError}`,
        });
        // A failed sync may have changed the runtime too (a sandbox made before the image pull
        // failed), and its retry waits for a status newer than the failure: the pod is relisted.
        if (status.desired && !status.finished) this.opts.afterSync?.(status.desired, status.lastSyncTime, 'failed');
        this.retryLater(status);
        continue;
      }
      if (next === 'now') status.pending ??= { updateType: 'sync', pod: status.desired };
      else if (next === 'resync')
        this.opts.workQueue.enqueue(
          status.uid,
          backOff ? this.retryDelay(backOff.endsInMs) : jitter(this.opts.resyncInterval, RESYNC_JITTER, this.opts.random),
        );
    }
  }

  /**
   * How long a failed sync waits (the kubelet's completeWork): until the back-off it met ends if
   * it names one, else the back-off period; never longer than the resync interval; jittered.
   * So a pod in a long crash-loop back-off still syncs (and shows CrashLoopBackOff) meanwhile.
   */
  private retryDelay(backOffEndsInMs?: number): number {
    const wait = Math.min(Math.max(backOffEndsInMs ?? this.opts.backOffPeriod, 0), this.opts.resyncInterval);
    return jitter(wait, BACKOFF_JITTER, this.opts.random);
  }

  /** After an error: a syncing pod comes back through the work queue; a terminating one retries itself. */
  private retryLater(status: PodSyncStatus): void {
    const delay = this.retryDelay();
    if (status.state === 'syncing') {
      this.opts.workQueue.enqueue(status.uid, delay);
      return;
    }
    status.retry?.cancel();
    status.retry = this.opts.clock.setTimeout(() => {
      status.retry = undefined;
      if (!status.finished) this.updatePod({ updateType: 'sync', pod: status.desired, runningPod: status.runningPod });
    }, delay);
  }

  private runTerminatedCallbacks(status: PodSyncStatus): void {
    if (status.state !== 'terminated' && !status.finished) return;
    const callbacks = status.onTerminated.splice(0);
    for (const cb of callbacks) cb();
  }
}

function info({ uid, pod, state, working, finished, lastSyncTime, lastError }: PodSyncStatus): PodWorkerInfo {
  return { uid, pod, state, working, finished, lastSyncTime, lastError };
}
