import { appendFileSync, mkdtempSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CriLineParser, limitedOutput, logsSince, readContainerLog, type LogOptions } from '../../../src/engine/logs.js';
import { FakeClock } from '../../../src/util/clock.js';

// ---- helpers ----------------------------------------------------------------

const dir = mkdtempSync(join(tmpdir(), 'knode-logs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const T = [
  '2026-01-01T10:00:00.000000001Z',
  '2026-01-01T10:00:01.5Z',
  '2026-01-01T10:00:02.25Z',
  '2026-01-01T10:00:03.125Z',
  '2026-01-01T10:00:04.0625Z',
];

/** One CRI log entry, newline included. */
const entry = (time: string, stream: 'stdout' | 'stderr', tag: 'F' | 'P', text: string) => `${time} ${stream} ${tag} ${text}\n`;
const full = (i: number, text: string, stream: 'stdout' | 'stderr' = 'stdout') => entry(T[i % T.length], stream, 'F', text);

function logFile(content: string): string {
  const path = join(dir, `${files++}.log`);
  writeFileSync(path, content);
  return path;
}

async function collect(path: string, options: LogOptions = {}): Promise<string[]> {
  const out: string[] = [];
  for await (const line of readContainerLog(path, options)) out.push(line);
  return out;
}

/**
 * Waits (on I/O, not on timers) until the follower sleeps on the fake clock,
 * up to a deadline: its reads go through Node's thread pool, which a busy
 * machine (a CI run) kept past a thousand turns of the loop.
 */
async function untilSleeping(clock: FakeClock): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (clock.pending === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  expect(clock.pending).toBe(1);
}

// ---- reading a log once ---------------------------------------------------------

interface Row {
  name: string;
  content: string;
  options?: LogOptions;
  want: string[];
}

const rows: Row[] = [
  {
    name: 'plain lines from both streams, in file order',
    content: full(0, 'hello') + full(1, 'oops', 'stderr') + full(2, 'world'),
    want: ['hello', 'oops', 'world'],
  },
  { name: 'an empty file', content: '', want: [] },
  { name: 'an empty line', content: full(0, 'a') + full(1, '') + full(2, 'b'), want: ['a', '', 'b'] },
  { name: 'text keeps its own spaces', content: full(0, '  two  spaces  '), want: ['  two  spaces  '] },
  {
    name: 'timestamps prefix each line with its RFC 3339 time',
    content: full(1, 'hello') + full(2, 'world'),
    options: { timestamps: true },
    want: [`${T[1]} hello`, `${T[2]} world`],
  },
  {
    name: 'partial entries are joined with the full one that ends them',
    content: entry(T[0], 'stdout', 'P', 'hel') + entry(T[1], 'stdout', 'P', 'lo ') + entry(T[2], 'stdout', 'F', 'world') + full(3, 'next'),
    want: ['hello world', 'next'],
  },
  {
    name: 'an unterminated final partial entry is flushed at the end',
    content: full(0, 'a') + entry(T[1], 'stdout', 'P', 'no newline yet'),
    want: ['a', 'no newline yet'],
  },
  {
    name: 'an unterminated final partial entry keeps its time',
    content: entry(T[3], 'stdout', 'P', 'tail'),
    options: { timestamps: true },
    want: [`${T[3]} tail`],
  },
  { name: 'lines that are not CRI entries are skipped', content: `garbage\n${full(0, 'ok')}`, want: ['ok'] },
  {
    name: 'tailLines gives the last N lines',
    content: full(0, 'a') + full(1, 'b') + full(2, 'c') + full(3, 'd'),
    options: { tailLines: 2 },
    want: ['c', 'd'],
  },
  {
    name: 'tailLines larger than the log gives all of it',
    content: full(0, 'a') + full(1, 'b'),
    options: { tailLines: 10 },
    want: ['a', 'b'],
  },
  {
    name: 'tailLines with timestamps',
    content: full(0, 'a') + full(1, 'b'),
    options: { tailLines: 1, timestamps: true },
    want: [`${T[1]} b`],
  },
  { name: 'tailLines 0 gives nothing', content: full(0, 'a') + full(1, 'b'), options: { tailLines: 0 }, want: [] },
  {
    name: "a joined line carries its first piece's time",
    content: entry(T[0], 'stdout', 'P', 'hel') + entry(T[1], 'stdout', 'F', 'lo'),
    options: { timestamps: true },
    want: [`${T[0]} hello`],
  },
  {
    name: 'since a time: the lines written at or after it',
    content: full(0, 'a') + full(1, 'b') + full(2, 'c'),
    options: { sinceTime: Date.parse(T[1]) },
    want: ['b', 'c'],
  },
  {
    name: 'the tail first, then since among it, as the kubelet',
    content: full(0, 'a') + full(1, 'b') + full(2, 'c') + full(3, 'd'),
    options: { tailLines: 3, sinceTime: Date.parse(T[3]) },
    want: ['d'],
  },
];

describe('logsSince', () => {
  const now = Date.parse('2026-12-07T12:00:00Z');
  it('counts seconds back from now, and takes them over a time', () => {
    expect(logsSince({ sinceSeconds: 90 }, now)).toBe(now - 90_000);
    expect(logsSince({ sinceSeconds: 5, sinceTime: '2026-01-01T00:00:00Z' }, now)).toBe(now - 5_000);
  });
  it('reads an RFC 3339 time, with its fraction', () => {
    expect(logsSince({ sinceTime: '2026-12-07T11:59:58.5Z' }, now)).toBe(now - 1_500);
  });
  it('is every line for none, zero seconds, or a time that does not parse', () => {
    expect(logsSince({}, now)).toBeUndefined();
    expect(logsSince({ sinceSeconds: 0 }, now)).toBeUndefined();
    expect(logsSince({ sinceTime: 'yesterday' }, now)).toBeUndefined();
  });
});

describe('limitedOutput', () => {
  async function* of(lines: string[]) {
    yield* lines;
  }
  const out = async (lines: string[], limit?: number) => {
    const chunks: Buffer[] = [];
    for await (const chunk of limitedOutput(of(lines), limit)) chunks.push(chunk);
    return Buffer.concat(chunks);
  };

  it('gives each line with its newline, and cuts where the byte limit falls, as the kubelet', async () => {
    expect((await out(['one', 'two'])).toString()).toBe('one\ntwo\n');
    expect((await out(['one', 'two'], 6)).toString()).toBe('one\ntw');
    expect((await out(['one', 'two'], 4)).toString()).toBe('one\n');
    // Bytes, not characters: the cut may fall inside one.
    expect(await out(['ééé'], 3)).toHaveLength(3);
  });
});

describe('readContainerLog', () => {
  it.each(rows)('$name', async ({ content, options, want }) => {
    expect(await collect(logFile(content), options)).toEqual(want);
  });

  it('fails for a log that does not exist', async () => {
    await expect(collect(join(dir, 'missing.log'))).rejects.toThrow(/ENOENT/);
  });
});

// ---- following ------------------------------------------------------------------

describe('readContainerLog with follow', () => {
  it('yields lines appended while following, and ends once the container stopped and the file is drained', async () => {
    const path = logFile(full(0, 'first'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });

    expect(await it.next()).toEqual({ value: 'first', done: false });

    let next = it.next();
    await untilSleeping(clock);
    appendFileSync(path, full(1, 'second'));
    await clock.advance(200);
    expect(await next).toEqual({ value: 'second', done: false });

    // Nothing new: it keeps polling every 200 ms.
    next = it.next();
    await untilSleeping(clock);
    await clock.advance(200);
    await untilSleeping(clock);

    // The container writes its last line and stops before the next poll: the line still comes out.
    appendFileSync(path, full(2, 'last'));
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: 'last', done: false });
    expect(await it.next()).toEqual({ value: undefined, done: true });
    expect(clock.pending).toBe(0);
  });

  it('ends at once for a stopped container once it has read the file', async () => {
    const path = logFile(full(0, 'a') + full(1, 'b'));
    const clock = new FakeClock();
    expect(await collect(path, { follow: true, clock, stillRunning: async () => false })).toEqual(['a', 'b']);
    expect(clock.pending).toBe(0);
  });

  it('joins a partial entry with the full one written while following', async () => {
    const path = logFile(entry(T[0], 'stdout', 'P', 'half '));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });
    const next = it.next();
    await untilSleeping(clock);
    appendFileSync(path, entry(T[1], 'stdout', 'F', 'and half'));
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: 'half and half', done: false });
    expect((await it.next()).done).toBe(true);
  });

  it('flushes an unterminated partial entry when the container stops', async () => {
    const path = logFile(full(0, 'a') + entry(T[1], 'stdout', 'P', 'cut'));
    const clock = new FakeClock();
    expect(await collect(path, { follow: true, clock, stillRunning: () => false })).toEqual(['a', 'cut']);
  });

  it('follows only new lines after a tail', async () => {
    const path = logFile(full(0, 'a') + full(1, 'b') + full(2, 'c'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, tailLines: 1, clock, stillRunning: () => running });
    expect(await it.next()).toEqual({ value: 'c', done: false });
    const next = it.next();
    await untilSleeping(clock);
    appendFileSync(path, full(3, 'd'));
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: 'd', done: false });
    expect((await it.next()).done).toBe(true);
  });

  it('follows a rotated log (truncated and rewritten) from the start of the new file', async () => {
    const path = logFile(full(0, 'old one') + full(1, 'old two'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });
    expect((await it.next()).value).toBe('old one');
    expect((await it.next()).value).toBe('old two');

    const next = it.next();
    await untilSleeping(clock);
    writeFileSync(path, full(2, 'new'));
    await clock.advance(200);
    expect(await next).toEqual({ value: 'new', done: false });

    const after = it.next();
    await untilSleeping(clock);
    appendFileSync(path, full(3, 'newer'));
    running = false;
    await clock.advance(200);
    expect(await after).toEqual({ value: 'newer', done: false });
    expect((await it.next()).done).toBe(true);
  });

  it('ends when the signal aborts, without waiting for the clock', async () => {
    const path = logFile(full(0, 'a'));
    const clock = new FakeClock();
    const controller = new AbortController();
    const it = readContainerLog(path, { follow: true, clock, signal: controller.signal, stillRunning: () => true });
    expect((await it.next()).value).toBe('a');
    const next = it.next();
    await untilSleeping(clock);
    controller.abort();
    expect(await next).toEqual({ value: undefined, done: true });
    expect(clock.pending).toBe(0);
  });

  it('yields nothing more for a signal aborted before it polls', async () => {
    const path = logFile(full(0, 'a'));
    const controller = new AbortController();
    controller.abort();
    expect(await collect(path, { follow: true, clock: new FakeClock(), signal: controller.signal })).toEqual(['a']);
  });

  it('ends when the log goes away with its container', async () => {
    const path = logFile(full(0, 'a'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });
    expect((await it.next()).value).toBe('a');
    const next = it.next();
    await untilSleeping(clock);
    unlinkSync(path);
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: undefined, done: true });
  });

  it('follows a rotation as the log manager makes it: the lines written before the reopen, the wait for the new file, then the new file', async () => {
    const path = logFile(full(0, 'one'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });
    expect((await it.next()).value).toBe('one');
    let next = it.next();
    await untilSleeping(clock);
    // Renamed aside; the runtime still writes a last line and half of one to it before it reopens.
    const rotated = `${path}.20260101-100000`;
    renameSync(path, rotated);
    appendFileSync(rotated, full(1, 'two') + entry(T[2], 'stdout', 'P', 'three, '));
    await clock.advance(200);
    expect(await next).toEqual({ value: 'two', done: false });
    // No file at the path yet: it waits while the container runs.
    next = it.next();
    await untilSleeping(clock);
    await clock.advance(200);
    await untilSleeping(clock);
    writeFileSync(path, entry(T[3], 'stdout', 'F', 'continued in the new file') + full(4, 'four'));
    await clock.advance(200);
    expect(await next).toEqual({ value: 'three, continued in the new file', done: false });
    expect((await it.next()).value).toBe('four');
    next = it.next();
    await untilSleeping(clock);
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: undefined, done: true });
    expect(clock.pending).toBe(0);
  });

  it('follows a log renamed away and re-created larger at the same path, from its start', async () => {
    const path = logFile(full(0, 'short'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });
    expect((await it.next()).value).toBe('short');
    const next = it.next();
    await untilSleeping(clock);
    renameSync(path, `${path}.1`);
    writeFileSync(path, full(1, 'new first line, longer than the old file') + full(2, 'new second line'));
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: 'new first line, longer than the old file', done: false });
    expect((await it.next()).value).toBe('new second line');
    expect((await it.next()).done).toBe(true);
  });

  it('follows a log renamed away and re-created smaller at the same path', async () => {
    const path = logFile(full(0, 'before rotation, long enough'));
    const clock = new FakeClock();
    let running = true;
    const it = readContainerLog(path, { follow: true, clock, stillRunning: () => running });
    expect((await it.next()).value).toBe('before rotation, long enough');
    const next = it.next();
    await untilSleeping(clock);
    renameSync(path, `${path}.20260101-100000`);
    writeFileSync(path, full(1, 'after'));
    running = false;
    await clock.advance(200);
    expect(await next).toEqual({ value: 'after', done: false });
    expect((await it.next()).done).toBe(true);
  });
});

