// knode cp into a real image's container: busybox pulled from the local
// registry and run in a bubblewrap sandbox by the embedded runtime, so the
// tar that unpacks and packs is busybox's, and the container's root is its
// own: a path that climbs out of it stays inside.
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun, type RunningNode } from '../helpers/cli.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { eventually } from '../helpers/runtimes.js';

let registry: LocalRegistry;
let node: RunningNode;
const root = mkdtempSync(join(tmpdir(), 'knode-cp-sbx-'));
const at = ['--root-dir', root];
const mode = (path: string) => lstatSync(path).mode & 0o777;
const inPod = async (...cmd: string[]) => knode(['exec', 'box-e2e', ...at, '--', ...cmd]);

beforeAll(async () => {
  registry = startRegistry();
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
  const pods = join(root, 'manifests');
  mkdirSync(pods);
  writeFileSync(
    join(pods, 'box.yaml'),
    `apiVersion: v1
kind: Pod
metadata:
  name: box
spec:
  containers:
    - name: main
      image: busybox:1.36
      command: ["sleep", "3600"]
`,
  );
  node = startKnodeRun(pods, root, ['--output', 'plain']);
  await eventually(
    () => /PodRunning +default\/box-e2e/.test(node.output()),
    () => `the pod to run (node output: ${node.output()})`,
    120_000,
  );
}, 180_000);

afterAll(async () => {
  if (node && node.child.exitCode === null) {
    node.child.kill('SIGTERM');
    await node.exited;
  }
  await knode(['runtime', 'stop', ...at]);
  registry?.stop();
}, 60_000);

describe('knode cp with busybox in a sandbox', () => {
  it("copies a tree in and out with busybox's tar, modes kept; --no-preserve leaves them to the container", async () => {
    const local = join(root, 'tree');
    mkdirSync(join(local, 'sub'), { recursive: true });
    writeFileSync(join(local, 'run.sh'), 'echo run\n');
    chmodSync(join(local, 'run.sh'), 0o755);
    writeFileSync(join(local, 'sub', 'secret'), 'secret\n');
    chmodSync(join(local, 'sub', 'secret'), 0o600);
    const up = await knode(['cp', local, 'box-e2e:/tmp/tree', ...at]);
    expect(up).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await inPod('stat', '-c', '%a %n', '/tmp/tree/run.sh', '/tmp/tree/sub/secret')).stdout).toBe(
      '755 /tmp/tree/run.sh\n600 /tmp/tree/sub/secret\n',
    );
    // Not on the host: the container has a root of its own.
    expect(existsSync('/tmp/tree/sub/secret')).toBe(false);

    const back = join(root, 'back');
    const down = await knode(['cp', 'box-e2e:/tmp/tree', back, ...at]);
    expect(down.code, down.stderr).toBe(0);
    expect(readFileSync(join(back, 'sub', 'secret'), 'utf8')).toBe('secret\n');
    expect(mode(join(back, 'run.sh'))).toBe(0o755);
    expect(mode(join(back, 'sub', 'secret'))).toBe(0o600);

    const loose = await knode(['cp', '--no-preserve', join(local, 'sub', 'secret'), 'box-e2e:/tmp/loose', ...at]);
    expect(loose.code, loose.stderr).toBe(0);
    expect((await inPod('cat', '/tmp/loose')).stdout).toBe('secret\n');
  }, 60_000);

  it("keeps a destination that climbs out of the container's root inside it", async () => {
    const file = join(root, 'escape.txt');
    writeFileSync(file, 'stays in the container\n');
    const marker = `knode-cp-escape-${process.pid}`;
    const res = await knode(['cp', file, `box-e2e:/../../../../tmp/${marker}`, ...at]);
    expect(res.code, res.stderr).toBe(0);
    expect((await inPod('cat', `/tmp/${marker}`)).stdout).toBe('stays in the container\n');
    expect(existsSync(`/tmp/${marker}`)).toBe(false);
  }, 60_000);

  it("says what busybox's tar says of a missing path, and exits with its code", async () => {
    const res = await knode(['cp', 'box-e2e:/nope', join(root, 'nope'), ...at]);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('tar: /nope: No such file or directory\ntar: error exit delayed from previous errors\n');
    expect(res.stderr).toBe('command terminated with exit code 1\n');
  }, 60_000);
});
