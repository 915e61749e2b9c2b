// knode apply --wait as `podman kube play --wait`: it stays until the pods end
// or a signal comes, then removes them, so nothing is left in the runtime;
// through bin/run.js on the embedded runtime.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-apply-wait-'));
const at = ['--root-dir', root, '--node-name', 'e2e'];

afterAll(async () => {
  await knode(['runtime', 'stop', '--root-dir', root]);
}, 60_000);

/** A directory of one-container pods: NAME → [restartPolicy, shell script]. */
function manifests(dir: string, pods: Record<string, [string, string]>): string {
  const path = join(root, dir);
  mkdirSync(path);
  for (const [name, [restartPolicy, script]] of Object.entries(pods))
    writeFileSync(
      join(path, `${name}.yaml`),
      `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  restartPolicy: ${restartPolicy}
  terminationGracePeriodSeconds: 2
  containers:
    - name: main
      image: busybox:1.36
      command: ["sh", "-c", ${JSON.stringify(script)}]
`,
    );
  return path;
}

async function nothingLeft(): Promise<void> {
  const status = await knode(['status', '--root-dir', root]);
  expect(status.stdout).toBe('');
  expect(status.stderr).toContain('No resources found');
}

describe('knode apply --wait', () => {
  it('stays until every pod has ended, then removes them; a failed container makes it exit 1', async () => {
    // apply itself returns once "second" runs; --wait then stays until its container exits (0) on its own.
    const ok = manifests('ending', { first: ['Never', 'sleep 1'], second: ['Always', 'sleep 6'] });
    const started = performance.now();
    const res = await knode(['apply', '-f', ok, '--wait', ...at], { timeoutMs: 90_000 });
    expect(res.code, res.stderr).toBe(0);
    expect(performance.now() - started).toBeGreaterThanOrEqual(6_000);
    expect(res.stderr).toContain('2 pods: 1 Succeeded, 1 Running\n');
    expect(res.stderr).toContain('pod "first-e2e" deleted from default namespace\npod "second-e2e" deleted from default namespace\n');
    await nothingLeft();

    const bad = manifests('failing', { failing: ['Never', 'sleep 2; exit 3'] });
    const failed = await knode(['apply', '-f', bad, '--wait=true', ...at], { timeoutMs: 90_000 });
    expect(failed.code, failed.stderr).toBe(1);
    expect(failed.stderr).toContain('pod "failing-e2e" deleted from default namespace\n');
    await nothingLeft();
  }, 120_000);

  it('on Ctrl-C stops and removes the pods that were still running, and exits 130', async () => {
    const dir = manifests('forever', { server: ['Always', 'sleep 3600'] });
    const child = spawn(process.execPath, [cliEntry, 'apply', '-f', dir, '--wait', ...at], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await eventually(
      () => err.includes('1 pod: 1 Running'),
      () => `the pod to run (so far: ${err})`,
      60_000,
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(err).toContain('pod "server-e2e" deleted from default namespace\n');
    await nothingLeft();
  }, 120_000);
});
