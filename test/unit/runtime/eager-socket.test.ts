// EagerSocket (src/runtime/eager-socket.ts): two Node HTTP/2 peers on a real
// unix socket, each sending more than the socket holds at the same moment,
// flow-control windows opened wide. With the server's connection a plain
// socket, both sessions stop reading while their writes are in progress and
// neither ever finishes (tried: stuck every time, no byte received); with it
// an EagerSocket, both get everything.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as h2connect, createServer as h2server, type ServerHttp2Session } from 'node:http2';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EagerSocket, listenEager } from '../../../src/runtime/eager-socket.js';

const SIZE = 4 * 1024 * 1024;
const WIDE = 2 ** 31 - 1;
const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

function socketPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-eager-'));
  closers.push(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'test.sock');
}

describe('EagerSocket', () => {
  it('keeps an HTTP/2 session reading while both ends write more than the socket holds', async () => {
    const path = socketPath();
    const server = h2server({ settings: { initialWindowSize: WIDE }, maxSessionMemory: 1000 });
    let serverGot = 0;
    const serverDone = new Promise<void>((resolve) => {
      server.on('session', (s: ServerHttp2Session) => s.setLocalWindowSize(WIDE));
      server.on('stream', (stream) => {
        stream.on('data', (d: Buffer) => (serverGot += d.length));
        stream.on('end', resolve);
        stream.respond({ ':status': 200 });
        stream.end(Buffer.alloc(SIZE, 1));
      });
    });
    const listener = await listenEager(path, (connection) => server.emit('connection', connection));
    closers.push(() => listener.close());
    // The client's end is a plain socket, as grpc-js's is.
    const session = h2connect('http://knode', {
      settings: { initialWindowSize: WIDE },
      maxSessionMemory: 1000,
      createConnection: () => connect(path),
    });
    closers.push(() => session.destroy());
    session.on('connect', () => session.setLocalWindowSize(WIDE));
    const request = session.request({ ':method': 'POST', ':path': '/' });
    let clientGot = 0;
    request.on('data', (d: Buffer) => (clientGot += d.length));
    const clientDone = new Promise((resolve) => request.on('end', resolve));
    request.end(Buffer.alloc(SIZE, 2));
    await Promise.all([serverDone, clientDone]);
    expect({ serverGot, clientGot }).toEqual({ serverGot: SIZE, clientGot: SIZE });
  }, 20_000);

  it('ends the socket when it ends, and closes when the socket closes', async () => {
    const path = socketPath();
    let accept: (s: EagerSocket) => void = () => {};
    const accepted = new Promise<EagerSocket>((resolve) => (accept = resolve));
    const listener: Server = createServer((s) => accept(new EagerSocket(s)));
    closers.push(() => listener.close());
    await new Promise<void>((resolve) => listener.listen(path, resolve));
    const peer = connect(path);
    const eager = await accepted;
    const received = new Promise<string>((resolve) => {
      let text = '';
      peer.on('data', (d: Buffer) => (text += d.toString()));
      peer.on('end', () => resolve(text));
    });
    eager.end('hello');
    expect(await received).toBe('hello');
    const closed = new Promise((resolve) => eager.on('close', resolve));
    peer.destroy();
    await closed;
    expect(eager.destroyed).toBe(true);
  });
});
