import type { LifecycleEvent } from '../engine/events.js';

/** Events too frequent for a line each unless asked for (-v). */
const NOISY = new Set(['PLEGRelist', 'StatusChanged', 'Housekeeping']);

export function isNoisy(event: LifecycleEvent): boolean {
  return NOISY.has(event.type) && !(event.type === 'PLEGRelist' && event.reason);
}

/**
 * One plain line per lifecycle event, klog-like: time, event, pod (and
 * container), the kubelet's reason, the message.
 */
export function formatEventLine(event: LifecycleEvent): string {
  const time = new Date(event.at).toISOString().slice(11, 23);
  const subject = event.pod ? `${event.pod}${event.container ? `/${event.container}` : ''}` : 'node';
  const reason = event.reason ? ` [${event.reason}]` : '';
  const message = event.message ? ` ${event.message}` : '';
  return `${time} ${event.type.padEnd(17)} ${subject}${reason}${message}`;
}

/** The event as one NDJSON line. */
export function formatEventJson(event: LifecycleEvent): string {
  return JSON.stringify({ ...event, time: new Date(event.at).toISOString() });
}
