// The interleaved runs bench/podman.ts and bench/podman-workloads.ts share
// (bench/podman-runner.ts), on sides that record what is asked of them: one
// uncounted run of each first, then side after side, each run timed, checked
// and taken down before the next; a side that refuses the manifest is not
// tried again, and a failed check stops the bench. The CPU each run took is
// read from /proc, for a real child process that spins. The wait for a quiet
// machine before each run is tested on its own, with a fake machine and clock.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { interleave, waitForQuiet, withCpu, type Side } from '../../../bench/podman-runner.js';

/** A side named NAME that only logs its take-downs in LOG; the trial below times it. */
const side = (name: string, log: string[]): Side => ({
  name,
  apply: () => 0,
  running: () => 0,
  succeeded: () => 0,
  down: (file) => void log.push(`${name} down ${file}`),
  close: async () => {},
});

/** No wait for a quiet machine: these runs start no command. */
const noWait = () => 0;

describe('the podman benches’ interleaved runs', () => {
  it('times each side in turn, an uncounted run first, checking and taking down each run before the next', () => {
    const log: string[] = [];
    const sides = [side('knode', log), side('podman', log)];
    const times = new Map([
      ['knode', [900, 10, 11]],
      ['podman', [950, 20, 21]],
    ]);
    const samples = interleave(
      sides,
      2,
      {
        file: 'm.yaml',
        time: (s) => {
          log.push(`${s.name} time`);
          return times.get(s.name)!.shift();
        },
        check: (s) => void log.push(`${s.name} check`),
      },
      noWait,
    );
    expect(samples.map(({ samples, refused }) => ({ samples, refused }))).toEqual([
      { samples: [10, 11], refused: false },
      { samples: [20, 21], refused: false },
    ]);
    expect(samples.map((s) => s.cpu.length)).toEqual([2, 2]);
    const run = (name: string) => [`${name} time`, `${name} check`, `${name} down m.yaml`];
    expect(log).toEqual([...run('knode'), ...run('podman'), ...run('knode'), ...run('podman'), ...run('knode'), ...run('podman')]);
  });

  it('stops trying a side that refuses the manifest, and stops the bench on a failed check', () => {
    const log: string[] = [];
    const sides = [side('knode', log), side('podman', log)];
    const samples = interleave(
      sides,
      2,
      {
        file: 'm.yaml',
        time: (s) => (log.push(`${s.name} time`), s.name === 'podman' ? undefined : 5),
        check: () => {},
      },
      noWait,
    );
    expect(samples.map(({ samples, refused }) => ({ samples, refused }))).toEqual([
      { samples: [5, 5], refused: false },
      { samples: [], refused: true },
    ]);
    expect(log.filter((l) => l === 'podman time')).toHaveLength(1);
    expect(log.filter((l) => l.startsWith('podman down'))).toEqual([]);

    const failing = () =>
      interleave(
        [side('knode', [])],
        1,
        {
          file: 'm.yaml',
          time: () => 1,
          check: (s) => {
            throw new Error(`${s.name}: 0 of 1 containers running after the command`);
          },
        },
        noWait,
      );
    expect(failing).toThrow('knode: 0 of 1 containers running after the command');
  });

  it('waits for a quiet window before a run, and not past its bound', () => {
    // A fake machine: the CPU each 200 ms window saw, in order; the clock moves by the windows.
    const machine = (busy: number[]) => {
      let t = 0;
      const windows: number[] = [];
      return {
        busyIn: (ms: number) => ((t += ms), windows.push(ms), busy.shift() ?? 0),
        now: () => t,
        windows,
      };
    };
    const settling = machine([350, 120, 19, 400]);
    expect(waitForQuiet(settling.busyIn, settling.now)).toBe(600);
    expect(settling.windows).toEqual([200, 200, 200]);

    const quiet = machine([0]);
    expect(waitForQuiet(quiet.busyIn, quiet.now)).toBe(200);

    const busy = machine(Array.from({ length: 100 }, () => 300));
    expect(waitForQuiet(busy.busyIn, busy.now)).toBe(10_200);
  });

  it('counts the CPU of a command it waited for, and the machine’s, which holds it', () => {
    const spin = `const end = performance.now() + 300; while (performance.now() < end);`;
    const { value, cpu } = withCpu(() => spawnSync(process.execPath, ['-e', spin]).status);
    expect(value).toBe(0);
    // 300 ms of spinning and Node's own start, counted in ticks of 10 ms.
    expect(cpu.childrenMs).toBeGreaterThanOrEqual(280);
    expect(cpu.childrenMs).toBeLessThan(2_000);
    expect(cpu.machineMs).toBeGreaterThanOrEqual(cpu.childrenMs - 20);
    const idle = withCpu(() => undefined);
    expect(idle.cpu.childrenMs).toBe(0);
  });
});
