import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';

/** Sends a signal to a whole process group; a group that is already gone is not an error. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | number): void {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
  }
}

/** A process's name (/proc/PID/comm: its program's, cut to 15 characters); undefined when it is gone. */
export function commOf(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The fields of /proc/PID/stat that the runtime uses, or undefined when the process is gone. */
export interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgid: number;
  utimeTicks: number;
  stimeTicks: number;
  startTime: string;
  rssPages: number;
}

/** The children of a process (from /proc/PID/task/PID/children, else by a scan of /proc). */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'latin1').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    if (!existsSync(`/proc/${pid}`)) return [];
    const children: number[] = [];
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      if (readProcStat(Number(entry))?.ppid === pid) children.push(Number(entry));
    }
    return children;
  }
}

export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  return parseProcStat(text);
}

/** Parses /proc/PID/stat; the command name in parentheses may itself hold spaces and parentheses. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const pid = Number(text.slice(0, text.indexOf(' ')));
  // Fields after the command, starting at field 3 (state).
  const f = text.slice(close + 2).split(' ');
  return {
    pid,
    state: f[0],
    ppid: Number(f[1]),
    pgid: Number(f[2]),
    utimeTicks: Number(f[11]),
    stimeTicks: Number(f[12]),
    startTime: f[19],
    rssPages: Number(f[21]),
  };
}

/** True when `pid` runs and is the same process that started at `startTime` (not a reused pid). */
export function isSameProcess(pid: number, startTime: string | undefined): boolean {
  const stat = readProcStat(pid);
  return stat !== undefined && stat.state !== 'Z' && stat.startTime === startTime;
}

/** The shell convention for a process killed by a signal: 128 + its number. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  if (signal) return 128 + (constants.signals[signal] ?? 0);
  return 255;
}

/** A CRI Signal enum name (SIGNAL_SIGINT) as a Node signal; SIGNAL_RUNTIME_DEFAULT and unknown names mean SIGTERM. */
export function stopSignalOf(name: string): NodeJS.Signals {
  const signal = name.replace(/^SIGNAL_/, '');
  return signal.startsWith('SIG') && signal in constants.signals ? (signal as NodeJS.Signals) : 'SIGTERM';
}

/**
 * Waits (briefly) until `find` names a process, while `pid` lives: undefined
 * when it ended first (or became a zombie) or the time ran out. For the
 * program a wrapper (unshare, nsenter, bwrap) starts.
 */
export async function waitForProcess<T = number>(pid: number, find: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const found = find();
    if (found !== undefined) return found;
    const state = readProcStat(pid)?.state;
    if (state === undefined || state === 'Z' || Date.now() > deadline) return undefined;
    // Most programs appear within a few milliseconds, and a start waits for its program: look often at
    // first (1, 1, 2, 2, 3 ... ms), then every 5 ms. A look reads a few files under /proc.
    await new Promise((r) => setTimeout(r, Math.min(5, 1 + (attempt >> 1))));
  }
}

/** How a program run to its end ended: ok, or why not (what it wrote to stderr). */
export type Ran = { ok: boolean; reason: string };

/**
 * Runs a program to its end without holding up the runtime's other calls:
 * done at its exit when it exits 0 (what still holds its stderr does not hold
 * this up); a failure waits for all it wrote there. Its environment is
 * PROGRAM_ENV.
 */
export function runToEnd(argv: readonly string[]): Promise<Ran> {
  let child: ChildProcess;
  try {
    child = spawn(argv[0], argv.slice(1), { env: PROGRAM_ENV, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    return Promise.resolve(cannotRun(argv, err as NodeJS.ErrnoException)); // refused before any fork (a NUL in an argument)
  }
  return ranToEnd(child, argv);
}

/** How `child`, running `argv` with its stderr on a pipe, ended (runToEnd). */
export function ranToEnd(child: ChildProcess, argv: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (err) => resolve(cannotRun(argv, err)));
    child.once('exit', (code) => {
      if (code === 0) resolve({ ok: true, reason: '' });
    });
    child.once('close', (code, signal) => {
      if (code !== 0 && child.pid !== undefined)
        resolve({ ok: false, reason: stderr.trim() || `${argv[0]} ${signal ? `was killed (${signal})` : `exited ${code}`}` });
    });
  });
}

function cannotRun(argv: readonly string[], err: NodeJS.ErrnoException): Ran {
  return { ok: false, reason: `${argv[0]} cannot run (${err.code ?? err.message})` };
}

/** How long a detached program is given to say it is ready before its pid is given anyway. */
const READY_TIMEOUT_MS = 10_000;

/**
 * The environment of a program that is not a container's (a mount, a pod's
 * holder): a PATH and nothing else. Under the runtime's LANG=C.UTF-8, a
 * holder's unshare and sleep each read a dozen locale files as they started
 * (strace).
 */
export const PROGRAM_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' };

/**
 * Starts a program in a session of its own that nobody follows (a pod's
 * holder): its pid, once it says it is ready by writing a line to its fd 3
 * or closing it (exiting does), or after READY_TIMEOUT_MS.
 */
export function detachHere(argv: readonly string[]): Promise<number> {
  return readyPid(spawn(argv[0], argv.slice(1), { detached: true, env: PROGRAM_ENV, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] }), argv);
}

/** The pid of `child`, running `argv` detached with its fd 3 on a pipe, once it is ready (detachHere). */
export function readyPid(child: ChildProcess, argv: readonly string[]): Promise<number> {
  child.unref();
  const pid = child.pid;
  if (pid === undefined) {
    return new Promise((_resolve, reject) =>
      child.once('error', (err: NodeJS.ErrnoException) => reject(new Error(`${argv[0]} cannot run (${err.code ?? err.message})`))),
    );
  }
  child.on('error', () => {});
  const ready = child.stdio[3] as Readable;
  return new Promise((resolve) => {
    const timer = setTimeout(() => said(), READY_TIMEOUT_MS);
    timer.unref();
    const said = () => {
      clearTimeout(timer);
      ready.destroy();
      resolve(pid);
    };
    ready.once('data', said);
    ready.once('end', said);
    ready.once('error', said);
  });
}

/** Where programs that are not containers run: here, or in the runtime's spawner (its `run` and `detach`). */
export interface ProgramRunner {
  /** Runs a program to its end; `key` names it for a start's go-ahead that waits for it (the spawner's). */
  run(argv: readonly string[], key?: string): Promise<Ran>;
  /** Starts a program nobody follows; its pid. */
  detach(argv: readonly string[]): Promise<number>;
  /** Forks spare shells of `shell` (a static busybox: the argv before `-c`) for what it starts, their orders written in `dir`. */
  useSpares?(shell: readonly string[], dir: string): void;
}
