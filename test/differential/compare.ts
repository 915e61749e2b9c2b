// Compares the two agents' runs scenario by scenario, explains differences
// with the known ones (known.ts), and reads and writes the table in README.md
// (between the `differential-table` markers).
//
// Behaviour is compared, not timing: on a machine busy with runc and containerd,
// either agent may begin a pod seconds later than the other and notice an exit a
// second or two later, so no state is tied to a second. Each scenario has two
// checkpoints:
// - `states`: the states the pod went through. A state either agent held for
//   HELD (10) samples (seconds) in a row must be one the other agent showed at least
//   once. Restart counts and back-off durations are blanked (a crash loop's
//   rounds are the same states), and the moments before an agent began the pod
//   (creating its sandbox, pulling) are left out: their length is speed.
// - `end`: the pod at the end of the run, its restart counts exact. For a pod
//   that never settles (Scenario.loop), only the restart counts, within
//   RESTART_SLACK of each other.
import type { Pod } from '../../src/engine/api/v1.js';
import type { AgentName, AgentRun } from './harness.js';
import { excuses, KNOWN, KNOWN_BY_ID, type KnownDifference } from './known.js';
import { begun, normalise, type NormaliseOptions } from './normalise.js';
import { startOf, type Scenario } from './scenarios.js';

export type Checkpoint = 'states' | 'end';
export const CHECKPOINTS: Checkpoint[] = ['states', 'end'];

export interface Row {
  scenario: string;
  checkpoint: Checkpoint;
  same: boolean;
  /** What each agent showed (normalised; states: one block each). */
  kubelet: string;
  knode: string;
  /** For an end that matched only a few seconds apart: which. */
  note?: string;
}

/**
 * How many consecutive samples (seconds) a state must last for the other agent to
 * have to show it too. The scenarios' own states last longer (a 22 s init
 * container, a 20 s startup probe, a 12 s preStop hook); shorter ones are the
 * moments an agent takes to notice a change (an exit, a stopped sandbox), which
 * reached 6–9 s on a machine kept 97% busy by other suites.
 */
export const HELD = 10;
/** At the end: a pod that settled in its last LATE seconds on one agent is compared with the other's state then. */
export const LATE = 4;
/** How far apart the two agents' restart counts of a crash loop may be at the end. */
export const RESTART_SLACK = 1;

const BETWEEN = '\n    · · ·\n';

function applyFixes(pods: Pod[] | undefined, agent: AgentName, fixes: KnownDifference[]): Pod[] | undefined {
  if (!pods || fixes.every((f) => !f.fix)) return pods;
  return pods.map((p) => {
    const copy = structuredClone(p);
    for (const f of fixes) f.fix?.(copy, agent);
    return copy;
  });
}

const origins = new WeakMap<AgentRun, Map<string, number>>();

/** The second (after its manifest was written) at which RUN shows scenario S's pod begun; undefined if it never does. */
export function originOf(run: AgentRun, s: Scenario, i: number): number | undefined {
  const cache = origins.get(run) ?? origins.set(run, new Map()).get(run)!;
  if (!cache.has(s.name)) {
    const first = run.samples.find((x) => x.second >= startOf(i) && x.pods[s.name]?.some(begun));
    cache.set(s.name, first ? first.second - startOf(i) : -1);
  }
  const origin = cache.get(s.name)!;
  return origin < 0 ? undefined : origin;
}

/**
 * What RUN showed of scenario S (number I in the corpus), a text per sample from
 * its start to the end of the run. Left out: samples before the agent showed the
 * pod begun, and, of several pods (an old and a new one), those not begun (a new
 * pod waiting for the old one to go); a sample left with none is left out too.
 * Absent after the pod was seen (a removed manifest) is a state.
 */
export function trace(
  run: AgentRun,
  s: Scenario,
  i: number,
  o: Omit<NormaliseOptions, 'nodeName'>,
  fixes: KnownDifference[] = [],
): string[] {
  const out: string[] = [];
  let seen = false;
  for (const x of run.samples) {
    if (x.second < startOf(i) || x.error) continue;
    const pods = x.pods[s.name];
    if (!pods || pods.length === 0) {
      if (seen) out.push('absent');
      continue;
    }
    const shown = pods.filter(begun);
    if (shown.length === 0) continue;
    seen = true;
    out.push(normalise(applyFixes(shown, run.agent, fixes), { nodeName: run.nodeName, ...o }));
  }
  return out;
}

/** The states of a trace: those held HELD samples in a row, and every one seen. */
export function statesOf(tr: string[]): { held: string[]; seen: Set<string> } {
  const held = new Set<string>();
  let run = 0;
  for (let i = 0; i < tr.length; i++) {
    run = i > 0 && tr[i] === tr[i - 1] ? run + 1 : 1;
    if (run >= HELD) held.add(tr[i]);
  }
  // A trace that ends before a state is held long enough still has an end state.
  if (held.size === 0 && tr.length > 0) held.add(tr[tr.length - 1]);
  return { held: [...held].sort(), seen: new Set(tr) };
}

const restartsOf = (text: string): Map<string, number> =>
  new Map([...text.matchAll(/^(?:init|container) ([^:]+): .*\| restarts=(\d+) \|/gm)].map((m) => [m[1], Number(m[2])]));

