import { type FileHandle, open, stat } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { Clock } from '../util/clock.js';

export interface LogOptions {
  /** Only the last N lines. */
  tailLines?: number;
  /** Prefix each line with its RFC 3339 time, as `kubectl logs --timestamps`. */
  timestamps?: boolean;
  /** Leave out the lines written before this time (ms since the epoch), after the tail is taken, as the kubelet. */
  sinceTime?: number;
  /** Keep reading as the container writes, until it stops or the signal aborts. */
  follow?: boolean;
  signal?: AbortSignal;
  /** Whether the container may still write (follow ends once it stops and the file is drained). */
  stillRunning?: () => boolean | Promise<boolean>;
  clock?: Clock;
}

/**
 * The time from which PodLogOptions' sinceSeconds or sinceTime (RFC 3339)
 * shows a log, as ms since the epoch; undefined for all of it. Seconds win
 * when both are given (kubectl refuses that before asking).
 */
export function logsSince(options: { sinceSeconds?: number; sinceTime?: string }, now: number): number | undefined {
  if (options.sinceSeconds !== undefined && options.sinceSeconds > 0) return now - options.sinceSeconds * 1000;
  const parsed = options.sinceTime === undefined ? NaN : Date.parse(options.sinceTime);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** Bytes read at most from the end of a log when tailing. */
const TAIL_WINDOW = 8 * 1024 * 1024;
const FOLLOW_POLL_MS = 200;

/**
 * A container's CRI log as `kubectl logs` prints it: the text of each line,
 * partial (P) entries joined to the line they belong to, optionally with
 * times, the last N lines, and following the file as it grows. A follow
 * survives rotation: it holds the file it reads open, drains it once a new
 * file appears at the path (the runtime reopened the log), then reads the
 * new one from its start, so no line written across the switch is lost; a
 * path missing for a while (between the rename and the reopen) is waited
 * for as long as the container runs.
 */
export async function* readContainerLog(path: string, options: LogOptions = {}): AsyncGenerator<string> {
  const parser = new CriLineParser(options.timestamps ?? false);
  const since = options.sinceTime;
  // The kubelet takes the tail, then leaves out what was written before --since among it.
  const shownOf = (entries: LogEntry[]) => (since === undefined ? entries : entries.filter((e) => Date.parse(e.time) >= since));
  const text = (entries: LogEntry[]) => shownOf(entries).map((e) => parser.format(e));
  let file = await open(path, 'r');
  try {
    let inode = (await file.stat()).ino;
    const size = (await file.stat()).size;
    // A negative count is every line, as the kubelet reads it (kubectl's --tail=-1, its default).
    const tail = options.tailLines !== undefined && options.tailLines >= 0 ? options.tailLines : undefined;
    const start = tail === undefined ? 0 : Math.max(0, size - TAIL_WINDOW);
    const entries = parser.entries(await readRange(file, start, size));
    yield* text(tail === undefined ? entries : entries.slice(Math.max(0, entries.length - tail)));
    let offset = size;
    if (!options.follow) {
      yield* text(parser.flushEntries());
      return;
    }
    for (;;) {
      if (options.signal?.aborted) return;
      const running = options.stillRunning ? await options.stillRunning() : true;
      const now = (await file.stat()).size;
      if (now < offset) offset = 0; // truncated in place (copytruncate): it starts over
      if (now > offset) {
        const read = await readRange(file, offset, now);
        offset += read.length;
        yield* text(parser.entries(read));
        continue;
      }
      // Drained. A new file at the path means the runtime writes there now: finish this one, then switch.
      const atPath = await stat(path).catch(() => undefined);
      if (atPath && atPath.ino !== inode) {
        const last = (await file.stat()).size;
        yield* text(parser.entries(await readRange(file, offset, last)));
        await file.close();
        file = await open(path, 'r');
        inode = (await file.stat()).ino;
        offset = 0;
        continue;
      }
      if (!running) {
        yield* text(parser.flushEntries());
        return;
      }
      await sleep(FOLLOW_POLL_MS, options);
    }
  } finally {
    await file.close().catch(() => {});
  }
}

function sleep(ms: number, options: LogOptions): Promise<void> {
  if (options.clock) return options.clock.sleep(ms, options.signal).catch(() => {});
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      options.signal?.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    options.signal?.addEventListener('abort', done, { once: true });
  });
}

async function readRange(file: FileHandle, start: number, end: number): Promise<Buffer> {
  if (end <= start) return Buffer.alloc(0);
  const buf = Buffer.alloc(end - start);
  const { bytesRead } = await file.read(buf, 0, buf.length, start);
  return buf.subarray(0, bytesRead);
}

/** One line of a container's output: the time of its first piece, and its text. */
export interface LogEntry {
  time: string;
  text: string;
}

/**
 * The log's output as kubectl logs --limit-bytes cuts it: each line with its
 * newline, up to LIMIT bytes in all (the last line cut where the limit falls,
 * as the kubelet's limited writer cuts it); every line without a limit.
 */
export async function* limitedOutput(lines: AsyncIterable<string>, limit?: number): AsyncGenerator<Buffer> {
  let left = limit ?? Infinity;
  for await (const line of lines) {
    const bytes = Buffer.from(`${line}\n`);
    if (bytes.length >= left) {
      yield bytes.subarray(0, left);
      return;
    }
    left -= bytes.length;
    yield bytes;
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

  /** The output lines CHUNK completes, as kubectl logs prints them. */
  feed(chunk: Buffer): string[] {
    return this.entries(chunk).map((e) => this.format(e));
  }

  /** A line as kubectl logs prints it: with its time when asked. */
  format(entry: LogEntry): string {
    return this.timestamps ? `${entry.time} ${entry.text}` : entry.text;
  }

  /** The lines CHUNK completes, with their times. */
  entries(chunk: Buffer): LogEntry[] {
    const text = this.rest + this.decoder.write(chunk);
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    const out: LogEntry[] = [];
    for (const line of lines) {
      const first = line.indexOf(' ');
      const second = line.indexOf(' ', first + 1);
      const third = line.indexOf(' ', second + 1);
      if (first < 0 || second < 0 || third < 0) continue; // not a CRI line
      const tag = line.slice(second + 1, third);
      if (this.partial === '') this.partialTime = line.slice(0, first);
      this.partial += line.slice(third + 1);
      if (tag === 'P') continue;
      out.push({ time: this.partialTime, text: this.partial });
      this.partial = '';
    }
    return out;
  }

  /** What a final partial entry (output that ended without a newline) left unprinted. */
  flush(): string[] {
    return this.flushEntries().map((e) => this.format(e));
  }

  /** The final partial entry, with its time. */
  flushEntries(): LogEntry[] {
    if (this.partial === '') return [];
    const entry = { time: this.partialTime, text: this.partial };
    this.partial = '';
    return [entry];
  }
}
