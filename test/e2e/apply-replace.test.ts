// `knode apply --replace` as `kubectl replace --force`: the pods an earlier
// apply left running under the same names are stopped and removed, then
// created again from the manifests; without it, a changed manifest is told.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { KubeletLabels } from '../../src/cri/types.js';
import { knode } from '../helpers/cli.js';
import { eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-apply-replace-'));
const file = join(root, 'pod.yaml');
const at = ['--root-dir', root, '--node-name', 'e2e'];

function writePod(version: string): void {
  writeFileSync(
    file,
    `apiVersion: v1\nkind: Pod\nmetadata:\n  name: versioned\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sh", "-c", "trap 'exit 0' TERM; echo version ${version}; while true; do sleep 1 & wait $!; done"]\n`,
  );
}

/** The ready sandboxes named versioned-e2e, by id. */
async function sandboxes(): Promise<string[]> {
  const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
  try {
    const list = await client.listPodSandbox({ state: { state: 'SANDBOX_READY' } });
    return list.filter((s) => s.labels[KubeletLabels.podName] === 'versioned-e2e').map((s) => s.id);
  } finally {
    client.close();
  }
}

afterAll(async () => {
  await knode(['delete', '-f', file, '--now', ...at], { timeoutMs: 60_000 });
  await knode(['runtime', 'stop', '--root-dir', root]);
}, 90_000);

describe('knode apply --replace', () => {
  it('recreates the pods an earlier apply left, of a changed manifest or the same one', async () => {
    writePod('1');
    const first = await knode(['apply', '-f', file, ...at], { timeoutMs: 90_000 });
    expect(first.code, first.stderr).toBe(0);
    const [v1] = await sandboxes();

    // A changed manifest is a new UID: without --replace the old pod stays, and apply says so.
    writePod('2');
    const beside = await knode(['apply', '-f', file, ...at], { timeoutMs: 90_000 });
    expect(beside.code, beside.stderr).toBe(0);
    expect(beside.stderr).toContain(
      'Warning: pod "versioned-e2e" from an earlier apply of another spec is still running and stays beside the new one; give --replace to recreate it',
    );
    expect(await sandboxes()).toHaveLength(2);

    const replaced = await knode(['apply', '-f', file, '--replace', ...at], { timeoutMs: 90_000 });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stderr).toContain('pod "versioned-e2e" deleted from default namespace');
    expect(replaced.stderr).toMatch(/1 pod: 1 Running/);
    const after = await sandboxes();
    expect(after).toHaveLength(1);
    expect(after).not.toContain(v1);
    await eventually(
      async () => (await knode(['logs', 'versioned-e2e', '--root-dir', root])).stdout.includes('version 2'),
      'the new spec to run',
      30_000,
    );

    // The same manifest again: recreated all the same, as kubectl replace --force does.
    const again = await knode(['apply', '-f', file, '--replace', ...at], { timeoutMs: 90_000 });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('pod "versioned-e2e" deleted from default namespace');
    const last = await sandboxes();
    expect(last).toHaveLength(1);
    expect(last).not.toEqual(after);
  }, 300_000);
});
