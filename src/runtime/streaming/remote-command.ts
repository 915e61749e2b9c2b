import type { Writable } from 'node:stream';
import type { StreamIo, TerminalSize } from './attached-process.js';
import type { SpdyConnection, SpdyStream } from '../../util/spdy.js';

/** The remotecommand protocols served, the client's first choice among them taken (v4 reports exit codes as a Status). */
export const REMOTE_COMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];

/** How long the client has to open the streams it asked for, as the kubelet's stream creation timeout. */
const STREAM_CREATION_TIMEOUT_MS = 30_000;

export interface StreamOptions {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  tty: boolean;
}

/** How an exec or attach ended: an exit code, or a failure to say (it could not start). */
export type CommandOutcome = { exitCode: number } | { error: string };

/**
 * Serves one exec or attach over an upgraded connection: waits for the
 * streams the request asked for (error, stdin, stdout, stderr, resize), runs
 * it, ends the output streams, writes the outcome on the error stream (a v1
 * Status in v4: Success, or Failure with reason NonZeroExitCode and the code
 * as the ExitCode cause) and closes the connection. A client that goes away
 * aborts it.
 */
export async function serveRemoteCommand(
  connection: SpdyConnection,
  protocol: string,
  options: StreamOptions,
  run: (io: StreamIo, abort: AbortSignal) => Promise<CommandOutcome>,
): Promise<void> {
  const streams = await collectStreams(connection, options, protocol);
  if (!streams) {
    connection.close();
    return;
  }
  const abort = new AbortController();
  connection.once('close', () => abort.abort());
  const io: StreamIo = {
    stdin: streams.get('stdin'),
    stdout: streams.get('stdout'),
    stderr: options.tty ? undefined : streams.get('stderr'),
    tty: options.tty,
    onResize: (listener) => followResizes(streams.get('resize'), listener),
  };
  let outcome: CommandOutcome;
  try {
    outcome = await run(io, abort.signal);
  } catch (err) {
    outcome = { error: (err as Error).message };
  }
  if (connection.closed) return;
  await Promise.all([streams.get('stdout'), streams.get('stderr')].map((s) => (s ? endStream(s) : undefined)));
  const errorStream = streams.get('error');
  if (errorStream) await endStream(errorStream, statusMessage(outcome, protocol));
  connection.close();
}

async function collectStreams(
  connection: SpdyConnection,
  options: StreamOptions,
  protocol: string,
): Promise<Map<string, SpdyStream> | undefined> {
  const expected = new Set(['error']);
  if (options.stdin) expected.add('stdin');
  if (options.stdout) expected.add('stdout');
  if (options.stderr && !options.tty) expected.add('stderr');
  if (options.tty && protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io') expected.add('resize');
  const streams = new Map<string, SpdyStream>();
  return new Promise((resolve) => {
    const done = (result: Map<string, SpdyStream> | undefined) => {
      clearTimeout(timer);
      connection.off('stream', onStream);
      connection.off('close', onClose);
      resolve(result);
    };
    const onStream = (stream: SpdyStream) => {
      const type = stream.header('streamType');
      if (!expected.has(type) || streams.has(type)) {
        stream.destroy(); // not asked for: reset
        return;
      }
      streams.set(type, stream);
      if (streams.size === expected.size) done(streams);
    };
    const onClose = () => done(undefined);
    const timer = setTimeout(() => done(undefined), STREAM_CREATION_TIMEOUT_MS);
    connection.on('stream', onStream);
    connection.on('close', onClose);
  });
}

/** Terminal sizes arrive as JSON objects one after another ({"Width":80,"Height":24}). */
function followResizes(stream: SpdyStream | undefined, listener: (size: TerminalSize) => void): void {
  if (!stream) return;
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
    for (let end = text.indexOf('}'); end !== -1; end = text.indexOf('}')) {
      const piece = text.slice(0, end + 1);
      text = text.slice(end + 1);
      try {
        const size = JSON.parse(piece.slice(piece.indexOf('{'))) as { Width?: number; Height?: number };
        if (Number.isInteger(size.Width) && Number.isInteger(size.Height)) listener({ width: size.Width!, height: size.Height! });
      } catch {
        // not a size: ignored, as the kubelet does
      }
    }
  });
}

function statusMessage(outcome: CommandOutcome, protocol: string): string {
  const failure =
    'error' in outcome
      ? outcome.error
      : outcome.exitCode === 0
        ? undefined
        : `command terminated with non-zero exit code: exit status ${outcome.exitCode}`;
  if (protocol !== 'v4.channel.k8s.io') return failure ?? '';
  if (failure === undefined) return JSON.stringify({ metadata: {}, status: 'Success' });
  if ('error' in outcome) {
    return JSON.stringify({
      metadata: {},
      status: 'Failure',
      message: `Internal error occurred: ${failure}`,
      reason: 'InternalError',
      details: { causes: [{ message: failure }] },
      code: 500,
    });
  }
  return JSON.stringify({
    metadata: {},
    status: 'Failure',
    message: failure,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(outcome.exitCode) }] },
  });
}

function endStream(stream: Writable, last?: string): Promise<void> {
  return new Promise((resolve) => {
    if (stream.writableEnded || stream.destroyed) return resolve();
    stream.end(last ? Buffer.from(last) : undefined, () => resolve());
    stream.once('error', () => resolve());
  });
}
