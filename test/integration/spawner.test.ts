// The embedded runtime's spawner (src/runtime/spawner/): a real forked Node
// process that starts real processes, writes their CRI logs and reports
// their ends over its IPC channel.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childrenOf, commOf, readProcStat } from '../../src/runtime/proc.js';
import { SpawnError, Spawner } from '../../src/runtime/spawner/client.js';
import { SPARES } from '../../src/runtime/spawner/spare-shells.js';
import { sparesOf } from '../helpers/proc.js';
import { eventually } from '../helpers/runtimes.js';

const ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };

function logLines(path: string): string[] {
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => line.split(' ').slice(1).join(' '));
}

describe('the spawner', () => {
  let spawner: Spawner | undefined;
  const warnings: string[] = [];

  afterEach(() => {
    spawner?.close();
    spawner = undefined;
    warnings.length = 0;
  });

  async function ready(): Promise<Spawner> {
    spawner = new Spawner((m) => warnings.push(m));
    await eventually(() => spawner!.ready, 'the spawner to be ready');
    return spawner;
  }

  it('starts a process in a session of its own, writes its output as CRI log lines and reports its exit code', async () => {
    const s = await ready();
    const log = join(mkdtempSync(join(tmpdir(), 'knode-spawner-')), 'c/0.log');
    const p = await s.start(
      { file: 'sh', args: ['-c', 'echo out; echo err >&2; printf partial; exit 3'], cwd: '/', env: ENV, logPath: log },
      () => {},
    );
    const exit = await p.closed;
    expect(exit).toMatchObject({ exitCode: 3, signal: null });
    expect(logLines(log).sort()).toEqual(['stderr F err', 'stdout F out', 'stdout P partial'].sort());
    expect(readProcStat(p.pid)).toBeUndefined();
  });

  it('gives a wrapper its go-ahead on fd 3 (at once, or when its gate opens) and reports the pid it writes there once its set-up is done, and nothing when fd 3 closes first', async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    // As util-linux's set-up does: the go-ahead read from fd 3, the pid written there, fd 3 closed, then the program
    // (which keeps running: the line came first). Without a gate the go-ahead comes at once.
    const setUp = 'read -r _ <&3; echo $$ >&3; exec 3>&-; exec sleep 30';
    const told = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'told.log'), reportSetUp: true },
      () => {},
    );
    expect(await told.setUp).toBe(told.pid);
    expect(readProcStat(told.pid)?.state).not.toBe('Z');
    process.kill(-told.pid, 'SIGKILL');
    await told.closed;
    // Gated: it waits in its read (still the shell, nothing reported) until the gate opens.
    const waiting = `echo waiting; ${setUp}`;
    const waits = async (log: string) =>
      eventually(() => existsSync(log) && logLines(log).includes('stdout F waiting'), 'the set-up to wait');
    let open!: (go: boolean) => void;
    const gated = await s.start(
      { file: 'sh', args: ['-c', waiting], cwd: '/', env: ENV, logPath: join(dir, 'gated.log'), reportSetUp: true },
      () => {},
      { gate: new Promise<boolean>((r) => (open = r)) },
    );
    let reported = false;
    void gated.setUp!.then(() => (reported = true));
    await waits(join(dir, 'gated.log'));
    expect(reported).toBe(false);
    expect(commOf(gated.pid)).toBe('sh');
    open(true);
    expect(await gated.setUp).toBe(gated.pid);
    process.kill(-gated.pid, 'SIGKILL');
    await gated.closed;
    // A gate that stays shut: the process waits until its caller ends it.
    const shut = await s.start(
      { file: 'sh', args: ['-c', waiting], cwd: '/', env: ENV, logPath: join(dir, 'shut.log'), reportSetUp: true },
      () => {},
      { gate: Promise.resolve(false) },
    );
    await waits(join(dir, 'shut.log'));
    expect(commOf(shut.pid)).toBe('sh');
    process.kill(-shut.pid, 'SIGKILL');
    expect(await shut.setUp).toBeUndefined();
    await shut.closed;
    // A set-up that failed: fd 3 closed with nothing on it.
    const failed = await s.start(
      {
        file: 'sh',
        args: ['-c', 'exec 3>&-; sleep 0.2; exit 32'],
        cwd: '/',
        env: ENV,
        logPath: join(dir, 'failed.log'),
        reportSetUp: true,
      },
      () => {},
    );
    expect(await failed.setUp).toBeUndefined();
    expect((await failed.closed).exitCode).toBe(32);
    // Not asked: no pipe at fd 3, and nothing to wait for.
    const plain = await s.start(
      { file: 'sh', args: ['-c', '{ echo x >&3; } 2>/dev/null && exit 1; exit 0'], cwd: '/', env: ENV, logPath: join(dir, 'plain.log') },
      () => {},
    );
    expect(plain.setUp).toBeUndefined();
    expect((await plain.closed).exitCode).toBe(0);
  });

  it("holds a go-ahead that names a run (a root file system's mount) in the spawner until that run has ended well, and never gives one after it failed", async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    const setUp = 'echo waiting; read -r _ <&3; echo $$ >&3; exec 3>&-; exec sleep 30';
    const waits = async (log: string) =>
      eventually(() => existsSync(log) && logLines(log).includes('stdout F waiting'), 'the set-up to wait');
    // Runs that end when a line comes down their fifo: this test says when.
    const fifo = (name: string) => {
      const path = join(dir, name);
      execFileSync('mkfifo', [path]);
      return path;
    };
    const mounting = fifo('mounting');
    const ran = s.run(['sh', '-c', 'read -r _ < "$0"', mounting], 'root-a');
    const held = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'held.log'), reportSetUp: true },
      () => {},
      { gate: Promise.resolve(true), after: 'root-a' },
    );
    let reported = false;
    void held.setUp!.then(() => (reported = true));
    await waits(join(dir, 'held.log'));
    expect(reported).toBe(false);
    expect(commOf(held.pid)).toBe('sh');
    writeFileSync(mounting, 'done\n');
    expect(await ran).toEqual({ ok: true, reason: '' });
    expect(await held.setUp).toBe(held.pid);
    process.kill(-held.pid, 'SIGKILL');
    await held.closed;
    // A run that ended well before the start: the go-ahead comes at once.
    expect(await s.run(['true'], 'root-b')).toEqual({ ok: true, reason: '' });
    const after = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'after.log'), reportSetUp: true },
      () => {},
      { gate: Promise.resolve(true), after: 'root-b' },
    );
    expect(await after.setUp).toBe(after.pid);
    process.kill(-after.pid, 'SIGKILL');
    await after.closed;
    // A run that failed: no go-ahead, before or after its end; the caller ends the start.
    const failing = fifo('failing');
    const failed = s.run(['sh', '-c', 'read -r _ < "$0"; echo refused >&2; exit 32', failing], 'root-c');
    const refused = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'refused.log'), reportSetUp: true },
      () => {},
      { gate: Promise.resolve(true), after: 'root-c' },
    );
    await waits(join(dir, 'refused.log'));
    writeFileSync(failing, 'done\n');
    expect(await failed).toEqual({ ok: false, reason: 'refused' });
    // Another start after the failure gets no go-ahead either.
    const late = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'late.log'), reportSetUp: true },
      () => {},
      { gate: Promise.resolve(true), after: 'root-c' },
    );
    await waits(join(dir, 'late.log'));
    expect([commOf(refused.pid), commOf(late.pid)]).toEqual(['sh', 'sh']);
    for (const p of [refused, late]) {
      process.kill(-p.pid, 'SIGKILL');
      expect(await p.setUp).toBeUndefined();
      await p.closed;
    }
  });

  it('holds a set-up process after its report until it is released (its start line), gives a process not held both lines at once, and ends a held one that its spawner leaves', async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    // As util-linux's set-up does: the go-ahead, its pid reported, then the start line before the program.
    const setUp = 'set -e; read -r _ <&3; echo $$ >&3; read -r _ <&3; exec 3>&-; echo started; exec sleep 30';
    const log = join(dir, 'held.log');
    const held = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: log, reportSetUp: true, held: true },
      () => {},
    );
    expect(await held.setUp).toBe(held.pid);
    // Reported, and asleep in its read: still the shell, no program.
    await eventually(() => readProcStat(held.pid)?.state === 'S', 'the held process to wait');
    expect(commOf(held.pid)).toBe('sh');
    expect(existsSync(log) && logLines(log).includes('stdout F started')).toBe(false);
    held.release();
    await eventually(() => commOf(held.pid) === 'sleep', 'the program after its release');
    // Its output reaches the log through the spawner's pipe, which may be after the exec.
    await eventually(() => existsSync(log) && readFileSync(log, 'utf8') !== '', 'the output before the program in the log');
    expect(logLines(log)).toEqual(['stdout F started']);
    process.kill(-held.pid, 'SIGKILL');
    await held.closed;
    // Released before its set-up is done: it goes on to its program once set up.
    const early = await s.start(
      {
        file: 'sh',
        args: ['-c', `sleep 0.2; ${setUp}`],
        cwd: '/',
        env: ENV,
        logPath: join(dir, 'early.log'),
        reportSetUp: true,
        held: true,
      },
      () => {},
    );
    early.release();
    expect(await early.setUp).toBe(early.pid);
    await eventually(() => commOf(early.pid) === 'sleep', 'the program of one released early');
    process.kill(-early.pid, 'SIGKILL');
    await early.closed;
    // Released before its go-ahead (a gated start whose keyed run is still under way, as a start that comes while
    // the root's mount runs): the start line follows the go-ahead, and the shell reads each at its turn.
    const reads = 'set -e; read -r a <&3; echo "first $a"; echo $$ >&3; read -r b <&3; exec 3>&-; echo "then $b"; exec sleep 30';
    const mounting = join(dir, 'mounting');
    execFileSync('mkfifo', [mounting]);
    const mount = s.run(['sh', '-c', 'read -r _ < "$0"', mounting], 'root-early');
    const gated = await s.start(
      { file: 'sh', args: ['-c', reads], cwd: '/', env: ENV, logPath: join(dir, 'gated.log'), reportSetUp: true, held: true },
      () => {},
      { gate: Promise.resolve(true), after: 'root-early' },
    );
    gated.release();
    await eventually(() => readProcStat(gated.pid)?.state === 'S', 'the gated set-up to wait for its go-ahead');
    expect(commOf(gated.pid)).toBe('sh');
    writeFileSync(mounting, 'done\n');
    expect(await mount).toEqual({ ok: true, reason: '' });
    expect(await gated.setUp).toBe(gated.pid);
    await eventually(() => commOf(gated.pid) === 'sleep', 'the program of one released before its go-ahead');
    await eventually(() => logLines(join(dir, 'gated.log')).length === 2, 'both lines in the log');
    expect(logLines(join(dir, 'gated.log'))).toEqual(['stdout F first go', 'stdout F then start']);
    process.kill(-gated.pid, 'SIGKILL');
    await gated.closed;
    // Not held: both lines come with the go-ahead.
    const plain = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'plain.log'), reportSetUp: true },
      () => {},
    );
    await eventually(() => commOf(plain.pid) === 'sleep', 'the program of one not held');
    process.kill(-plain.pid, 'SIGKILL');
    await plain.closed;
    // Held when its spawner ends: its read finds the end of fd 3, and it ends without its program.
    const left = await s.start(
      { file: 'sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'left.log'), reportSetUp: true, held: true },
      () => {},
    );
    expect(await left.setUp).toBe(left.pid);
    s.close();
    await eventually(() => readProcStat(left.pid) === undefined, 'the held process to end with its spawner');
    expect(readFileSync(join(dir, 'left.log'), 'utf8')).toBe('');
  });

  it('runs a program to its end when asked (a mount, an unmount): ok, or what it wrote to stderr; itself when not running', async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    expect(await s.run(['sh', '-c', `echo x > ${join(dir, 'ran')}`])).toEqual({ ok: true, reason: '' });
    expect(readFileSync(join(dir, 'ran'), 'utf8')).toBe('x\n');
    expect(await s.run(['sh', '-c', 'echo "umount: not mounted." >&2; exit 32'])).toEqual({ ok: false, reason: 'umount: not mounted.' });
    expect(await s.run(['sh', '-c', 'exit 3'])).toEqual({ ok: false, reason: 'sh exited 3' });
    expect(await s.run(['no-such-program-here'])).toEqual({ ok: false, reason: 'no-such-program-here cannot run (ENOENT)' });
    s.close();
    await eventually(() => !s.ready, 'the spawner to end');
    expect(await s.run(['sh', '-c', `echo y > ${join(dir, 'here')}`])).toEqual({ ok: true, reason: '' });
    expect(readFileSync(join(dir, 'here'), 'utf8')).toBe('y\n');
  });

  it("starts a program nobody follows (a pod's holder) in a session of its own, and says why one cannot start", async () => {
    const s = await ready();
    const pid = await s.detach(['sleep', '30']);
    expect(readProcStat(pid)).toMatchObject({ pgid: pid, state: expect.stringMatching(/^[RS]$/) });
    // Its parent is the spawner, not this process.
    const helper = Number(/pid (\d+)/.exec(s.describe())![1]);
    expect(readProcStat(pid)!.ppid).toBe(helper);
    process.kill(pid, 'SIGKILL');
    await expect(s.detach(['no-such-program-here'])).rejects.toThrow('no-such-program-here cannot run (ENOENT)');
    expect(s.ready).toBe(true);
  });

  it('refuses a program that does not exist and a log it cannot open, saying which', async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    const missing = await s
      .start({ file: 'no-such-program-here', args: [], cwd: '/', env: ENV, logPath: join(dir, 'a.log') }, () => {})
      .catch((err: Error) => err);
    expect(missing).toBeInstanceOf(SpawnError);
    expect(missing).toMatchObject({ stage: 'exec', code: 'ENOENT' });
    writeFileSync(join(dir, 'a-file'), '');
    const unwritable = await s
      .start({ file: 'true', args: [], cwd: '/', env: ENV, logPath: join(dir, 'a-file', '0.log') }, () => {})
      .catch((err: Error) => err);
    expect(unwritable).toMatchObject({ stage: 'log' });
    expect((unwritable as Error).message).toMatch(/EEXIST|ENOTDIR/);
  });

  it('refuses a NUL in an argument or a variable, and goes on starting others', async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    const refused = await s
      .start({ file: 'true', args: [], cwd: '/', env: { ...ENV, BAD: 'a\0b' }, logPath: join(dir, 'bad.log') }, () => {})
      .catch((err: Error) => err);
    expect(refused).toMatchObject({ stage: 'exec', code: 'ERR_INVALID_ARG_VALUE' });
    expect(s.ready).toBe(true);
    const next = await s.start({ file: 'sh', args: ['-c', 'exit 4'], cwd: '/', env: ENV, logPath: join(dir, 'ok.log') }, () => {});
    expect(await next.closed).toMatchObject({ exitCode: 4 });
  });

  it('reopens a log after it was renamed: later output goes to a new file', async () => {
    const s = await ready();
    const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
    const log = join(dir, '0.log');
    const trigger = join(dir, 'go');
    const p = await s.start(
      {
        file: 'sh',
        args: ['-c', `echo before; until [ -e ${trigger} ]; do sleep 0.02; done; echo after`],
        cwd: '/',
        env: ENV,
        logPath: log,
      },
      () => {},
    );
    await eventually(() => existsSync(log) && readFileSync(log, 'utf8').includes('before'), 'the first line');
    renameSync(log, `${log}.1`);
    await p.reopenLog();
    writeFileSync(trigger, '');
    await p.closed;
    expect(logLines(`${log}.1`)).toEqual(['stdout F before']);
    expect(logLines(log)).toEqual(['stdout F after']);
  });

  it('kills the process group of everything it started when its runtime dies without a word (SIGKILL)', async () => {
    // A wrapper's child (the program under unshare --fork) is in its group.
    const owner = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, '../helpers/spawner-owner.ts'), 'sh', '-c', 'sleep 301 & exec sleep 300'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    owner.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const pid = Number(await eventually(() => /^(\d+)\n/.exec(out)?.[1], 'the owner to start its process'));
    const child = await eventually(() => childrenOf(pid)[0], 'the process to start its child');
    const gone = (p: number) => readProcStat(p) === undefined || readProcStat(p)!.state === 'Z';
    expect(gone(pid) || gone(child)).toBe(false);
    owner.kill('SIGKILL');
    await eventually(() => gone(pid) && gone(child), 'the process and its child to be killed');
  });

  it('kills and reports exited what it ran when it dies, and is no longer ready', async () => {
    const s = await ready();
    const log = join(mkdtempSync(join(tmpdir(), 'knode-spawner-')), '0.log');
    const p = await s.start({ file: 'sleep', args: ['300'], cwd: '/', env: ENV, logPath: log }, () => {});
    const helper = Number(/pid (\d+)/.exec(s.describe())![1]);
    process.kill(helper, 'SIGKILL');
    expect(await p.closed).toMatchObject({ exitCode: 255 });
    await eventually(() => readProcStat(p.pid) === undefined || readProcStat(p.pid)!.state === 'Z', 'the process to be killed');
    expect(s.ready).toBe(false);
    expect(warnings.join('\n')).toMatch(/the spawner exited \(SIGKILL\)/);
  });

  describe('with spare shells (a static busybox)', () => {
    const BUSYBOX = '/bin/busybox';

    /** The spawner's waiting spares. */
    const spares = (s: Spawner) => sparesOf(Number(/pid (\d+)/.exec(s.describe())![1]));

    async function withSpares(): Promise<{ s: Spawner; orders: string; waiting: number[] }> {
      const s = await ready();
      const orders = join(mkdtempSync(join(tmpdir(), 'knode-spawner-')), 'orders');
      s.useSpares([BUSYBOX, 'sh'], orders);
      const waiting = await eventually(() => (spares(s).length === SPARES ? spares(s) : undefined), `${SPARES} spares to wait`);
      return { s, orders, waiting };
    }

    it('becomes a start: the same pid, exactly its environment, its output in the log, its go-ahead and report on fd 3; no order file is left', async () => {
      const { s, orders, waiting } = await withSpares();
      // Each order file goes right after it is opened; the spawner may be making a spare as this looks.
      const noOrderLeft = () =>
        eventually(
          () => readdirSync(orders).length === 0,
          () => `no order file in ${orders}: ${readdirSync(orders).join(', ')}`,
        );
      await noOrderLeft();
      const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
      const env = { PATH: '/usr/bin:/bin', QUOTED: 'it\'s "x" $HOME `y`', LINES: 'a\nb' };
      const p = await s.start({ file: '/usr/bin/env', args: [], cwd: '/', env, logPath: join(dir, 'env.log') }, () => {});
      expect(waiting).toContain(p.pid);
      expect(readProcStat(p.pid)?.pgid ?? p.pid).toBe(p.pid);
      expect((await p.closed).exitCode).toBe(0);
      expect(logLines(join(dir, 'env.log')).sort()).toEqual(
        ['stdout F LINES=a', 'stdout F PATH=/usr/bin:/bin', 'stdout F QUOTED=it\'s "x" $HOME `y`', 'stdout F b'].sort(),
      );
      // A set-up's protocol on fd 3 goes through a spare as through a fork: the go-ahead, the pid, the start line.
      const setUp = 'read -r _ <&3; echo $$ >&3; read -r _ <&3; exec 3>&-; echo started; exit 7';
      let open!: (go: boolean) => void;
      const held = await s.start(
        { file: '/bin/sh', args: ['-c', setUp], cwd: '/', env: ENV, logPath: join(dir, 'held.log'), reportSetUp: true, held: true },
        () => {},
        { gate: new Promise<boolean>((r) => (open = r)) },
      );
      expect(waiting).toContain(held.pid);
      open(true);
      expect(await held.setUp).toBe(held.pid);
      held.release();
      expect((await held.closed).exitCode).toBe(7);
      expect(logLines(join(dir, 'held.log'))).toEqual(['stdout F started']);
      await noOrderLeft();
    });

    it('runs a program to its end and starts a holder, and leaves to a fork what a shell cannot pass on or find', async () => {
      const { s, waiting } = await withSpares();
      const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
      expect(await s.run(['/bin/sh', '-c', `echo x; echo $$ > ${join(dir, 'ran')}`])).toEqual({ ok: true, reason: '' });
      expect(waiting).toContain(Number(readFileSync(join(dir, 'ran'), 'utf8')));
      expect(await s.run(['/bin/sh', '-c', 'echo "umount: not mounted." >&2; exit 32'])).toEqual({
        ok: false,
        reason: 'umount: not mounted.',
      });
      const holder = await s.detach(['/bin/sh', '-c', 'echo ready >&3; exec sleep 30']);
      expect(waiting).toContain(holder);
      expect(readProcStat(holder)).toMatchObject({ pgid: holder });
      process.kill(holder, 'SIGKILL');
      // What a shell could not run as asked is forked.
      const left = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
      const byName = await s.start({ file: 'sh', args: ['-c', 'exit 5'], cwd: '/', env: ENV, logPath: join(left, 'a.log') }, () => {});
      const dotted = await s.start(
        { file: '/usr/bin/env', args: [], cwd: '/', env: { 'my.var': '1' }, logPath: join(left, 'b.log') },
        () => {},
      );
      for (const p of [byName, dotted]) expect(waiting).not.toContain(p.pid);
      expect((await byName.closed).exitCode).toBe(5);
      await dotted.closed;
      expect(logLines(join(left, 'b.log'))).toEqual(['stdout F my.var=1']);
      expect(await s.run(['no-such-program-here'])).toEqual({ ok: false, reason: 'no-such-program-here cannot run (ENOENT)' });
    });

    it('are not made where their orders cannot be written, and the starts fork as before', async () => {
      const s = await ready();
      const dir = mkdtempSync(join(tmpdir(), 'knode-spawner-'));
      writeFileSync(join(dir, 'a-file'), '');
      s.useSpares([BUSYBOX, 'sh'], join(dir, 'a-file', 'orders'));
      const p = await s.start({ file: '/bin/sh', args: ['-c', 'exit 6'], cwd: '/', env: ENV, logPath: join(dir, 'a.log') }, () => {});
      expect((await p.closed).exitCode).toBe(6);
      expect(spares(s)).toEqual([]);
      expect(s.ready).toBe(true);
    });

    it('end with their spawner', async () => {
      const { s, waiting } = await withSpares();
      s.close();
      await eventually(
        () => waiting.every((pid) => readProcStat(pid) === undefined || readProcStat(pid)!.state === 'Z'),
        'the spares to end',
      );
    });
  });
});
