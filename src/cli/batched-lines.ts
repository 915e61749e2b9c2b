/**
 * Lines for a stream, written once per turn of the event loop. Writes to a
 * file or a pipe are synchronous system calls on Linux, so a burst of pods,
 * with a dozen events each, cost a write a line; batched, the burst's events
 * of one turn are one write (bench/notes/cpu-per-pod.md). The lines keep
 * their order, and nothing pushed is lost: `flush` writes what waits, and the
 * process's exit flushes too.
 */
export class BatchedLines {
  private pending: string[] = [];
  private scheduled = false;
  private readonly onExit = () => this.flush();

  constructor(private readonly out: { write(chunk: string): unknown }) {
    process.on('exit', this.onExit);
  }

  /** Queues one line (without its newline). */
  push(line: string): void {
    this.pending.push(line);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /** Writes every queued line now. */
  flush(): void {
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.out.write(text);
  }

  /** Flushes, and no longer flushes at the process's exit. */
  close(): void {
    this.flush();
    process.off('exit', this.onExit);
  }
}
