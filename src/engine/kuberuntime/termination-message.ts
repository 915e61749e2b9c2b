import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeletAnnotations, type ContainerStatus as CriContainerStatus } from '../../cri/types.js';

/** The kubelet's limits: a termination message is at most 4096 bytes; from logs, the last 80 lines. */
const MAX_MESSAGE_BYTES = 4096;
const MAX_LOG_LINES = 80;

/**
 * A fresh host file for one start of a container, bind-mounted at its
 * terminationMessagePath (the kubelet's pods/<uid>/containers/<name>/<id>),
 * writable by whatever user the container runs as. Made off the event
 * loop: a burst of starts made it wait about a millisecond a container.
 */
export async function createTerminationMessageFile(rootDir: string, podUid: string, container: string): Promise<string> {
  const dir = join(rootDir, 'kubelet', 'pods', podUid, 'containers', container);
  await mkdir(dir, { recursive: true });
  const file = join(dir, randomBytes(4).toString('hex'));
  await writeFile(file, '');
  await chmod(file, 0o666);
  return file;
}

/**
 * What an exited container left as its termination message, as the kubelet
 * reads it: the file mounted at its terminationMessagePath, or, with policy
 * FallbackToLogsOnError, a failed exit and an empty file, the tail of its
 * log. Appended to the runtime's own message.
 */
export async function terminationMessage(status: CriContainerStatus): Promise<string> {
  const path = status.annotations[KubeletAnnotations.terminationMessagePath];
  const policy = status.annotations[KubeletAnnotations.terminationMessagePolicy];
  const mount = path ? status.mounts.find((m) => m.containerPath === path) : undefined;
  let message = mount ? await readTail(mount.hostPath, MAX_MESSAGE_BYTES) : '';
  const fallback = policy === 'FallbackToLogsOnError' && status.exitCode !== 0 && status.reason !== 'ContainerCannotRun';
  if (message === '' && fallback && status.logPath) {
    const lines = (await readTail(status.logPath, 64 * 1024))
      .split('\n')
      .filter((l) => l !== '')
      .slice(-MAX_LOG_LINES)
      .map(logText);
    message = lines.join('\n');
    if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES) message = Buffer.from(message).subarray(-MAX_MESSAGE_BYTES).toString('utf8');
  }
  if (message === '') return status.message;
  return status.message ? `${status.message}: ${message}` : message;
}

async function readTail(path: string, maxBytes: number): Promise<string> {
  try {
    const handle = await open(path, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, maxBytes);
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, size - length);
      return buf.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return '';
  }
}

/** The text of one CRI log line (`<time> <stream> <F|P> <text>`). */
export function logText(line: string): string {
  const parts = line.split(' ');
  return parts.length >= 4 ? parts.slice(3).join(' ') : line;
}
