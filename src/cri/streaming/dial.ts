import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { PROTOCOL_HEADER, SpdyConnection } from '../../util/spdy.js';

/** A streaming connection the runtime accepted, and the protocol it chose among those offered. */
export interface StreamingConnection {
  connection: SpdyConnection;
  protocol: string;
}

/**
 * Connects to a URL a runtime's Exec, Attach or PortForward answered with and
 * upgrades to SPDY/3.1 offering `protocols` (first choice first), as
 * kubectl's and crictl's SPDY executor do: what the embedded runtime's
 * streaming server and containerd's both accept. A refusal rejects with the
 * runtime's own words.
 */
export function dialStreaming(url: string, protocols: string[], signal?: AbortSignal): Promise<StreamingConnection> {
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, {
      method: 'POST',
      headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', [PROTOCOL_HEADER]: protocols },
      signal,
      // A runtime's streaming server with TLS has a certificate of its own making, as crictl trusts it.
      ...(target.protocol === 'https:' ? { rejectUnauthorized: false } : {}),
    });
    req.once('error', reject);
    req.once('upgrade', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      const protocol = String(res.headers[PROTOCOL_HEADER] ?? '');
      if (!protocols.includes(protocol)) {
        socket.destroy();
        reject(new Error(`unable to upgrade connection: the runtime chose no protocol of [${protocols.join(' ')}]`));
        return;
      }
      socket.setNoDelay(true);
      resolve({ connection: new SpdyConnection(socket, head, 'client'), protocol });
    });
    req.once('response', (res: IncomingMessage) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => reject(new Error(`unable to upgrade connection: ${text.trim() || `${res.statusCode} ${res.statusMessage}`}`)));
    });
    req.end();
  });
}
