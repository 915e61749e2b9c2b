import type { Readable, Writable } from 'node:stream';
import type { SpdyStream } from '../../util/spdy.js';
import { dialStreaming } from './dial.js';

/** The remotecommand protocols offered, first choice first, as kubectl's SPDY executor offers them (v4: the exit code in a Status). */
export const REMOTE_COMMAND_PROTOCOLS = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];

export interface TerminalSize {
  width: number;
  height: number;
}

/** What an exec or attach is joined to on this side; absent streams are not asked for. */
export interface RemoteCommandIo {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** With a TTY: starts sending terminal sizes through `send` (the current one first); returns how to stop. */
  followSize?: (send: (size: TerminalSize) => void) => () => void;
}

/** How the remote command ended: its exit code, or why it could not run. */
export type RemoteOutcome = { exitCode: number } | { error: string };

/**
 * Runs an exec or attach at a streaming URL, as kubectl's SPDY executor does:
 * opens the error stream, then stdin, stdout, stderr and resize as asked,
 * copies the bytes both ways, ends the stdin stream when the local stdin
 * ends, and once the output and the error stream have ended reads the
 * outcome from the error stream (a v1 Status in v4; text before).
 */
export async function runRemoteCommand(url: string, io: RemoteCommandIo, signal?: AbortSignal): Promise<RemoteOutcome> {
  const { connection, protocol } = await dialStreaming(url, REMOTE_COMMAND_PROTOCOLS, signal);
  const open = (streamType: string): SpdyStream => {
    const stream = connection.openStream({ streamType });
    stream.on('error', () => {});
    return stream;
  };
  let errorText = '';
  const errorStream = open('error');
  errorStream.on('data', (chunk: Buffer) => (errorText += chunk.toString('utf8')));
  const stdinStream = io.stdin ? open('stdin') : undefined;
  const outputs: Promise<void>[] = [ended(errorStream)];
  if (io.stdout) outputs.push(copyOut(open('stdout'), io.stdout));
  if (io.stderr && !io.tty) outputs.push(copyOut(open('stderr'), io.stderr));
  const resize = io.tty && protocol !== 'channel.k8s.io' && protocol !== 'v2.channel.k8s.io' ? open('resize') : undefined;
  const stopSize = resize && io.followSize?.((size) => resize.write(JSON.stringify({ Width: size.width, Height: size.height })));
  let stopStdin = () => {};
  if (io.stdin && stdinStream) stopStdin = copyIn(io.stdin, stdinStream);
  const onAbort = () => connection.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.race([Promise.all(outputs), new Promise<void>((resolve) => connection.once('close', () => resolve()))]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    stopStdin();
    stopSize?.();
    connection.close();
  }
  return outcomeOf(errorText, protocol);
}

/** Copies what the local stdin gives to the stdin stream and ends it at the stdin's end; returns how to stop reading. */
function copyIn(from: Readable, to: SpdyStream): () => void {
  const onData = (chunk: Buffer | string) => to.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  const onEnd = () => to.end();
  from.on('data', onData);
  from.once('end', onEnd);
  from.resume();
  return () => {
    from.off('data', onData);
    from.off('end', onEnd);
    from.pause();
  };
}

function copyOut(from: SpdyStream, to: Writable): Promise<void> {
  from.on('data', (chunk: Buffer) => to.write(chunk));
  return ended(from);
}

function ended(stream: SpdyStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.readableEnded || stream.destroyed) return resolve();
    stream.once('end', () => resolve());
    stream.once('close', () => resolve());
    stream.resume();
  });
}

/** The error stream's words as an outcome: v4's Status (NonZeroExitCode with the ExitCode cause), or the text older protocols send. */
export function outcomeOf(text: string, protocol: string): RemoteOutcome {
  if (protocol !== 'v4.channel.k8s.io') {
    if (text === '') return { exitCode: 0 };
    const code = /exit (?:status|code) (\d+)/.exec(text);
    return code ? { exitCode: Number(code[1]) } : { error: text };
  }
  if (text.trim() === '') return { exitCode: 0 };
  let status: { status?: string; message?: string; reason?: string; details?: { causes?: { reason?: string; message?: string }[] } };
  try {
    status = JSON.parse(text) as typeof status;
  } catch {
    return { error: `error stream protocol error: ${text}` };
  }
  if (status.status === 'Success') return { exitCode: 0 };
  if (status.reason === 'NonZeroExitCode') {
    const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
    const code = Number(cause?.message);
    if (Number.isInteger(code)) return { exitCode: code };
    return { error: `error stream protocol error: invalid exit code value ${JSON.stringify(cause?.message ?? '')}` };
  }
  return { error: status.message ?? text };
}
