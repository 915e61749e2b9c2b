// Spare processes (src/runtime/spares.ts): real shells, spawned ahead and
// told what to become.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf } from '../../../src/runtime/proc.js';
import { quote, SpareProcesses, stillHeld } from '../../../src/runtime/spares.js';

const pools: SpareProcesses[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
});

async function until<T>(what: string, fn: () => T | undefined): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A spare, once one waits (polling take() would put the filling off each time). */
async function spareOf(pool: SpareProcesses): Promise<ChildProcess> {
  await until('a spare', () => (pool.waiting > 0 ? true : undefined));
  return pool.take()!;
}

/** Runs a taken spare as `argv` and gives what it wrote and how it ended. */
function run(spare: ChildProcess, argv: string[], env: Record<string, string>, cwd: string): Promise<{ out: string; code: number | null }> {
  let out = '';
  spare.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const done = new Promise<{ out: string; code: number | null }>((resolve) => spare.on('close', (code) => resolve({ out, code })));
  SpareProcesses.order(spare, { argv, env, cwd });
  return done;
}

describe('spare processes', () => {
  it('has none until the runtime has been quiet, then fills to its size', async () => {
    const pool = new SpareProcesses(2, 20);
    pools.push(pool);
    expect(pool.available).toBe(true);
    expect(pool.take()).toBeUndefined();
    await until('two spares', () => (pool.waiting === 2 ? true : undefined));
    const first = pool.take()!;
    const second = pool.take()!;
    expect(pool.waiting).toBe(0);
    expect(stillHeld(first.pid!) && stillHeld(second.pid!)).toBe(true);
    expect(second.pid).not.toBe(first.pid);
    // Each take puts the filling off: what a burst asks for, it spawns itself.
    await until('the pool filled again', () => (pool.waiting === 2 ? true : undefined));
    for (const spare of [first, second]) process.kill(-spare.pid!, 'SIGKILL');
  });

  it('becomes exactly the argv, environment and directory it is given, and ends with its exit code', async () => {
    const pool = new SpareProcesses(1, 10);
    pools.push(pool);
    pool.fillWhenQuiet();
    const spare = await spareOf(pool);
    const tricky = ["it's", 'a "b" $HOME `id` \\ \n next line', '', '-n'];
    const env = { PATH: '/usr/bin:/bin', 'dotted.name': 'x y', QUOTE: "'" };
    const script = 'pwd; for a in "$@"; do printf "[%s]" "$a"; done; echo; exit 7';
    const { out, code } = await run(spare, ['sh', '-c', script, 'sh', ...tricky], env, '/tmp');
    expect(code).toBe(7);
    expect(out).toBe(`/tmp\n${tricky.map((a) => `[${a}]`).join('')}\n`);
    // The environment is the given one and nothing of the shell's (no PWD, no SHLVL), as env(1) itself prints it.
    const next = await spareOf(pool);
    const printed = await run(next, ['env'], env, '/');
    expect(printed.out.trim().split('\n').sort()).toEqual(['PATH=/usr/bin:/bin', "QUOTE='", 'dotted.name=x y']);
  });

  it('leaves the pool when it dies while waiting', async () => {
    const pool = new SpareProcesses(1, 10);
    pools.push(pool);
    pool.fillWhenQuiet();
    await until('a spare', () => (pool.waiting === 1 ? true : undefined));
    // The fill's last turn (which finds the pool full) has run: nothing refills it now.
    await new Promise((r) => setImmediate(r));
    const pid = childrenOf(process.pid).find(stillHeld)!;
    process.kill(pid, 'SIGKILL');
    await until('the dead spare to leave the pool', () => (pool.waiting === 0 ? true : undefined));
  });

  it('is gone when its runtime is: a spare whose fd 3 closes with no order ends by itself', async () => {
    const pool = new SpareProcesses(1, 10);
    pools.push(pool);
    pool.fillWhenQuiet();
    const spare = await spareOf(pool);
    const closed = new Promise((resolve) => spare.on('close', resolve));
    (spare.stdio[3] as NodeJS.WritableStream).end();
    await closed;
    expect(spare.exitCode).toBe(0);
  });

  it('takes only what env(1) reads as given', () => {
    expect(SpareProcesses.fits({ argv: ['sleep', '1'], env: { A: '1=2' }, cwd: '/' })).toBe(true);
    expect(SpareProcesses.fits({ argv: ['a=b'], env: {}, cwd: '/' })).toBe(false);
    expect(SpareProcesses.fits({ argv: ['true'], env: { '': 'x' }, cwd: '/' })).toBe(false);
    expect(SpareProcesses.fits({ argv: [], env: {}, cwd: '/' })).toBe(false);
    expect(SpareProcesses.fits({ argv: ['echo', 'a\0b'], env: {}, cwd: '/' })).toBe(false);
  });

  it('quotes words for the shell', () => {
    expect(quote("a'b")).toBe(`'a'\\''b'`);
    expect(quote('')).toBe("''");
  });
});
