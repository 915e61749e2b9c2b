// Pod names completed in a real shell: `knode __complete pods` over the
// embedded runtime's pods and the node's saved workloads, and bash in a
// real terminal (tmux) set up as `knode autocomplete` says, TAB completing
// `knode exec`'s pod, `logs deployments/NAME`, and oclif's own completion
// going on elsewhere. (The node's pods: apply-node.test.ts.)
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-complete-'));
const session = `knode-complete-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const lastLine = () =>
  tmux('capture-pane', '-p', '-t', session)
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '')
    .pop() ?? '';

function pod(name: string, namespace = 'default'): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  terminationGracePeriodSeconds: 1\n  containers:\n    - name: app\n      image: busybox:1.36\n      command: ["sleep", "3600"]\n`;
}

const complete = (...words: string[]) => knode(['__complete', 'pods', '--', ...words]);

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: greet
spec:
  replicas: 1
  selector:
    matchLabels: { app: greet }
  template:
    metadata:
      labels: { app: greet }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
        - name: hello
          image: busybox:1.36
          command: ["sleep", "3600"]
`;

const cronJob = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: dump
              image: busybox:1.36
              command: ["true"]
`;

beforeAll(async () => {
  writeFileSync(join(root, 'pods.yaml'), `${pod('web')}---\n${pod('db', 'other')}---\n${deployment}---\n${cronJob}`);
  const res = await knode(['apply', '-f', join(root, 'pods.yaml'), '--root-dir', root, '--node-name', 'e2e'], { timeoutMs: 90_000 });
  expect(res.code, res.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  try {
    tmux('kill-session', '-t', session);
  } catch {
    // not started
  }
  await knode(['delete', '-f', join(root, 'pods.yaml'), '--now', '--root-dir', root, '--node-name', 'e2e'], { timeoutMs: 60_000 });
  await knode(['runtime', 'stop', '--root-dir', root]);
}, 90_000);

describe('knode __complete pods', () => {
  it("lists the runtime's pods where a pod goes, by namespace, and nothing elsewhere (exit 1)", async () => {
    const at = ['--root-dir', root];
    const all = await complete('exec', ...at, '');
    expect(all).toMatchObject({ code: 0, stderr: '' });
    // The Deployment's pod, a pod of this node by its generated name, and kubectl's TYPE/ words.
    expect(all.stdout).toMatch(
      /^daemonsets\/\ndeployments\/\ngreet-[a-z0-9]+-[a-z0-9]{5}\njobs\/\nother\/db-e2e\npods\/\nreplicasets\/\nstatefulsets\/\nweb-e2e\n$/,
    );
    expect((await complete('describe', 'pod', '-n', 'other', ...at, '')).stdout).toBe('db-e2e\n');
    expect((await complete('cp', ...at, './here', 'w')).stdout).toBe('web-e2e:\n');
    expect((await complete('port-forward', `--root-dir=${root}`, 'o')).stdout).toBe('other/db-e2e\n');
    // -c after the pod: its containers, from the runtime's containers of its sandbox.
    expect(await complete('exec', ...at, 'web-e2e', '-c', '')).toEqual({ code: 0, stdout: 'app\n', stderr: '' });
    expect((await complete('logs', ...at, 'other/db-e2e', '-c', 'x')).stdout).toBe('');
    // kubectl's TYPE/NAME: the workloads the node saved, by type, and a workload's template containers for -c.
    expect((await complete('logs', ...at, 'deploy/')).stdout).toBe('deploy/greet\n');
    expect((await complete('exec', ...at, '-n', 'other', 'deploy/')).stdout).toBe('');
    expect((await complete('exec', ...at, 'pods/w')).stdout).toBe('pods/web-e2e\n');
    expect((await complete('exec', ...at, 'deployments/greet', '-c', '')).stdout).toBe('hello\n');
    expect((await complete('describe', 'deployment', ...at, 'g')).stdout).toBe('greet\n');
    expect((await complete('describe', 'rs', ...at, '')).stdout).toMatch(/^greet-[a-z0-9]+\n$/);
    expect((await complete('describe', 'cj', ...at, '')).stdout).toBe('nightly\n');
    expect((await complete('describe', ...at, 'deploy/')).stdout).toBe('deploy/greet\n');
    // delete's TYPE NAME...: the names of the type given, each time.
    expect((await complete('delete', 'deploy', ...at, '')).stdout).toBe('greet\n');
    expect((await complete('delete', 'pod', ...at, 'web-e2e', 'w')).stdout).toBe('web-e2e\n');
    expect((await complete('delete', ...at, 'cronjobs/')).stdout).toBe('cronjobs/nightly\n');
    // get (status's alias) and rollout, through oclif's own lookup of the command and its flags.
    expect((await complete('get', 'deploy', ...at, '-o', 'wide', '')).stdout).toBe('greet\n');
    expect((await complete('get', ...at, 'we')).stdout).toBe('web-e2e\n');
    expect((await complete('rollout', 'status', ...at, 'deploy', '')).stdout).toBe('greet\n');
    expect((await complete('rollout', 'history', ...at, 'deployments/g')).stdout).toBe('deployments/greet\n');
    // What that completes to: the CronJob as kubectl describe shows it.
    const described = await knode(['describe', 'cronjob', 'nightly', ...at]);
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toMatch(/^Schedule: +0 3 \* \* \*\nConcurrency Policy: +Allow\nSuspend: +False\n/m);
    expect(described.stdout).toMatch(/^Active Jobs: +<none>$/m);
    for (const words of [
      ['exec', ...at, 'web-e2e', ''],
      ['exec', ...at, '-c', ''],
      ['exec', ...at, '--', ''],
      ['apply', ...at, ''],
    ]) {
      const res = await complete(...words);
      expect(res, words.join(' ')).toEqual({ code: 1, stdout: '', stderr: '' });
    }
    // No runtime under the root dir: nothing offered, nothing started, nothing printed.
    const empty = mkdtempSync(join(tmpdir(), 'knode-complete-empty-'));
    expect(await complete('describe', 'pod', '--root-dir', empty, '')).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await complete('exec', '--root-dir', empty, 'deploy/')).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('completes the pod of `knode exec` on TAB in bash, set up as `knode autocomplete` says', async () => {
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'knode'), `#!/bin/sh\nexec ${process.execPath} ${cliEntry} "$@"\n`);
    chmodSync(join(bin, 'knode'), 0o755);
    const env = [
      `HOME=${root}`,
      `PATH=${bin}:/usr/bin:/bin`,
      `XDG_CACHE_HOME=${join(root, 'cache')}`,
      `KNODE_ROOT_DIR=${root}`,
      'TERM=xterm',
    ];
    const setup = await knode(['autocomplete', 'bash'], { env: { XDG_CACHE_HOME: join(root, 'cache') } });
    // Its step 1, as a user pastes it: the script's text is added to ~/.bashrc, then read.
    const step = 'printf "$(knode autocomplete script bash)" >> ~/.bashrc; source ~/.bashrc';
    expect(setup.stdout).toContain(step);
    tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '20', ['env', '-i', ...env, 'bash', '--norc', '--noprofile'].join(' '));
    tmux('send-keys', '-t', session, `PS1="$ "; ${step}`, 'Enter');
    await eventually(() => lastLine() === '$', 'the shell to be set up', 20_000);
    tmux('send-keys', '-t', session, 'knode exec w', 'Tab');
    await eventually(
      () => lastLine() === '$ knode exec web-e2e',
      () => `exec's pod completed; the line: ${lastLine()}`,
      20_000,
    );
    // A Deployment's pod: TAB gives the type with no space after it, a second TAB its name.
    tmux('send-keys', '-t', session, 'C-u', 'knode logs deploym', 'Tab');
    await eventually(
      () => lastLine() === '$ knode logs deployments/',
      () => `the type completed; the line: ${lastLine()}`,
      20_000,
    );
    tmux('send-keys', '-t', session, 'Tab');
    await eventually(
      () => lastLine() === '$ knode logs deployments/greet',
      () => `the Deployment completed; the line: ${lastLine()}`,
      20_000,
    );
    // Elsewhere oclif's completion goes on: the command's name.
    tmux('send-keys', '-t', session, 'C-u', 'knode port-f', 'Tab');
    await eventually(
      () => lastLine() === '$ knode port-forward',
      () => `the command completed; the line: ${lastLine()}`,
      20_000,
    );
  }, 60_000);
});
