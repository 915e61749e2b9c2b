import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { promisify } from 'node:util';
import type { Clock } from '../../util/clock.js';
import type { ClusterClient } from '../cluster/client.js';
import type { HostInterface } from './host.js';
import { route } from './routes.js';
import { isStreamPath, refuse, serveStream } from './stream-routes.js';

const run = promisify(execFile);

/** The kubelet's authorization cache: an allowed answer is kept 5 minutes, a denied one 30 seconds. */
const ALLOWED_TTL_MS = 5 * 60_000;
const DENIED_TTL_MS = 30_000;

export interface KubeletServerOptions {
  /** The node's IP: the API listens there, where the apiserver finds it (Node status addresses). */
  address: string;
  port: number;
  /** A serving certificate and key; without them one is made, self-signed, under certDir (as the kubelet does). */
  certFile?: string;
  keyFile?: string;
  /** serverTLSBootstrap: the cluster-signed pair (certificate and key in one PEM) to serve, when there is one yet. */
  signedPair?: () => string | undefined;
  certDir: string;
  /** Client certificates signed by this CA authenticate as CN (user) and O (groups). */
  clientCAFile?: string;
  nodeName: string;
  client: ClusterClient;
  clock: Clock;
}

interface Caller {
  user: string;
  groups: string[];
}

/**
 * The kubelet API that the apiserver proxies to (`kubectl logs`), over HTTPS:
 * callers authenticate with a client certificate from --client-ca-file or a
 * bearer token (TokenReview), and each request is authorized by a
 * SubjectAccessReview on this Node (`nodes/log`, `nodes/metrics`,
 * `nodes/stats`, everything else `nodes/proxy`), as the kubelet's webhook
 * authentication and authorization do. It serves the same endpoints as the
 * read-only API, and exec, attach and port-forward (`kubectl exec`): those
 * upgraded connections are proxied to the runtime's streaming server.
 */
export class KubeletServer {
  private server: Server | undefined;
  private readonly decisions = new Map<string, { allowed: boolean; reason: string; until: number }>();
  readonly streams = new Set<ServerResponse>();
  /** Where it listens once started. */
  listening: { address: string; port: number } | undefined;

  constructor(
    private readonly host: HostInterface,
    private readonly opts: KubeletServerOptions,
  ) {}