// ---- CriLineParser ------------------------------------------------------------

describe('CriLineParser', () => {
  it('keeps a multi-byte character whole when a read splits it', () => {
    const parser = new CriLineParser(false);
    const bytes = Buffer.from(full(0, 'grüße ✓'));
    const cut = bytes.indexOf(Buffer.from('✓')) + 1;
    expect(parser.feed(bytes.subarray(0, cut))).toEqual([]);
    expect(parser.feed(bytes.subarray(cut))).toEqual(['grüße ✓']);
  });

  it('carries a line split across chunks over to the next chunk', () => {
    const parser = new CriLineParser(false);
    const text = full(0, 'hello') + full(1, 'world');
    const cut = text.indexOf('hel') + 2;
    expect(parser.feed(Buffer.from(text.slice(0, cut)))).toEqual([]);
    expect(parser.feed(Buffer.from(text.slice(cut)))).toEqual(['hello', 'world']);
    expect(parser.flush()).toEqual([]);
  });

  it('carries a partial entry over to the chunk with its full entry', () => {
    const parser = new CriLineParser(false);
    expect(parser.feed(Buffer.from(entry(T[0], 'stdout', 'P', 'abc')))).toEqual([]);
    expect(parser.feed(Buffer.from(entry(T[1], 'stdout', 'F', 'def')))).toEqual(['abcdef']);
    expect(parser.flush()).toEqual([]);
  });

  it('flushes a final partial entry once, with its time when asked', () => {
    const parser = new CriLineParser(true);
    expect(parser.feed(Buffer.from(full(0, 'x') + entry(T[2], 'stderr', 'P', 'partial')))).toEqual([`${T[0]} x`]);
    expect(parser.flush()).toEqual([`${T[2]} partial`]);
    expect(parser.flush()).toEqual([]);
  });
});
