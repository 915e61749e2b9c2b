import type { Clock } from '../util/clock.js';
import { isStaticPod, podRef } from './api/pod-util.js';
import type { Pod, PodStatus } from './api/v1.js';
import type { RunningPod, RuntimePodStatus } from './container/types.js';
import type { EventStream } from './events.js';
import type { RuntimeManager } from './kuberuntime/runtime-manager.js';
import { SyncErrors, type PodSyncResult } from './kuberuntime/sync-result.js';
import type { PodManager } from './pod-manager.js';
import type { PodSyncer, SyncPodResult, TerminatingRead, UpdateType } from './pod-syncer.js';
import { generateAPIPodStatus } from './status/generate.js';
import { isRestartingAll } from './status/restart-all.js';
import type { ReasonCache } from './status/reason-cache.js';
import type { StatusManager } from './status/status-manager.js';
import type { ProberManager } from './prober/prober-manager.js';
import { removePodDirectory, type VolumeManager } from './volume/volume-manager.js';
import { mountWithRetries } from './kubelet-volumes.js';
import type { MirrorPods } from './cluster/mirror-pods.js';
import type { PodSyncHandler } from './lifecycle.js';

export interface PodSyncDeps {
  runtime: RuntimeManager;
  statusManager: StatusManager;
  reasons: ReasonCache;
  podManager: PodManager;
  clock: Clock;
  events: EventStream;
  hostIP: string;
  /** The kubelet's root dir (per-pod files live under kubelet/pods/<uid>). */
  rootDir: string;
  runtimeName: () => string;
  prober: ProberManager;
  volumes: VolumeManager;
  /** Why the runtime cannot take work now, if it cannot. */
  runtimeError: () => string | undefined;
  /** Mirror pods in the apiserver for static pods, when the node has joined one. */
  mirrorPods?: MirrorPods;
  /** Asked on every status whether the pod must fail (the active deadline). */
  podSyncHandlers?: PodSyncHandler[];
}

/** Orphans (pods no source wants) get this grace period, as in the kubelet. */
const ORPHAN_GRACE_PERIOD_SECONDS = 1;

/**
 * The kubelet's side of the pod workers: SyncPod (status, then the runtime's
 * SyncPod), SyncTerminatingPod (kill, confirm, final status) and
 * SyncTerminatedPod (final status, runtime cleanup for removed pods).
 */
export class KubeletPodSyncer implements PodSyncer {
  private readonly volumesReady = new Set<string>();

  constructor(private readonly deps: PodSyncDeps) {}

  private status(pod: Pod, runtime: RuntimePodStatus, podIsTerminal: boolean): PodStatus {
    return generateAPIPodStatus(pod, runtime, {
      now: this.deps.clock.now(),
      hostIP: this.deps.hostIP,
      runtimeName: this.deps.runtimeName(),
      reasons: this.deps.reasons,
      // After a restart the apiserver's status is the last one written (start time, transition times).
      oldStatus: this.deps.statusManager.getPodStatus(pod.metadata.uid!) ?? pod.status,
      podIsTerminal,
      podSyncHandlers: this.deps.podSyncHandlers,
      ready: (name, id) => this.deps.prober.isReady(pod, name, id),
      started: (name, id) => this.deps.prober.isStarted(pod, name, id),
    });
  }

  /** Writes the status the next sync would (the reasons of the last one included), without syncing. */
  refreshStatus(pod: Pod, runtime: RuntimePodStatus): void {
    this.deps.statusManager.setPodStatus(pod, this.status(pod, runtime, false));
  }

