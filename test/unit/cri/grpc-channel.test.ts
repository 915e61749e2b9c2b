// The CRI client's gRPC channel against a real grpc-js server on a unix socket:
// answers, statuses, deadlines, cancels, large answers, server streams, and
// connections that fail, drop and come back.
import * as grpc from '@grpc/grpc-js';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GrpcCallError, GrpcChannel } from '../../../src/cri/grpc-channel.js';

const raw = {
  requestSerialize: (b: Buffer) => b,
  requestDeserialize: (b: Buffer) => b,
  responseSerialize: (b: Buffer) => b,
  responseDeserialize: (b: Buffer) => b,
};
const method = (name: string, responseStream = false) => ({ path: `/test.T/${name}`, requestStream: false, responseStream, ...raw });
const SERVICE = { Echo: method('Echo'), Fail: method('Fail'), Hang: method('Hang'), Big: method('Big'), Watch: method('Watch', true) };
const MAX = 4 * 1024 * 1024;

type Unary = grpc.ServerUnaryCall<Buffer, Buffer>;

/** What the server saw: the calls cancelled by the client. */
interface Seen {
  cancelled: string[];
}

async function serve(socket: string, seen: Seen): Promise<grpc.Server> {
  const server = new grpc.Server();
  server.addService(SERVICE, {
    Echo: (call: Unary, done: grpc.sendUnaryData<Buffer>) => done(null, call.request),
    Fail: (_call: Unary, done: grpc.sendUnaryData<Buffer>) =>
      done({ code: grpc.status.NOT_FOUND, details: 'no container "ünï" here: 100%' } as grpc.ServiceError),
    Hang: (call: Unary) => call.on('cancelled', () => seen.cancelled.push('Hang')),
    Big: (call: Unary, done: grpc.sendUnaryData<Buffer>) => done(null, Buffer.alloc(Number(call.request.toString()), 7)),
    Watch: (call: grpc.ServerWritableStream<Buffer, Buffer>) => {
      call.on('cancelled', () => seen.cancelled.push('Watch'));
      const mode = call.request.toString();
      for (let i = 0; i < 3; i++) call.write(Buffer.from(`event ${i}`));
      if (mode === 'fail') call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'runtime going away' });
      else if (mode === 'end') call.end();
    },
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`unix://${socket}`, grpc.ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())),
  );
  return server;
}

async function codeOf(promise: Promise<unknown>): Promise<[number, string]> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof GrpcCallError)) throw new Error(`expected a GrpcCallError, got ${String(err)}`);
  return [err.code, err.details];
}

async function collect(stream: AsyncIterable<Buffer>): Promise<string[]> {
  const got: string[] = [];
  for await (const message of stream) got.push(message.toString());
  return got;
}

let dir: string;
let socket: string;
let server: grpc.Server | undefined;
let channel: GrpcChannel;
let seen: Seen;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'knode-grpc-channel-'));
  socket = join(dir, 'test.sock');
  seen = { cancelled: [] };
  server = await serve(socket, seen);
  channel = new GrpcChannel({ connect: () => connect(socket), maxMessageBytes: MAX });
});

afterEach(() => {
  channel.close();
  server?.forceShutdown();
  rmSync(dir, { recursive: true, force: true });
});

