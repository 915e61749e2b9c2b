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
  nominatedNode: string;
  /** `true/total` of the pod's readiness gates, `<none>` without any. */
  readinessGates: string;
}

/** A pod as `kubectl get pods` prints it, computed the way kubectl's printer does. */
export function podRow(pod: Pod): PodRow {
  const status = pod.status ?? {};
  const inits = pod.spec.initContainers ?? [];
  const restartable = new Set(inits.filter(isRestartableInit).map((c) => c.name));
  let reason: string = status.reason || status.phase || 'Pending';
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  let readyCount = 0;
  const total = pod.spec.containers.length + restartable.size;
  const later = (a: number | undefined, at?: string) => {
    const t = at ? Date.parse(at) : NaN;
    return !Number.isNaN(t) && (a === undefined || t > a) ? t : a;
  };

  let initializing = false;
  const initStatuses = status.initContainerStatuses ?? [];
  for (let i = 0; i < initStatuses.length; i++) {
    const c = initStatuses[i];
    restarts += c.restartCount;
    lastRestart = later(lastRestart, c.lastState?.terminated?.finishedAt);
    if (restartable.has(c.name)) {
      sidecarRestarts += c.restartCount;
      lastSidecarRestart = later(lastSidecarRestart, c.lastState?.terminated?.finishedAt);
    }
    const t = c.state?.terminated;
    if (t && t.exitCode === 0) continue;
    if (restartable.has(c.name) && c.started) {
      if (c.ready) readyCount++;
      continue;
    }
    if (t) reason = t.reason ? `Init:${t.reason}` : t.signal ? `Init:Signal:${t.signal}` : `Init:ExitCode:${t.exitCode}`;
    else if (c.state?.waiting?.reason && c.state.waiting.reason !== 'PodInitializing') reason = `Init:${c.state.waiting.reason}`;
    else reason = `Init:${i}/${inits.length}`;
    initializing = true;
    break;
  }

  const initialized = status.conditions?.some((c) => c.type === 'Initialized' && c.status === 'True') ?? false;
  if (!initializing || initialized) {
    // Once initialized, finished init containers' restarts no longer count.
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    for (const c of [...(status.containerStatuses ?? [])].reverse()) {
      restarts += c.restartCount;
      lastRestart = later(lastRestart, c.lastState?.terminated?.finishedAt);
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
  if (pod.metadata.deletionTimestamp) {
    if (status.reason === 'NodeLost') reason = 'Unknown';
    else if (status.phase !== 'Succeeded' && status.phase !== 'Failed') reason = 'Terminating';
  }

  return {
    name: pod.metadata.name ?? '',
    namespace: pod.metadata.namespace ?? 'default',
    ready: `${readyCount}/${total}`,
    status: reason,
    restarts,
    lastRestart,
    createdAt: Date.parse(pod.metadata.creationTimestamp ?? '') || 0,
    ip: status.podIPs?.[0]?.ip ?? status.podIP ?? '',
    node: pod.spec.nodeName ?? '',
    nominatedNode: status.nominatedNodeName ?? '',
    readinessGates: readinessGates(pod),
  };
}

/** kubectl's READINESS GATES: how many of the pod's gates have a True condition, of how many. */
function readinessGates(pod: Pod): string {
  const gates = pod.spec.readinessGates ?? [];
  if (gates.length === 0) return '<none>';
  const met = gates.filter((g) => pod.status?.conditions?.find((c) => c.type === g.conditionType)?.status === 'True').length;
  return `${met}/${gates.length}`;
}

/** A duration as kubectl prints ages: 45s, 3m12s, 5h, 2d3h, 2y70d; `<invalid>` for the clearly negative. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 ? `${minutes}m${seconds % 60}s` : `${minutes}m`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 ? `${hours}h${minutes % 60}m` : `${hours}h`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 ? `${days}d${hours % 24}h` : `${days}d`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 ? `${years}y${days % 365}d` : `${years}y`;
  return `${years}y`;
}
