import { open } from 'node:fs/promises';
import type { ContainerInstance } from '../container/types.js';

/** The kubelet's limits for a message taken from the end of a log. */
const MAX_LOG_LINES = 80;
const MAX_MESSAGE_BYTES = 4096;

/**
 * For terminationMessagePolicy FallbackToLogsOnError: when a container failed
 * and left no message, the tail of its log (the text, without CRI prefixes)
 * becomes its termination message.
 */
export async function terminationMessageFromLogs(container: ContainerInstance, policy: string | undefined): Promise<string> {
  if (policy !== 'FallbackToLogsOnError' || container.exitCode === 0 || container.message || !container.logPath) return container.message;
  let text: string;
  try {
    const handle = await open(container.logPath, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 64 * 1024);
      const buf = Buffer.alloc(length);
      await handle.read(buf, 0, length, size - length);
      text = buf.toString('utf8');
    } finally {
      await handle.close();
    }
  } catch {
    return container.message;
  }
  const lines = text.split('\n').filter((l) => l !== '').slice(-MAX_LOG_LINES).map(logText);
  let message = lines.join('\n');
  if (Buffer.byteLength(message) > MAX_MESSAGE_BYTES) message = Buffer.from(message).subarray(-MAX_MESSAGE_BYTES).toString('utf8');
  return message;
}

/** The text of one CRI log line (`<time> <stream> <F|P> <text>`). */
export function logText(line: string): string {
  const parts = line.split(' ');
  return parts.length >= 4 ? parts.slice(3).join(' ') : line;
}
