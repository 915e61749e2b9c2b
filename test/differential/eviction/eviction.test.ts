// The eviction differential (README.md beside this file): the real kubelet and
// knode, each in turn joined as the same node to one real control plane on a
// fresh containerd 2, under a memory threshold their pods' memory crosses on a
// trigger, with pods over local storage limits and pods admitted under
// pressure. Every checkpoint must be as README.md's table records it.
// KNODE_EVICTDIFF_UPDATE=1 rewrites the table (keeping its notes);
// KNODE_EVICTDIFF_OUT=DIR keeps both sides' texts; KNODE_TEST_DIFFERENTIAL=off skips it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane } from '../../helpers/controlplane.js';
import { checkpoints, parseTable, renderTable, replaceTable, type Row } from './checkpoints.js';
import { runAgent, type AgentResult } from './run.js';
import { PRIORITY_CLASSES } from './scenarios.js';

const README = join(import.meta.dirname, 'README.md');
const NODE = 'evictnode';
const off = process.env.KNODE_TEST_DIFFERENTIAL === 'off' || process.env.KNODE_TEST_CONTAINERD2 === 'off';
const update = process.env.KNODE_EVICTDIFF_UPDATE === '1';
let cp: ControlPlane | undefined;
const results: AgentResult[] = [];

beforeAll(async () => {
  if (off) return;
  cp = startControlPlane({ controllers: true });
  for (const pc of PRIORITY_CLASSES) {
    const r = await cp.kubectl('create', 'priorityclass', pc.name, `--value=${pc.value}`);
    if (r.code !== 0) throw new Error(`priorityclass ${pc.name}: ${r.stderr}`);
  }
  for (const agent of ['kubelet', 'knode'] as const) results.push(await runAgent(cp, agent, NODE, () => {}));
}, 600_000);

afterAll(() => cp?.stop());

describe.skipIf(off)('differential: eviction by the real kubelet and by knode, one control plane', () => {
  it('ran both agents through every scenario', () => {
    for (const r of results) console.log(`eviction differential, ${r.agent}: threshold ${r.thresholdKi}Ki; ${r.timings.join('; ')}`);
    const errors = results.filter((r) => r.error).map((r) => `${r.agent}: ${r.error}\n${r.logTail}`);
    expect(errors.join('\n\n')).toBe('');
  });

  it('every checkpoint is as README.md records', () => {
    const [kubelet, knode] = results.map((r) => checkpoints(r, NODE));
    const readme = readFileSync(README, 'utf8');
    const table = new Map(parseTable(readme).map((r) => [r.checkpoint, r]));
    const rows: Row[] = [];
    const failures: string[] = [];
    const report: string[] = [];
    for (const [checkpoint, a] of kubelet) {
      const b = knode.get(checkpoint) ?? 'absent';
      const result = a === b ? 'same' : 'different';
      const committed = table.get(checkpoint);
      rows.push({ checkpoint, result, note: committed?.note ?? '' });
      report.push(`## ${checkpoint}: ${result}\n### kubelet\n${a}\n### knode\n${b}`);
      if (!committed) failures.push(`${checkpoint}: not in README.md's table (KNODE_EVICTDIFF_UPDATE=1 adds it)`);
      else if (committed.result === 'same' && result === 'different') failures.push(`${checkpoint}: README.md says same, now different`);
      else if (committed.result === 'different' && result === 'same') console.log(`${checkpoint}: README.md says different, now the same`);
      else if (result === 'different' && !committed.note) failures.push(`${checkpoint}: different, and README.md gives no reason`);
    }
    const described = new Set([...readme.matchAll(/^### (E\d+)\b/gm)].map((m) => m[1]));
    for (const r of rows)
      for (const id of r.note.match(/\bE\d+\b/g) ?? [])
        if (r.result === 'different' && !described.has(id)) failures.push(`${r.checkpoint}: ${id} is not described in README.md`);
    const out = process.env.KNODE_EVICTDIFF_OUT;
    if (out || failures.length > 0) {
      const dir = out || mkdtempSync(join(tmpdir(), 'knode-evictdiff-report-'));
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'report.md'), report.join('\n\n'));
      console.log(`eviction differential: texts in ${dir}`);
    }
    console.log(
      `eviction differential: ${rows.filter((r) => r.result === 'same').length} same, ${rows.filter((r) => r.result !== 'same').length} different`,
    );
    if (update) {
      writeFileSync(README, replaceTable(readme, renderTable(rows)));
      return;
    }
    expect(failures.join('\n\n')).toBe('');
  });
});
