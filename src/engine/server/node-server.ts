import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { chmodSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { socketAnswers } from '../../util/socket.js';
import type { HostInterface } from './host.js';
import { route, type RouteAccess } from './routes.js';

export interface NodeServerOptions {
  /** Unix socket for local commands (`knode status`, `logs`, `trace`, `pleg`). */
  socketPath: string;
  /** TCP address and port of the read-only API; port 0 turns TCP off. */
  address: string;
  port: number;
  warn: (message: string) => void;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

export function isLoopback(address: string): boolean {
  return LOOPBACK.has(address) || address.startsWith('127.');
}

/**
 * The node's read-only HTTP API (the kubelet's read-only port): on a unix
 * socket always, and on TCP, loopback by default. Streams (events, PLEG) end
 * when the server closes.
 */
export class NodeServer {
  private readonly servers: Server[] = [];
  private readonly streams = new Set<ServerResponse>();

  constructor(
    private readonly host: HostInterface,
    private readonly options: NodeServerOptions,
  ) {}

  /** Where the TCP API listens, if it does. */
  tcpAddress: { address: string; port: number } | undefined;

  async start(): Promise<void> {
    // Profiling, where it is on, stays on this machine: the socket, and TCP only on loopback.
    const handler = (access: RouteAccess) => (req: IncomingMessage, res: ServerResponse) => {
      route(this.host, req, res, this.streams, access).catch((err: Error) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`internal error: ${err.message}\n`);
      });
    };
    const { socketPath } = this.options;
    mkdirSync(dirname(socketPath), { recursive: true, mode: 0o700 });
    if (existsSync(socketPath)) {
      if (await socketAnswers(socketPath))
        throw new Error(`another knode node serves ${socketPath}; stop it first, or give this one another --root-dir`);
      rmSync(socketPath);
    }
    this.servers.push(await listen(createServer(handler({ profiling: true })), (s, cb) => s.listen(socketPath, cb)));
    // The socket answers without authentication: only its owner may connect.
    chmodSync(socketPath, 0o600);
    if (this.options.port > 0) {
      try {
        const tcp = await listen(createServer(handler({ profiling: isLoopback(this.options.address) })), (s, cb) =>
          s.listen(this.options.port, this.options.address, cb),
        );
        this.servers.push(tcp);
        const info = tcp.address() as { address: string; port: number };
        this.tcpAddress = { address: info.address, port: info.port };
      } catch (err) {
        this.options.warn(
          `the read-only API is not on ${this.options.address}:${this.options.port} (${(err as Error).message}); it is on ${socketPath}`,
        );
      }
    }
  }

  async stop(): Promise<void> {
    for (const res of this.streams) res.end();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    rmSync(this.options.socketPath, { force: true });
  }
}

function listen(server: Server, start: (server: Server, cb: () => void) => void): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    start(server, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
