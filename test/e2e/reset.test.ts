// `knode reset` as a user runs it after real pods in sandboxes: it refuses
// while a node runs and without a terminal to ask on, then leaves nothing
// mounted and nothing but the configuration the user wrote.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun } from '../helpers/cli.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { eventually } from '../helpers/runtimes.js';

let registry: LocalRegistry;
let root: string;

/** Processes whose command line names something under DIR (a sandbox's holder runs DIR/runtime/bin/pause). */
const processesUnder = (dir: string) =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
        return args.includes(`${dir}/`) ? [`${pid}: ${args}`] : [];
      } catch {
        return []; // ended meanwhile
      }
    });

const mountsUnder = (dir: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4] ?? '')
    .filter((p) => p.startsWith(`${dir}/`));

beforeAll(() => {
  registry = startRegistry();
  root = mkdtempSync(join(tmpdir(), 'knode-e2e-reset-'));
  writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
}, 180_000);

afterAll(async () => {
  if (root) await knode(['runtime', 'stop', '--root-dir', root]);
  registry?.stop();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('knode reset', () => {
  it('removes what knode made under the root dir, unmounted, and keeps the mirrors', async () => {
    const manifest = `apiVersion: v1
kind: Pod
metadata: {name: sleeper}
spec:
  containers:
    - {name: main, image: "busybox:1.36", command: ["sleep", "3600"]}
`;
    const dir = mkdtempSync(join(tmpdir(), 'knode-reset-pods-'));
    writeFileSync(join(dir, 'sleeper.yaml'), manifest);
    const applied = await knode(['apply', '-f', join(dir, 'sleeper.yaml'), '--root-dir', root, '--node-name', 'reset'], {
      timeoutMs: 180_000,
    });
    expect(applied.code, applied.stderr).toBe(0);
    expect(mountsUnder(root).length).toBeGreaterThan(0);
    expect(processesUnder(root).length).toBeGreaterThan(0);

    // A node running on the root dir: reset refuses and disturbs nothing.
    const node = startKnodeRun(dir, root, ['--output', 'plain', '--read-only-port', '0']);
    await eventually(() => (node.output().includes('Ctrl-C') ? true : undefined), 'the node to start', 60_000);
    const busy = await knode(['reset', '--force', '--root-dir', root]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toContain(`a knode node is running on ${root}`);
    node.child.kill('SIGTERM');
    await node.exited;

    const unasked = await knode(['reset', '--root-dir', root]);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain('give --force to reset without a terminal to ask on');
    expect(readdirSync(root)).toContain('runtime');

    const reset = await knode(['reset', '--force', '--root-dir', root], { timeoutMs: 120_000 });
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/\[reset\] stopped the embedded runtime \(pid \d+\) and its containers/);
    expect(reset.stdout).toContain('[reset] kept registries.yaml');
    // The applied pod, and the one the node started from the same manifest as a static pod.
    expect(reset.stdout).toContain('[reset] removed 2 pod sandbox(es) and their containers');
    expect(mountsUnder(root)).toEqual([]);
    // No sandbox's holder outlives the reset.
    await eventually(() => (processesUnder(root).length === 0 ? true : undefined), `no process under ${root}`, 10_000).catch(() => {});
    expect(processesUnder(root)).toEqual([]);
    expect(readdirSync(root)).toEqual(['registries.yaml']);
    // Nothing left running: no runtime answers.
    const status = await knode(['runtime', 'status', '--root-dir', root]);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toContain(`no runtime answers at unix://${root}/run/runtime.sock`);
  });

  it('knode runtime stop with a sandboxed pod running stops it, unmounts and removes its pid file', async () => {
    const own = mkdtempSync(join(tmpdir(), 'knode-e2e-runtime-stop-'));
    try {
      writeFileSync(join(own, 'registries.yaml'), mirrorConfig(registry.host));
      const file = join(own, 'sleeper.yaml');
      writeFileSync(
        file,
        `apiVersion: v1\nkind: Pod\nmetadata: {name: sleeper}\nspec:\n  containers: [{name: main, image: "busybox:1.36", command: ["sleep", "3600"]}]\n`,
      );
      const applied = await knode(['apply', '-f', file, '--root-dir', own, '--node-name', 'stop'], { timeoutMs: 180_000 });
      expect(applied.code, applied.stderr).toBe(0);
      expect(mountsUnder(own).length).toBeGreaterThan(0);

      // sleep ignores SIGTERM as its container's PID 1: the runtime waits out its grace, then kills it.
      const stop = await knode(['runtime', 'stop', '--root-dir', own], { timeoutMs: 60_000 });
      expect(stop.code, stop.stderr).toBe(0);
      expect(mountsUnder(own)).toEqual([]);
      expect(processesUnder(own)).toEqual([]);
      expect(readdirSync(join(own, 'run'))).toEqual([]);
    } finally {
      await knode(['runtime', 'stop', '--root-dir', own]);
      rmSync(own, { recursive: true, force: true });
    }
  }, 120_000);
});
