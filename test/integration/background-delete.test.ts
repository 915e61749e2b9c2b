// The two halves of `knode delete --wait=false` as real processes: the
// command that starts the background delete, and a background delete (a
// script standing in for `knode delete`, speaking through the built
// DetachedDelete) that fails before it requests the deletion, after it, or
// crashes. Errors before the request are the command's; later ones go to the log.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startBackgroundDelete } from '../../src/cli/background-delete.js';
import { repoRoot } from '../helpers/runtimes.js';

const dir = mkdtempSync(join(tmpdir(), 'knode-bgdelete-'));
const log = join(dir, 'logs', 'delete.log');

/** A background delete whose body is `script` (DetachedDelete as `detached`, the log path as `log`). */
function backgroundDelete(name: string, script: string): string {
  const path = join(dir, `${name}.mjs`);
  writeFileSync(
    path,
    `import { DetachedDelete } from ${JSON.stringify(join(repoRoot, 'dist/cli/background-delete.js'))};
const log = ${JSON.stringify(log)};
const detached = DetachedDelete.ofThisProcess(log);
${script}
`,
  );
  return path;
}

describe('delete --wait=false: the background delete and the command that starts it', () => {
  it('passes on the errors written before the deletion is requested, and returns at the request; later errors go to the log', async () => {
    const entry = backgroundDelete(
      'requests',
      `detached.stderr('Error: said before the request');
detached.requested();
detached.stderr('Error: default/web-e2e: said after the request');`,
    );
    const relayed: string[] = [];
    const outcome = await startBackgroundDelete(['-f', 'x'], log, (line) => relayed.push(line), entry);
    expect(outcome).toEqual({ requested: true, errors: ['Error: said before the request'] });
    expect(relayed).toEqual(['Error: said before the request']);
    // The command returned while the background delete goes on: its later error reaches the log.
    const deadline = Date.now() + 10_000;
    while (!(existsSync(log) && readFileSync(log, 'utf8').includes('said after')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(log, 'utf8')).toMatch(/^\S+Z knode delete\[\d+\]: Error: default\/web-e2e: said after the request\n$/m);
    expect(readFileSync(log, 'utf8')).not.toContain('said before');
  });

  it('a background delete that ends before its request is an error of the command, naming the log', async () => {
    const entry = backgroundDelete('fails', `process.exit(3);`);
    const relayed: string[] = [];
    const outcome = await startBackgroundDelete([], log, (line) => relayed.push(line), entry);
    expect(outcome.requested).toBe(false);
    expect(relayed).toEqual([`error: the background delete ended (exit code 3) before it requested the deletion; see ${log}`]);
  });

  it("a crash before the request: the error it told is the command's, its stack is in the log", async () => {
    const entry = backgroundDelete(
      'crashes',
      `detached.stderr('Error: cannot reach the runtime');\nthrow new Error('boom in the background');`,
    );
    const relayed: string[] = [];
    const outcome = await startBackgroundDelete([], log, (line) => relayed.push(line), entry);
    expect(outcome).toEqual({ requested: false, errors: ['Error: cannot reach the runtime'] });
    expect(relayed).toEqual(['Error: cannot reach the runtime']);
    expect(readFileSync(log, 'utf8')).toContain('boom in the background');
  });

  it('a background delete that finished before it said anything (nothing to stop) is a request done', async () => {
    const entry = backgroundDelete('quick', `process.exit(0);`);
    expect(await startBackgroundDelete([], log, () => {}, entry)).toEqual({ requested: true, errors: [] });
  });
});
