import { describe, expect, it } from 'vitest';
import { exitCodeOf, parseProcStat, readProcStat, stopSignalOf } from '../../src/runtime/proc.js';

describe('/proc parsing', () => {
  it('reads fields after a command name holding spaces and parentheses', () => {
    const line = '4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 123456 1000000 250 18446744073709551615';
    expect(parseProcStat(line)).toEqual({ pid: 4242, state: 'S', pgid: 4242, utimeTicks: 7, stimeTicks: 3, startTime: '123456', rssPages: 250 });
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
