import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex as Socket } from 'node:stream';
import { Duplex } from 'node:stream';
import { createInflate, constants as zlib, type Inflate } from 'node:zlib';

/**
 * The server side of SPDY/3.1 as Kubernetes streams over it (exec, attach,
 * port-forward; moby/spdystream on the client): the peer opens streams with
 * SYN_STREAM and each gets an empty SYN_REPLY; data frames carry the bytes;
 * FIN half-closes a stream, RST_STREAM ends it; PINGs are answered. Flow
 * control is not enforced by spdystream, so WINDOW_UPDATE is ignored here too.
 */

/** SPDY/3's header compression dictionary: these words, each after its length as a 32-bit number, then the text below. */
const DICTIONARY_WORDS = [
  ...'options head post put delete trace accept accept-charset accept-encoding accept-language accept-ranges age allow'.split(' '),
  ...'authorization cache-control connection content-base content-encoding content-language content-length content-location'.split(' '),
  ...'content-md5 content-range content-type date etag expect expires from host if-match if-modified-since if-none-match'.split(' '),
  ...'if-range if-unmodified-since last-modified location max-forwards pragma proxy-authenticate proxy-authorization range'.split(' '),
  ...'referer retry-after server te trailer transfer-encoding upgrade user-agent vary via warning www-authenticate method get'.split(' '),
  'status',
  '200 OK',
  'version',
  'HTTP/1.1',
  'url',
  'public',
  'set-cookie',
  'keep-alive',
  'origin',
];
const DICTIONARY_TEXT =
  '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505' +
  '203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden' +
  '404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
  'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMT' +
  'chunked,text/html,image/png,image/jpg,image/gif,application/xml,application/xhtml+xml,text/plain,text/javascript,' +
  'publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';

export const HEADER_DICTIONARY: Buffer = Buffer.concat([
  ...DICTIONARY_WORDS.flatMap((word) => [uint32(word.length), Buffer.from(word, 'latin1')]),
  Buffer.from(DICTIONARY_TEXT, 'latin1'),
]);

const VERSION = 3;
const FLAG_FIN = 0x01;
const enum FrameType {
  SynStream = 1,
  SynReply = 2,
  RstStream = 3,
  Settings = 4,
  Ping = 6,
  GoAway = 7,
  Headers = 8,
  WindowUpdate = 9,
}
/** RST_STREAM status codes. */
const CANCEL = 5;
const STREAM_IN_USE = 8;
/** The largest data frame sent (the length field allows 16 MiB). */
const MAX_DATA_FRAME = 64 * 1024;
/** The largest frame taken from the peer; anything longer ends the connection. */
const MAX_INCOMING_FRAME = 1024 * 1024;

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** A decoded header block: lower-case names, values split at NUL. */
export type SpdyHeaders = Map<string, string[]>;

export function decodeHeaderBlock(block: Buffer): SpdyHeaders {
  const headers: SpdyHeaders = new Map();
  let at = 0;
  const take = (): Buffer => {
    if (at + 4 > block.length) throw new Error('header block cut short');
    const n = block.readUInt32BE(at);
    at += 4;
    if (at + n > block.length) throw new Error('header block cut short');
    const piece = block.subarray(at, at + n);
    at += n;
    return piece;
  };
  if (block.length < 4) throw new Error('header block cut short');
  const pairs = block.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < pairs; i++) {
    const name = take().toString('latin1').toLowerCase();
    const values = take().toString('utf8').split('\0');
    headers.set(name, [...(headers.get(name) ?? []), ...values]);
  }
  return headers;
}

export function encodeHeaderBlock(headers: Record<string, string>): Buffer {
  const entries = Object.entries(headers);
  return Buffer.concat([
    uint32(entries.length),
    ...entries.flatMap(([k, v]) => [
      uint32(Buffer.byteLength(k)),
      Buffer.from(k.toLowerCase()),
      uint32(Buffer.byteLength(v)),
      Buffer.from(v),
    ]),
  ]);
}

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/**
 * Header blocks sent on one connection form one zlib stream with the SPDY
 * dictionary. They are written as stored (uncompressed) deflate blocks: a
 * valid continuation for any inflater, and made without an asynchronous
 * compressor. The first carries the zlib header naming the dictionary.
 */
class HeaderWriter {
  private started = false;
  encode(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      // CMF 0x78 (deflate, 32 KiB window), FLG 0x20 (FDICT; 0x7820 is a multiple of 31), then the dictionary's Adler-32.
      parts.push(Buffer.from([0x78, 0x20]), uint32(adler32(HEADER_DICTIONARY)));
      this.started = true;
    }
    for (let at = 0; at < block.length; at += 0xffff) parts.push(storedBlock(block.subarray(at, at + 0xffff)));
    // An empty stored block ends each header block, as a zlib sync flush does: an inflater hands out what it has when it reaches one.
    parts.push(storedBlock(Buffer.alloc(0)));
    return Buffer.concat(parts);
  }
}