/**
 * One checkpoint of one scenario (see the top of this file). FIXES are applied to
 * both agents' pods first.
 */
export function compareCheckpoint(
  kubelet: AgentRun,
  knode: AgentRun,
  s: Scenario,
  i: number,
  c: Checkpoint,
  fixes: KnownDifference[] = [],
): Row {
  const base = { scenario: s.name, checkpoint: c };
  if (c === 'states') {
    const o = { blankRestarts: true, blankBackOff: true };
    const k = statesOf(trace(kubelet, s, i, o, fixes));
    const n = statesOf(trace(knode, s, i, o, fixes));
    const same = k.held.every((x) => n.seen.has(x)) && n.held.every((x) => k.seen.has(x));
    return { ...base, same, kubelet: k.held.join(BETWEEN) || '(never shown)', knode: n.held.join(BETWEEN) || '(never shown)' };
  }
  const k = trace(kubelet, s, i, { blankBackOff: true }, fixes);
  const n = trace(knode, s, i, { blankBackOff: true }, fixes);
  const kEnd = k.at(-1) ?? '(never shown)';
  const nEnd = n.at(-1) ?? '(never shown)';
  if (s.loop) {
    const kr = restartsOf(kEnd);
    const nr = restartsOf(nEnd);
    const names = [...new Set([...kr.keys(), ...nr.keys()])].sort();
    const show = (r: Map<string, number>) => names.map((name) => `${name} restarts=${r.get(name) ?? '-'}`).join(', ') || '(no containers)';
    const same = names.every((name) => kr.has(name) && nr.has(name) && Math.abs(kr.get(name)! - nr.get(name)!) <= RESTART_SLACK);
    return { ...base, same, kubelet: show(kr), knode: show(nr) };
  }
  if (kEnd === nEnd) return { ...base, same: true, kubelet: kEnd, knode: nEnd };
  if (n.slice(-LATE - 1).includes(kEnd))
    return { ...base, same: true, kubelet: kEnd, knode: nEnd, note: `knode showed the kubelet's end in its last ${LATE} s` };
  if (k.slice(-LATE - 1).includes(nEnd))
    return { ...base, same: true, kubelet: kEnd, knode: nEnd, note: `the kubelet showed knode's end in its last ${LATE} s` };
  return { ...base, same: false, kubelet: kEnd, knode: nEnd };
}

/** Every checkpoint of every scenario, compared as it is (no fixes). */
export function compareRuns(
  kubelet: AgentRun,
  knode: AgentRun,
  list: Scenario[],
): { row: Row; scenario: Scenario; index: number; checkpoint: Checkpoint }[] {
  return list.flatMap((s, i) =>
    CHECKPOINTS.map((c) => ({ row: compareCheckpoint(kubelet, knode, s, i, c), scenario: s, index: i, checkpoint: c })),
  );
}

/**
 * Which known differences explain a differing checkpoint: a difference without a fix
 * that lists the scenario, or else the fewest fixes that make the two statuses equal
 * (all of them, then each dropped in turn while the rest still suffice). Undefined when
 * even all fixes together leave a difference.
 */
export function explain(kubelet: AgentRun, knode: AgentRun, s: Scenario, i: number, c: Checkpoint): string[] | undefined {
  const whole = KNOWN.filter((d) => excuses(d, s.name, c));
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
  if (named.some((d) => excuses(d, s.name, c))) return true;
  return compareCheckpoint(kubelet, knode, s, i, c, named).same;
}

/** A differing row as the lines only one agent has, for reports. */
export function describe(row: Row): string {
  const k = row.kubelet.split('\n');
  const n = row.knode.split('\n');
  const out = [`${row.scenario} @ ${row.checkpoint}:`];
  for (const l of k) if (!n.includes(l)) out.push(`  kubelet  ${l}`);
  for (const l of n) if (!k.includes(l)) out.push(`  knode    ${l}`);
  if (out.length === 1)
    out.push(row.checkpoint === 'states' ? '  (a state one agent held, the other never showed)' : '  (the same lines in another order)');
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
      const cells = l
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim());
      return {
        scenario: cells[0].replace(/`/g, ''),
        checkpoint: cells[1],
        result: cells[2] as TableRow['result'],
        reason: cells.slice(3).join(' | '),
      };
    });
}

/** A reason cell: the ids, each with its title. */
export function reasonFor(ids: string[] | undefined): string {
  if (!ids) return 'TODO: a difference no known one explains';
  return ids.map((id) => `${id} (${KNOWN_BY_ID.get(id)!.title.replace(/\|/g, '/')})`).join('; ');
}

export function renderTable(rows: { row: Row; result: TableRow['result']; reason: string }[]): string {
  const lines = ['| scenario | checkpoint | result | reason |', '| --- | --- | --- | --- |'];
  for (const { row, result, reason } of rows)
    lines.push(`| \`${row.scenario}\` | ${row.checkpoint} | ${result} | ${result === 'same' ? '' : reason} |`);
  return lines.join('\n');
}

export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return `${readme.trimEnd()}\n\n${TABLE_START}\n${table}\n${TABLE_END}\n`;
  return `${readme.slice(0, start + TABLE_START.length)}\n${table}\n${readme.slice(end)}`;
}

export { key as rowKey };
