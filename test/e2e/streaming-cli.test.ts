// knode exec, attach, port-forward and logs as a user meets them: a `knode run`
// child process with static pods on the embedded runtime, the commands run
// as child processes (exec -it in a real terminal: tmux), then the node
// killed and exec again through the runtime alone.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knode, startKnodeRun, stopKnodeRun, type RunningNode } from '../helpers/cli.js';
import { cliEntry, eventually } from '../helpers/runtimes.js';
import { freePort } from '../helpers/controlplane.js';

const root = mkdtempSync(join(tmpdir(), 'knode-streaming-'));
const pods = join(root, 'manifests');
const www = join(root, 'www');
const at = ['--root-dir', root];
let node: RunningNode;
let httpPort = 0;

/** A knode command that keeps running, its output gathered as it comes. */
function live(args: string[]) {
  const child = spawn(process.execPath, [cliEntry, ...args, ...at], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exited };
}

beforeAll(async () => {
  mkdirSync(pods, { recursive: true });
  mkdirSync(www);
  writeFileSync(join(www, 'index.html'), 'hello through the forward\n');
  httpPort = await freePort();
  writeFileSync(
    join(pods, 'shell.yaml'),
    `apiVersion: v1
kind: Pod
metadata:
  name: shell
  annotations:
    kubectl.kubernetes.io/default-container: main
spec:
  containers:
    - name: side
      image: busybox:1.36
      command: ["sleep", "3600"]
    - name: main
      image: busybox:1.36
      command: ["sh", "-c", "cat"]
      stdin: true
`,
  );
  // Containers run as host processes here: httpd listens on a port found free on the host.
  writeFileSync(
    join(pods, 'web.yaml'),
    `apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
    - name: httpd
      image: busybox:1.36
      command: ["busybox", "httpd", "-f", "-p", "127.0.0.1:${httpPort}", "-h", "${www}"]
`,
  );
  // For logs: a pod of two containers, one that has ended, one that writes all the time.
  writeFileSync(
    join(pods, 'more.yaml'),
    `apiVersion: v1
kind: Pod
metadata:
  name: duo
spec:
  containers:
    - name: first
      image: busybox:1.36
      command: ["sh", "-c", "echo from-first; exec sleep 3600"]
    - name: second
      image: busybox:1.36
      command: ["sh", "-c", "echo from-second; exec sleep 3600"]
---
apiVersion: v1
kind: Pod
metadata:
  name: once
spec:
  restartPolicy: Never
  containers:
    - name: once
      image: busybox:1.36
      command: ["sh", "-c", "echo a; echo b; echo c"]
---
apiVersion: v1
kind: Pod
metadata:
  name: ticker
spec:
  containers:
    - name: ticker
      image: busybox:1.36
      command: ["sh", "-c", "while true; do echo tick; sleep 0.2; done"]
`,
  );
  node = startKnodeRun(pods, root, ['--output', 'plain']);
  await eventually(
    () => ['shell', 'web', 'duo', 'ticker'].every((pod) => new RegExp(`PodRunning +default/${pod}-e2e`).test(node.output())),
    () => `the pods to run (node output: ${node.output()})`,
    60_000,
  );
}, 90_000);

afterAll(() => stopKnodeRun(node, at), 60_000);

