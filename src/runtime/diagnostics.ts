// What the runtime's log says of a container that surprised it: the
// processes under its wrapper, and the end of its output.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { childrenOf, commOf, readProcStat } from './proc.js';

/** A process and its descendants, as `pid comm state [children]`, a few levels deep. */
export function describeTree(pid: number, depth = 0): string {
  const stat = readProcStat(pid);
  const self = `${pid} ${stat ? `${commOf(pid) ?? '?'} ${stat.state}` : 'gone'}`;
  const children = depth < 4 ? childrenOf(pid) : [];
  return children.length > 0 ? `${self} [${children.map((child) => describeTree(child, depth + 1)).join(', ')}]` : self;
}

/** The last few hundred bytes of a CRI log file; empty when there is none. */
export function logTail(path: string): string {
  if (!path) return '';
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.min(size, 400));
    readSync(fd, buffer, 0, buffer.length, size - buffer.length);
    return buffer.toString('utf8');
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
