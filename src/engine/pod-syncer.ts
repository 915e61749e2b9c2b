// What the pod workers ask of the kubelet, and what a sync tells them back.
import type { Pod, PodStatus } from './api/v1.js';
import type { RunningPod, RuntimePodStatus } from './container/types.js';

export type UpdateType = 'create' | 'update' | 'sync' | 'kill';

export interface SyncPodResult {
  /** The pod reached a terminal phase and should terminate. */
  terminal: boolean;
  /**
   * A container waits out a back-off (CrashLoopBackOff, ImagePullBackOff). The kubelet counts
   * such a sync as failed: the pod comes back after the worker's back-off period, or when the
   * earliest crash-loop back-off ends (`endsInMs`, the kubelet's BackoffError) if one does.
   */
  backOff?: { endsInMs?: number };
  /** The sync changed nothing in the runtime (a resync that found nothing to do). */
  runtimeUntouched?: boolean;
  /**
   * The runtime container events the sync's changes make, as `TYPE:id`, when it only made a
   * sandbox and started containers, all of it done: once the evented PLEG has seen them, the
   * newest event shows the pod as the sync left it (see EventedHints.afterSync).
   */
  runtimeEvents?: string[];
  /** Sync again as soon as the runtime's status is newer (the kubelet's UpdatePod after a restart in place removed the containers). */
  requeue?: boolean;
}

/**
 * The runtime as a terminating sync read it after the kill, and when the read
 * began: it stands as the pod's relist (see EventedHints.afterSync).
 */
export interface TerminatingRead {
  status: RuntimePodStatus;
  readAt: number;
}

/** How a pod worker's sync ended, for the PLEG: what the runtime may have that the cache has not. */
export type SyncOutcome = 'changed' | 'untouched' | 'failed';

/** What the pod workers call; the kubelet implements it (syncPod and friends). */
export interface PodSyncer {
  /** SIGNAL aborts when the pod is killed during the sync: what is not started yet is left alone. */
  syncPod(updateType: UpdateType, pod: Pod, status: RuntimePodStatus, signal?: AbortSignal): Promise<SyncPodResult>;
  /** STATUS_FN, when a kill gave one, changes the status written before the containers are stopped. */
  syncTerminatingPod(
    pod: Pod,
    status: RuntimePodStatus,
    gracePeriodSeconds: number,
    statusFn?: (status: PodStatus) => void,
  ): Promise<TerminatingRead>;
  syncTerminatingRuntimePod(running: RunningPod): Promise<void>;
  syncTerminatedPod(pod: Pod, status: RuntimePodStatus): Promise<void>;
}