describe('knode exec', () => {
  it("runs a command in the default container and passes on its output and exit code, with kubectl's message", async () => {
    const hello = await knode(['exec', 'shell-e2e', ...at, '--', 'echo', 'hello', 'there']);
    expect(hello).toEqual({ code: 0, stdout: 'hello there\n', stderr: '' });
    const three = await knode(['exec', 'shell-e2e', '-c', 'side', ...at, '--', 'sh', '-c', 'echo out; echo err >&2; exit 3']);
    expect(three.code).toBe(3);
    expect(three.stdout).toBe('out\n');
    expect(three.stderr).toBe('err\ncommand terminated with exit code 3\n');
  });

  it('pipes stdin with -i', async () => {
    const cat = await knode(['exec', '-i', 'default/shell-e2e', ...at, '--', 'cat'], { input: 'line one\nline two\n' });
    expect(cat).toEqual({ code: 0, stdout: 'line one\nline two\n', stderr: '' });
  });

  it("tells an unknown pod, an unknown container and a missing command in kubectl's words, exit 1", async () => {
    const pod = await knode(['exec', 'nope', ...at, '--', 'true']);
    expect(pod).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): pods "nope" not found\n' });
    const container = await knode(['exec', 'shell-e2e', '-c', 'zz', ...at, '--', 'true']);
    expect(container).toMatchObject({ code: 1, stderr: 'error: container zz is not valid for pod shell-e2e out of: side, main\n' });
    const namespace = await knode(['exec', 'shell-e2e', '-n', 'other', ...at, '--', 'true']);
    expect(namespace).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): pods "shell-e2e" not found\n' });
    const none = await knode(['exec', 'shell-e2e', ...at]);
    expect(none).toMatchObject({ code: 1, stderr: 'error: you must specify at least one command for the container\n' });
  });

  const tmux = spawnSync('tmux', ['-V']).status === 0;
  it.skipIf(!tmux)(
    '-it gives a terminal: a prompt, its size following the window, and the exit code',
    async () => {
      const session = `knode-exec-${process.pid}`;
      const pane = () => execFileSync('tmux', ['capture-pane', '-p', '-t', session], { encoding: 'utf8' });
      const type = (keys: string) => execFileSync('tmux', ['send-keys', '-t', session, keys, 'Enter']);
      const open = (cmd: string[]) => {
        const line = [process.execPath, cliEntry, 'exec', '-it', 'shell-e2e', ...at, '--', ...cmd].map((a) => `'${a}'`).join(' ');
        execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '100', '-y', '30', `${line}; echo "EXIT=$?"; sleep 60`]);
      };
      try {
        open(['sh']);
        await eventually(
          () => /^#\s*$/m.test(pane()),
          () => `a shell prompt (screen: ${pane()})`,
          20_000,
        );
        type('stty size');
        await eventually(
          () => pane().includes('30 100'),
          () => `the terminal's size (screen: ${pane()})`,
          10_000,
        );
        execFileSync('tmux', ['resize-window', '-t', session, '-x', '120', '-y', '40']);
        // The resize reaches the container's terminal on its own way, as kubectl's does: a stty
        // run before it came prints the old size, so ask again (at most twice a second) until it shows.
        let asked = 0;
        await eventually(
          () => {
            if (pane().includes('40 120')) return true;
            if (Date.now() - asked > 500) {
              type('stty size');
              asked = Date.now();
            }
            return false;
          },
          () => `the new size (screen: ${pane()})`,
          10_000,
        );
        // The interactive shell's own exit code, as kubectl gives it.
        type('exit 3');
        await eventually(
          () => pane().includes('EXIT='),
          () => `the exit code (screen: ${pane()})`,
          10_000,
        );
        expect(pane()).toMatch(/exit 3\s+command terminated with exit code 3\s+EXIT=3/);
      } finally {
        spawnSync('tmux', ['kill-session', '-t', session]);
      }
    },
    60_000,
  );
});

describe('knode attach', () => {
  it("joins the container's stdin and output; closing stdin ends the attach, not the container", async () => {
    const attach = live(['attach', '-i', 'shell-e2e']);
    // What is written before the attach is joined is lost, as with kubectl: write until it comes back.
    await eventually(
      () => {
        attach.child.stdin.write('echo-through-attach\n');
        return attach.out().includes('echo-through-attach\n');
      },
      () => `the attach's output (so far: ${attach.out()} ${attach.err()})`,
      20_000,
    );
    attach.child.stdin.end();
    expect(await attach.exited).toBe(0);
    const still = await knode(['exec', 'shell-e2e', ...at, '--', 'true']);
    expect(still.code).toBe(0);
  }, 30_000);
});

describe('knode port-forward', () => {
  it('forwards concurrent connections, reports a closed port per connection and goes on; a port in use fails', async () => {
    const local = await freePort();
    const closedLocal = await freePort();
    const forward = live(['port-forward', 'web-e2e', `${local}:${httpPort}`, `${closedLocal}:1`]);
    try {
      await eventually(
        () => forward.out().includes(`Forwarding from 127.0.0.1:${closedLocal} -> 1`),
        () => `the Forwarding lines (so far: ${forward.out()} ${forward.err()})`,
        20_000,
      );
      expect(forward.out()).toContain(`Forwarding from 127.0.0.1:${local} -> ${httpPort}\n`);
      const bodies = await Promise.all(
        Array.from({ length: 6 }, () =>
          fetch(`http://127.0.0.1:${local}/index.html`, { headers: { connection: 'close' } }).then((r) => r.text()),
        ),
      );
      expect(bodies).toEqual(Array(6).fill('hello through the forward\n'));
      expect(forward.out().split(`Handling connection for ${local}\n`).length - 1).toBe(6);

      await expect(fetch(`http://127.0.0.1:${closedLocal}/`)).rejects.toThrow();
      await eventually(
        () => forward.err().includes(`an error occurred forwarding ${closedLocal} -> 1: error forwarding port 1 to pod sandbox`),
        () => `the closed port's error (so far: ${forward.err()})`,
      );
      const after = await fetch(`http://127.0.0.1:${local}/index.html`);
      expect(await after.text()).toBe('hello through the forward\n');

      const busy = await knode(['port-forward', 'web-e2e', `${local}:${httpPort}`, ...at], { timeoutMs: 20_000 });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain(
        `Unable to listen on port ${local}: Listeners failed to create with the following errors: [unable to create listener: Error listen tcp4 127.0.0.1:${local}: bind: address already in use`,
      );
      expect(busy.stderr).toContain(`error: unable to listen on any of the requested ports: [{${local} ${httpPort}}]`);
    } finally {
      forward.child.kill('SIGINT');
    }
    expect(await forward.exited).toBe(0);
  }, 60_000);
});