  async start(): Promise<void> {
    const signed = this.opts.signedPair?.();
    const { cert, key } = signed ? { cert: signed, key: signed } : await servingCertificate(this.opts);
    this.server = createServer(
      {
        ...this.secureContext(cert, key),
        requestCert: true,
        rejectUnauthorized: false,
      },
      (req, res) => {
        this.handle(req, res).catch((err: Error) => {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`internal error: ${err.message}\n`);
        });
      },
    );
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => {});
      this.upgrade(req, socket, head).catch((err: Error) => refuse(socket, 500, `internal error: ${err.message}`));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.opts.port, this.opts.address, () => resolve());
    });
    const info = this.server.address() as { address: string; port: number };
    this.listening = { address: info.address, port: info.port };
  }

  /** Serves a new certificate (a signed or renewed one) to new connections; open ones keep theirs. */
  useCertificate(pair: string): void {
    this.server?.setSecureContext(this.secureContext(pair, pair));
  }

  private secureContext(cert: string | Buffer, key: string | Buffer) {
    return { cert, key, ...(this.opts.clientCAFile ? { ca: readFileSync(this.opts.clientCAFile) } : {}) };
  }

  async stop(): Promise<void> {
    for (const res of this.streams) res.end();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const denied = await this.check(req);
    if (denied) {
      res.writeHead(denied.status, { 'content-type': 'text/plain' });
      res.end(denied.message);
      return;
    }
    const path = new URL(req.url ?? '/', 'https://knode').pathname;
    if (isStreamPath(path)) {
      res.writeHead(400, { 'content-type': 'text/plain' });
      res.end('Upgrade request required: exec, attach and portForward stream over SPDY/3.1\n');
      return;
    }
    if (/^\/run\//.test(path)) {
      res.writeHead(501, { 'content-type': 'text/plain' });
      res.end('run is not implemented by knode; use exec\n');
      return;
    }
    await route(this.host, req, res, this.streams, { profiling: true });
  }

  private async upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const denied = await this.check(req);
    if (denied) return refuse(socket, denied.status, denied.message.trimEnd());
    await serveStream(this.host, req, socket, head);
  }

  /** Authentication, then authorization of the request on this Node; the refusal, or undefined when it may go on. */
  private async check(req: IncomingMessage): Promise<{ status: number; message: string } | undefined> {
    const caller = await this.authenticate(req);
    if (!caller) return { status: 401, message: 'Unauthorized\n' };
    const path = new URL(req.url ?? '/', 'https://knode').pathname;
    const verb = { GET: 'get', HEAD: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' }[req.method ?? 'GET'] ?? 'get';
    const subresource = subresourceOf(path);
    const decision = await this.authorize(caller, verb, subresource);
    if (decision.allowed) return undefined;
    return {
      status: 403,
      message: `Forbidden (user=${caller.user}, verb=${verb}, resource=nodes, subresource=${subresource})${decision.reason ? `: ${decision.reason}` : ''}\n`,
    };
  }

  private async authenticate(req: IncomingMessage): Promise<Caller | undefined> {
    const socket = req.socket as TLSSocket;
    if (this.opts.clientCAFile && socket.authorized) {
      const subject = socket.getPeerCertificate().subject as unknown as Record<string, string | string[]> | undefined;
      const cn = subject?.CN;
      const o = subject?.O;
      if (typeof cn === 'string' && cn) return { user: cn, groups: Array.isArray(o) ? o : o ? [o] : [] };
    }
    const auth = req.headers.authorization;
    if (auth?.startsWith('Bearer ')) {
      try {
        return await this.opts.client.reviewToken(auth.slice('Bearer '.length).trim());
      } catch {
        return undefined;
      }
    }
    return undefined;
  }

  private async authorize(caller: Caller, verb: string, subresource: string): Promise<{ allowed: boolean; reason: string }> {
    const key = `${caller.user}\n${caller.groups.join(',')}\n${verb}\n${subresource}`;
    const now = this.opts.clock.now();
    const cached = this.decisions.get(key);
    if (cached && now < cached.until) return cached;
    try {
      const decision = await this.opts.client.reviewAccess({ ...caller, verb, resource: 'nodes', subresource, name: this.opts.nodeName });
      this.decisions.set(key, { ...decision, until: now + (decision.allowed ? ALLOWED_TTL_MS : DENIED_TTL_MS) });
      return decision;
    } catch (err) {
      return { allowed: false, reason: `the apiserver could not be asked: ${(err as Error).message}` };
    }
  }
}

/** The node subresource a kubelet path is authorized as (the kubelet's authorizer attributes). */
export function subresourceOf(path: string): string {
  const first = path.split('/')[1] ?? '';
  if (first === 'stats') return 'stats';
  if (first === 'metrics') return 'metrics';
  if (first === 'logs') return 'log';
  if (first === 'spec') return 'spec';
  if (first === 'configz') return 'configz';
  if (first === 'healthz') return 'healthz';
  return 'proxy';
}

/** The serving certificate: the files given, or a self-signed one for this node made once with openssl. */
async function servingCertificate(opts: KubeletServerOptions): Promise<{ cert: Buffer; key: Buffer }> {
  if (opts.certFile && opts.keyFile) return { cert: readFileSync(opts.certFile), key: readFileSync(opts.keyFile) };
  const cert = join(opts.certDir, 'kubelet.crt');
  const key = join(opts.certDir, 'kubelet.key');
  if (!existsSync(cert) || !existsSync(key)) {
    mkdirSync(opts.certDir, { recursive: true, mode: 0o700 });
    const san = [
      `DNS:${opts.nodeName}`,
      /^[\d.]+$/.test(opts.address) || opts.address.includes(':') ? `IP:${opts.address}` : `DNS:${opts.address}`,
    ].join(',');
    try {
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '365',
        '-subj',
        `/CN=${opts.nodeName}@${Math.floor(Date.now() / 1000)}`,
        '-addext',
        `subjectAltName=${san}`,
        '-keyout',
        key,
        '-out',
        cert,
      ]);
    } catch (err) {
      throw new Error(
        `no serving certificate for the kubelet API: give --tls-cert-file and --tls-private-key-file, or install openssl to have one made (${(err as Error).message.split('\n')[0]})`,
        { cause: err },
      );
    }
  }
  return { cert: readFileSync(cert), key: readFileSync(key) };
}
