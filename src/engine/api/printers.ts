import { isRestartableInit } from './pod-util.js';
import type { Pod } from './v1.js';

export interface PodRow {
  name: string;
  namespace: string;
  /** `ready/total`, counting regular containers and sidecars. */
  ready: string;
  /** kubectl's STATUS column: the phase, or the reason that matters more (CrashLoopBackOff, Init:0/2, Completed ...). */
  status: string;
  restarts: number;
  /** When the newest restart happened (ms), for "3 (12s ago)". */
  lastRestart?: number;
  createdAt: number;
  ip: string;
  node: string;
}

/** A pod as `kubectl get pods` prints it, computed the way kubectl's printer does. */
export function podRow(pod: Pod): PodRow {
  const status = pod.status ?? {};
  const inits = pod.spec.initContainers ?? [];
  let reason: string = status.reason || status.phase || 'Pending';
  let restarts = 0;
  let lastRestart: number | undefined;
  let readyCount = 0;
  const total = pod.spec.containers.length + inits.filter(isRestartableInit).length;
  const noteRestart = (terminatedAt?: string) => {
    const t = terminatedAt ? Date.parse(terminatedAt) : NaN;
    if (!Number.isNaN(t) && (lastRestart === undefined || t > lastRestart)) lastRestart = t;
  };

  let initializing = false;
  (status.initContainerStatuses ?? []).forEach((c, i) => {
    if (initializing) return;
    restarts += c.restartCount;
    if (c.restartCount > 0) noteRestart(c.lastState?.terminated?.finishedAt);
    const spec = inits.find((s) => s.name === c.name);
    if (spec && isRestartableInit(spec) && c.started) {
      if (c.ready) readyCount++;
      return;
    }
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) return;
    if (t) reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${inits.length}`;
    initializing = true;
  });

  if (!initializing) {
    restarts = (status.initContainerStatuses ?? []).reduce((n, c) => n + c.restartCount, 0);
    let hasRunning = false;
    for (const c of [...(status.containerStatuses ?? [])].reverse()) {
      restarts += c.restartCount;
      if (c.restartCount > 0) noteRestart(c.lastState?.terminated?.finishedAt);
      const t = c.state?.terminated;
      if (c.state?.waiting?.reason) reason = c.state.waiting.reason;
      else if (t?.reason) reason = t.reason;
      else if (t) reason = t.signal ? `Signal:${t.signal}` : `ExitCode:${t.exitCode}`;
      else if (c.ready && c.state?.running) {
        hasRunning = true;
        readyCount++;
      }
    }
    if (reason === 'Completed' && hasRunning) {
      reason = status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? 'Running' : 'NotReady';
    }
  }
  if (pod.metadata.deletionTimestamp) reason = 'Terminating';

  return {
    name: pod.metadata.name ?? '',
    namespace: pod.metadata.namespace ?? 'default',
    ready: `${readyCount}/${total}`,
    status: reason,
    restarts,
    lastRestart,
    createdAt: Date.parse(pod.metadata.creationTimestamp ?? '') || 0,
    ip: status.podIP ?? '',
    node: pod.spec.nodeName ?? '',
  };
}

/** A duration as kubectl prints ages: 45s, 3m12s, 5h, 2d3h. */
export function humanDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  return d < 8 ? `${d}d${h % 24 ? `${h % 24}h` : ''}` : `${d}d`;
}
