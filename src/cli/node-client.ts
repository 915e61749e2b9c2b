import { request, type IncomingMessage } from 'node:http';
import type { Event } from '../engine/api/cluster.js';
import type { ObjectMeta } from '../engine/api/v1.js';
import { rootPaths } from '../util/paths.js';
import { socketAnswers } from '../util/socket.js';

/**
 * A client of a running node's read-only API over its unix socket
 * (`<root-dir>/run/knode.sock`), for the commands that show a node's state.
 */
export class NodeClient {
  constructor(readonly socketPath: string) {}

  /** The node under this root dir, or undefined when none runs. */
  static async find(rootDir: string): Promise<NodeClient | undefined> {
    const socketPath = rootPaths(rootDir).nodeSocket;
    return (await socketAnswers(socketPath)) ? new NodeClient(socketPath) : undefined;
  }

  /** GET a path; resolves with the response (status and body stream). */
  open(path: string, signal?: AbortSignal): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = request({ socketPath: this.socketPath, path, method: 'GET', signal }, resolve);
      req.on('error', reject);
      req.end();
    });
  }

  /** GET a path; resolves with the status and the whole body as text. */
  async text(path: string): Promise<{ status: number; body: string }> {
    const res = await this.open(path);
    let body = '';
    for await (const chunk of res) body += chunk;
    return { status: res.statusCode ?? 0, body };
  }

  async json<T>(path: string): Promise<{ status: number; body: T }> {
    const { status, body } = await this.text(path);
    try {
      return { status, body: JSON.parse(body) as T };
    } catch {
      throw new Error(`the node answered ${path} with ${status}: ${body.trim().slice(0, 500)}`);
    }
  }

  /**
   * Reads an NDJSON stream, one parsed object per line, until it ends or
   * `signal` aborts; `onOpen` is told once the node has answered.
   */
  async *ndjson<T>(path: string, signal?: AbortSignal, onOpen?: () => void): AsyncGenerator<T> {
    let res: IncomingMessage;
    try {
      res = await this.open(path, signal);
    } catch (err) {
      if (signal?.aborted) return;
      throw err;
    }
    onOpen?.();
    let rest = '';
    try {
      for await (const chunk of res) {
        rest += chunk;
        const lines = rest.split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) yield JSON.parse(line) as T;
      }
    } catch (err) {
      if (!signal?.aborted) throw err;
    }
  }
}

/** An object's events as the running node keeps them, asked for as kubectl describe asks: by name and UID. */
export async function objectEvents(node: NodeClient, meta: ObjectMeta): Promise<Event[]> {
  const selector = `involvedObject.name=${meta.name},involvedObject.uid=${meta.uid}`;
  const res = await node.json<{ items?: Event[] }>(
    `/api/v1/namespaces/${encodeURIComponent(meta.namespace ?? 'default')}/events?fieldSelector=${encodeURIComponent(selector)}`,
  );
  return res.body.items ?? [];
}
