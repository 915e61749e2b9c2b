// The real kubelet as the oracle: every scenario of scenarios.ts runs through the
// kubelet (v1.37.2, standalone, test/peers/kubelet.sh) and then through knode,
// each on a fresh containerd 2 (test/peers/containerd2.sh), and the normalised pod
// statuses are compared at each checkpoint. The result must match the table in
// results.md: a checkpoint recorded `same` that now differs fails, and so does a
// difference that the known differences it names (known.ts, described in
// README.md) do not explain. KNODE_DIFF_UPDATE=1 rewrites the table
// from the known differences (known.ts), keeping what it recorded as different
// (a checkpoint that differs in some runs only stays recorded; =fresh: this run
// only); KNODE_DIFF_OUT=DIR keeps the raw samples
// and a report; KNODE_DIFF_FROM=DIR compares the samples kept there instead of
// running the agents; KNODE_DIFF_ONLY=a,b runs only those scenarios.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compareCheckpoint,
  compareRuns,
  originOf,
  describe as describeRow,
  explain,
  explainedBy,
  parseTable,
  reasonFor,
  renderTable,
  replaceTable,
  rowKey,
  type Row,
} from './compare.js';
import { runAgent, type AgentRun } from './harness.js';
import { idsIn, KNOWN_BY_ID } from './known.js';
import { normalise } from './normalise.js';
import { scenarios, startOf } from './scenarios.js';

const README = join(import.meta.dirname, 'README.md');
/** The table of results, beside the README that describes the known differences it names. */
const RESULTS = join(import.meta.dirname, 'results.md');
/** The same node name for both agents, so static pods have the same names (`<pod>-diffnode`). */
const NODE = 'diffnode';
/** `1`: rewrite the table, keeping as different what it recorded as different (flaky rows stay recorded); `fresh`: this run only. */
const update = process.env.KNODE_DIFF_UPDATE === '1' || process.env.KNODE_DIFF_UPDATE === 'fresh';
const fresh = process.env.KNODE_DIFF_UPDATE === 'fresh';
const only = process.env.KNODE_DIFF_ONLY?.split(',').filter(Boolean);
const corpus = only ? scenarios.filter((s) => only.includes(s.name)) : scenarios;
/** Off where containerd 2 or the kubelet cannot run (not root, no Go): as the integration suites' switches. */
const off =
  process.env.KNODE_TEST_DIFFERENTIAL === 'off' ||
  process.env.KNODE_TEST_CONTAINERD === 'off' ||
  process.env.KNODE_TEST_CONTAINERD2 === 'off';

let kubelet: AgentRun | undefined;
let knode: AgentRun | undefined;
let compared: ReturnType<typeof compareRuns> = [];
let rows: Row[] = [];
const timings: string[] = [];
/** Set when a check fails: the samples and a report are then kept for a look. */
let failing = false;
/** The agent run under way: afterAll waits for it, so its clean-up runs even after a timeout. */
let running: Promise<unknown> | undefined;
const log = (line: string) => timings.push(line);

/** Each pod's states over the run, a line per change: the report's appendix. */
function series(run: AgentRun): string {
  const out: string[] = [];
  corpus.forEach((s, i) => {
    out.push(`## ${s.name} (${run.agent}; seconds after the manifest was written; the pod began at ${originOf(run, s, i) ?? 'no'} s)`);
    let prev = '';
    for (const sample of run.samples) {
      const t = sample.second - startOf(i);
      if (t < 0) continue;
      const text = sample.error ? `(error: ${sample.error})` : normalise(sample.pods[s.name], { nodeName: run.nodeName });
      if (text !== prev)
        out.push(`${t} s (machine ${Math.round((sample.busy ?? 0) * 100)}% busy):\n    ${text.split('\n').join('\n    ')}`);
      prev = text;
    }
  });
  return out.join('\n');
}

/**
 * The host's network interfaces: the kubelet reads them all on each pod sync, so a host
 * with a thousand leaked veths made it four times as costly and the machine saturated.
 */
const interfaces = (): number => readdirSync('/sys/class/net').length;

function report(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'kubelet.json'), JSON.stringify(kubelet));
  writeFileSync(join(dir, 'knode.json'), JSON.stringify(knode));
  const diffs = rows.filter((r) => !r.same).map(describeRow);
  const busy = (run: AgentRun) =>
    `${run.agent}: machine ${Math.round((run.samples.reduce((a, x) => a + (x.busy ?? 0), 0) / run.samples.length) * 100)}% busy on average, /pods answered ${Math.max(...run.samples.map((x) => x.tookMs - x.second * 1000))} ms late at worst`;
  writeFileSync(
    join(dir, 'report.md'),
    [
      `# differences (${diffs.length} of ${rows.length})`,
      `the host: ${interfaces()} network interfaces`,
      busy(kubelet!),
      busy(knode!),
      ...diffs,
      '',
      '# series',
      series(kubelet!),
      series(knode!),
    ].join('\n\n'),
  );
}