/** A non-final stored deflate block: its header byte, LEN and NLEN, and the bytes as they are. */
function storedBlock(data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt16LE(data.length, 1);
  head.writeUInt16LE(~data.length & 0xffff, 3);
  return Buffer.concat([head, data]);
}

/** The peer's header blocks: one zlib stream, inflated block by block (in frame order, as the connection handles frames). */
class HeaderReader {
  private readonly inflater: Inflate = createInflate({ dictionary: HEADER_DICTIONARY });
  private out: Buffer[] = [];
  private failure: Error | undefined;
  constructor() {
    this.inflater.on('data', (chunk: Buffer) => this.out.push(chunk));
    this.inflater.on('error', (err) => (this.failure = err));
  }
  read(block: Buffer): Promise<SpdyHeaders> {
    return new Promise((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      this.inflater.write(block);
      this.inflater.flush(zlib.Z_SYNC_FLUSH, () => {
        if (this.failure) return reject(this.failure);
        const raw = Buffer.concat(this.out);
        this.out = [];
        try {
          resolve(decodeHeaderBlock(raw));
        } catch (err) {
          reject(err as Error);
        }
      });
    });
  }
  close(): void {
    this.inflater.close();
  }
}

interface Frame {
  control: boolean;
  type: number;
  streamId: number;
  flags: number;
  data: Buffer;
}

/** One stream the peer opened: readable is what the peer sends, writable what it gets. */
export class SpdyStream extends Duplex {
  constructor(
    readonly id: number,
    readonly headers: SpdyHeaders,
    private readonly connection: SpdyConnection,
  ) {
    super({ allowHalfOpen: true });
  }

  /** The first value of a header, or ''. */
  header(name: string): string {
    return this.headers.get(name.toLowerCase())?.[0] ?? '';
  }

  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.connection.sendData(this.id, chunk, false, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.connection.sendData(this.id, Buffer.alloc(0), true, callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.connection.forget(this.id, error !== null);
    callback(error);
  }
}

/**
 * One upgraded connection. Frames are handled one after another in arrival
 * order (a header block must be inflated before the next frame is looked at),
 * and 'stream' is emitted for each stream the peer opens.
 */
export class SpdyConnection extends EventEmitter<{ stream: [SpdyStream]; close: [] }> {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly streams = new Map<number, SpdyStream>();
  private readonly headerWriter = new HeaderWriter();
  private readonly headerReader = new HeaderReader();
  private handling: Promise<void> = Promise.resolve();
  private lastStreamId = 0;
  private ended = false;

  constructor(
    private readonly socket: Socket,
    head: Buffer = Buffer.alloc(0),
  ) {
    super();
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.teardown());
    socket.on('error', () => this.teardown());
    socket.on('end', () => this.close());
    if (head.length > 0) this.receive(head);
  }

  get closed(): boolean {
    return this.ended;
  }

  /** Ends every stream, says GOAWAY and closes the connection once what was written is sent. */
  close(): void {
    if (this.ended) return;
    const goAway = Buffer.alloc(8);
    goAway.writeUInt32BE(this.lastStreamId & 0x7fffffff, 0);
    this.writeControl(FrameType.GoAway, 0, goAway);
    this.socket.end();
    this.teardown();
  }

  sendData(streamId: number, data: Buffer, fin: boolean, callback: (error?: Error | null) => void): void {
    if (this.ended) return callback(new Error('the connection is closed'));
    let ok = true;
    for (let at = 0; at < data.length || (at === 0 && fin); at += MAX_DATA_FRAME) {
      const piece = data.subarray(at, at + MAX_DATA_FRAME);
      const last = at + MAX_DATA_FRAME >= data.length;
      const head = Buffer.alloc(8);
      head.writeUInt32BE(streamId & 0x7fffffff, 0);
      head.writeUInt32BE((((fin && last ? FLAG_FIN : 0) << 24) | piece.length) >>> 0, 4);
      ok = this.socket.write(Buffer.concat([head, piece]));
      if (data.length === 0) break;
    }
    if (ok) callback();
    else this.socket.once('drain', () => callback());
  }

  /** Drops a stream; `reset` tells the peer (RST_STREAM, cancelled) when it ended before its time. */
  forget(streamId: number, reset: boolean): void {
    if (!this.streams.delete(streamId) || !reset || this.ended) return;
    this.resetStream(streamId, CANCEL);
  }

  private resetStream(streamId: number, code: number): void {
    const body = Buffer.alloc(8);
    body.writeUInt32BE(streamId & 0x7fffffff, 0);
    body.writeUInt32BE(code, 4);
    this.writeControl(FrameType.RstStream, 0, body);
  }

