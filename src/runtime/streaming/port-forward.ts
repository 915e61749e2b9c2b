import { connect } from 'node:net';
import type { SpdyConnection, SpdyStream } from './spdy.js';

export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/**
 * Serves port forwarding over an upgraded connection, as the kubelet's
 * portforward.k8s.io protocol: the client opens an error stream and a data
 * stream per forwarded connection, paired by their requestID header and
 * naming the port; each data stream is joined to a TCP connection to that
 * port in the pod's network (`host`: the embedded runtime's pods share the
 * host's). A failed dial is told on the pair's error stream.
 */
export function servePortForward(connection: SpdyConnection, host: string, describe: string): void {
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
      forward(pair.data, pair.error, host, describe);
    }
  });
}

function forward(data: SpdyStream, errorStream: SpdyStream, host: string, describe: string): void {
  const portText = data.header('port');
  const port = Number(portText);
  const fail = (message: string) => {
    errorStream.end(message);
    data.end();
  };
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) return fail(`invalid port: ${JSON.stringify(portText)}`);
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
