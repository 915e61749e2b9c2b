// knode cp and delete -f against containerd 2 (test/peers/containerd2.sh,
// busybox imported there), through bin/run.js with --runtime-endpoint: the
// same commands as on the embedded runtime, on a real runtime's exec
// streaming and StopContainer. KNODE_TEST_CONTAINERD(2)=off leaves it out, as
// the integration suites do.
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';

const off = process.env.KNODE_TEST_CONTAINERD === 'off' || process.env.KNODE_TEST_CONTAINERD2 === 'off';
const script = join(import.meta.dirname, '../peers/containerd2.sh');
const dir = mkdtempSync(join(tmpdir(), 'knode-verbs-ctr-'));
const GRACE_SECONDS = 5;
/** --runtime-endpoint and --root-dir; `node` adds the node name for apply and delete. */
let at: string[] = [];
let node: string[] = [];

function podYaml(name: string, script: string, grace = 30): string {
  return `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: ${grace}
  containers:
    - name: main
      image: busybox:1.36
      command: ["sh", "-c", ${JSON.stringify(script)}]
`;
}

describe.skipIf(off)('knode cp and delete on containerd 2', () => {
  beforeAll(() => {
    const endpoint = execFileSync('bash', [script, 'up', join(dir, 'containerd')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    at = ['--runtime-endpoint', endpoint, '--root-dir', join(dir, 'root')];
    node = [...at, '--node-name', 'e2e'];
  }, 180_000);

  afterAll(() => {
    if (at.length > 0) execFileSync('bash', [script, 'down', join(dir, 'containerd')], { stdio: 'inherit' });
  }, 60_000);

  it('copies a tree into a container and back, modes kept', async () => {
    const manifests = join(dir, 'box');
    mkdirSync(manifests);
    writeFileSync(join(manifests, 'box.yaml'), podYaml('box', 'sleep 3600'));
    const applied = await knode(['apply', '-f', manifests, ...node], { timeoutMs: 90_000 });
    expect(applied.code, applied.stderr).toBe(0);
    const tree = join(dir, 'tree');
    mkdirSync(join(tree, 'sub'), { recursive: true });
    writeFileSync(join(tree, 'sub', 'secret'), 'secret\n');
    chmodSync(join(tree, 'sub', 'secret'), 0o600);
    writeFileSync(join(tree, 'run.sh'), 'echo run\n');
    chmodSync(join(tree, 'run.sh'), 0o755);
    const up = await knode(['cp', tree, 'box-e2e:/tmp/tree', ...at]);
    expect(up).toEqual({ code: 0, stdout: '', stderr: '' });
    const stat = await knode(['exec', 'box-e2e', ...at, '--', 'stat', '-c', '%a %n', '/tmp/tree/run.sh', '/tmp/tree/sub/secret']);
    expect(stat.stdout).toBe('755 /tmp/tree/run.sh\n600 /tmp/tree/sub/secret\n');
    const back = join(dir, 'back');
    const down = await knode(['cp', 'box-e2e:/tmp/tree', back, ...at]);
    expect(down).toEqual({ code: 0, stdout: "tar: removing leading '/' from member names\n", stderr: '' });
    expect(readFileSync(join(back, 'sub', 'secret'), 'utf8')).toBe('secret\n');
    expect(lstatSync(join(back, 'sub', 'secret')).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(back, 'run.sh')).mode & 0o777).toBe(0o755);
    const gone = await knode(['delete', '-f', manifests, '--now', ...node], { timeoutMs: 60_000 });
    expect(gone).toEqual({ code: 0, stdout: 'pod "box-e2e" deleted from default namespace\n', stderr: '' });
  }, 120_000);

  it('stops three pods that ignore SIGTERM in one grace period, not three', async () => {
    const manifests = join(dir, 'stubborn');
    mkdirSync(manifests);
    for (const n of [1, 2, 3])
      writeFileSync(
        join(manifests, `stubborn-${n}.yaml`),
        podYaml(`stubborn-${n}`, "trap '' TERM; while :; do sleep 1; done", GRACE_SECONDS),
      );
    const applied = await knode(['apply', '-f', manifests, ...node], { timeoutMs: 90_000 });
    expect(applied.code, applied.stderr).toBe(0);
    const started = performance.now();
    const res = await knode(['delete', '-f', manifests, ...node], { timeoutMs: 90_000 });
    const seconds = (performance.now() - started) / 1000;
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toBe([1, 2, 3].map((n) => `pod "stubborn-${n}-e2e" deleted from default namespace\n`).join(''));
    expect(seconds).toBeGreaterThanOrEqual(GRACE_SECONDS - 0.5);
    expect(seconds).toBeLessThan(2 * GRACE_SECONDS);
  }, 180_000);
});
