import type { LifecycleEvent } from '../engine/events.js';

/** Events too frequent for a line each unless asked for (-v 4). */
const NOISY = new Set(['PLEGRelist', 'StatusChanged', 'Housekeeping']);
/** The steps inside a pod worker's pass: -v 3. */
const DETAIL = new Set(['PodSynced', 'PLEGEvent', 'WorkerStarted', 'WorkerFinished', 'VolumesReady']);
/** What went wrong: shown at every verbosity, as klog's errors and warnings are. */
const PROBLEMS = new Set([
  'ManifestError',
  'PodRejected',
  'SyncFailed',
  'SandboxFailed',
  'PodNetworkMissing',
  'ImagePullFailed',
  'ImagePullBackOff',
  'ContainerFailed',
  'ContainerBackOff',
  'ProbeFailed',
  'PodFailed',
  'ClusterWarning',
  'RuntimeUnhealthy',
  'PLEGUnhealthy',
  'RuntimeConditionChanged',
  'NodeReadyChanged',
  'OrphanKilled',
]);

export function isNoisy(event: LifecycleEvent): boolean {
  return NOISY.has(event.type) && !(event.type === 'PLEGRelist' && event.reason);
}

/**
 * The klog verbosity an event is logged at (`-v`): 0 problems and the pod
 * lifecycle (what knode always showed), 3 the worker's inner steps, 4 relists,
 * status changes and housekeeping. `-v 2` and up add pod UIDs to the lines.
 */
export function eventVerbosity(event: LifecycleEvent): number {
  if (PROBLEMS.has(event.type)) return 0;
  if (isNoisy(event)) return 4;
  if (DETAIL.has(event.type)) return 3;
  return 0;
}

/** Whether a severity letter of klog's (I, W, E) fits: problems are warnings, failures errors. */
function severity(event: LifecycleEvent): 'I' | 'W' | 'E' {
  if (['PodFailed', 'RuntimeUnhealthy', 'PLEGUnhealthy', 'ManifestError'].includes(event.type)) return 'E';
  return PROBLEMS.has(event.type) ? 'W' : 'I';
}

/**
 * One plain line per lifecycle event, klog-like: time, event, pod (and
 * container, and from -v 2 its UID), the kubelet's reason, the message.
 */
export function formatEventLine(event: LifecycleEvent, verbosity = 0): string {
  const time = new Date(event.at).toISOString().slice(11, 23);
  const subject = event.pod ? `${event.pod}${event.container ? `/${event.container}` : ''}` : 'node';
  const uid = verbosity >= 2 && event.uid ? ` (${event.uid})` : '';
  const reason = event.reason ? ` [${event.reason}]` : '';
  const message = event.message ? ` ${event.message}` : '';
  return `${time} ${event.type.padEnd(17)} ${subject}${uid}${reason}${message}`;
}

/**
 * The event as one structured log line in klog's JSON format (`--log-format
 * json`): ts in seconds, v, msg, then the keys (pod as a namespace/name
 * object, as Kubernetes' structured logging writes object references).
 */
export function formatEventLogJson(event: LifecycleEvent, verbosity = 0): string {
  const [namespace, name] = event.pod.split('/');
  const line: Record<string, unknown> = {
    ts: event.at / 1000,
    v: eventVerbosity(event),
    severity: severity(event),
    msg: event.message || event.type,
    event: event.type,
  };
  if (event.pod) line.pod = { name, namespace };
  if (event.pod && verbosity >= 2) line.podUID = event.uid;
  if (event.container) line.container = event.container;
  if (event.reason) line.reason = event.reason;
  if (event.detail) Object.assign(line, event.detail);
  return JSON.stringify(line);
}

/** The event as one NDJSON line. */
export function formatEventJson(event: LifecycleEvent): string {
  return JSON.stringify({ ...event, time: new Date(event.at).toISOString() });
}
