import type { LifecycleEvent } from '../engine/events.js';
import { eventSeverity, eventVerbosity } from '../engine/events-table.js';

/**
 * One plain line per lifecycle event, klog-like: time, event, pod (and
 * container, and from -v 2 its UID) or workload, the kubelet's reason, the
 * message.
 */
export function formatEventLine(event: LifecycleEvent, verbosity = 0): string {
  const time = new Date(event.at).toISOString().slice(11, 23);
  const subject = subjectOf(event);
  const uid = verbosity >= 2 && event.pod && event.uid ? ` (${event.uid})` : '';
  const reason = event.reason ? ` [${event.reason}]` : '';
  // A PLEG event says which container (or sandbox: the PLEG counts it as one) by its short id, as crictl prints ids.
  const what = event.type === 'PLEGEvent' && event.detail.containerId ? event.detail.containerId.slice(0, 13) : '';
  const message = event.message ? ` ${event.message}` : what ? ` ${what}` : '';
  return `${time} ${event.type.padEnd(17)} ${subject}${uid}${reason}${message}`;
}

/** Whom EVENT is about: a pod (and container), a workload by its kind, else the node. */
function subjectOf(event: LifecycleEvent): string {
  if (event.pod) return `${event.pod}${event.container ? `/${event.container}` : ''}`;
  if (event.type === 'WorkloadEvent' || event.type === 'WorkloadStatus') {
    const { kind, namespace, name } = event.detail;
    return `${kind.toLowerCase()} ${namespace}/${name}`;
  }
  // A PLEG event of a pod the node no longer has (removed) is named by its UID alone.
  return event.uid ? `pod ${event.uid}` : 'node';
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
    severity: eventSeverity(event),
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
