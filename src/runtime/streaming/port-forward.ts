import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import type { SpdyConnection, SpdyStream } from '../../util/spdy.js';

/** Where a pod's ports are: the host's loopback, or that of the pod's own network namespace (NETNS, entered with NSENTER). */
export interface PortForwardTarget {
  host: string;
  describe: string;
  netns?: { path: string; nsenter: string };
}

/**
 * Run by Node inside a pod's network namespace: joins its stdin and stdout
 * to a TCP connection to the port named by its argument on that loopback;
 * says why it could not connect on stderr, and exits 1.
 */
const RELAY = `const s = require('net').connect(Number(process.argv[1]), '127.0.0.1');
s.on('connect', () => { process.stdin.pipe(s); s.pipe(process.stdout); });
s.on('error', (e) => { process.stderr.write(e.message); process.exit(1); });
process.stdin.on('end', () => s.end());`;

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/**
 * Serves port forwarding over an upgraded connection, as the kubelet's
 * portforward.k8s.io protocol: the client opens an error stream and a data
 * stream per forwarded connection, paired by their requestID header and
 * naming the port; each data stream is joined to a TCP connection to that
 * port in the pod's network: the host's loopback for a pod on the host's
 * network; in a pod network, a relay in the pod's namespace (as containerd
 * dials from inside it). A failed dial is told on the pair's error stream.
 */
export function servePortForward(connection: SpdyConnection, target: PortForwardTarget): void {
  const pairs = new Map<string, { error?: SpdyStream; data?: SpdyStream }>();
  connection.on('stream', (stream) => {
    const type = stream.header('streamType');
    const requestId = stream.header('requestID');
    if ((type !== 'error' && type !== 'data') || requestId === '') {
      stream.destroy();
      return;
    }
    const pair = pairs.get(requestId) ?? {};
    if (pair[type]) {
      stream.destroy();
      return;
    }
    pair[type] = stream;
    pairs.set(requestId, pair);
    if (pair.error && pair.data) {
      pairs.delete(requestId);
      if (target.netns) forwardInNamespace(pair.data, pair.error, target.netns, target.describe);
      else forward(pair.data, pair.error, target.host, target.describe);
    }
  });
}

/** The port a data stream names; undefined (and the pair failed) if it is not one. */
function portOf(data: SpdyStream, errorStream: SpdyStream): number | undefined {
  const portText = data.header('port');
  const port = Number(portText);
  if (/^\d+$/.test(portText) && port >= 1 && port <= 65535) return port;
  errorStream.end(`invalid port: ${JSON.stringify(portText)}`);
  data.end();
  return undefined;
}

function forward(data: SpdyStream, errorStream: SpdyStream, host: string, describe: string): void {
  const port = portOf(data, errorStream);
  if (port === undefined) return;
  const fail = (message: string) => {
    errorStream.end(message);
    data.end();
  };
  const socket = connect({ host, port });
  socket.once('connect', () => {
    data.pipe(socket);
    socket.pipe(data);
  });
  socket.once('error', (err) => fail(`error forwarding port ${port} to ${describe}: ${err.message}`));
  socket.once('close', () => {
    if (!errorStream.writableEnded) errorStream.end();
  });
  data.once('close', () => socket.destroy());
  errorStream.resume(); // the client sends nothing on it; its end must still be read
}

function forwardInNamespace(data: SpdyStream, errorStream: SpdyStream, netns: { path: string; nsenter: string }, describe: string): void {
  const port = portOf(data, errorStream);
  if (port === undefined) return;
  const relay = spawn(netns.nsenter, [`--net=${netns.path}`, '--', process.execPath, '-e', RELAY, String(port)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  relay.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  relay.stdin.on('error', () => {});
  data.pipe(relay.stdin);
  relay.stdout.pipe(data, { end: false });
  relay.once('error', (err) => (stderr ||= err.message));
  relay.once('close', (code) => {
    if (code !== 0 && !errorStream.writableEnded)
      errorStream.end(`error forwarding port ${port} to ${describe}: ${stderr.trim() || `the relay exited with ${code}`}`);
    else if (!errorStream.writableEnded) errorStream.end();
    data.end();
  });
  data.once('close', () => relay.kill());
  errorStream.resume();
}
