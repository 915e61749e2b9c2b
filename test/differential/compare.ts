// Compares the two agents' runs checkpoint by checkpoint, explains differences
// with the known ones (known.ts), and reads and writes the table in README.md
// (between the `differential-table` markers).
import type { Pod } from '../../src/engine/api/v1.js';
import type { AgentName, AgentRun } from './harness.js';
import { excuses, KNOWN, KNOWN_BY_ID, type KnownDifference } from './known.js';
import { normalise, type NormaliseOptions } from './normalise.js';
import { startOf, type Checkpoint, type Scenario } from './scenarios.js';

export interface Row {
  scenario: string;
  /** `10 s`, or a window `10–40 s`. */
  checkpoint: string;
  same: boolean;
  /** What each agent showed (normalised; a window: its states, one block each). */
  kubelet: string;
  knode: string;
  /** For a point that matched only a second away: which. */
  note?: string;
}

export function checkpointLabel(c: Checkpoint): string {
  return c.until === undefined ? `${c.at} s` : `${c.at}–${c.until} s`;
}

/**
 * How many consecutive samples (seconds) a state must last to count in a window.
 * Shorter ones are the moments between two states (a crashing container seen
 * running until the agent notices it exited), whose length is the agent's
 * relist period and the machine's load.
 */
export const HELD = 4;

/** A window's states: those held for at least HELD consecutive samples, distinct, sorted. */
export function windowStates(seq: string[]): string[] {
  const held = new Set<string>();
  let run = 0;
  for (let i = 0; i < seq.length; i++) {
    run = i > 0 && seq[i] === seq[i - 1] ? run + 1 : 1;
    if (run >= HELD) held.add(seq[i]);
  }
  return [...held].sort();
}

const BETWEEN = '\n    · · ·\n';

function applyFixes(pods: Pod[] | undefined, agent: AgentName, fixes: KnownDifference[]): Pod[] | undefined {
  if (!pods || fixes.every((f) => !f.fix)) return pods;
  return pods.map((p) => {
    const copy = structuredClone(p);
    for (const f of fixes) f.fix?.(copy, agent);
    return copy;
  });
}

/** What RUN showed of scenario S (number I in the corpus) at second T of the scenario. */
function at(run: AgentRun, s: Scenario, i: number, t: number, c: Checkpoint, fixes: KnownDifference[]): string | undefined {
  const sample = run.samples.find((x) => x.second === startOf(i) + t);
  if (!sample || sample.error) return undefined;
  const o: NormaliseOptions = { nodeName: run.nodeName, restarts: c.restarts, blankBackOff: c.until !== undefined };
  return normalise(applyFixes(sample.pods[s.name], run.agent, fixes), o);
}

/**
 * How many seconds one agent may reach a state later than the other at a point
 * checkpoint. Behaviour is compared here, not speed (that is the benchmark's): on
 * a machine at 100% CPU knode starts pods a few seconds after the kubelet does.
 */
export const LATE = 8;

/**
 * One checkpoint. A point compares the two samples at that second; when they differ,
 * it is still the same if either agent's state there is one the other agent shows
 * from a second before to LATE seconds after (samples land up to a second late, and
 * one agent may be slower than the other). A window compares the sets of states held
 * in it. FIXES are applied to both agents' pods first.
 */
export function compareCheckpoint(kubelet: AgentRun, knode: AgentRun, s: Scenario, i: number, c: Checkpoint, fixes: KnownDifference[] = []): Row {
  const base = { scenario: s.name, checkpoint: checkpointLabel(c) };
  if (c.until !== undefined) {
    const seq = (run: AgentRun) => {
      const out: string[] = [];
      for (let t = c.at; t <= c.until!; t++) out.push(at(run, s, i, t, c, fixes) ?? '(no sample)');
      return windowStates(out).join(BETWEEN) || '(no state lasted long enough)';
    };
    const k = seq(kubelet);
    const n = seq(knode);
    return { ...base, same: k === n, kubelet: k, knode: n };
  }
  const k = at(kubelet, s, i, c.at, c, fixes) ?? '(no sample)';
  const n = at(knode, s, i, c.at, c, fixes) ?? '(no sample)';
  if (k === n) return { ...base, same: true, kubelet: k, knode: n };
  for (let d = -1; d <= LATE; d++) {
    if (d === 0) continue;
    const when = d > 0 ? `${d} s later` : 'a second earlier';
    if (at(knode, s, i, c.at + d, c, fixes) === k) return { ...base, same: true, kubelet: k, knode: n, note: `knode's state ${when}` };
    if (at(kubelet, s, i, c.at + d, c, fixes) === n) return { ...base, same: true, kubelet: k, knode: n, note: `the kubelet's state ${when}` };
  }
  return { ...base, same: false, kubelet: k, knode: n };
}