  private teardown(): void {
    if (this.ended) return;
    this.ended = true;
    this.headerReader.close();
    for (const stream of this.streams.values()) {
      stream.push(null);
      stream.destroy();
    }
    this.streams.clear();
    this.emit('close');
  }

  private writeControl(type: FrameType, flags: number, body: Buffer): void {
    if (this.socket.destroyed) return;
    const head = Buffer.alloc(8);
    head.writeUInt16BE(0x8000 | VERSION, 0);
    head.writeUInt16BE(type, 2);
    head.writeUInt32BE(((flags << 24) | body.length) >>> 0, 4);
    this.socket.write(Buffer.concat([head, body]));
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 8) {
      const length = this.buffered.readUInt32BE(4) & 0xffffff;
      if (length > MAX_INCOMING_FRAME) {
        this.socket.destroy();
        return;
      }
      if (this.buffered.length < 8 + length) break;
      const control = (this.buffered[0] & 0x80) !== 0;
      const frame: Frame = {
        control,
        type: control ? this.buffered.readUInt16BE(2) : 0,
        streamId: control ? 0 : this.buffered.readUInt32BE(0) & 0x7fffffff,
        flags: this.buffered[4],
        data: this.buffered.subarray(8, 8 + length),
      };
      this.buffered = this.buffered.subarray(8 + length);
      this.handling = this.handling.then(() => this.handle(frame)).catch(() => void this.socket.destroy());
    }
  }

  private async handle(frame: Frame): Promise<void> {
    if (this.ended) return;
    if (!frame.control) {
      const stream = this.streams.get(frame.streamId);
      if (!stream) return;
      if (frame.data.length > 0) stream.push(Buffer.from(frame.data));
      if (frame.flags & FLAG_FIN) stream.push(null);
      return;
    }
    const body = frame.data;
    switch (frame.type) {
      case FrameType.SynStream: {
        const id = body.readUInt32BE(0) & 0x7fffffff;
        const headers = await this.headerReader.read(body.subarray(10));
        if (this.streams.has(id) || id <= this.lastStreamId) return this.resetStream(id, STREAM_IN_USE);
        this.lastStreamId = id;
        const stream = new SpdyStream(id, headers, this);
        this.streams.set(id, stream);
        const reply = Buffer.concat([uint32(id), this.headerWriter.encode(encodeHeaderBlock({}))]);
        this.writeControl(FrameType.SynReply, 0, reply);
        if (frame.flags & FLAG_FIN) stream.push(null);
        this.emit('stream', stream);
        return;
      }
      case FrameType.RstStream: {
        const stream = this.streams.get(body.readUInt32BE(0) & 0x7fffffff);
        if (stream) {
          this.streams.delete(stream.id);
          stream.push(null);
          stream.destroy();
        }
        return;
      }
      case FrameType.Ping:
        this.writeControl(FrameType.Ping, 0, Buffer.from(body.subarray(0, 4)));
        return;
      case FrameType.GoAway:
        this.close();
        return;
      case FrameType.Headers:
        // Headers after the stream opened carry nothing Kubernetes uses; inflated to keep the zlib stream in step.
        await this.headerReader.read(body.subarray(4));
        return;
      case FrameType.SynReply:
        await this.headerReader.read(body.subarray(4));
        return;
      default:
        // SETTINGS, WINDOW_UPDATE (no flow control, as spdystream) and unknown control frames are ignored, as the protocol says.
        return;
    }
  }
}

/** The HTTP header that negotiates the stream protocol (remotecommand, portforward). */
export const PROTOCOL_HEADER = 'x-stream-protocol-version';

/**
 * Upgrades a request to SPDY/3.1 with one of `protocols` (the client's first
 * choice that the server takes), as Kubernetes' httpstream handshake does;
 * answers an error and returns undefined when it cannot.
 */
export function upgradeToSpdy(
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  protocols: string[],
): { connection: SpdyConnection; protocol: string } | undefined {
  const refuse = (status: string, message: string) => {
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(message)}\r\nConnection: close\r\n\r\n${message}`,
    );
    return undefined;
  };
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  if (!upgrade.split(',').some((u) => u.trim() === 'spdy/3.1'))
    return refuse('400 Bad Request', `unable to upgrade: missing upgrade headers in request: ${JSON.stringify(req.headers)}\n`);
  const offered = req.headersDistinct[PROTOCOL_HEADER]?.flatMap((v) => v.split(',').map((s) => s.trim())).filter(Boolean) ?? [];
  const protocol = offered.find((p) => protocols.includes(p));
  if (!protocol) {
    return refuse(
      '403 Forbidden',
      `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(' ')}], server accepts [${protocols.join(' ')}]\n`,
    );
  }
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`,
  );
  const connection = new SpdyConnection(socket, head);
  return { connection, protocol };
}
