import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HOLDER_READY } from '../../../src/runtime/pause.js';
import { childrenOf, detachHere, exitCodeOf, parseProcStat, readProcStat, signalGroup, stopSignalOf } from '../../../src/runtime/proc.js';
import { withoutProcess } from '../../../src/runtime/stats.js';

describe('/proc parsing', () => {
  it('reads fields after a command name holding spaces and parentheses', () => {
    const line = '4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 123456 1000000 250 18446744073709551615';
    expect(parseProcStat(line)).toEqual({
      pid: 4242,
      state: 'S',
      ppid: 1,
      pgid: 4242,
      utimeTicks: 7,
      stimeTicks: 3,
      startTime: '123456',
      rssPages: 250,
    });
  });

  it('reads this very process', () => {
    const stat = readProcStat(process.pid)!;
    expect(stat.pid).toBe(process.pid);
    expect(Number(stat.startTime)).toBeGreaterThan(0);
    expect(stat.rssPages).toBeGreaterThan(0);
  });

  it('gives undefined for a process that does not exist', () => {
    expect(readProcStat(2 ** 30)).toBeUndefined();
  });

  it('lists the children of a process', async () => {
    const child = spawn('sleep', ['5'], { stdio: 'ignore' });
    try {
      expect(childrenOf(process.pid)).toContain(child.pid);
      expect(readProcStat(child.pid!)?.ppid).toBe(process.pid);
      expect(childrenOf(2 ** 30)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('container usage', () => {
  it("leaves a wrapper process out of its group's usage", () => {
    const wrapper = parseProcStat('10 (unshare) S 1 10 10 0 -1 0 0 0 0 0 2 1 0 0 20 0 1 0 5 0 300 0')!;
    expect(withoutProcess({ cpuNanoseconds: 100e6, rssBytes: 2_000_000, processes: 3 }, wrapper)).toEqual({
      cpuNanoseconds: 70e6,
      rssBytes: 2_000_000 - 300 * 4096,
      processes: 2,
    });
    expect(withoutProcess({ cpuNanoseconds: 1, rssBytes: 2, processes: 1 }, undefined)).toEqual({
      cpuNanoseconds: 1,
      rssBytes: 2,
      processes: 1,
    });
  });
});

describe('exit codes and stop signals', () => {
  it.each([
    [0, null, 0],
    [3, null, 3],
    [null, 'SIGTERM', 143],
    [null, 'SIGKILL', 137],
  ] as const)('code %s signal %s gives %i', (code, signal, expected) => {
    expect(exitCodeOf(code, signal)).toBe(expected);
  });

  it.each([
    ['SIGNAL_RUNTIME_DEFAULT', 'SIGTERM'],
    ['SIGNAL_SIGINT', 'SIGINT'],
    ['SIGNAL_SIGQUIT', 'SIGQUIT'],
    ['SIGNAL_BOGUS', 'SIGTERM'],
  ])('stop signal %s is %s', (name, expected) => {
    expect(stopSignalOf(name)).toBe(expected);
  });
});

describe('detachHere', () => {
  const dir = mkdtempSync(join(tmpdir(), 'knode-detach-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives the pid once the program has said it is ready on its fd 3, in a session of its own, with a PATH and no other variable', async () => {
    const before = join(dir, 'before-ready');
    const pid = await detachHere(['/usr/bin/env', 'sh', '-c', `env > ${before}; ${HOLDER_READY} && exec sleep 30`]);
    try {
      // What it did before its line is done, and it still runs, as the leader of its own session.
      expect(
        readFileSync(before, 'utf8')
          .split('\n')
          .filter((line) => line !== '' && !line.startsWith('PWD='))
          .map((line) => line.split('=')[0]),
      ).toEqual(['PATH']);
      expect(readProcStat(pid)?.state).not.toBe('Z');
      expect(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[3]).toBe(String(pid));
    } finally {
      signalGroup(pid, 'SIGKILL');
    }
  });

  it('gives the pid of a program that never writes there once it closes it (here by ending)', async () => {
    const pid = await detachHere(['/bin/sh', '-c', 'exit 3']);
    expect(pid).toBeGreaterThan(0);
  });

  it('rejects a program that cannot run', async () => {
    await expect(detachHere([join(dir, 'no-such-program')])).rejects.toThrow(/cannot run \(ENOENT\)/);
  });
});