beforeAll(async () => {
  if (off) return;
  const from = process.env.KNODE_DIFF_FROM;
  if (from) {
    // The samples of an earlier run (KNODE_DIFF_OUT): compare again without running anything.
    kubelet = JSON.parse(readFileSync(join(from, 'kubelet.json'), 'utf8')) as AgentRun;
    knode = JSON.parse(readFileSync(join(from, 'knode.json'), 'utf8')) as AgentRun;
  } else {
    // One agent at a time: the kubelet kills every sandbox on its runtime that is not its own.
    kubelet = await (running = runAgent('kubelet', corpus, NODE, log));
    knode = await (running = runAgent('knode', corpus, NODE, log));
  }
  compared = compareRuns(kubelet, knode, corpus);
  rows = compared.map((c) => c.row);
}, 600_000);

afterAll(async () => {
  await running?.catch(() => {});
  if (!kubelet || !knode) return;
  if (process.env.KNODE_DIFF_FROM) return;
  const dir = process.env.KNODE_DIFF_OUT || (failing ? mkdtempSync(join(tmpdir(), 'knode-differential-')) : '');
  if (dir) {
    report(dir);
    console.log(`differential: samples and report in ${dir}`);
  }
}, 600_000);

describe.skipIf(off)('differential: the real kubelet and knode, same containerd 2, same pods', () => {
  it('both agents ran every scenario and answered /pods at every second', () => {
    console.log(
      `differential: ${corpus.length} scenarios, ${rows.length} checkpoints; ${timings.join('; ')}; kubelet ${kubelet!.wallMs} ms (CPU: kubelet ${kubelet!.cpuSeconds.agent} s, its containerd ${kubelet!.cpuSeconds.containerd} s), knode ${knode!.wallMs} ms (CPU: knode ${knode!.cpuSeconds.agent} s, its containerd ${knode!.cpuSeconds.containerd} s); the host: ${interfaces()} network interfaces`,
    );
    const errors = [kubelet!, knode!].flatMap((run) =>
      run.samples.filter((s) => s.error).map((s) => `${run.agent} @ ${s.second} s: ${s.error}`),
    );
    failing ||= errors.length > 0;
    expect(errors).toEqual([]);
  });

  it('every checkpoint is as results.md records: same stays same, a difference is only what its known differences explain', () => {
    const readme = readFileSync(README, 'utf8');
    const results = readFileSync(RESULTS, 'utf8');
    const table = new Map(parseTable(results).map((r) => [rowKey(r), r]));
    const failures: string[] = [];
    const notes: string[] = [];
    const rendered: { row: Row; result: 'same' | 'different'; reason: string }[] = [];
    for (const { row, scenario, index, checkpoint } of compared) {
      const k = rowKey(row);
      const committed = table.get(k);
      table.delete(k);
      const auto = row.same ? [] : explain(kubelet!, knode!, scenario, index, checkpoint);
      const kept =
        row.same &&
        !fresh &&
        committed?.result === 'different' &&
        idsIn(committed.reason).length > 0 &&
        idsIn(committed.reason).every((id) => KNOWN_BY_ID.has(id));
      rendered.push(
        kept
          ? { row, result: 'different', reason: committed!.reason }
          : { row, result: row.same ? 'same' : 'different', reason: reasonFor(auto) },
      );
      if (update) {
        if (!auto)
          failures.push(`${k}: different, and no known difference explains it (add one to known.ts and README.md):\n${describeRow(row)}`);
        continue;
      }
      if (!committed) {
        failures.push(`${k}: not in results.md (KNODE_DIFF_UPDATE=1 adds it)`);
      } else if (row.same) {
        if (committed.result === 'different')
          notes.push(`${k}: results.md says different, now the same (KNODE_DIFF_UPDATE=1 updates the table)`);
      } else if (committed.result === 'same') {
        failures.push(`${k}: results.md says same, now different:\n${describeRow(row)}`);
      } else {
        const ids = idsIn(committed.reason);
        const unknown = ids.filter((id) => !KNOWN_BY_ID.has(id));
        if (ids.length === 0 || unknown.length > 0)
          failures.push(
            `${k}: different, and results.md names no known difference${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
          );
        else if (!explainedBy(ids, kubelet!, knode!, scenario, index, checkpoint)) {
          const fixed = compareCheckpoint(
            kubelet!,
            knode!,
            scenario,
            index,
            checkpoint,
            ids.map((id) => KNOWN_BY_ID.get(id)!),
          );
          failures.push(
            `${k}: differs beyond ${ids.join(', ')}${auto ? ` (now explained by ${auto.join(', ')})` : ''}:\n${describeRow(fixed)}`,
          );
        }
      }
    }
    if (!update) for (const k of table.keys()) failures.push(`${k}: in results.md but not in the corpus`);
    // Every id the table uses is described in README.md.
    const described = new Set([...readme.matchAll(/^### (D\d+)\b/gm)].map((m) => m[1]));
    const used = new Set(rendered.flatMap((r) => idsIn(r.reason)));
    for (const id of used) if (!described.has(id)) failures.push(`${id}: used in the table, not described in README.md (### ${id} ...)`);
    if (update) {
      writeFileSync(RESULTS, replaceTable(results, renderTable(rendered)));
      console.log('differential: results.md rewritten');
    }
    for (const n of notes) console.log(`differential: ${n}`);
    console.log(`differential: ${rows.filter((r) => r.same).length} same, ${rows.filter((r) => !r.same).length} different`);
    if (only) return; // a subset cannot be held against the whole table
    failing ||= failures.length > 0;
    expect(failures.join('\n\n')).toBe('');
  });
});