describe('knode logs', () => {
  it('picks the first container of several as kubectl does, saying so; -1 lines is all of them', async () => {
    expect(await knode(['logs', 'duo-e2e', ...at])).toEqual({
      code: 0,
      stdout: 'from-first\n',
      stderr: 'Defaulted container "first" out of: first, second\n',
    });
    const zz = await knode(['logs', 'duo-e2e', '-c', 'zz', ...at]);
    expect(zz).toMatchObject({ code: 1, stderr: 'error: container zz is not valid for pod duo-e2e out of: first, second\n' });
    await eventually(
      async () => (await knode(['logs', 'once-e2e', ...at])).stdout === 'a\nb\nc\n',
      () => "the finished pod's log",
    );
    expect((await knode(['logs', 'once-e2e', '--tail=-1', ...at])).stdout).toBe('a\nb\nc\n');
    expect((await knode(['logs', 'once-e2e', '--tail', '1', ...at])).stdout).toBe('c\n');
  }, 30_000);

  it('ends a follow once its reader has gone, as SIGPIPE ends kubectl', async () => {
    const follow = live(['logs', '-f', 'ticker-e2e']);
    await eventually(
      () => follow.out().includes('tick\n'),
      () => `a line (so far: ${follow.out()} ${follow.err()})`,
      20_000,
    );
    follow.child.stdout.destroy();
    expect(await follow.exited).toBe(141);
  }, 30_000);
});

describe('a pod that has completed', () => {
  it("is refused in kubectl's words by exec, attach and port-forward", async () => {
    await eventually(
      async () => /once-e2e +0\/1 +Completed/.test((await knode(['status', ...at])).stdout),
      () => 'the pod to complete',
    );
    expect(await knode(['exec', 'once-e2e', ...at, '--', 'true'])).toMatchObject({
      code: 1,
      stderr: 'error: cannot exec into a container in a completed pod; current phase is Succeeded\n',
    });
    expect(await knode(['attach', 'once-e2e', ...at])).toMatchObject({
      code: 1,
      stderr: 'error: cannot attach a container in a completed pod; current phase is Succeeded\n',
    });
    expect(await knode(['port-forward', 'once-e2e', '8080', ...at])).toMatchObject({
      code: 1,
      stderr: 'error: unable to forward port because pod is not running. Current status=Succeeded\n',
    });
  }, 30_000);
});

describe('without a running node', () => {
  it('execs through the runtime alone, the pod found by its labels', async () => {
    node.child.kill('SIGKILL');
    await node.exited;
    const hello = await knode(['exec', 'shell-e2e', ...at, '--', 'echo', 'no node']);
    expect(hello).toEqual({ code: 0, stdout: 'no node\n', stderr: '' });
    const pod = await knode(['exec', 'gone', ...at, '--', 'true']);
    expect(pod).toMatchObject({ code: 1, stderr: 'Error from server (NotFound): pods "gone" not found\n' });
    // The runtime alone tells a pod that has completed (its sandbox stopped, its container ended 0).
    expect(await knode(['exec', 'once-e2e', ...at, '--', 'true'])).toMatchObject({
      code: 1,
      stderr: 'error: cannot exec into a container in a completed pod; current phase is Succeeded\n',
    });
    // The runtime's view of a pod: its containers in the order they were made, the spec's.
    const described = (await knode(['describe', 'pod', 'duo-e2e', ...at])).stdout;
    expect(described.match(/^ {2}(first|second):$/gm)).toEqual(['  first:', '  second:']);
    // The runtime's pods by name, as kubectl lists them (the runtime gives the newest first).
    const names = (await knode(['status', ...at])).stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(' ')[0]);
    expect(names).toEqual(['duo-e2e', 'once-e2e', 'shell-e2e', 'ticker-e2e', 'web-e2e']);
    // -o wide adds each pod's CPU and memory from the runtime's stats, as it does from a node's.
    const wide = (await knode(['status', '-o', 'wide', ...at])).stdout.split('\n');
    expect(wide[0]).toMatch(/ CPU +MEMORY$/);
    expect(wide.find((l) => l.startsWith('shell-e2e '))).toMatch(/ \d+m +\d+Mi$/);
    expect(await knode(['logs', 'duo-e2e', ...at])).toEqual({
      code: 0,
      stdout: 'from-first\n',
      stderr: 'Defaulted container "first" out of: first, second\n',
    });
    // The sandbox keeps the pod's default-container annotation: logs picks "main", as exec does, with nothing said.
    const annotated = await knode(['logs', 'shell-e2e', ...at]);
    expect(annotated).toMatchObject({ code: 0, stderr: '' });
    expect(annotated.stdout).toContain('echo-through-attach\n');
  }, 30_000);
});
