import { open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { Clock } from '../util/clock.js';

export interface LogOptions {
  /** Only the last N lines. */
  tailLines?: number;
  /** Prefix each line with its RFC 3339 time, as `kubectl logs --timestamps`. */
  timestamps?: boolean;
  /** Keep reading as the container writes, until it stops or the signal aborts. */
  follow?: boolean;
  signal?: AbortSignal;
  /** Whether the container may still write (follow ends once it stops and the file is drained). */
  stillRunning?: () => boolean | Promise<boolean>;
  clock?: Clock;
}

/** Bytes read at most from the end of a log when tailing. */
const TAIL_WINDOW = 8 * 1024 * 1024;
const FOLLOW_POLL_MS = 200;

/**
 * A container's CRI log as `kubectl logs` prints it: the text of each line,
 * partial (P) entries joined to the line they belong to, optionally with
 * times, the last N lines, and following the file as it grows (surviving a
 * rotation that starts it over).
 */
export async function* readContainerLog(path: string, options: LogOptions = {}): AsyncGenerator<string> {
  const parser = new CriLineParser(options.timestamps ?? false);
  let offset: number;
  const first = await stat(path);
  let inode = first.ino;
  const size = first.size;
  if (options.tailLines !== undefined) {
    const start = Math.max(0, size - TAIL_WINDOW);
    const lines = parser.feed(await readRange(path, start, size));
    offset = size;
    for (const line of lines.slice(Math.max(0, lines.length - Math.max(0, options.tailLines)))) yield line;
  } else {
    for (const line of parser.feed(await readRange(path, 0, size))) yield line;
    offset = size;
  }
  if (!options.follow) {
    yield* parser.flush();
    return;
  }
  for (;;) {
    if (options.signal?.aborted) return;
    const running = options.stillRunning ? await options.stillRunning() : true;
    let now: number;
    try {
      const info = await stat(path);
      // Rotated: a new file at the path (another inode), or the same one started over.
      if (info.ino !== inode) {
        inode = info.ino;
        offset = 0;
      }
      now = info.size;
    } catch {
      yield* parser.flush();
      return; // the log is gone with its container
    }
    if (now < offset) offset = 0; // rotated: the file started over
    if (now === offset && !running) {
      yield* parser.flush();
      return;
    }
    if (now > offset) {
      for (const line of parser.feed(await readRange(path, offset, now))) yield line;
      offset = now;
      continue;
    }
    await sleep(FOLLOW_POLL_MS, options);
  }
}

function sleep(ms: number, options: LogOptions): Promise<void> {
  if (options.clock) return options.clock.sleep(ms, options.signal).catch(() => {});
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    options.signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

async function readRange(path: string, start: number, end: number): Promise<Buffer> {
  if (end <= start) return Buffer.alloc(0);
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(end - start);
    await handle.read(buf, 0, buf.length, start);
    return buf;
  } finally {
    await handle.close();
  }
}

/** Turns CRI log bytes into output lines, carrying partial entries and half-read lines over. */
export class CriLineParser {
  private rest = '';
  private partial = '';
  /** The time of a line's first piece: a joined line carries it, as the kubelet prints it. */
  private partialTime = '';
  private readonly decoder = new StringDecoder('utf8');

  constructor(private readonly timestamps: boolean) {}

  feed(chunk: Buffer): string[] {
    const text = this.rest + this.decoder.write(chunk);
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    const out: string[] = [];
    for (const line of lines) {
      const first = line.indexOf(' ');
      const second = line.indexOf(' ', first + 1);
      const third = line.indexOf(' ', second + 1);
      if (first < 0 || second < 0 || third < 0) continue; // not a CRI line
      const tag = line.slice(second + 1, third);
      if (this.partial === '') this.partialTime = line.slice(0, first);
      this.partial += line.slice(third + 1);
      if (tag === 'P') continue;
      out.push(this.timestamps ? `${this.partialTime} ${this.partial}` : this.partial);
      this.partial = '';
    }
    return out;
  }

  /** What a final partial entry (output that ended without a newline) left unprinted. */
  flush(): string[] {
    if (this.partial === '') return [];
    const line = this.timestamps ? `${this.partialTime} ${this.partial}` : this.partial;
    this.partial = '';
    return [line];
  }
}
