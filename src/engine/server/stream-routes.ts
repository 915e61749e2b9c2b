import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import type { StreamFlags } from '../../cri/runtime-service.js';
import type { HostInterface } from './host.js';

/** /exec and /attach: namespace, pod, [uid,] container; /portForward: namespace, pod[, uid]. */
const STREAM_PATH = /^\/(exec|attach|portForward)\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?\/?$/;

export function isStreamPath(pathname: string): boolean {
  return /^\/(exec|attach|portForward)\//.test(pathname);
}

/**
 * The kubelet's streaming handlers: /exec, /attach and /portForward find the
 * pod's running container (or ready sandbox), ask the runtime for its
 * streaming URL, and proxy the client's upgraded connection there, as the
 * kubelet's proxyStream does; the stream protocol (SPDY) is between the
 * client and the runtime. Errors are answered on the raw connection.
 */
export async function serveStream(k: HostInterface, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = new URL(req.url ?? '/', 'https://knode');
  const match = STREAM_PATH.exec(url.pathname);
  if (!match) return refuse(socket, 404, `no such endpoint: ${url.pathname}`);
  const [, kind, namespace, name, third, fourth] = match.map((m) => (m === undefined ? undefined : decodeURIComponent(m)));
  const [uid, container] = kind === 'portForward' ? [third, undefined] : fourth === undefined ? [undefined, third] : [third, fourth];
  if (kind !== 'portForward' && !container) return refuse(socket, 400, `${kind} needs a container: /${kind}/{namespace}/{pod}/{container}`);
  if (kind === 'portForward' && fourth !== undefined) return refuse(socket, 404, `no such endpoint: ${url.pathname}`);
  const pod = k.getPods().find((p) => p.metadata.namespace === namespace && p.metadata.name === name);
  if (!pod || (uid !== undefined && pod.metadata.uid !== uid)) return refuse(socket, 404, 'pod does not exist');
  const podUid = pod.metadata.uid ?? '';

  let target: string | undefined;
  if (kind === 'portForward') {
    const ports = url.searchParams.getAll('port').map(Number);
    if (ports.some((p) => !Number.isInteger(p) || p < 1 || p > 65535))
      return refuse(socket, 400, `invalid port in ${url.searchParams.getAll('port').join(',')}`);
    target = await k.getPortForward(podUid, ports);
    if (!target) return refuse(socket, 404, `pod ${namespace}/${name} has no ready sandbox`);
  } else {
    const flags = streamFlags(url.searchParams);
    if (typeof flags === 'string') return refuse(socket, 400, flags);
    if (kind === 'exec') {
      const command = url.searchParams.getAll('command');
      if (command.length === 0) return refuse(socket, 400, 'you must specify a command (the command parameter)');
      target = await k.getExec(podUid, container!, command, flags);
    } else {
      target = await k.getAttach(podUid, container!, flags);
    }
    if (!target) return refuse(socket, 404, `container not found ("${container}")`);
  }
  await proxyUpgrade(target, req, socket, head);
}

/** The stream options of the query, as the kubelet reads them (input, output, error, tty; stderr off with a TTY). */
function streamFlags(query: URLSearchParams): StreamFlags | string {
  const on = (name: string) => query.get(name) === '1' || query.get(name) === 'true';
  const tty = on('tty');
  const flags = { stdin: on('input'), stdout: on('output'), stderr: on('error') && !tty, tty };
  if (!flags.stdin && !flags.stdout && !flags.stderr) return 'you must specify at least 1 of stdin, stdout, stderr';
  return flags;
}

/** Hop-by-hop and credential headers are not passed to the runtime; the upgrade ones are. */
const DROPPED = new Set(['host', 'authorization', 'proxy-authorization', 'content-length', 'transfer-encoding']);

/** Sends the request on to `target` with its upgrade headers, then joins the two connections byte for byte. */
function proxyUpgrade(target: string, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const url = new URL(target);
  return new Promise((resolve) => {
    const upstream = connect({ host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 80) });
    upstream.once('error', (err) => {
      refuse(socket, 502, `the runtime's streaming server at ${url.host} did not answer: ${err.message}`);
      resolve();
    });
    upstream.once('connect', () => {
      const lines = [`${req.method ?? 'GET'} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
      for (let i = 0; i < req.rawHeaders.length; i += 2) {
        if (!DROPPED.has(req.rawHeaders[i].toLowerCase())) lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
      }
      upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      socket.on('close', () => upstream.destroy());
      upstream.on('close', () => socket.destroy());
      resolve();
    });
  });
}

export function refuse(socket: Duplex, status: number, message: string): void {
  const reason =
    { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error', 502: 'Bad Gateway' }[
      status
    ] ?? 'Error';
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
