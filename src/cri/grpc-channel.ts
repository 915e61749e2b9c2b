import http2 from 'node:http2';
import type { Duplex } from 'node:stream';
import { GrpcCode } from './errors.js';

/** A call that ended with a status other than OK: the gRPC code and the server's message, as grpc-js's ServiceError has them. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: GrpcCode,
    readonly details: string,
  ) {
    super(`${code} ${GrpcCode[code] ?? ''}: ${details}`);
  }
}

/** A method as gRPC describes it: its path, its request's encoder and its answer's decoder (a grpc-js MethodDefinition is one). */
export interface GrpcMethod<Req, Res> {
  path: string;
  requestSerialize(value: Req): Buffer;
  responseDeserialize(bytes: Buffer): Res;
}

export interface GrpcChannelOptions {
  /** Opens the connection the channel runs on (a unix socket's, a TCP one's). */
  connect: () => Duplex;
  /** The largest message either way; a larger one fails the call with RESOURCE_EXHAUSTED. */
  maxMessageBytes: number;
  /** The requests' :authority (default localhost, as gRPC's for a unix socket). */
  authority?: string;
}

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY } = http2.constants;

/** gRPC's mapping of an HTTP status other than 200 (doc/http-grpc-status-mapping.md). */
function codeOfHttpStatus(httpStatus: number): GrpcCode {
  if (httpStatus === 400) return GrpcCode.INTERNAL;
  if (httpStatus === 401) return GrpcCode.UNAUTHENTICATED;
  if (httpStatus === 403) return GrpcCode.PERMISSION_DENIED;
  if (httpStatus === 404) return GrpcCode.UNIMPLEMENTED;
  if ([429, 502, 503, 504].includes(httpStatus)) return GrpcCode.UNAVAILABLE;
  return GrpcCode.UNKNOWN;
}

/** gRPC's mapping of a stream reset by the server (doc/PROTOCOL-HTTP2.md). */
function codeOfReset(rstCode: number): GrpcCode {
  if (rstCode === NGHTTP2_REFUSED_STREAM) return GrpcCode.UNAVAILABLE;
  if (rstCode === NGHTTP2_CANCEL) return GrpcCode.CANCELLED;
  if (rstCode === NGHTTP2_ENHANCE_YOUR_CALM) return GrpcCode.RESOURCE_EXHAUSTED;
  if (rstCode === NGHTTP2_INADEQUATE_SECURITY) return GrpcCode.PERMISSION_DENIED;
  return GrpcCode.INTERNAL;
}

/** grpc-message is percent-encoded UTF-8; a malformed one is kept as sent. */
function decodeMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A request's bytes; one the coder refuses fails the call with INTERNAL, as in grpc-js. */
function encoded<Req>(method: GrpcMethod<Req, unknown>, request: Req): Buffer {
  try {
    return method.requestSerialize(request);
  } catch (err) {
    throw new GrpcCallError(GrpcCode.INTERNAL, `Request message serialization failure: ${(err as Error).message}`);
  }
}

/** An answer's object; bytes the coder cannot read fail the call with INTERNAL, as in grpc-js. */
function decoded<Res>(method: GrpcMethod<never, Res>, bytes: Buffer): Res {
  try {
    return method.responseDeserialize(bytes);
  } catch (err) {
    throw new GrpcCallError(GrpcCode.INTERNAL, `Response message parsing error: ${(err as Error).message}`);
  }
}

/** One message as gRPC frames it: not compressed, its length in 4 bytes, then its bytes. */
function frame(message: Buffer): Buffer {
  const framed = Buffer.allocUnsafe(5 + message.length);
  framed[0] = 0;
  framed.writeUInt32BE(message.length, 1);
  message.copy(framed, 5);
  return framed;
}

/** Gathers the bytes of a response and gives back each whole message. */
class MessageReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxMessageBytes: number) {}

  /** Adds CHUNK; returns the messages it completes. Throws a GrpcCallError for a compressed or too large message. */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const messages: Buffer[] = [];
    while (this.buffered >= 5) {
      const head = this.chunks[0].length >= 5 ? this.chunks[0] : this.join();
      if (head[0] !== 0) throw new GrpcCallError(GrpcCode.INTERNAL, 'a compressed message, which this client never asked for');
      const length = head.readUInt32BE(1);
      if (length > this.maxMessageBytes)
        throw new GrpcCallError(GrpcCode.RESOURCE_EXHAUSTED, `Received message larger than max (${length} vs ${this.maxMessageBytes})`);
      if (this.buffered < 5 + length) break;
      const all = this.chunks.length === 1 ? this.chunks[0] : this.join();
      messages.push(all.subarray(5, 5 + length));
      const rest = all.subarray(5 + length);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return messages;
  }

  /** Whether part of a message is still waiting for its bytes. */
  get partial(): boolean {
    return this.buffered > 0;
  }

  private join(): Buffer {
    const joined = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [joined];
    return joined;
  }
}

