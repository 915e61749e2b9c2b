// knode's streaming client (SPDY client role, remotecommand and port-forward)
// against the runtime's own streaming server, in-process over real sockets:
// the handlers are fakes, the protocol on the wire is the real one.
import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { PortForwardSession } from '../../../../src/cri/streaming/port-forward.js';
import { outcomeOf, runRemoteCommand, type TerminalSize } from '../../../../src/cri/streaming/remote-command.js';
import type { StreamIo } from '../../../../src/runtime/streaming/attached-process.js';
import type { CommandOutcome } from '../../../../src/runtime/streaming/remote-command.js';
import { StreamingServer, type StreamHandlers } from '../../../../src/runtime/streaming/server.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function serve(handlers: Partial<StreamHandlers>): Promise<StreamingServer> {
  const server = new StreamingServer(
    {
      exec: handlers.exec ?? (async () => ({ exitCode: 0 })),
      attach: handlers.attach ?? (async () => ({ exitCode: 0 })),
      portForwardTarget: handlers.portForwardTarget ?? (() => ({ host: '127.0.0.1', describe: 'pod sandbox s1' })),
    },
    () => {},
  );
  await server.listen();
  cleanups.push(() => server.close());
  return server;
}

function collect(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d: Buffer) => (text += d.toString()));
  return { stream, text: () => text };
}

const options = { stdin: false, stdout: true, stderr: true, tty: false };

describe('runRemoteCommand', () => {
  it("passes stdout and stderr apart and returns the command's exit code from the v4 Status", async () => {
    const server = await serve({
      exec: async (_id, cmd, io) => {
        io.stdout!.write(`ran ${cmd.join(' ')}\n`);
        io.stderr!.write('to stderr\n');
        return { exitCode: 3 };
      },
    });
    const out = collect();
    const err = collect();
    const url = server.url({ kind: 'exec', containerId: 'c1', cmd: ['sh', '-c', 'exit 3'], options });
    const outcome = await runRemoteCommand(url, { stdout: out.stream, stderr: err.stream, tty: false });
    expect(outcome).toEqual({ exitCode: 3 });
    expect(out.text()).toBe('ran sh -c exit 3\n');
    expect(err.text()).toBe('to stderr\n');
  });

  it("sends stdin and ends it at the local stdin's end; a command that could not run is an error", async () => {
    const server = await serve({
      exec: async (_id, _cmd, io) => {
        let text = '';
        for await (const chunk of io.stdin!) text += chunk;
        io.stdout!.write(text.toUpperCase());
        return text.includes('fail') ? { error: 'no such file' } : { exitCode: 0 };
      },
    });
    const out = collect();
    const stdin = new PassThrough();
    const url = server.url({ kind: 'exec', containerId: 'c1', cmd: ['cat'], options: { ...options, stdin: true } });
    const done = runRemoteCommand(url, { stdin, stdout: out.stream, stderr: new PassThrough(), tty: false });
    stdin.write('piped ');
    stdin.end('in\n');
    expect(await done).toEqual({ exitCode: 0 });
    expect(out.text()).toBe('PIPED IN\n');

    const again = server.url({ kind: 'exec', containerId: 'c1', cmd: ['cat'], options: { ...options, stdin: true } });
    const failed = runRemoteCommand(again, {
      stdin: new PassThrough().end('fail'),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      tty: false,
    });
    expect(await failed).toEqual({ error: 'Internal error occurred: no such file' });
  });

  it('with a TTY, sends the terminal size first and on each change, on the resize stream', async () => {
    const sizes: TerminalSize[] = [];
    let resized = () => {};
    const server = await serve({
      attach: (_id, io: StreamIo) =>
        new Promise<CommandOutcome>((resolve) => {
          io.onResize!((size) => {
            sizes.push(size);
            if (sizes.length === 2) resolve({ exitCode: 0 });
          });
          resized();
        }),
    });
    const url = server.url({ kind: 'attach', containerId: 'c1', options: { ...options, stderr: false, tty: true } });
    const outcome = await runRemoteCommand(url, {
      stdout: new PassThrough(),
      tty: true,
      followSize: (send) => {
        send({ width: 80, height: 24 });
        resized = () => send({ width: 120, height: 40 });
        return () => {};
      },
    });
    expect(outcome).toEqual({ exitCode: 0 });
    expect(sizes).toEqual([
      { width: 80, height: 24 },
      { width: 120, height: 40 },
    ]);
  });

  it("rejects with the server's words when the URL is unknown or spent", async () => {
    const server = await serve({});
    const url = server.url({ kind: 'exec', containerId: 'c1', cmd: ['true'], options });
    await runRemoteCommand(url, { stdout: new PassThrough(), stderr: new PassThrough(), tty: false });
    await expect(runRemoteCommand(url, { stdout: new PassThrough(), tty: false })).rejects.toThrow(
      /unable to upgrade connection: not found: the URL is unknown or has expired/,
    );
  });
});

