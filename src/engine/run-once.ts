import { ConfigSourceAnnotation, podRef } from './api/pod-util.js';
import { podRunsForever } from './api/restart-policy.js';
import type { Pod } from './api/v1.js';
import type { Clock } from '../util/clock.js';
import type { PodConfig } from './config/pod-config.js';
import type { EventStream, LifecycleEvent } from './events.js';
import type { PodManager } from './pod-manager.js';
import type { StatusManager } from './status/status-manager.js';

/** Waiting reasons after which a pod will not get to Running without a human (or minutes of backoff). */
export const FATAL_WAITING_REASONS = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'ImageInspectError',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
  'PostStartHookError',
  'CrashLoopBackOff',
]);

export interface PodOutcome {
  pod: string;
  uid: string;
  ok: boolean;
  /** Running, Succeeded, Failed, or the waiting reason it stopped at. */
  result: string;
  reason?: string;
  message?: string;
  /** From the pod being seen to its outcome. */
  durationMs: number;
}

export interface RunOnceResult {
  outcomes: PodOutcome[];
  /** The pods with their last status. */
  pods: Pod[];
  manifestErrors: string[];
  /** The objects of kinds a node does not run (a Service), one line each, by file and document. */
  manifestSkipped: string[];
}

/** What runOnce needs of the kubelet; the Kubelet implements it. */
export interface RunOnceHost {
  readonly events: Pick<EventStream, 'subscribe'>;
  readonly clock: Clock;
  readonly podManager: Pick<PodManager, 'getPodByUid'>;
  readonly podConfig: Pick<PodConfig, 'desiredPods'>;
  readonly statusManager: Pick<StatusManager, 'podWithStatus'>;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Writes the status the next sync would, from the runtime's last report. */
  refreshPodStatus(pod: Pod): void;
}

/**
 * runOnce (`knode apply`): starts the kubelet on sources read once, waits
 * until every pod they hold is Running (all containers started) or, for
 * run-to-completion pods (no container restarts once it succeeded), Succeeded; or
 * cannot get there; or the timeout passes. Then stops the kubelet.
 * Containers keep running in the runtime.
 */
export async function runOnce(
  kubelet: RunOnceHost,
  timeoutMs: number,
  signal?: AbortSignal,
  onStarted?: (pods: Pod[]) => void,
  /** More to wait for once the sources were read (the local controllers' workloads); STOP fires at the timeout or the signal. */
  waitAlso?: (stop: AbortSignal) => Promise<void>,
): Promise<RunOnceResult> {
  const outcomes = new Map<string, PodOutcome>();
  const seenAt = new Map<string, number>();
  const lastState = new Map<string, string>();
  const manifestErrors: string[] = [];
  const manifestSkipped: string[] = [];
  let wanted = new Set<string>();
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  const decide = (e: LifecycleEvent, ok: boolean, result: string, reason?: string, message?: string) => {
    if (outcomes.has(e.uid) || !e.uid) return;
    outcomes.set(e.uid, { pod: e.pod, uid: e.uid, ok, result, reason, message, durationMs: e.at - (seenAt.get(e.uid) ?? e.at) });
    if (wanted.size > 0 && [...wanted].every((uid) => outcomes.has(uid))) resolveDone();
  };
  const unsubscribe = kubelet.events.subscribe((e) => {
    switch (e.type) {
      case 'ManifestError':
        manifestErrors.push(e.message ?? '');
        break;
      case 'ManifestSkipped':
        // Named at each read of its file: once here.
        if (!manifestSkipped.includes(e.message ?? '')) manifestSkipped.push(e.message ?? '');
        break;
      case 'PodSeen':
        seenAt.set(e.uid, e.at);
        break;
      case 'PodRunning': {
        // Run-to-completion pods (no container restarts after success, by its policy or the pod's) are done when they succeed.
        const pod = kubelet.podManager.getPodByUid(e.uid);
        if (!pod || podRunsForever(pod.spec)) decide(e, true, 'Running');
        break;
      }
      case 'PodSucceeded':
        decide(e, true, 'Succeeded');
        break;
      case 'PodFailed':
      case 'PodRejected':
        decide(e, false, 'Failed', e.reason, e.message);
        break;
      case 'ContainerWaiting':
        if (e.reason && FATAL_WAITING_REASONS.has(e.reason))
          decide(e, false, e.reason, e.reason, `container ${e.container}: ${e.message ?? ''}`);
        else if (e.reason) lastState.set(e.uid, e.reason);
        break;
      case 'SandboxFailed':
        decide(e, false, 'CreatePodSandboxError', e.reason, e.message);
        break;
      case 'StatusChanged':
        lastState.set(e.uid, e.detail?.phase ?? '');
        break;
    }
  });
  const stop = new AbortController();
  const timer = kubelet.clock.setTimeout(() => {
    stop.abort();
    resolveDone();
  }, timeoutMs);
  const onAbort = () => {
    stop.abort();
    resolveDone();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await kubelet.start();
    // The static pods; a controller's pods (from the api source) are its workload's to judge.
    const pods = kubelet.podConfig.desiredPods().filter((p) => p.metadata.annotations?.[ConfigSourceAnnotation] !== 'api');
    wanted = new Set(pods.map((p) => p.metadata.uid!));
    onStarted?.(pods);
    if ([...wanted].every((uid) => outcomes.has(uid))) resolveDone();
    await Promise.all([done, waitAlso?.(stop.signal)]);
    for (const pod of pods) {
      const uid = pod.metadata.uid!;
      if (outcomes.has(uid)) continue;
      const why = signal?.aborted ? 'interrupted' : `timed out after ${Math.round(timeoutMs / 1000)}s`;
      const state = lastState.get(uid) ?? 'Pending';
      outcomes.set(uid, {
        pod: podRef(pod),
        uid,
        ok: false,
        result: state,
        reason: signal?.aborted ? 'Interrupted' : 'Timeout',
        message: `${why}; the pod was ${state}`,
        durationMs: kubelet.clock.now() - (seenAt.get(uid) ?? kubelet.clock.now()),
      });
    }
    // A pod stopped at a failed step: its status says why, as the kubelet's next sync would.
    for (const pod of pods) {
      if (FATAL_WAITING_REASONS.has(outcomes.get(pod.metadata.uid!)!.result)) kubelet.refreshPodStatus(pod);
    }
    const withStatus = pods.map((p) => kubelet.statusManager.podWithStatus(p));
    return { outcomes: pods.map((p) => outcomes.get(p.metadata.uid!)!), pods: withStatus, manifestErrors, manifestSkipped };
  } finally {
    timer.cancel();
    signal?.removeEventListener('abort', onAbort);
    unsubscribe();
    await kubelet.stop();
  }
}
