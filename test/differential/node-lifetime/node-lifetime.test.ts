// The node-lifetime differential (README.md beside this file): container log
// rotation and container garbage collection by the real kubelet and by knode,
// each in turn on a fresh containerd 2, looked at from outside. Every
// checkpoint must be as the README's table records it.
// KNODE_LIFEDIFF_UPDATE=1 rewrites the table (keeping its notes);
// KNODE_TEST_DIFFERENTIAL=off skips it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { markdownTable, markedTable } from '../readme-table.js';
import { runAgent, type AgentResult } from './run.js';

const README = join(import.meta.dirname, 'README.md');
const NODE = 'lifenode';
const off = process.env.KNODE_TEST_DIFFERENTIAL === 'off' || process.env.KNODE_TEST_CONTAINERD2 === 'off';
const update = process.env.KNODE_LIFEDIFF_UPDATE === '1';
const table = markedTable('node-lifetime');
const results: AgentResult[] = [];

beforeAll(async () => {
  if (off) return;
  for (const agent of ['kubelet', 'knode'] as const) results.push(await runAgent(agent, NODE, (l) => console.log(`node-lifetime: ${l}`)));
}, 600_000);

describe.skipIf(off)('differential: log rotation and container GC by the real kubelet and by knode', () => {
  it('ran both agents through both parts', () => {
    const errors = results.filter((r) => r.error).map((r) => `${r.agent}: ${r.error}\n${r.logTail}`);
    expect(errors.join('\n\n')).toBe('');
  });

  it("every checkpoint is as the README's table records", () => {
    const [kubelet, knode] = results.map((r) => r.checkpoints);
    const readme = readFileSync(README, 'utf8');
    const committed = new Map(
      table.rows(readme, 'checkpoint').map(([checkpoint, result, ...note]) => [checkpoint, { result, note: note.join(' | ') }]),
    );
    const rows: string[][] = [];
    const failures: string[] = [];
    for (const [checkpoint, a] of kubelet) {
      const b = knode.get(checkpoint) ?? 'absent';
      const result = a === b ? 'same' : 'different';
      const was = committed.get(checkpoint);
      rows.push([checkpoint, result, result === 'same' ? '' : (was?.note ?? '')]);
      const texts = `\n--- kubelet\n${a}\n--- knode\n${b}`;
      if (!was) failures.push(`${checkpoint}: not in the README's table (KNODE_LIFEDIFF_UPDATE=1 adds it)${texts}`);
      else if (was.result === 'same' && result === 'different') failures.push(`${checkpoint}: the README says same, now different${texts}`);
      else if (was.result === 'different' && result === 'same') console.log(`${checkpoint}: the README says different, now the same`);
      else if (result === 'different' && !was.note) failures.push(`${checkpoint}: different, and the README gives no reason${texts}`);
      else if (result === 'different') console.log(`${checkpoint}: different (${was.note})${texts}`);
    }
    for (const checkpoint of committed.keys())
      if (!kubelet.has(checkpoint)) failures.push(`${checkpoint}: in the README's table, not checked any more`);
    if (update) {
      writeFileSync(README, table.replace(readme, markdownTable(['checkpoint', 'result', 'note'], rows)));
      return;
    }
    expect(failures.join('\n\n')).toBe('');
  });
});
