// Connections to the apiserver kept open between calls. client-node 1.x
// gives every request of its typed API clients a new https.Agent, so each
// call opened a new TLS connection: a handshake, and the client key parsed
// again. In a cluster that was about a sixth of knode's CPU (bench/notes/sli.md).
// client-go keeps one transport per set of TLS settings (its tlsCache), over
// HTTP/2, and reuses its connection; this does the same, as the auth method
// the API clients call before each request and the HTTP library they send
// it with.
import { Agent } from 'node:https';
import type { KubeConfig, PromiseHttpLibrary, RequestContext, ResponseContext, SecurityAuthentication } from '@kubernetes/client-node';
import { Http2Connections, type Http2Answer } from './http2-connection.js';

/** The TLS settings that make a connection what it is: another value needs another agent. */
const TLS_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/** What client-node gives to build a response, and its own HTTP library for what HTTP/2 does not carry here. */
export interface ClientNodeHttp {
  respond(answer: Http2Answer): ResponseContext;
  fallback: PromiseHttpLibrary;
}

/**
 * The kubeconfig's authentication, with one HTTP/2 connection (and one
 * keep-alive agent) for as long as its TLS settings stay the same. A
 * rotated client certificate (a new file content) gets new ones, and the
 * old connections are closed once their calls are answered, as the kubelet
 * closes its connections when its certificate rotates. A call through a
 * proxy or over plain HTTP goes as client-node sends it.
 */
export class KeptConnections implements SecurityAuthentication, PromiseHttpLibrary {
  private current: { settings: unknown[]; agent: Agent; http2: Http2Connections } | undefined;

  constructor(
    private readonly kc: KubeConfig,
    private readonly http: ClientNodeHttp,
  ) {}

  getName(): string {
    return 'knode-kept-connections';
  }

  async applySecurityAuthentication(context: RequestContext): Promise<void> {
    await this.kc.applySecurityAuthentication(context);
    const made = context.getAgent();
    if (!made || made.constructor !== Agent) return;
    const options = (made as Agent & { options: Record<string, unknown> }).options;
    const settings = TLS_OPTIONS.map((k) => options[k]);
    if (!this.current || !sameSettings(this.current.settings, settings)) {
      this.close();
      const tls = Object.fromEntries(TLS_OPTIONS.map((k) => [k, options[k]]).filter(([, v]) => v !== undefined));
      this.current = { settings, agent: new Agent({ ...options, keepAlive: true }), http2: new Http2Connections(tls) };
    }
    context.setAgent(this.current.agent);
  }

  /** Sends a call authenticated above over its HTTP/2 connection; anything else as client-node would. */
  async send(request: RequestContext): Promise<ResponseContext> {
    const body = request.getBody();
    const kept = this.current;
    if (
      !kept ||
      request.getAgent() !== kept.agent ||
      !request.getUrl().startsWith('https:') ||
      (body !== undefined && typeof body !== 'string')
    )
      return this.http.fallback.send(request);
    const answer = await kept.http2.send({
      url: request.getUrl(),
      method: request.getHttpMethod(),
      headers: request.getHeaders(),
      body,
      signal: request.getSignal(),
    });
    return this.http.respond(answer);
  }

  /** Closes the open connections; the next call opens a new one. */
  close(): void {
    this.current?.agent.destroy();
    this.current?.http2.close();
    this.current = undefined;
  }
}

function sameSettings(a: unknown[], b: unknown[]): boolean {
  return a.every((value, i) => {
    const other = b[i];
    if (Buffer.isBuffer(value) && Buffer.isBuffer(other)) return value.equals(other);
    return value === other;
  });
}
