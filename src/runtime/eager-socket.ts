// The embedded runtime's connections, made so that its HTTP/2 sessions never
// stop reading. Node's HTTP/2 stops reading a socket while one of its own
// writes is still in progress (Http2Session::MaybeStopReading), so two Node
// peers that both write more than the socket holds, at the same moment, each
// wait for the other to read: knode's CRI client and this runtime did, in a
// burst of 1,000 pods (both ends' queues full, both processes idle, for
// good). Here a write is done once it is queued in this process, so the
// runtime's session keeps reading whatever it has to send, and the client's
// writes always drain.
import { createServer, type Server, type Socket } from 'node:net';
import { Duplex } from 'node:stream';

/** A socket whose writes finish at once, queued in memory until the kernel takes them; reads as the socket's. */
export class EagerSocket extends Duplex {
  constructor(private readonly socket: Socket) {
    super({ allowHalfOpen: false });
    socket.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('error', (err) => this.destroy(err));
    socket.on('close', () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    this.socket.write(chunk);
    done();
  }

  override _writev(chunks: { chunk: Buffer }[], done: (err?: Error | null) => void): void {
    this.socket.cork();
    for (const { chunk } of chunks) this.socket.write(chunk);
    this.socket.uncork();
    done();
  }

  override _final(done: (err?: Error | null) => void): void {
    this.socket.end(done);
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.socket.destroy();
    done(err);
  }
}

/** Listens on the unix socket PATH and hands each connection, as an EagerSocket, to ACCEPT. */
export function listenEager(path: string, accept: (connection: Duplex) => void): Promise<Server> {
  const server = createServer((socket) => accept(new EagerSocket(socket)));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
