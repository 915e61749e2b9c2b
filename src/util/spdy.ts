import { EventEmitter } from 'node:events';
import type { IncomingMessage } from 'node:http';
import type { Duplex as Socket } from 'node:stream';
import { Duplex } from 'node:stream';
import { HeaderReader, HeaderWriter, encodeHeaderBlock, uint32, type SpdyHeaders } from './spdy-headers.js';

export { decodeHeaderBlock, encodeHeaderBlock, HEADER_DICTIONARY, type SpdyHeaders } from './spdy-headers.js';

/**
 * SPDY/3.1 as Kubernetes streams over it (exec, attach, port-forward;
 * moby/spdystream on the other side): the client opens streams with
 * SYN_STREAM and each gets an empty SYN_REPLY; data frames carry the bytes;
 * FIN half-closes a stream, RST_STREAM ends it; PINGs are answered. Flow
 * control is not enforced by spdystream, so WINDOW_UPDATE is ignored here too.
 * The runtime's streaming server is the server side; knode's exec, attach and
 * port-forward the client side (openStream).
 */

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
  /** The id of the next stream this side opens: odd for a client, as SPDY wants. */
  private nextStreamId: number;

  constructor(
    private readonly socket: Socket,
    head: Buffer = Buffer.alloc(0),
    role: 'server' | 'client' = 'server',
  ) {
    super();
    this.nextStreamId = role === 'client' ? 1 : 2;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    // The peer's last frames may still wait on a header block's inflation: they are handled before the end is.
    socket.on('close', () => void this.handling.then(() => this.teardown()));
    socket.on('error', () => this.teardown());
    socket.on('end', () => void this.handling.then(() => this.close()));
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

  /** Opens a stream to the peer with these headers (SYN_STREAM); what it answers arrives on the stream. */
  openStream(headers: Record<string, string>): SpdyStream {
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const stream = new SpdyStream(id, new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]])), this);
    if (this.ended) {
      stream.destroy(new Error('the connection is closed'));
      return stream;
    }
    this.streams.set(id, stream);
    // Stream id, no associated stream, priority 0 and slot 0, then the header block.
    const fixed = Buffer.alloc(10);
    fixed.writeUInt32BE(id & 0x7fffffff, 0);
    this.writeControl(FrameType.SynStream, 0, Buffer.concat([fixed, this.headerWriter.encode(encodeHeaderBlock(headers))]));
    return stream;
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
