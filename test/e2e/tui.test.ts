// The live TUI of `knode run`, driven in a real terminal (tmux): what the
// screen shows, the keys, and that quitting leaves the containers running.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { knode } from '../helpers/cli.js';
import { cliEntry, eventually, repoRoot } from '../helpers/runtimes.js';

const root = mkdtempSync(join(tmpdir(), 'knode-tui-'));
const session = `knode-tui-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);
const alive = () => {
  try {
    tmux('has-session', '-t', session);
    return true;
  } catch {
    return false;
  }
};

afterAll(async () => {
  if (alive()) tmux('kill-session', '-t', session);
  await knode(['runtime', 'stop', '--root-dir', root]);
});

it('shows the node, its pod workers and events; Enter shows a pod; q quits and leaves the containers running', async () => {
  const pods = join(root, 'pods');
  // The example pods; the workloads example has a suite of its own (workloads.test.ts).
  cpSync(join(repoRoot, 'examples'), pods, { recursive: true, filter: (src) => !src.endsWith('workloads.yaml') });
  // CI=true as CI machines set it: Ink would then draw nothing until exit.
  const command = [
    'env',
    'CI=true',
    process.execPath,
    cliEntry,
    'run',
    '--static-dir',
    pods,
    '--root-dir',
    root,
    '--node-name',
    'tui',
    '--read-only-port',
    '0',
  ].join(' ');
  tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '45', command);

  // Under a loaded CI machine the start can be slow; a timeout shows the last screen.
  const ready = await eventually(
    () => {
      const s = screen();
      if (/default\/hello-tui +Running +1\/1/.test(s) && /default\/web-tui +Running +2\/2/.test(s)) return s;
      throw new Error(`the screen was:\n${s}`);
    },
    'the TUI to show both pods Running',
    60_000,
  );
  expect(ready).toMatch(/knode node tui · runtime knode/);
  expect(ready).toMatch(/sources file ✓/);
  expect(ready).toMatch(/NAME +PHASE +READY +STATUS +RESTARTS +WORKER/);
  // The events pane holds the newest dozen: the pod that came up last is always among them, the first not always.
  expect(ready).toMatch(/PodRunning +default\/(hello|web)-tui every container started/);
  // In colour (the node name is cyan): the NO_COLOR test below is not vacuous.
  expect(tmux('capture-pane', '-e', '-p', '-t', session)).toMatch(/\x1b\[[0-9;]*3[1-6]m/);

  // The rows are sorted by pod: hello, once, web. Two down, then Enter: web's detail.
  tmux('send-keys', '-t', session, 'Down', 'Down', 'Enter');
  const detail = await eventually(() => {
    const s = screen();
    return /log-shipper +running/.test(s) && /prepare +exited +Completed/.test(s) ? s : undefined;
  }, "web's detail pane");
  expect(detail).toMatch(/> default\/web-tui/);

  tmux('send-keys', '-t', session, 'q');
  await eventually(() => !alive(), 'knode to exit after q', 15_000);
  const client = new CriClient(`unix://${join(root, 'run', 'runtime.sock')}`);
  const running = await client.listContainers({ state: { state: 'CONTAINER_RUNNING' } });
  client.close();
  expect(running.map((c) => c.labels['io.kubernetes.container.name'])).toEqual(expect.arrayContaining(['hello', 'log-shipper', 'app']));
});

it('draws without colour under NO_COLOR; shows the workloads of the static dir above the pods', async () => {
  const plain = `${session}-nc`;
  const pods = join(root, 'pods-nc');
  cpSync(join(repoRoot, 'examples', 'hello.yaml'), join(pods, 'hello.yaml'), { recursive: true });
  cpSync(join(repoRoot, 'examples', 'workloads.yaml'), join(pods, 'workloads.yaml'), { recursive: true });
  const command = [
    'env',
    'NO_COLOR=1',
    process.execPath,
    cliEntry,
    'run',
    '--static-dir',
    pods,
    '--root-dir',
    join(root, 'nc'),
    '--node-name',
    'nc',
    '--read-only-port',
    '0',
  ].join(' ');
  tmux('new-session', '-d', '-s', plain, '-x', '160', '-y', '45', command);
  try {
    const drawn = await eventually(
      () => {
        const s = tmux('capture-pane', '-e', '-p', '-t', plain);
        return /default\/hello-nc +Running/.test(s) && /deployment\.apps\/greeter +READY (\d)\/\1 · UP-TO-DATE \1/.test(s) ? s : undefined;
      },
      'the TUI to show hello Running and the greeter Deployment ready',
      60_000,
    );
    expect(drawn).not.toMatch(/\x1b\[[0-9;]*3[0-7]m/);
    expect(drawn).toMatch(/job\.batch\/count +STATUS (Running|Complete) · COMPLETIONS \d\/\d/);
  } finally {
    tmux('kill-session', '-t', plain);
    await knode(['runtime', 'stop', '--root-dir', join(root, 'nc')]);
  }
});