/** Every checkpoint of every scenario, compared as it is (no fixes). */
export function compareRuns(kubelet: AgentRun, knode: AgentRun, list: Scenario[]): { row: Row; scenario: Scenario; index: number; checkpoint: Checkpoint }[] {
  return list.flatMap((s, i) => s.checkpoints.map((c) => ({ row: compareCheckpoint(kubelet, knode, s, i, c), scenario: s, index: i, checkpoint: c })));
}

/**
 * Which known differences explain a differing checkpoint: a difference without a fix
 * that lists the scenario, or else the fewest fixes that make the two statuses equal
 * (all of them, then each dropped in turn while the rest still suffice). Undefined when
 * even all fixes together leave a difference.
 */
export function explain(kubelet: AgentRun, knode: AgentRun, s: Scenario, i: number, c: Checkpoint): string[] | undefined {
  const whole = KNOWN.filter((d) => excuses(d, s.name, checkpointLabel(c)));
  if (whole.length > 0) return whole.map((d) => d.id);
  let chosen = KNOWN.filter((d) => d.fix);
  if (!compareCheckpoint(kubelet, knode, s, i, c, chosen).same) return undefined;
  for (const d of [...chosen]) {
    const without = chosen.filter((x) => x !== d);
    if (compareCheckpoint(kubelet, knode, s, i, c, without).same) chosen = without;
  }
  return chosen.map((d) => d.id);
}

/** Whether the differences named by IDS explain the checkpoint. */
export function explainedBy(ids: string[], kubelet: AgentRun, knode: AgentRun, s: Scenario, i: number, c: Checkpoint): boolean {
  const named = ids.map((id) => KNOWN_BY_ID.get(id)).filter((d): d is KnownDifference => d !== undefined);
  if (named.some((d) => excuses(d, s.name, checkpointLabel(c)))) return true;
  return compareCheckpoint(kubelet, knode, s, i, c, named).same;
}

/** A differing row as the lines only one agent has, for reports. */
export function describe(row: Row): string {
  const k = row.kubelet.split('\n');
  const n = row.knode.split('\n');
  const out = [`${row.scenario} @ ${row.checkpoint}:`];
  for (const l of k) if (!n.includes(l)) out.push(`  kubelet  ${l}`);
  for (const l of n) if (!k.includes(l)) out.push(`  knode    ${l}`);
  if (out.length === 1) out.push('  (the same lines in another order)');
  return out.join('\n');
}

// ---- the README table ----

export const TABLE_START = '<!-- differential-table: start (KNODE_DIFF_UPDATE=1 regenerates it) -->';
export const TABLE_END = '<!-- differential-table: end -->';

export interface TableRow {
  scenario: string;
  checkpoint: string;
  result: 'same' | 'different';
  reason: string;
}

const key = (r: { scenario: string; checkpoint: string }) => `${r.scenario} @ ${r.checkpoint}`;

export function parseTable(readme: string): TableRow[] {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return [];
  return readme
    .slice(start + TABLE_START.length, end)
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| scenario') && !l.startsWith('| ---'))
    .map((l) => {
      const cells = l.slice(1, -1).split(' | ').map((c) => c.trim());
      return { scenario: cells[0].replace(/`/g, ''), checkpoint: cells[1], result: cells[2] as TableRow['result'], reason: cells.slice(3).join(' | ') };
    });
}

/** A reason cell: the ids, each with its title. */
export function reasonFor(ids: string[] | undefined): string {
  if (!ids) return 'TODO: a difference no known one explains';
  return ids.map((id) => `${id} (${KNOWN_BY_ID.get(id)!.title.replace(/\|/g, '/')})`).join('; ');
}

export function renderTable(rows: { row: Row; result: TableRow['result']; reason: string }[]): string {
  const lines = ['| scenario | checkpoint | result | reason |', '| --- | --- | --- | --- |'];
  for (const { row, result, reason } of rows) lines.push(`| \`${row.scenario}\` | ${row.checkpoint} | ${result} | ${result === 'same' ? '' : reason} |`);
  return lines.join('\n');
}

export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return `${readme.trimEnd()}\n\n${TABLE_START}\n${table}\n${TABLE_END}\n`;
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

export { key as rowKey };
