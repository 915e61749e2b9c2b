import { spawn, execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { childrenOf, exitCodeOf, signalGroup, waitForProcess } from '../proc.js';

export interface TerminalSize {
  width: number;
  height: number;
}

/** What a streamed exec or attach is connected to; absent streams were not asked for. */
export interface StreamIo {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** Registers for the client's terminal sizes (tty only). */
  onResize?: (listener: (size: TerminalSize) => void) => void;
}

export interface AttachedCommand {
  /** The command with whatever enters the container (nsenter, setpriv) in front. */
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /**
   * What the terminal's `script` runs behind (the container's PID namespace). A shell in a PID
   * namespace whose terminal belongs to a session led outside it sees no foreground group: dash
   * then fails to give the terminal back as it exits and ends with 2 whatever `exit` said.
   */
  terminalWrapper?: string[];
}

/**
 * Rebuilds argv from KNODE_EXEC_ARG_<n> and runs it: what `script` runs on
 * its terminal. The arguments travel in the environment so that no part of
 * them is ever parsed by the shell; the variables are removed, and SHELL is
 * put back as the container had it, before the command runs.
 */
const TERMINAL_RUNNER =
  'n=0; set --; while [ "$n" -lt "$KNODE_EXEC_ARGC" ]; do eval "set -- \\"\\$@\\" \\"\\$KNODE_EXEC_ARG_$n\\""; unset "KNODE_EXEC_ARG_$n"; n=$((n + 1)); done; ' +
  'unset KNODE_EXEC_ARGC n; if [ -n "${KNODE_EXEC_SHELL+x}" ]; then SHELL=$KNODE_EXEC_SHELL; else unset SHELL; fi; unset KNODE_EXEC_SHELL; exec "$@"';

/**
 * Runs a command connected to a client's streams and resolves with its exit
 * code once it has ended and its output has been passed on. With a TTY, it
 * runs on a pseudo-terminal made by util-linux's `script` (Node has no pty of
 * its own), whose size follows the client's resize messages through stty.
 * `abort` kills its process group (the client went away).
 */
export function runAttached(command: AttachedCommand, io: StreamIo, abort: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    const [file, args, env] = io.tty ? terminalCommand(command) : [command.argv[0], command.argv.slice(1), command.env];
    const child = spawn(file, args, { cwd: command.cwd, env, detached: true, stdio: [io.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    if (child.pid === undefined) {
      child.once('error', reject);
      return;
    }
    const pid = child.pid;
    child.on('error', () => {});
    if (io.stdin && child.stdin) {
      io.stdin.pipe(child.stdin);
      child.stdin.on('error', () => {}); // the command may exit before it reads what the client sent
    }
    child.stdout!.on('data', (chunk: Buffer) => io.stdout?.write(chunk));
    child.stderr!.on('data', (chunk: Buffer) => (io.tty ? io.stdout : io.stderr)?.write(chunk));
    if (io.tty) followTerminalSize(pid, io);
    const kill = () => signalGroup(pid, 'SIGKILL');
    abort.addEventListener('abort', kill, { once: true });
    child.on('exit', () => signalGroup(pid, 'SIGKILL')); // background children must not hold the output open
    child.on('close', (code, signal) => {
      abort.removeEventListener('abort', kill);
      io.stdin?.unpipe();
      resolve(exitCodeOf(code, signal));
    });
  });
}

function terminalCommand(command: AttachedCommand): [string, string[], Record<string, string>] {
  const env: Record<string, string> = { ...command.env, KNODE_EXEC_ARGC: String(command.argv.length), SHELL: '/bin/sh' };
  if (command.env.SHELL !== undefined) env.KNODE_EXEC_SHELL = command.env.SHELL;
  command.argv.forEach((arg, i) => (env[`KNODE_EXEC_ARG_${i}`] = arg));
  // -q: no banner; -e: the command's exit code; -f: output as it comes; /dev/null: no typescript file.
  const [file, ...args] = [...(command.terminalWrapper ?? []), 'script', '-q', '-e', '-f', '-c', TERMINAL_RUNNER, '/dev/null'];
  return [file, args, env];
}

/** Applies the client's terminal sizes to the pseudo-terminal once the command runs on it. */
function followTerminalSize(pid: number, io: StreamIo): void {
  let terminal: string | undefined;
  let wanted: TerminalSize | undefined;
  const apply = () => {
    if (!terminal || !wanted) return;
    execFile('stty', ['-F', terminal, 'rows', String(wanted.height), 'cols', String(wanted.width)], () => {});
  };
  io.onResize?.((size) => {
    wanted = size;
    apply();
  });
  // script's child takes the terminal as its stdin just after it forks: wait until /proc shows it there.
  void waitForProcess(pid, () => terminalBelow(pid), 2_000).then((path) => {
    if (path === undefined) return;
    terminal = path;
    apply();
  });
}

/** The terminal on the stdin of the first process down from `pid` (script, behind its wrapper) that has one. */
function terminalBelow(pid: number): string | undefined {
  let current: number | undefined = pid;
  for (let depth = 0; depth < 4 && current !== undefined; depth++) {
    const path = terminalOf(current);
    if (path) return path;
    current = childrenOf(current)[0];
  }
  return undefined;
}

function terminalOf(pid: number): string | undefined {
  try {
    const path = readlinkSync(`/proc/${pid}/fd/0`);
    return path.startsWith('/dev/pts/') ? path : undefined;
  } catch {
    return undefined;
  }
}