/** What a call is told as its stream goes: each message, then its end (an error unless OK). */
interface CallSink {
  message(bytes: Buffer): void;
  end(error?: GrpcCallError): void;
}

/** A call under way: its stream, and how it ends (once). */
interface ActiveCall {
  stream?: http2.ClientHttp2Stream;
  done: boolean;
  /** Ends the call: OK without an error. */
  finish(error?: GrpcCallError): void;
  /** Ends the call from this side: the stream is cancelled, the call fails with CODE. */
  cancel(code: GrpcCode, details: string): void;
}

/** What a stream told before it closed. */
interface StreamEnd {
  httpStatus: number;
  /** The gRPC status of its trailers (or of a trailers-only answer). */
  status?: { code: GrpcCode; details: string };
  /** Part of a message came without the rest. */
  partial?: boolean;
  /** Why the connection failed or dropped under it. */
  lost?: string;
  rstCode?: number;
  streamError?: string;
}

/** How a closed stream ends its call: its status; else what HTTP, the connection or a reset said, as gRPC maps them. */
function endOfStream(end: StreamEnd): GrpcCallError | undefined {
  if (end.status) {
    if (end.status.code !== GrpcCode.OK) return new GrpcCallError(end.status.code, end.status.details);
    return end.partial ? new GrpcCallError(GrpcCode.INTERNAL, 'the answer ended inside a message') : undefined;
  }
  if (end.httpStatus !== 0 && end.httpStatus !== 200)
    return new GrpcCallError(codeOfHttpStatus(end.httpStatus), `Received HTTP status code ${end.httpStatus}`);
  if (end.lost === undefined && end.rstCode !== undefined && end.rstCode !== 0)
    return new GrpcCallError(codeOfReset(end.rstCode), `Received RST_STREAM with code ${end.rstCode}`);
  return new GrpcCallError(GrpcCode.UNAVAILABLE, end.lost ?? end.streamError ?? 'Connection dropped');
}

/**
 * A gRPC client channel over one HTTP/2 connection (to a unix socket, or a
 * container's port for a gRPC probe), for unary and server-streaming calls
 * of messages already encoded: what the CRI client needs of gRPC, without
 * grpc-js's per-call machinery (filters, resolvers, retries, metadata
 * objects), which was about a tenth of a node's CPU in a burst of pods.
 * The connection is made on the first call and again after it ends (a
 * restarted runtime); a call that cannot connect fails with UNAVAILABLE, as
 * a grpc-js call without waitForReady does. The connection keeps the
 * process alive only while calls are under way.
 */
export class GrpcChannel {
  private session: http2.ClientHttp2Session | undefined;
  private readonly calls = new Set<ActiveCall>();
  private closed = false;
  /** Why a connection failed, for the calls it takes down. */
  private readonly failures = new WeakMap<http2.ClientHttp2Session, string>();

  constructor(private readonly options: GrpcChannelOptions) {}

  /** A unary call of METHOD: REQUEST encoded, the answer decoded, or a GrpcCallError. SIGNAL cancels the call. */
  async call<Req, Res>(method: GrpcMethod<Req, Res>, request: Req, timeoutMs: number, signal?: AbortSignal): Promise<Res> {
    return decoded(method, await this.unary(method.path, encoded(method, request), timeoutMs, signal));
  }

  /** A server-streaming call of METHOD: each answer decoded, until the server ends the stream or SIGNAL cancels it. */
  async *watch<Req, Res>(method: GrpcMethod<Req, Res>, request: Req, signal: AbortSignal): AsyncIterable<Res> {
    for await (const bytes of this.serverStream(method.path, encoded(method, request), signal)) yield decoded(method, bytes);
  }