describe('outcomeOf', () => {
  it('reads v4 Statuses and the text of older protocols', () => {
    expect(outcomeOf('{"metadata":{},"status":"Success"}', 'v4.channel.k8s.io')).toEqual({ exitCode: 0 });
    const status = { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '42' }] } };
    expect(outcomeOf(JSON.stringify(status), 'v4.channel.k8s.io')).toEqual({ exitCode: 42 });
    expect(outcomeOf('{"status":"Failure","message":"boom","reason":"InternalError"}', 'v4.channel.k8s.io')).toEqual({ error: 'boom' });
    expect(outcomeOf('not json', 'v4.channel.k8s.io')).toEqual({ error: 'error stream protocol error: not json' });
    expect(outcomeOf('', 'v3.channel.k8s.io')).toEqual({ exitCode: 0 });
    expect(outcomeOf('command terminated with non-zero exit code: exit status 7', 'v2.channel.k8s.io')).toEqual({ exitCode: 7 });
  });
});

describe('PortForwardSession', () => {
  async function echoServer(): Promise<{ server: Server; port: number }> {
    const server = createServer((s) => s.pipe(s));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => void server.close());
    return { server, port: (server.address() as { port: number }).port };
  }

  /** A local connection pair: `ours` is forwarded, `theirs` is what a local client would hold. */
  async function localPair(): Promise<{ ours: Socket; theirs: Socket }> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const theirs = connect((server.address() as { port: number }).port, '127.0.0.1');
    const [ours] = await accepted;
    server.close();
    return { ours, theirs };
  }

  it('forwards several connections at once on one session, and fails only the one whose port is closed', async () => {
    const { port } = await echoServer();
    const server = await serve({});
    const session = await PortForwardSession.open(server.url({ kind: 'portforward', podSandboxId: 's1' }));
    cleanups.push(() => session.close());
    const pairs = await Promise.all([localPair(), localPair(), localPair()]);
    const errors: string[] = [];
    pairs.forEach((p) => session.forward(p.ours, port, (m) => errors.push(m)));
    const replies = pairs.map(
      (p, i) =>
        new Promise<string>((resolve) => {
          let text = '';
          p.theirs.on('data', (d: Buffer) => {
            text += d.toString();
            if (text.length >= `hello ${i}`.length) resolve(text);
          });
        }),
    );
    pairs.forEach((p, i) => p.theirs.write(`hello ${i}`));
    expect(await Promise.all(replies)).toEqual(['hello 0', 'hello 1', 'hello 2']);

    const closed = await localPair();
    const ended = once(closed.theirs, 'close');
    session.forward(closed.ours, 1, (m) => errors.push(m));
    await ended;
    expect(errors).toEqual([expect.stringMatching(/^error forwarding port 1 to pod sandbox s1: connect ECONNREFUSED/)]);
    expect(session.closed).toBe(false);

    const after = await localPair();
    session.forward(after.ours, port, () => {});
    after.theirs.write('still');
    const [data] = (await once(after.theirs, 'data')) as [Buffer];
    expect(data.toString()).toBe('still');
    pairs.concat([after]).forEach((p) => p.theirs.destroy());
  });
});
