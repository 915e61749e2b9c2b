// Connections to the apiserver kept open between calls. client-node 1.x
// gives every request of its typed API clients a new https.Agent, so each
// call opened a new TLS connection: a handshake, and the client key parsed
// again. In a cluster that was about a sixth of knode's CPU (bench/notes/sli.md).
// client-go keeps one transport per set of TLS settings (its tlsCache) and
// reuses its connections; this does the same, as the auth method the API
// clients call before each request.
import { Agent } from 'node:https';
import type { KubeConfig, RequestContext, SecurityAuthentication } from '@kubernetes/client-node';

/** The TLS settings that make a connection what it is: another value needs another agent. */
const TLS_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

/**
 * The kubeconfig's authentication, with one keep-alive agent for as long as
 * its TLS settings stay the same. A rotated client certificate (a new file
 * content) gets a new agent, and the old one's connections are closed, as
 * the kubelet closes its connections when its certificate rotates. A proxy
 * or plain-HTTP agent is left as client-node makes it.
 */
export class KeptConnections implements SecurityAuthentication {
  private current: { settings: unknown[]; agent: Agent } | undefined;

  constructor(private readonly kc: KubeConfig) {}

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
      this.current?.agent.destroy();
      this.current = { settings, agent: new Agent({ ...options, keepAlive: true }) };
    }
    context.setAgent(this.current.agent);
  }

  /** Closes the open connections; the next call opens a new one. */
  close(): void {
    this.current?.agent.destroy();
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
