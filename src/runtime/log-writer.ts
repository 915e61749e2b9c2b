import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileError } from '../util/atomic-file.js';

export type StreamName = 'stdout' | 'stderr';

/** containerd's default max_container_log_line_size: longer lines are split into partial (P) entries. */
export const MAX_LOG_LINE = 16 * 1024;

/**
 * Writes a container's output in the CRI log format the kubelet reads:
 * `<RFC3339Nano time> <stdout|stderr> <F|P> <text>\n`, one entry per line,
 * with P marking a piece of a line that continues in the next entry.
 * An empty path discards output, as containerd does without a log path.
 */
export class CriLogWriter {
  private fd: number | undefined;
  /**
   * The first write error (a full disk); output the file refuses is dropped
   * rather than crashing the runtime, as containerd does, and the writer
   * tries again with the next line.
   */
  writeError: Error | undefined;
  /** Whether the last write failed: `onWriteError` hears of each run of failures once. */
  private failing = false;
  private readonly pending: Record<StreamName, Buffer[]> = { stdout: [], stderr: [] };
  private readonly pendingBytes: Record<StreamName, number> = { stdout: 0, stderr: 0 };

  constructor(
    readonly path: string,
    private readonly now: () => Date = () => new Date(),
    private readonly onWriteError: (err: Error) => void = () => {},
  ) {
    this.open();
  }

  private open(): void {
    if (this.path === '') return;
    mkdirSync(dirname(this.path), { recursive: true });
    this.fd = openSync(this.path, 'a', 0o640);
  }

  /** Closes and reopens the file, after a log rotation renamed it. */
  reopen(): void {
    this.closeFile();
    this.open();
  }

  write(stream: StreamName, chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      this.push(stream, chunk.subarray(start, nl));
      this.emit(stream, 'F');
      start = nl + 1;
    }
    if (start < chunk.length) this.push(stream, chunk.subarray(start));
  }

  /** Flushes unterminated output (tagged P, as containerd does: no newline ended it) and closes the file. */
  end(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      if (this.pendingBytes[stream] > 0) this.emit(stream, 'P');
    }
    this.closeFile();
  }

  private push(stream: StreamName, piece: Buffer): void {
    let rest = piece;
    while (this.pendingBytes[stream] + rest.length > MAX_LOG_LINE) {
      const room = MAX_LOG_LINE - this.pendingBytes[stream];
      this.pending[stream].push(rest.subarray(0, room));
      this.pendingBytes[stream] += room;
      this.emit(stream, 'P');
      rest = rest.subarray(room);
    }
    if (rest.length > 0) {
      this.pending[stream].push(rest);
      this.pendingBytes[stream] += rest.length;
    }
  }

  private emit(stream: StreamName, tag: 'F' | 'P'): void {
    const text = Buffer.concat(this.pending[stream]);
    this.pending[stream] = [];
    this.pendingBytes[stream] = 0;
    if (this.fd === undefined) return;
    const head = Buffer.from(`${this.now().toISOString()} ${stream} ${tag} `);
    try {
      writeSync(this.fd, Buffer.concat([head, text, NEWLINE]));
      this.failing = false;
    } catch (err) {
      const error = fileError(`writing ${this.path}`, err);
      this.writeError ??= error;
      if (!this.failing) this.onWriteError(error);
      this.failing = true;
    }
  }

  private closeFile(): void {
    if (this.fd !== undefined) {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

const NEWLINE = Buffer.from('\n');