describe('GrpcChannel', () => {
  it('encodes and decodes through a method, a failing coder fails the call with INTERNAL as in grpc-js', async () => {
    const text = {
      path: '/test.T/Echo',
      requestSerialize: (s: string) => Buffer.from(s),
      responseDeserialize: (b: Buffer) => b.toString(),
    };
    expect(await channel.call(text, 'hello', 5_000)).toBe('hello');
    const throws = (message: string) => (): never => {
      throw new Error(message);
    };
    const refusing = { ...text, requestSerialize: throws('no field "x"') };
    expect(await codeOf(channel.call(refusing, 'x', 5_000))).toEqual([
      grpc.status.INTERNAL,
      'Request message serialization failure: no field "x"',
    ]);
    const unreadable = { ...text, responseDeserialize: throws('index out of range') };
    expect(await codeOf(channel.call(unreadable, 'x', 5_000))).toEqual([
      grpc.status.INTERNAL,
      'Response message parsing error: index out of range',
    ]);
    const events = { ...text, path: '/test.T/Watch' };
    const got: string[] = [];
    for await (const event of channel.watch(events, 'end', new AbortController().signal)) got.push(event);
    expect(got).toEqual(['event 0', 'event 1', 'event 2']);
  });

  it('answers unary calls, many at once on one connection', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => channel.unary('/test.T/Echo', Buffer.from(`call ${i}`), 5_000)));
    expect(answers.map((a) => a.toString())).toEqual(Array.from({ length: 50 }, (_, i) => `call ${i}`));
    expect((await channel.unary('/test.T/Echo', Buffer.alloc(0), 5_000)).length).toBe(0);
  });

  it("gives the server's status code and its message, percent-decoded", async () => {
    expect(await codeOf(channel.unary('/test.T/Fail', Buffer.from('x'), 5_000))).toEqual([
      grpc.status.NOT_FOUND,
      'no container "ünï" here: 100%',
    ]);
    expect((await codeOf(channel.unary('/test.T/Nope', Buffer.from('x'), 5_000)))[0]).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('fails a call past its deadline with DEADLINE_EXCEEDED', async () => {
    expect(await codeOf(channel.unary('/test.T/Hang', Buffer.from('x'), 100))).toEqual([
      grpc.status.DEADLINE_EXCEEDED,
      'Deadline exceeded',
    ]);
  });

  it('cancels a call when its signal aborts, and the server sees it cancelled', async () => {
    const abort = new AbortController();
    const call = channel.unary('/test.T/Hang', Buffer.from('x'), 5_000, abort.signal);
    await expect.poll(() => channel.unary('/test.T/Echo', Buffer.from('x'), 5_000).then((a) => a.toString())).toBe('x');
    abort.abort();
    expect((await codeOf(call))[0]).toBe(grpc.status.CANCELLED);
    await expect.poll(() => seen.cancelled).toEqual(['Hang']);
    const aborted = new AbortController();
    aborted.abort();
    expect((await codeOf(channel.unary('/test.T/Echo', Buffer.from('x'), 5_000, aborted.signal)))[0]).toBe(grpc.status.CANCELLED);
  });

  it('takes an answer larger than HTTP/2 windows whole, and refuses one over the largest message', async () => {
    const big = await channel.unary('/test.T/Big', Buffer.from(String(MAX - 100)), 5_000);
    expect(big.length).toBe(MAX - 100);
    expect(big.every((b) => b === 7)).toBe(true);
    expect((await codeOf(channel.unary('/test.T/Big', Buffer.from(String(MAX + 1)), 5_000)))[0]).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect((await codeOf(channel.unary('/test.T/Echo', Buffer.alloc(MAX + 1), 5_000)))[0]).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // The connection is still good after both.
    expect((await channel.unary('/test.T/Echo', Buffer.from('after'), 5_000)).toString()).toBe('after');
  });

  it("streams the server's messages until it ends the call, or fails it", async () => {
    const signal = new AbortController().signal;
    expect(await collect(channel.serverStream('/test.T/Watch', Buffer.from('end'), signal))).toEqual(['event 0', 'event 1', 'event 2']);
    const got: string[] = [];
    const failed = collect(
      (async function* (stream) {
        for await (const m of stream) {
          got.push(m.toString());
          yield m;
        }
      })(channel.serverStream('/test.T/Watch', Buffer.from('fail'), signal)),
    );
    expect(await codeOf(failed)).toEqual([grpc.status.UNAVAILABLE, 'runtime going away']);
    expect(got).toEqual(['event 0', 'event 1', 'event 2']);
  });

  it('ends a stream when its signal aborts, or when its reader stops; the server sees both cancelled', async () => {
    const abort = new AbortController();
    const got: string[] = [];
    const reading = (async () => {
      for await (const m of channel.serverStream('/test.T/Watch', Buffer.from('open'), abort.signal)) {
        got.push(m.toString());
        if (got.length === 3) abort.abort();
      }
    })();
    expect((await codeOf(reading))[0]).toBe(grpc.status.CANCELLED);
    expect(got).toEqual(['event 0', 'event 1', 'event 2']);
    for await (const m of channel.serverStream('/test.T/Watch', Buffer.from('open'), new AbortController().signal)) {
      expect(m.toString()).toBe('event 0');
      break;
    }
    await expect.poll(() => seen.cancelled.sort()).toEqual(['Watch', 'Watch']);
  });

  it('fails calls with UNAVAILABLE while nothing listens, and connects again once the server is back', async () => {
    expect((await channel.unary('/test.T/Echo', Buffer.from('up'), 5_000)).toString()).toBe('up');
    server!.forceShutdown();
    await expect
      .poll(() => codeOf(channel.unary('/test.T/Echo', Buffer.from('x'), 5_000)).then(([code]) => code))
      .toBe(grpc.status.UNAVAILABLE);
    rmSync(socket, { force: true });
    server = await serve(socket, seen);
    expect((await channel.unary('/test.T/Echo', Buffer.from('back'), 5_000)).toString()).toBe('back');
  });

  it('fails a call with UNAVAILABLE when the connection drops under it', async () => {
    // A listener that takes the connection and drops it once the call's bytes come.
    const dropping = createServer((connection) => connection.once('data', () => connection.destroy()));
    const dropSocket = join(dir, 'drop.sock');
    await new Promise<void>((resolve) => dropping.listen(dropSocket, resolve));
    const dropped = new GrpcChannel({ connect: () => connect(dropSocket), maxMessageBytes: MAX });
    try {
      expect((await codeOf(dropped.unary('/test.T/Echo', Buffer.from('x'), 5_000)))[0]).toBe(grpc.status.UNAVAILABLE);
    } finally {
      dropped.close();
      dropping.close();
    }
  });

  it('close() cancels the calls under way, and later calls fail', async () => {
    const hanging = channel.unary('/test.T/Hang', Buffer.from('x'), 5_000);
    const watching = collect(channel.serverStream('/test.T/Watch', Buffer.from('open'), new AbortController().signal));
    await expect.poll(() => channel.unary('/test.T/Echo', Buffer.from('x'), 5_000).then((a) => a.toString())).toBe('x');
    channel.close();
    expect((await codeOf(hanging))[0]).toBe(grpc.status.CANCELLED);
    expect((await codeOf(watching))[0]).toBe(grpc.status.CANCELLED);
    expect((await codeOf(channel.unary('/test.T/Echo', Buffer.from('x'), 5_000)))[0]).toBe(grpc.status.UNAVAILABLE);
  });
});
