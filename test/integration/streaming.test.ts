// Exec, Attach and PortForward of the embedded runtime through crictl: the
// CRI calls answer with URLs of the runtime's streaming server, and crictl's
// Go client (client-go's SPDY executor and port forwarder) connects there.
// Twice: containers as host processes (image records), and containers of the
// busybox image from the local registry in bubblewrap sandboxes.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CriClient } from '../../src/cri/client.js';
import { freePort } from '../helpers/controlplane.js';
import { mirrorConfig, startRegistry, type LocalRegistry } from '../helpers/registry.js';
import { eventually, startEmbeddedRuntime, type EmbeddedRuntimeProcess } from '../helpers/runtimes.js';
import { roundTrip } from '../helpers/tcp.js';

const crictlPath = inject('crictlPath');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

const SETUPS = [
  { containers: 'host processes', registry: false },
  { containers: 'bubblewrap sandboxes', registry: true },
];

describe.runIf(crictlPath).each(SETUPS)(
  'exec, attach and port-forward through crictl against the embedded runtime, containers as $containers',
  ({ registry: withRegistry }) => {
    let runtime: EmbeddedRuntimeProcess;
    let registry: LocalRegistry | undefined;
    let dir: string;
    let client: CriClient;
    const children: ChildProcess[] = [];

    function crictl(args: string[], input?: string): Promise<Run> {
      return new Promise((resolve) => {
        const child = execFile(
          crictlPath,
          ['-r', runtime.endpoint, '-i', runtime.endpoint, ...args],
          { encoding: 'utf8', timeout: 30_000 },
          (err, stdout, stderr) => {
            resolve({ code: err ? Number((err as NodeJS.ErrnoException & { code: unknown }).code ?? 1) : 0, stdout, stderr });
          },
        );
        child.stdin?.end(input ?? '');
      });
    }

    /** A crictl that keeps running (attach, port-forward), its output gathered as it comes. */
    function crictlLive(args: string[]): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number> } {
      const child = spawn(crictlPath, ['-r', runtime.endpoint, '-i', runtime.endpoint, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      let err = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
      const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 255)));
      return { child, out: () => out, err: () => err, exited };
    }

    /** A running one-container pod (host process); returns the sandbox's and the container's ids. */
    async function runContainer(
      name: string,
      command: string[],
      extra: Record<string, unknown> = {},
    ): Promise<{ podId: string; id: string }> {
      const pod = join(dir, `${name}-pod.json`);
      const ctr = join(dir, `${name}-ctr.json`);
      writeFileSync(
        pod,
        JSON.stringify({
          metadata: { name, uid: `${name}-uid`, namespace: 'streams', attempt: 0 },
          log_directory: join(dir, name),
          linux: {},
        }),
      );
      writeFileSync(
        ctr,
        JSON.stringify({
          metadata: { name: 'main' },
          image: { image: 'busybox:1.36' },
          command,
          log_path: 'main.log',
          linux: {},
          ...extra,
        }),
      );
      const podId = (await crictl(['runp', pod])).stdout.trim();
      const created = await crictl(['create', podId, ctr, pod]);
      expect(created.code, created.stderr).toBe(0);
      const id = created.stdout.trim();
      expect((await crictl(['start', id])).code).toBe(0);
      return { podId, id };
    }

    beforeAll(async () => {
      const root = mkdtempSync(join(tmpdir(), 'knode-rt-'));
      if (withRegistry) {
        registry = startRegistry();
        writeFileSync(join(root, 'registries.yaml'), mirrorConfig(registry.host));
      }
      runtime = await startEmbeddedRuntime(root);
      dir = mkdtempSync(join(tmpdir(), 'knode-streams-'));
      client = new CriClient(runtime.endpoint);
      expect((await crictl(['pull', 'busybox:1.36'])).code).toBe(0);
    });

    afterAll(async () => {
      for (const child of children) child.kill('SIGKILL');
      client.close();
      await runtime.stop();
      registry?.stop();
      rmSync(runtime.rootDir, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    });

    it('exec streams stdout and stderr apart, passes stdin on, and reports the exit code', async () => {
      const { id } = await runContainer('exec', ['sleep', '600']);
      const both = await crictl(['exec', id, 'sh', '-c', 'echo to-out; echo to-err >&2']);
      expect(both.code).toBe(0);
      expect(both.stdout).toBe('to-out\n');
      expect(both.stderr).toContain('to-err\n');
      expect(both.stderr).not.toContain('to-out');

      const failed = await crictl(['exec', id, 'sh', '-c', 'exit 3']);
      expect(failed.code).not.toBe(0);
      expect(failed.stderr).toMatch(/command terminated with exit code 3/);

      const piped = await crictl(['exec', '-i', id, 'sh', '-c', 'cat; echo after-eof'], 'line one\nline two\n');
      expect(piped.stdout).toBe('line one\nline two\nafter-eof\n');

      const missing = await crictl(['exec', id, 'no-such-program']);
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toMatch(/no-such-program/);
    });

    it("exec -t runs the command on a terminal that takes the client's size", async () => {
      const { id } = await runContainer('tty', ['sleep', '600']);
      // crictl wants a terminal of its own for -t: script(1) gives it one, 33 rows by 111 columns.
      const inner = `stty rows 33 cols 111; ${crictlPath} -r ${runtime.endpoint} exec -it ${id} sh -c '[ -t 0 ] && [ -t 1 ] && echo on-a-terminal; echo through-dev-tty > /dev/tty; for i in $(seq 50); do s=$(stty size); [ "$s" = "33 111" ] && break; sleep 0.1; done; echo "size $s"'`;
      const run = await new Promise<Run>((resolve) => {
        const child = execFile('script', ['-qec', inner, '/dev/null'], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout, stderr }),
        );
        child.stdin?.end();
      });
      expect(run.stdout).toContain('on-a-terminal');
      expect(run.stdout).toContain('through-dev-tty');
      expect(run.stdout).toContain('size 33 111');
    });

    it("exec -it of an interactive shell gives back its own `exit 3` (the shell's terminal is one its namespace sees)", async () => {
      const { id } = await runContainer('shell', ['sleep', '600']);
      const inner = `${crictlPath} -r ${runtime.endpoint} exec -it ${id} sh; echo "EXIT=$?"`;
      const run = await new Promise<Run>((resolve) => {
        const child = execFile('script', ['-qec', inner, '/dev/null'], { encoding: 'utf8', timeout: 30_000 }, (err, stdout, stderr) =>
          resolve({ code: err ? 1 : 0, stdout, stderr }),
        );
        // Typed at the shell's prompt. Stdin stays open until then, or script would end the shell.
        let seen = '';
        child.stdout?.on('data', (chunk: string) => {
          // The image's shell (busybox's ash) asks where the cursor is after its prompt: what comes before that is lost.
          seen += chunk;
          if (!(withRegistry ? seen.endsWith('\x1b[6n') : seen.endsWith('# '))) return;
          seen = '';
          child.stdin?.write('exit 3\n');
        });
        child.on('exit', () => child.stdin?.end());
      });
      // crictl says it and exits 1 (kubectl exits with the code).
      expect(run.stdout).toMatch(/exit 3\s+.*command terminated with exit code 3/);
    });

    it("attach streams the container's output and writes what the client types to its stdin; closing it ends the attach, not the container", async () => {
      // No log file: what it writes reaches the attach all the same (critest's containers have none).
      const { id } = await runContainer('attach', ['sh'], { stdin: true, log_path: '' });
      const attach = crictlLive(['attach', '-i', id]);
      attach.child.stdin!.write('echo attached-$((40 + 2))\n');
      await eventually(
        () => attach.out().includes('attached-42\n'),
        () => `the attach's output (so far: ${JSON.stringify(attach.out())}, ${attach.err()})`,
      );
      attach.child.stdin!.write('echo to-err >&2\n');
      await eventually(
        () => attach.err().includes('to-err'),
        () => `stderr through the attach (so far: ${JSON.stringify(attach.err())})`,
      );
      attach.child.stdin!.end();
      expect(await attach.exited).toBe(0);
      const state = JSON.parse((await crictl(['inspect', id])).stdout) as { status: { state: string } };
      expect(state.status.state).toBe('CONTAINER_RUNNING');

      // The stdin stayed open: a second attach still reaches the same shell.
      const again = crictlLive(['attach', '-i', id]);
      again.child.stdin!.write('echo again\n');
      await eventually(
        () => again.out().includes('again\n'),
        () => `the second attach's output (so far: ${JSON.stringify(again.out())})`,
      );
      again.child.stdin!.end();
      expect(await again.exited).toBe(0);

      // Without stdin, the output of a container the runtime's spawner started, read from its log.
      const ticker = await runContainer('ticker', ['sh', '-c', 'i=0; while true; do i=$((i + 1)); echo "tick $i"; sleep 0.1; done']);
      const watch = crictlLive(['attach', ticker.id]);
      await eventually(
        () => /tick \d+\ntick \d+\n/.test(watch.out()),
        () => `ticks through the attach (so far: ${JSON.stringify(watch.out())} ${watch.err()})`,
      );
      watch.child.kill('SIGKILL');
      await watch.exited;
    });

    it('attach follows the log across rotations, without a gap, when it reads the output from the log', async () => {
      const ticker = await runContainer('rotated', ['sh', '-c', 'i=0; while true; do i=$((i + 1)); echo "tick $i"; sleep 0.05; done']);
      const log = join(dir, 'rotated', 'main.log');
      const watch = crictlLive(['attach', ticker.id]);
      const ticks = () => [...watch.out().matchAll(/tick (\d+)\n/g)].map((m) => Number(m[1]));
      await eventually(
        () => ticks().length >= 2,
        () => `ticks through the attach (so far: ${JSON.stringify(watch.out())} ${watch.err()})`,
      );
      // Rotated while the file is small, then left to grow past where the attach had read the old one.
      for (let r = 0; r < 3; r++) {
        renameSync(log, `${log}.${r}`);
        await client.reopenContainerLog(ticker.id);
        const seen = ticks().length;
        await eventually(
          () => ticks().length >= seen + 20,
          () => `ticks after rotation ${r} (so far: ${JSON.stringify(ticks())})`,
        );
      }
      watch.child.kill('SIGKILL');
      await watch.exited;
      const got = ticks();
      expect(got.filter((n, i) => i > 0 && n !== got[i - 1] + 1)).toEqual([]);
    });

    it('port-forward joins a local port to one the pod listens on, a connection at a time', async () => {
      const podPort = await freePort();
      const localPort = await freePort();
      // An echo server: busybox's nc, a cat per connection.
      const { podId } = await runContainer('forward', ['busybox', 'nc', '-ll', '-p', String(podPort), '-e', 'cat']);
      const forward = crictlLive(['port-forward', podId, `${localPort}:${podPort}`]);
      await eventually(
        () => forward.out().includes(`Forwarding from 127.0.0.1:${localPort} -> ${podPort}`),
        () => `crictl port-forward to listen (so far: ${forward.out()}${forward.err()})`,
      );
      await eventually(async () => (await roundTrip(podPort, 'up?')) === 'up?', 'the echo server in the pod');
      expect(await roundTrip(localPort, 'first connection')).toBe('first connection');
      expect(await roundTrip(localPort, 'second one')).toBe('second one');
      forward.child.kill('SIGINT');
      await forward.exited;

      const nobody = await freePort();
      const refused = crictlLive(['port-forward', podId, `${localPort}:${nobody}`]);
      await eventually(
        () => refused.out().includes('Forwarding from'),
        () => `crictl port-forward to listen (so far: ${refused.out()}${refused.err()})`,
      );
      await roundTrip(localPort, 'anyone?').catch(() => '');
      await eventually(
        () => refused.err().includes(`error forwarding port ${nobody}`),
        () => `the dial error on crictl's stderr (so far: ${refused.err()})`,
      );
      refused.child.kill('SIGINT');
      await refused.exited;
    });

    it('refuses what it cannot serve: bad flags, unknown ids, a URL used twice or without an upgrade', async () => {
      const { id, podId } = await runContainer('refusals', ['sleep', '600']);
      const flags = { stdin: false, stdout: true, stderr: false, tty: false };
      await expect(client.exec({ containerId: id, cmd: ['true'], ...flags, stdout: false })).rejects.toMatchObject({
        code: 3,
        details: expect.stringMatching(/one of stdin, stdout, or stderr/),
      });
      await expect(client.exec({ containerId: id, cmd: ['true'], ...flags, tty: true, stderr: true })).rejects.toMatchObject({ code: 3 });
      await expect(client.exec({ containerId: id, cmd: [], ...flags })).rejects.toMatchObject({ code: 3 });
      await expect(client.exec({ containerId: 'nosuch', cmd: ['true'], ...flags })).rejects.toMatchObject({ code: 5 });
      await expect(client.attach({ containerId: 'nosuch', ...flags })).rejects.toMatchObject({ code: 5 });
      await expect(client.portForward('nosuch', [80])).rejects.toMatchObject({ code: 5 });

      const url = new URL(await client.exec({ containerId: id, cmd: ['true'], ...flags }));
      expect(url.hostname).toBe('127.0.0.1');
      const plain = await fetch(url);
      expect(plain.status).toBe(400);
      const upgrade = (target: URL) =>
        new Promise<number>((resolve, reject) => {
          const req = request(target, {
            headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' },
          });
          req.on('upgrade', (res, socket) => {
            socket.destroy();
            resolve(res.statusCode ?? 0);
          });
          req.on('response', (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      expect(await upgrade(url)).toBe(101);
      expect(await upgrade(url)).toBe(404);
      const forward = new URL(await client.portForward(podId, [80]));
      expect(forward.pathname).toMatch(/^\/portforward\//);
    });
  },
);
