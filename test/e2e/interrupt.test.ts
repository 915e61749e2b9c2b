// Exit codes of waiting commands cut short by a signal (docs/cli.md#exit-codes):
// 130 for SIGINT and 143 for SIGTERM, as a shell reports a process the signal
// killed. bin/run.js as a child process, on the embedded runtime alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const roots: string[] = [];
function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'knode-e2e-'));
  roots.push(root);
  return root;
}

const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const root of roots) await knode(['runtime', 'stop', '--root-dir', root]);
});

/** A pod that runs until stopped, and says so in its log (the trap ends it at once on SIGTERM). */
function longRunningPod(root: string): string {
  const file = join(root, 'long.yaml');
  writeFileSync(
    file,
    'apiVersion: v1\nkind: Pod\nmetadata:\n  name: long\nspec:\n  restartPolicy: Never\n  containers:\n    - name: main\n      image: busybox:1.36\n      command: ["sh", "-c", "trap \\"exit 143\\" TERM; echo ready; sleep 600 & wait"]\n',
  );
  return file;
}

function start(args: string[]): { child: ChildProcess; stdout: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [cliEntry, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

describe('interrupted commands', () => {
  it('knode apply exits 130 on SIGINT before its pod finished, with the summary; logs -f and pleg too', async () => {
    const root = newRoot();
    const apply = start(['apply', '-f', longRunningPod(root), '--root-dir', root, '--node-name', 'e2e']);
    await eventually(
      () => apply.stderr().includes('started main'),
      () => `the pod to start; stderr: ${apply.stderr()}`,
      60_000,
    );
    apply.child.kill('SIGINT');
    expect(await apply.exited, apply.stderr()).toBe(130);
    expect(apply.stderr()).toMatch(/default\/long-e2e: \w+: interrupted; the pod was \w+/);

    // The pod outlives apply; following its log ends on Ctrl-C alone.
    const logs = start(['logs', '-f', 'long-e2e', '--root-dir', root]);
    await eventually(
      () => logs.stdout().includes('ready'),
      () => `the log line; stderr: ${logs.stderr()}`,
      30_000,
    );
    logs.child.kill('SIGINT');
    expect(await logs.exited, logs.stderr()).toBe(130);

    // Without a node, pleg relists the runtime itself, until Ctrl-C.
    const pleg = start(['pleg', '--root-dir', root, '--node-name', 'e2e']);
    await eventually(
      () => (pleg.stdout().match(/PLEGRelist/g) ?? []).length >= 2,
      () => `two relists; stderr: ${pleg.stderr()}`,
      30_000,
    );
    pleg.child.kill('SIGINT');
    expect(await pleg.exited, pleg.stderr()).toBe(130);
  });

  it('knode apply exits 143 on SIGTERM before its pod finished', async () => {
    const root = newRoot();
    const apply = start(['apply', '-f', longRunningPod(root), '--root-dir', root, '--node-name', 'e2e']);
    await eventually(
      () => apply.stderr().includes('started main'),
      () => `the pod to start; stderr: ${apply.stderr()}`,
      60_000,
    );
    apply.child.kill('SIGTERM');
    expect(await apply.exited, apply.stderr()).toBe(143);
    expect(apply.stderr()).toMatch(/default\/long-e2e: \w+: interrupted; the pod was \w+/);
  });
});