  async syncPod(_updateType: UpdateType, pod: Pod, runtime: RuntimePodStatus, signal?: AbortSignal): Promise<SyncPodResult> {
    const uid = pod.metadata.uid!;
    const apiStatus = this.status(pod, runtime, false);
    this.deps.statusManager.setPodStatus(pod, apiStatus);
    // The apiserver's copy of a static pod; never waited for: pods start without the apiserver.
    if (this.deps.mirrorPods && isStaticPod(pod)) this.deps.mirrorPods.reconcileInBackground(pod);
    if (apiStatus.phase === 'Succeeded' || apiStatus.phase === 'Failed') return { terminal: true };
    const runtimeError = this.deps.runtimeError();
    if (runtimeError) throw new Error(`container runtime is not ready: ${runtimeError}`);
    // The pod stays Pending while its volumes fail; after the wait's end the worker tries again after its back-off.
    const failedMount = (err: Error) =>
      this.deps.events.emit({ type: 'SyncFailed', pod: podRef(pod), uid, reason: 'FailedMount', message: err.message });
    const volumes = await mountWithRetries(this.deps.volumes, pod, this.deps.clock, failedMount, signal);
    if (!this.volumesReady.has(uid)) {
      this.volumesReady.add(uid);
      this.deps.events.emit({ type: 'VolumesReady', pod: podRef(pod), uid, detail: { volumes: volumes.size } });
    }
    this.deps.prober.addPod(pod);
    if (signal?.aborted) return { terminal: false };
    // A restart in place under way (RestartAllContainers): this sync removes every container.
    const restartAllContainers = isRestartingAll(apiStatus);
    const result = await this.deps.runtime.syncPod(
      pod,
      runtime,
      {
        probeFailed: (id, name) => this.deps.prober.probeFailed(name, id),
        started: (id, name) => this.deps.prober.isStarted(pod, name, id),
        restartAllContainers,
      },
      volumes,
      signal,
    );
    this.deps.reasons.update(uid, result);
    for (const r of result.results) {
      if (r.action === 'StartContainer' && r.error)
        this.deps.events.emit({
          type: 'ContainerWaiting',
          pod: podRef(pod),
          uid,
          container: r.target,
          reason: r.error.reason,
          message: r.error.message,
        });
    }
    if (result.syncError) throw result.syncError;
    // Waiting out a back-off is not an error of the worker (nothing to report), though it is timed as one;
    // anything else is retried after the worker's back-off period.
    const failure = result.results.find(
      (r) => r.error && r.error.reason !== SyncErrors.crashLoopBackOff && r.error.reason !== SyncErrors.imagePullBackOff,
    );
    if (failure?.error) throw failure.error;
    const backOffs = result.results.filter((r) => r.error);
    // Containers removed for a restart in place: synced again at once to start them (and clear the condition).
    if (restartAllContainers && backOffs.length === 0 && result.results.some((r) => r.action === 'RemoveContainer'))
      return { terminal: false, requeue: true };
    if (backOffs.length === 0)
      return { terminal: false, runtimeUntouched: result.results.length === 0, runtimeEvents: runtimeEvents(result) };
    // Only a crash-loop back-off says when it ends (the kubelet's BackoffError; an image pull back-off does not).
    const ends = backOffs
      .filter((r) => r.error!.reason === SyncErrors.crashLoopBackOff && r.error!.retryAfterMs !== undefined)
      .map((r) => r.error!.retryAfterMs!);
    return { terminal: false, backOff: { endsInMs: ends.length > 0 ? Math.min(...ends) : undefined } };
  }

  async syncTerminatingPod(
    pod: Pod,
    runtime: RuntimePodStatus,
    gracePeriodSeconds: number,
    statusFn?: (status: PodStatus) => void,
  ): Promise<TerminatingRead> {
    this.deps.prober.stopLivenessAndStartup(pod.metadata.uid!);
    const before = this.status(pod, runtime, false);
    statusFn?.(before);
    this.deps.statusManager.setPodStatus(pod, before);
    const result = await this.deps.runtime.killPod(pod, runtime, gracePeriodSeconds);
    const error = result.error();
    if (error) throw error;
    const readAt = this.deps.clock.now();
    const stopped = await this.deps.runtime.getPodStatus(pod.metadata.uid!, pod.metadata.name!, pod.metadata.namespace!);
    const running = stopped.containers.filter((c) => c.state === 'running').map((c) => c.name);
    if (running.length > 0) throw new Error(`detected running containers after a successful KillPod: ${running.join(', ')}`);
    this.deps.statusManager.setPodStatus(pod, this.status(pod, stopped, true));
    return { status: stopped, readAt };
  }

  async syncTerminatingRuntimePod(running: RunningPod): Promise<void> {
    const result = await this.deps.runtime.killPod(undefined, running, ORPHAN_GRACE_PERIOD_SECONDS);
    const error = result.error();
    if (error) throw error;
  }

  async syncTerminatedPod(pod: Pod, runtime: RuntimePodStatus): Promise<void> {
    const uid = pod.metadata.uid!;
    this.deps.statusManager.setPodStatus(pod, this.status(pod, runtime, true));
    this.volumesReady.delete(uid);
    this.deps.prober.removePod(uid);
    await this.deps.volumes.tearDown(uid);
    // A pod no source wants any more loses its dead containers and their logs now (the kubelet's
    // pod container deletor, removeAll); its stopped sandboxes and its log directory stay for the
    // container collector's next pass (evictSandboxes, evictPodLogsDirectories), as in the kubelet.
    if (!this.deps.podManager.getPodByUid(uid)) {
      for (const c of runtime.containers) if (c.state !== 'running') await this.deps.runtime.removeContainer(c.id).catch(() => {});
      this.deps.reasons.remove(uid);
      await removePodDirectory(this.deps.rootDir, uid);
    }
    // The pod's final status: no container of it is left running (the kubelet's TerminatePod, last).
    this.deps.statusManager.terminatePod(pod);
  }
}

/**
 * The container events the runtime sends for what a sync did, as `TYPE:id`: a sandbox made and
 * containers started each end in a CONTAINER_STARTED_EVENT of their id (containerd's and the
 * embedded runtime's). Undefined when the sync did anything else (a kill or a removal), or a
 * step failed: the evented PLEG then reads the pod back.
 */
function runtimeEvents(result: PodSyncResult): string[] | undefined {
  const made: string[] = [];
  for (const r of result.results) {
    if (r.error) return undefined;
    if (r.action === 'CreatePodSandbox') made.push(`CONTAINER_STARTED_EVENT:${r.target}`);
    else if (r.action === 'StartContainer' && r.id) made.push(`CONTAINER_STARTED_EVENT:${r.id}`);
    else return undefined;
  }
  return made;
}
