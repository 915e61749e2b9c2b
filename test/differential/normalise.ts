// A pod status reduced to what the differential tests compare (README.md beside
// this file lists what is dropped and why): phase and reason, the conditions'
// type/status/reason, each container's state kind, reason, exit code and
// message, its last state, ready, started, restartCount and image, the order of
// the container statuses, the QoS class, and the kubectl READY, STATUS and RESTARTS columns
// computed by knode's own podRow() for both agents' pods.
import { podRow } from '../../src/engine/api/printers.js';
import type { ContainerState, ContainerStatus, Pod } from '../../src/engine/api/v1.js';
export interface NormaliseOptions {
  nodeName: string;
  /** Restart counts print as `n`: a crash loop's cycles are then one state each time round. */
  blankRestarts?: boolean;
  /** Blank back-off durations in messages (`back-off <t>`): they follow the restart count. */
  blankBackOff?: boolean;
}

/** Scrubs what differs by construction from a message: the pod UID, container/sandbox IDs, digests, the node name. */
export function scrub(text: string, pod: Pod, o: NormaliseOptions): string {
  let out = text;
  const uid = pod.metadata.uid;
  if (uid) out = out.split(uid).join('<uid>');
  out = out.replace(/\b[0-9a-f]{64}\b/g, '<id>');
  if (o.nodeName) out = out.split(o.nodeName).join('<node>');
  if (o.blankBackOff) out = out.replace(/\bback-off \d+[0-9hms.]*/g, 'back-off <t>');
  // The preemption path's shortfall depends on what else the node runs at that moment (scenarios run side by side).
  out = out.replace(/\(res: (\w+), q: \d+\)/g, '(res: $1, q: <q>)');
  return out.replace(/\s+$/, '');
}

function state(s: ContainerState | undefined, pod: Pod, o: NormaliseOptions): string {
  if (!s || (!s.running && !s.terminated && !s.waiting)) return '-';
  const msg = (m?: string) => (m ? ` "${scrub(m, pod, o).replace(/\n/g, '\\n')}"` : '');
  if (s.running) return 'running';
  if (s.terminated) {
    const t = s.terminated;
    return `terminated ${t.reason ?? '-'} exit=${t.exitCode}${t.signal ? ` signal=${t.signal}` : ''}${msg(t.message)}`;
  }
  return `waiting ${s.waiting!.reason ?? '-'}${msg(s.waiting!.message)}`;
}

function count(n: number, o: NormaliseOptions): string {
  return o.blankRestarts ? 'n' : String(n);
}

function container(kind: string, c: ContainerStatus, pod: Pod, o: NormaliseOptions): string {
  return [
    `${kind} ${c.name}: ${state(c.state, pod, o)}`,
    `last ${state(c.lastState, pod, o)}`,
    `ready=${c.ready}`,
    `started=${c.started ?? '-'}`,
    `restarts=${count(c.restartCount, o)}`,
    `image=${c.image}`,
  ].join(' | ');
}

/** One pod as lines of text; the same text on both sides means the same status. */
export function normalisePod(pod: Pod, o: NormaliseOptions): string[] {
  const st = pod.status ?? {};
  const row = podRow(pod);
  const lines = [
    `STATUS ${row.status} | READY ${row.ready} | RESTARTS ${count(row.restarts, o)}${pod.metadata.deletionTimestamp ? ' | deleting' : ''}`,
    `phase ${st.phase ?? '-'}${st.reason ? ` reason=${st.reason}` : ''}${st.message ? ` message="${scrub(st.message, pod, o)}"` : ''} | qosClass ${st.qosClass ?? '-'}`,
    `conditions ${(st.conditions ?? [])
      .map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`)
      .sort()
      .join(' ')}`,
  ];
  for (const c of st.initContainerStatuses ?? []) lines.push(container('init', c, pod, o));
  // Containers by name, with their order on a line of its own: an order difference is one line of the diff.
  const regular = st.containerStatuses ?? [];
  if (regular.length > 1) lines.push(`containerStatuses order: ${regular.map((c) => c.name).join(', ')}`);
  for (const c of [...regular].sort((a, b) => a.name.localeCompare(b.name))) lines.push(container('container', c, pod, o));
  return lines;
}

/** What an agent shows for one scenario's pod at one sample: absent, one pod, or several (an old and a new one). */
export function normalise(pods: Pod[] | undefined, o: NormaliseOptions): string {
  if (!pods || pods.length === 0) return 'absent';
  const texts = pods.map((p) => normalisePod(p, o).join('\n'));
  return texts.length === 1 ? texts[0] : texts.map((t, i) => `pod ${i + 1} of ${texts.length}:\n${t}`).join('\n');
}

const WAITING_TO_BEGIN = new Set(['ContainerCreating', 'PodInitializing']);

/** Whether the agent shows the pod begun: a container running or terminated, or waiting for another reason than being created. */
export function begun(pod: Pod): boolean {
  const st = pod.status;
  if (!st) return false;
  if (st.phase && st.phase !== 'Pending') return true;
  return [...(st.initContainerStatuses ?? []), ...(st.containerStatuses ?? [])].some(
    (c) => c.state?.running || c.state?.terminated || (c.state?.waiting?.reason && !WAITING_TO_BEGIN.has(c.state.waiting.reason)),
  );
}
