import type { Socket } from 'node:net';
import type { SpdyConnection } from '../../util/spdy.js';
import { dialStreaming } from './dial.js';

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/**
 * The client side of port forwarding (portforward.k8s.io over SPDY, as
 * kubectl port-forward speaks it): one connection to the runtime for the
 * whole forward, and per local connection a pair of streams (error, data)
 * sharing a requestID and naming the pod's port. What the runtime says on a
 * pair's error stream (the port is closed, say) fails that connection only.
 */
export class PortForwardSession {
  private nextRequestId = 0;

  private constructor(private readonly connection: SpdyConnection) {}

  static async open(url: string, signal?: AbortSignal): Promise<PortForwardSession> {
    const { connection } = await dialStreaming(url, [PORT_FORWARD_PROTOCOL], signal);
    return new PortForwardSession(connection);
  }

  get closed(): boolean {
    return this.connection.closed;
  }

  /** Calls `listener` once the runtime's end of the connection has gone. */
  onClose(listener: () => void): void {
    if (this.connection.closed) listener();
    else this.connection.once('close', listener);
  }

  /** Joins a local connection to `port` in the pod; `failed` hears the runtime's error for it, if any. */
  forward(local: Socket, port: number, failed: (message: string) => void): void {
    const requestID = String(this.nextRequestId++);
    const errorStream = this.connection.openStream({ streamType: 'error', port: String(port), requestID });
    errorStream.on('error', () => {});
    errorStream.end(); // nothing is sent on it, as kubectl closes its side at once
    let message = '';
    errorStream.on('data', (chunk: Buffer) => (message += chunk.toString('utf8')));
    const data = this.connection.openStream({ streamType: 'data', port: String(port), requestID });
    data.on('error', () => local.destroy());
    local.on('error', () => data.destroy());
    errorStream.once('end', () => {
      if (message === '') return;
      failed(message);
      local.destroy();
      data.destroy();
    });
    local.pipe(data);
    data.pipe(local);
    local.once('close', () => {
      if (!data.destroyed) data.end();
    });
    // The runtime's side gone (the connection closed): the local connection ends too, its last bytes sent.
    data.once('close', () => local.end());
  }

  close(): void {
    this.connection.close();
  }
}
