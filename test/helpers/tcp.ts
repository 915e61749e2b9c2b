import { connect } from 'node:net';

/** Sends `text` on a new connection to 127.0.0.1:`port` and resolves with what comes back before the far end closes (an echo server's answer). */
export function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (chunk) => {
      got += chunk.toString();
      if (got.length >= text.length) socket.end();
    });
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    socket.write(text);
  });
}
