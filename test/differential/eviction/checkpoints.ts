// What the eviction differential compares (README.md beside this file): a
// text per checkpoint from what one agent's run left in the cluster, the same
// function for both agents, and README.md's table of the results.
import type { Pod } from '../../../src/engine/api/v1.js';
import { normalisePod } from '../normalise.js';
import { markdownTable, markedTable } from '../readme-table.js';
import type { AgentResult, Kube } from './run.js';
import { MEMORY_PODS, STATIC_POD } from './scenarios.js';

/** Numbers that depend on the machine's memory and the pods' usage: the threshold, what was available, what a container used. */
export function maskUsage(message: string): string {
  return message
    .replace(/Threshold quantity: \S+, available: \S+\./g, 'Threshold quantity: <q>, available: <q>.')
    .replace(/was using \S+, request is/g, 'was using <q>, request is');
}

/**
 * A pod as two checkpoints: its status (phase, reason, message, conditions,
 * the DisruptionTarget condition's words) and its containers (kubectl's
 * STATUS column and each container's state), which README.md's E1 keeps apart.
 */
function podTexts(out: Map<string, string>, key: string, pod: Kube | undefined, node: string): void {
  if (!pod) {
    out.set(key, 'absent');
    out.set(`${key}: containers`, 'absent');
    return;
  }
  const [row, ...lines] = normalisePod(pod as unknown as Pod, { nodeName: node }).map(maskUsage);
  const status = lines.filter((l) => l.startsWith('phase ') || l.startsWith('conditions '));
  for (const c of pod.status?.conditions ?? [])
    if (c.type === 'DisruptionTarget') status.push(`DisruptionTarget ${c.status} ${c.reason ?? '-'} "${maskUsage(c.message ?? '')}"`);
  out.set(key, status.join('\n'));
  out.set(`${key}: containers`, [row, ...lines.filter((l) => !status.includes(l))].join('\n'));
}

const disruptedAt = (p: Kube) => p.status?.conditions?.find((c) => c.type === 'DisruptionTarget')?.lastTransitionTime ?? '';

/** Checkpoint name → text, for one agent's run. */
export function checkpoints(r: AgentResult, node: string): Map<string, string> {
  const out = new Map<string, string>();
  const named = (n: string) => r.pods.find((p) => p.metadata.name === n);
  // Which pods the memory pressure evicted (their DisruptionTarget condition: a kubelet's evicted pod may end Succeeded, E2), in the order it was set (a pass each, 10 s apart).
  const memoryNames = [...MEMORY_PODS.map((p) => p.name), `${STATIC_POD.name}-${node}`];
  const gone = r.pods
    .filter((p) => memoryNames.includes(p.metadata.name) && disruptedAt(p))
    .sort((a, b) => disruptedAt(a).localeCompare(disruptedAt(b)) || a.metadata.name.localeCompare(b.metadata.name));
  out.set('memory: eviction order', gone.map((p) => p.metadata.name.replace(node, '<node>')).join(', ') || 'none');
  for (const p of MEMORY_PODS) podTexts(out, `memory: ${p.name}`, named(p.name), node);
  podTexts(out, 'static pod (mirror)', named(`${STATIC_POD.name}-${node}`), node);
  for (const n of ['admit-besteffort', 'admit-burstable']) podTexts(out, `admission: ${n}`, named(n), node);
  for (const n of ['emptydir-limit', 'ephemeral-limit']) podTexts(out, `storage: ${n}`, named(n), node);
  const conditions = (r.node?.status?.conditions ?? [])
    .filter((c) => c.type.endsWith('Pressure') || c.type === 'Ready')
    .map((c) => `${c.type}=${c.status} ${c.reason ?? '-'} "${c.type === 'Ready' ? '' : (c.message ?? '')}"`)
    .sort();
  out.set('node: conditions', conditions.join('\n') || 'absent');
  out.set(
    'node: taints',
    (r.node?.spec?.taints ?? [])
      .map((t) => `${t.key}:${t.effect}`)
      .sort()
      .join('\n') || 'none',
  );
  const events = r.events
    .filter((e) => e.reason === 'Evicted' || e.reason === 'EvictionThresholdMet')
    .map(
      (e) =>
        `${e.involvedObject?.kind}/${e.involvedObject?.name.replace(node, '<node>')}: ${e.type} ${e.reason} "${maskUsage(e.message ?? '')}"`,
    )
    .sort();
  out.set('events: Evicted', [...new Set(events)].join('\n') || 'none');
  return out;
}

export interface Row {
  checkpoint: string;
  result: 'same' | 'different';
  note: string;
}

const table = markedTable('eviction');

export function parseTable(readme: string): Row[] {
  return table.rows(readme, 'checkpoint').map((cells) => ({
    checkpoint: cells[0],
    result: cells[1] as Row['result'],
    note: cells.slice(2).join(' | '),
  }));
}

export function renderTable(rows: Row[]): string {
  return markdownTable(
    ['checkpoint', 'result', 'note'],
    rows.map((r) => [r.checkpoint, r.result, r.result === 'same' ? '' : r.note]),
  );
}

export const replaceTable = (readme: string, text: string): string => table.replace(readme, text);
