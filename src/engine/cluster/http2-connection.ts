// One HTTP/2 connection to the apiserver for every call of the node, as
// client-go's transport keeps one: a burst of calls (a token, a status and
// events for each pod of a burst) shares it, where HTTP/1.1 opened a TLS
// connection for each call that found the others busy (thirty-two in one
// run of the SLI bench, bench/notes/sli.md). It is checked as client-go's
// HTTP/2 transport checks its connections: a ping after 30 s without a
// frame read, and the connection closed if no answer comes within 15 s.
import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type SecureClientSessionOptions } from 'node:http2';

/** client-go's ReadIdleTimeout and PingTimeout for the kubelet's connections. */
const HEALTH = { readIdleMs: 30_000, pingTimeoutMs: 15_000 };

/** A call as client-node's RequestContext holds it. */
export interface Http2Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal | undefined;
}

export interface Http2Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers HTTP/2 forbids (RFC 9113, 8.2.2); node-fetch's HTTP/1.1 would have sent them. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

/** The kept connections to each origin, all with one set of TLS settings. */
export class Http2Connections {
  private readonly sessions = new Map<string, Kept>();

  constructor(
    private readonly tls: SecureClientSessionOptions,
    private readonly health = HEALTH,
  ) {}

  async send(call: Http2Call): Promise<Http2Answer> {
    const url = new URL(call.url);
    const kept = this.session(url.origin);
    const { session } = kept;
    const headers: Record<string, string> = { ':method': call.method, ':path': `${url.pathname}${url.search}` };
    for (const [name, value] of Object.entries(call.headers)) {
      const lower = name.toLowerCase();
      if (!CONNECTION_HEADERS.has(lower)) headers[lower] = value;
    }
    if (kept.calls++ === 0) session.ref();
    try {
      return await new Promise<Http2Answer>((resolve, reject) => {
        const stream = session.request(headers, { endStream: call.body === undefined, signal: call.signal });
        const chunks: Buffer[] = [];
        let answer: Omit<Http2Answer, 'body'> | undefined;
        stream.on('response', (h: IncomingHttpHeaders) => (answer = { status: Number(h[':status']), headers: plainHeaders(h) }));
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () =>
          answer
            ? resolve({ ...answer, body: Buffer.concat(chunks) })
            : reject(new Error(`${call.method} ${url.pathname}: no response headers`)),
        );
        stream.on('error', reject);
        if (call.body !== undefined) stream.end(call.body);
      });
    } finally {
      // An idle connection does not keep a command's process alive.
      if (--kept.calls === 0 && !session.destroyed) session.unref();
    }
  }

  /** Closes every connection once its calls under way have their answers. */
  close(): void {
    for (const { session } of this.sessions.values()) session.close();
    this.sessions.clear();
  }

  private session(origin: string): Kept {
    const open = this.sessions.get(origin);
    if (open && !open.session.closed && !open.session.destroyed) return open;
    const session = connect(origin, this.tls);
    const kept = { session, calls: 0 };
    this.sessions.set(origin, kept);
    const forget = () => {
      if (this.sessions.get(origin) === kept) this.sessions.delete(origin);
    };
    session.on('close', forget);
    session.on('goaway', forget);
    // A failed connection fails its calls (their streams' errors); the next call connects again.
    session.on('error', forget);
    watchIdle(session, this.health);
    session.unref();
    return kept;
  }
}

/** A connection, and the calls waiting for its answers. */
interface Kept {
  session: ClientHttp2Session;
  calls: number;
}

/**
 * After each quiet spell of readIdleMs, a ping, and the connection closed
 * when no answer comes in time (client-go's health check). Node fires a
 * session's timeout once per quiet spell and a ping's answer does not start
 * another, so each answer sets it again.
 */
function watchIdle(session: ClientHttp2Session, health: typeof HEALTH): void {
  session.setTimeout(health.readIdleMs, () => {
    if (session.closed || session.destroyed) return;
    const timer = setTimeout(
      () => session.destroy(new Error(`no answer to a ping within ${health.pingTimeoutMs} ms`)),
      health.pingTimeoutMs,
    );
    timer.unref();
    const sent = session.ping((err) => {
      clearTimeout(timer);
      if (err) session.destroy(err);
      else watchIdle(session, health);
    });
    if (!sent) clearTimeout(timer);
  });
}

/** Response headers as client-node reads them: lower-case names, one string each, no pseudo-headers. */
function plainHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}
