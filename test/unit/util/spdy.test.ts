// The SPDY/3.1 server side alone, over a real socket pair, with a peer written
// here from the framing rules: its header blocks compressed by zlib with the
// SPDY dictionary (as spdystream does), ours inflated by zlib the same way.
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { constants, createDeflate, inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeHeaderBlock, encodeHeaderBlock, HEADER_DICTIONARY, SpdyConnection, type SpdyStream } from '../../../src/util/spdy.js';

function controlFrame(type: number, flags: number, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8003, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags << 24) | body.length) >>> 0, 4);
  return Buffer.concat([head, body]);
}

function dataFrame(streamId: number, fin: boolean, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId, 0);
  head.writeUInt32BE((((fin ? 1 : 0) << 24) | data.length) >>> 0, 4);
  return Buffer.concat([head, data]);
}

/** The peer's header compressor: one zlib stream for the connection, flushed after each block. */
function peerCompressor() {
  const deflate = createDeflate({ dictionary: HEADER_DICTIONARY });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  return (headers: Record<string, string>) =>
    new Promise<Buffer>((resolve) => {
      deflate.write(encodeHeaderBlock(headers));
      deflate.flush(constants.Z_SYNC_FLUSH, () => resolve(Buffer.concat(out.splice(0))));
    });
}

async function synStream(
  compress: ReturnType<typeof peerCompressor>,
  id: number,
  headers: Record<string, string>,
  fin = false,
): Promise<Buffer> {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt32BE(id, 0);
  return controlFrame(1, fin ? 1 : 0, Buffer.concat([fixed, await compress(headers)]));
}

/** Frames the server sends, split as they arrive. */
function frameReader(socket: Socket) {
  let buffered = Buffer.alloc(0);
  const frames: { control: boolean; type: number; streamId: number; flags: number; data: Buffer }[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    while (buffered.length >= 8 && buffered.length >= 8 + (buffered.readUInt32BE(4) & 0xffffff)) {
      const length = buffered.readUInt32BE(4) & 0xffffff;
      const control = (buffered[0] & 0x80) !== 0;
      frames.push({
        control,
        type: control ? buffered.readUInt16BE(2) : 0,
        streamId: control ? 0 : buffered.readUInt32BE(0),
        flags: buffered[4],
        data: buffered.subarray(8, 8 + length),
      });
      buffered = buffered.subarray(8 + length);
    }
  });
  return frames;
}

async function until<T>(check: () => T | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('SPDY/3.1 server connection', () => {
  const closers: (() => void)[] = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  async function pair(): Promise<{ peer: Socket; connection: SpdyConnection; streams: SpdyStream[] }> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const peer = connect((server.address() as { port: number }).port, '127.0.0.1');
    const [socket] = (await once(server, 'connection')) as [Socket];
    const connection = new SpdyConnection(socket);
    const streams: SpdyStream[] = [];
    connection.on('stream', (s) => streams.push(s));
    closers.push(() => {
      peer.destroy();
      socket.destroy();
      server.close();
    });
    return { peer, connection, streams };
  }

  it('the dictionary is the 1,423 bytes SPDY/3 defines', () => {
    expect(HEADER_DICTIONARY.length).toBe(1423);
    expect(HEADER_DICTIONARY.subarray(0, 11).toString('latin1')).toBe('\0\0\0\x07options');
    expect(HEADER_DICTIONARY.subarray(-7).toString('latin1')).toBe(',enq=0.');
  });

  it('opens streams from SYN_STREAMs split across writes, replies to each in one zlib stream, and carries data both ways', async () => {
    const { peer, streams } = await pair();
    const frames = frameReader(peer);
    const compress = peerCompressor();
    const first = await synStream(compress, 1, { streamtype: 'error' });
    const second = await synStream(compress, 3, { streamType: 'stdout', extra: 'a\0b' });
    const bytes = Buffer.concat([first, second, dataFrame(3, true, Buffer.from('to the server'))]);
    for (let at = 0; at < bytes.length; at += 7) peer.write(bytes.subarray(at, at + 7));

    const [error, stdout] = await until(() => (streams.length === 2 ? streams : undefined), 'two streams');
    expect([error.id, error.header('streamType')]).toEqual([1, 'error']);
    expect([stdout.id, stdout.header('streamtype'), stdout.headers.get('extra')]).toEqual([3, 'stdout', ['a', 'b']]);
    let received = '';
    stdout.on('data', (c: Buffer) => (received += c.toString()));
    await once(stdout, 'end');
    expect(received).toBe('to the server');

    const replies = await until(
      () => (frames.filter((f) => f.type === 2).length === 2 ? frames.filter((f) => f.type === 2) : undefined),
      'two SYN_REPLYs',
    );
    // Each reply's header block continues the one before: inflated together, they are two empty blocks.
    const blocks = replies.map((f) => f.data.subarray(4));
    expect(replies.map((f) => f.data.readUInt32BE(0))).toEqual([1, 3]);
    const inflated = inflateSync(Buffer.concat(blocks), { dictionary: HEADER_DICTIONARY, finishFlush: constants.Z_SYNC_FLUSH });
    expect(inflated).toEqual(Buffer.concat([encodeHeaderBlock({}), encodeHeaderBlock({})]));

    stdout.end(Buffer.from('to the peer'));
    const data = await until(
      () => (frames.some((f) => !f.control && f.flags === 1) ? frames.filter((f) => !f.control) : undefined),
      'data with FIN',
    );
    expect(Buffer.concat(data.map((f) => f.data)).toString()).toBe('to the peer');
    expect(data.every((f) => f.streamId === 3)).toBe(true);
  });

  it('answers PING with its id, ends a stream the peer resets, and says GOAWAY when it closes', async () => {
    const { peer, connection, streams } = await pair();
    const frames = frameReader(peer);
    const compress = peerCompressor();
    const ping = Buffer.alloc(4);
    ping.writeUInt32BE(7);
    peer.write(Buffer.concat([controlFrame(6, 0, ping), await synStream(compress, 1, { streamtype: 'stdin' })]));
    const pong = await until(() => frames.find((f) => f.type === 6), 'the PING answer');
    expect(pong.data.readUInt32BE(0)).toBe(7);

    const [stdin] = await until(() => (streams.length === 1 ? streams : undefined), 'the stream');
    const reset = Buffer.alloc(8);
    reset.writeUInt32BE(1, 0);
    reset.writeUInt32BE(5, 4);
    peer.write(controlFrame(3, 0, reset));
    await until(() => (stdin.destroyed ? true : undefined), 'the reset stream to end');

    connection.close();
    const goAway = await until(() => frames.find((f) => f.type === 7), 'GOAWAY');
    expect(goAway.data.readUInt32BE(0)).toBe(1);
    expect(connection.closed).toBe(true);
  });

  it('drops a connection whose frame claims more than a megabyte', async () => {
    const { peer, connection } = await pair();
    const head = Buffer.alloc(8);
    head.writeUInt32BE(1, 0);
    head.writeUInt32BE(0x00ffffff, 4);
    peer.write(head);
    await until(() => (connection.closed ? true : undefined), 'the connection to close');
  });

  it('decodes a header block and refuses one cut short', () => {
    expect(decodeHeaderBlock(encodeHeaderBlock({ Port: '8080', requestid: '0' }))).toEqual(
      new Map([
        ['port', ['8080']],
        ['requestid', ['0']],
      ]),
    );
    expect(() => decodeHeaderBlock(encodeHeaderBlock({ port: '8080' }).subarray(0, 10))).toThrow(/cut short/);
  });
});