  /** One request, one answer: the answer's bytes, or a GrpcCallError. SIGNAL cancels the call. */
  unary(path: string, request: Buffer, timeoutMs: number, signal?: AbortSignal): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let answer: Buffer | undefined;
      let extra = false;
      this.start(
        path,
        request,
        {
          message: (bytes) => {
            if (answer) extra = true;
            answer = bytes;
          },
          end: (error) => {
            if (error) reject(error);
            else if (extra) reject(new GrpcCallError(GrpcCode.UNIMPLEMENTED, 'Too many responses received'));
            else if (!answer) reject(new GrpcCallError(GrpcCode.UNIMPLEMENTED, 'No message received'));
            else resolve(answer);
          },
        },
        timeoutMs,
        signal,
      );
    });
  }

  /** One request, a stream of answers until the server ends it (a GrpcCallError unless OK) or SIGNAL cancels it. */
  async *serverStream(path: string, request: Buffer, signal: AbortSignal): AsyncIterable<Buffer> {
    const queue: Buffer[] = [];
    let ended: { error?: GrpcCallError } | undefined;
    let wake: (() => void) | undefined;
    const call = this.start(
      path,
      request,
      {
        message: (bytes) => {
          queue.push(bytes);
          wake?.();
        },
        end: (error) => {
          ended = { error };
          wake?.();
        },
      },
      undefined,
      signal,
    );
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended) {
          if (ended.error) throw ended.error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      if (!ended) call.cancel(GrpcCode.CANCELLED, 'Cancelled on client');
    }
  }

  /** Cancels every call under way (CANCELLED) and ends the connection; later calls fail. */
  close(): void {
    this.closed = true;
    for (const call of [...this.calls]) call.cancel(GrpcCode.CANCELLED, 'Channel closed');
    this.session?.destroy();
    this.session = undefined;
  }

  /** Sends a call's request and follows its answer into SINK; the call can be cancelled from this side. */
  private start(path: string, request: Buffer, sink: CallSink, timeoutMs: number | undefined, signal?: AbortSignal): ActiveCall {
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => call.cancel(GrpcCode.CANCELLED, 'Cancelled on client');
    const call: ActiveCall = {
      done: false,
      finish: (error) => {
        if (call.done) return;
        call.done = true;
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.calls.delete(call);
        if (this.calls.size === 0) this.session?.unref();
        sink.end(error);
      },
      cancel: (code, details) => {
        if (call.done) return;
        if (call.stream && !call.stream.closed) call.stream.close(NGHTTP2_CANCEL);
        call.finish(new GrpcCallError(code, details));
      },
    };
    this.calls.add(call);
    if (signal?.aborted) {
      call.cancel(GrpcCode.CANCELLED, 'Cancelled on client');
      return call;
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    if (this.closed) {
      call.finish(new GrpcCallError(GrpcCode.UNAVAILABLE, 'Channel has been shut down'));
      return call;
    }
    const max = this.options.maxMessageBytes;
    if (request.length > max) {
      call.finish(new GrpcCallError(GrpcCode.RESOURCE_EXHAUSTED, `Sent message larger than max (${request.length} vs ${max})`));
      return call;
    }
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc',
      te: 'trailers',
      'user-agent': 'knode-cri',
    };
    if (timeoutMs !== undefined) {
      headers['grpc-timeout'] = `${Math.max(1, Math.ceil(timeoutMs))}m`;
      timer = setTimeout(() => call.cancel(GrpcCode.DEADLINE_EXCEEDED, 'Deadline exceeded'), timeoutMs);
    }
    let session: http2.ClientHttp2Session;
    try {
      session = this.connection();
      call.stream = session.request(headers, { endStream: false });
    } catch (err) {
      call.finish(new GrpcCallError(GrpcCode.UNAVAILABLE, (err as Error).message));
      return call;
    }
    session.ref();
    this.follow(session, call.stream, call, sink);
    call.stream.end(frame(request));
    return call;
  }

  /** Hands each message of STREAM's answer to SINK, and ends CALL as the stream ends. */
  private follow(session: http2.ClientHttp2Session, stream: http2.ClientHttp2Stream, call: ActiveCall, sink: CallSink): void {
    const reader = new MessageReader(this.options.maxMessageBytes);
    const end: StreamEnd = { httpStatus: 0 };
    const statusOf = (headers: http2.IncomingHttpHeaders) => {
      const code = headers['grpc-status'];
      if (code !== undefined) end.status = { code: Number(code) as GrpcCode, details: decodeMessage(headers['grpc-message']) };
    };
    stream.on('response', (headers) => {
      end.httpStatus = Number(headers[':status']);
      // A trailers-only answer (an error, mostly) carries its status in its headers.
      statusOf(headers);
    });
    stream.on('trailers', statusOf);
    stream.on('data', (chunk: Buffer) => {
      if (call.done) return;
      try {
        for (const message of reader.push(chunk)) sink.message(message);
      } catch (err) {
        call.cancel((err as GrpcCallError).code, (err as GrpcCallError).details);
      }
    });
    // Told on 'close', from what the stream learned before it ended.
    stream.on('error', (err: Error) => (end.streamError = err.message));
    stream.on('close', () => {
      end.partial = reader.partial;
      end.lost = this.failures.get(session) ?? (session.destroyed ? 'Connection dropped' : undefined);
      end.rstCode = stream.rstCode;
      call.finish(endOfStream(end));
    });
  }

  /** The connection, made when there is none (or the last one is going away). */
  private connection(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const window = this.options.maxMessageBytes;
    const session = http2.connect(`http://${this.options.authority ?? 'localhost'}`, {
      createConnection: this.options.connect,
      // A large list spans many of HTTP/2's 64 KiB windows and would wait a WINDOW_UPDATE
      // round trip after each (bench/notes/cri-and-startup.md): over a local socket the
      // whole answer may as well come at once.
      settings: { enablePush: false, initialWindowSize: window },
      maxSessionMemory: 64,
    });
    session.on('connect', () => session.setLocalWindowSize(window));
    session.on('error', (err: Error) => this.failures.set(session, err.message));
    const forget = () => {
      if (this.session === session) this.session = undefined;
    };
    session.on('goaway', forget);
    session.on('close', forget);
    this.session = session;
    return session;
  }
}
