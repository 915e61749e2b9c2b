import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { StreamIo } from './attached-process.js';
import { PORT_FORWARD_PROTOCOL, servePortForward, type PortForwardTarget } from './port-forward.js';
import { REMOTE_COMMAND_PROTOCOLS, serveRemoteCommand, type CommandOutcome, type StreamOptions } from './remote-command.js';
import { upgradeToSpdy } from '../../util/spdy.js';

/** How long a URL handed out by Exec, Attach or PortForward stays good, as in the kubelet's streaming server. */
const TOKEN_TTL_MS = 60_000;

export type StreamRequest =
  | { kind: 'exec'; containerId: string; cmd: string[]; options: StreamOptions }
  | { kind: 'attach'; containerId: string; options: StreamOptions }
  | { kind: 'portforward'; podSandboxId: string };

/** What the runtime does for a stream once its client has connected. */
export interface StreamHandlers {
  exec(containerId: string, cmd: string[], io: StreamIo, abort: AbortSignal): Promise<CommandOutcome>;
  attach(containerId: string, io: StreamIo, abort: AbortSignal): Promise<CommandOutcome>;
  /** The address the sandbox's ports are reached at, and how to name it in errors. */
  portForwardTarget(podSandboxId: string): PortForwardTarget;
}

/**
 * The runtime's streaming server (the CRI streaming API): Exec, Attach and
 * PortForward answer with a one-time URL here, and the client (the kubelet,
 * crictl) connects to it and upgrades to SPDY. It listens on loopback only,
 * on a port of its own (0: any free one), as containerd's does by default.
 */
export class StreamingServer {
  private readonly server: Server;
  private readonly pending = new Map<string, { request: StreamRequest; expires: number }>();
  private readonly sockets = new Set<Duplex>();
  private base = '';

  constructor(
    private readonly handlers: StreamHandlers,
    private readonly log: (message: string) => void,
  ) {
    this.server = createServer((req, res) => {
      const known = this.take(req, false) !== undefined;
      res.writeHead(known ? 400 : 404, { 'content-type': 'text/plain' });
      res.end(known ? 'Upgrade request required\n' : 'not found: the URL is unknown or has expired\n');
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.upgrade(req, socket, head));
  }

  async listen(host = '127.0.0.1', port = 0): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve());
    });
    const address = this.server.address() as { address: string; port: number };
    this.base = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  }

  /** A URL for one stream; good once, for a minute. */
  url(request: StreamRequest): string {
    const now = Date.now();
    for (const [token, entry] of this.pending) if (entry.expires <= now) this.pending.delete(token);
    const token = randomBytes(18).toString('base64url');
    this.pending.set(token, { request, expires: now + TOKEN_TTL_MS });
    return `${this.base}/${request.kind}/${token}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The request a URL stands for; `consume` makes it unusable after. */
  private take(req: IncomingMessage, consume: boolean): StreamRequest | undefined {
    const match = /^\/(exec|attach|portforward)\/([A-Za-z0-9_-]+)$/.exec(new URL(req.url ?? '/', 'http://knode').pathname);
    if (!match) return undefined;
    const entry = this.pending.get(match[2]);
    if (!entry || entry.expires <= Date.now() || entry.request.kind !== match[1]) return undefined;
    if (consume) this.pending.delete(match[2]);
    return entry.request;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => {});
    const request = this.take(req, true);
    if (!request) {
      socket.end(
        'HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nnot found: the URL is unknown or has expired\n',
      );
      return;
    }
    const protocols = request.kind === 'portforward' ? [PORT_FORWARD_PROTOCOL] : REMOTE_COMMAND_PROTOCOLS;
    const upgraded = upgradeToSpdy(req, socket, head, protocols);
    if (!upgraded) return;
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    const { connection, protocol } = upgraded;
    if (request.kind === 'portforward') {
      const target = this.handlers.portForwardTarget(request.podSandboxId);
      servePortForward(connection, target);
      return;
    }
    const run =
      request.kind === 'exec'
        ? (io: StreamIo, abort: AbortSignal) => this.handlers.exec(request.containerId, request.cmd, io, abort)
        : (io: StreamIo, abort: AbortSignal) => this.handlers.attach(request.containerId, io, abort);
    serveRemoteCommand(connection, protocol, request.options, run).catch((err: Error) => {
      this.log(`${request.kind} in ${request.containerId}: ${err.message}`);
      connection.close();
    });
  }
}
