import type { ChildProcess } from 'node:child_process';
import type { CriLogWriter } from './log-writer.js';
import { exitCodeOf, signalGroup } from './proc.js';

export interface ProcessExit {
  exitCode: number;
  signal: NodeJS.Signals | null;
  finishedAt: Date;
}

/** Who else reads a container's output as it comes (an attach): each listener gets every chunk. */
export class OutputTap {
  private readonly listeners = new Set<(stream: 'stdout' | 'stderr', chunk: Buffer) => void>();
  emit(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    for (const listener of this.listeners) listener(stream, chunk);
  }
  /** Adds a listener; returns what removes it. */
  listen(listener: (stream: 'stdout' | 'stderr', chunk: Buffer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** How long to wait for a dead container's output pipes to drain before closing them. */
const DRAIN_TIMEOUT_MS = 2000;

/**
 * Follows a container's process to its end: its output goes to the CRI log;
 * when it exits, the rest of its process group is killed, as the end of a
 * PID namespace would. Resolves once its output is written (or has had
 * DRAIN_TIMEOUT_MS to drain) and the log is closed.
 */
export function followChild(child: ChildProcess, log: CriLogWriter, tap?: OutputTap): Promise<ProcessExit> {
  return new Promise((resolve) => {
    const pid = child.pid!;
    child.on('error', () => {}); // a failed kill(2) is reported by signalGroup, not as an event
    child.stdout?.on('data', (chunk: Buffer) => {
      log.write('stdout', chunk);
      tap?.emit('stdout', chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      log.write('stderr', chunk);
      tap?.emit('stderr', chunk);
    });
    let exit: ProcessExit | undefined;
    child.on('exit', (code, signal) => {
      exit = { exitCode: exitCodeOf(code, signal), signal, finishedAt: new Date() };
      signalGroup(pid, 'SIGKILL');
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_TIMEOUT_MS).unref();
    });
    child.on('close', () => {
      log.end();
      child.stdin?.destroy();
      resolve(exit ?? { exitCode: 255, signal: null, finishedAt: new Date() });
    });
  });
}
