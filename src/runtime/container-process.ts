import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { CriLogWriter } from './log-writer.js';
import { childrenOf, exitCodeOf, readProcStat, signalGroup } from './proc.js';

export interface ProcessSpec {
  argv: string[];
  /**
   * A command that runs argv in a PID namespace (unshare, nsenter). The
   * program is then its child, and the stop signal goes to the program alone.
   */
  wrapper?: string[];
  /**
   * Files opened for the wrapper, at fds 4, 5 ... (a namespace to join).
   * They are closed in knode once the process has them.
   */
  files?: string[];
  /** Finds the program under its wrapper (default: the wrapper's first child). */
  programOf?: (wrapperPid: number) => number | undefined;
  /**
   * Where argv[0] is checked before the start (a program that is missing is
   * a start error, not an exit code): the host (default), or a function that
   * says whether it exists, e.g. inside an image's root file system.
   */
  hasProgram?: (command: string) => boolean;
  env: Record<string, string>;
  cwd: string;
  /** Keep stdin open (a pipe nobody writes) instead of /dev/null. */
  stdin: boolean;
  logPath: string;
  /** Told when the log file starts refusing output (a full disk); the output is dropped until it takes it again. */
  onLogError?: (err: Error) => void;
  /**
   * Called with the pid before the container's program runs (it waits in a
   * shell for the go-ahead), so limits apply to every process it will start.
   */
  beforeExec?: (pid: number) => void;
}

/** Holds the container in a shell until the runtime writes a line to fd 3, then becomes the program. */
const HOLD_SCRIPT = 'read -r _ <&3 && exec 3<&- && exec "$@"';

export interface ProcessExit {
  exitCode: number;
  signal: NodeJS.Signals | null;
  finishedAt: Date;
}

/** How long to wait for a dead container's output pipes to drain before closing them. */
const DRAIN_TIMEOUT_MS = 2000;

/**
 * A container run as a host process in its own session and process group.
 * When the main process exits, the rest of its group is killed, as the end
 * of a PID namespace would; the exit is reported once its output is written.
 */
export class ContainerProcess {
  readonly exited: Promise<ProcessExit>;
  private resolveExit!: (exit: ProcessExit) => void;
  private constructor(
    child: ChildProcess,
    readonly pid: number,
    readonly startTime: string,
    private readonly log: CriLogWriter,
    /** Whether a wrapper runs the program in a PID namespace (pid is the wrapper's). */
    readonly wrapped: boolean,
    private readonly findProgram: (wrapperPid: number) => number | undefined,
  ) {
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    child.on('error', () => {}); // a failed kill(2) is reported by signalGroup, not as an event
    child.stdout?.on('data', (chunk: Buffer) => this.log.write('stdout', chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.log.write('stderr', chunk));
    let exit: ProcessExit | undefined;
    child.on('exit', (code, signal) => {
      exit = { exitCode: exitCodeOf(code, signal), signal, finishedAt: new Date() };
      signalGroup(pid, 'SIGKILL');
      setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, DRAIN_TIMEOUT_MS).unref();
    });
    child.on('close', () => {
      this.log.end();
      child.stdin?.destroy();
      this.resolveExit(exit ?? { exitCode: 255, signal: null, finishedAt: new Date() });
    });
  }

  /** Starts the process; rejects with a runc-like message when it cannot be executed. */
  static start(spec: ProcessSpec): Promise<ContainerProcess> {
    const cwdProblem = spec.hasProgram ? undefined : checkDirectory(spec.cwd);
    if (cwdProblem) return Promise.reject(new Error(`chdir to cwd ("${spec.cwd}") set in config failed: ${cwdProblem}`));
    let log: CriLogWriter;
    try {
      log = new CriLogWriter(spec.logPath, undefined, spec.onLogError);
    } catch (err) {
      return Promise.reject(new Error(`failed to open container log ${spec.logPath}: ${(err as Error).message}`));
    }
    const held = spec.beforeExec !== undefined;
    // Behind a shell or a wrapper, a missing program would be an exit code: it is a start error.
    const found = spec.hasProgram ? spec.hasProgram(spec.argv[0]) : findExecutable(spec.argv[0], spec.env.PATH ?? '', spec.cwd) !== undefined;
    if ((held || spec.wrapper) && !found) {
      log.end();
      return Promise.reject(new Error(execErrorMessage(spec.argv[0], Object.assign(new Error('not found'), { code: 'ENOENT' }))));
    }
    const argv = [...(spec.wrapper ?? []), ...spec.argv];
    const [file, args] = held ? ['/bin/sh', ['-c', HOLD_SCRIPT, 'knode-hold', ...argv]] : [argv[0], argv.slice(1)];
    let fds: number[];
    try {
      fds = (spec.files ?? []).map((f) => openSync(f, 'r'));
    } catch (err) {
      log.end();
      return Promise.reject(new Error(`cannot open ${(err as NodeJS.ErrnoException).path ?? 'a namespace'} for the container: ${(err as Error).message}`));
    }
    let child: ChildProcess;
    try {
      child = spawn(file, args, {
        // A sandbox's working directory is inside its root file system: the wrapper starts in /.
        cwd: spec.hasProgram ? '/' : spec.cwd,
        env: spec.env,
        detached: true,
        stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', held ? 'pipe' : 'ignore', ...fds],
      });
    } finally {
      for (const fd of fds) closeSync(fd);
    }
    if (child.pid === undefined) {
      log.end();
      return new Promise((_, reject) => {
        child.once('error', (err: NodeJS.ErrnoException) => reject(new Error(execErrorMessage(spec.argv[0], err))));
      });
    }
    if (held) {
      spec.beforeExec!(child.pid);
      const gate = child.stdio[3] as NodeJS.WritableStream;
      gate.end('go\n');
    }
    const startTime = readProcStat(child.pid)?.startTime ?? '';
    const programOf = spec.programOf ?? ((pid: number) => childrenOf(pid)[0]);
    return Promise.resolve(new ContainerProcess(child, child.pid, startTime, log, spec.wrapper !== undefined, programOf));
  }

  /** The program under the wrapper, while it runs; undefined without a wrapper. */
  program(): number | undefined {
    return this.wrapped ? this.findProgram(this.pid) : undefined;
  }

  /** Signals the whole process group. */
  signal(signal: NodeJS.Signals): void {
    signalGroup(this.pid, signal);
  }

  /**
   * Signals the program, as a runtime sends the stop signal to a container's
   * init: in a PID namespace, its PID 1 alone (which ignores what it has no
   * handler for); otherwise the whole process group.
   */
  signalProgram(signal: NodeJS.Signals): void {
    const init = this.program();
    if (init === undefined) {
      this.signal(signal);
      return;
    }
    try {
      process.kill(init, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  reopenLog(): void {
    this.log.reopen();
  }
}

/** Where a command would be found: a path as given, or a name looked up in PATH, executable. */
export function findExecutable(command: string, path: string, cwd: string): string | undefined {
  const candidates = command.includes('/') ? [isAbsolute(command) ? command : join(cwd, command)] : path.split(':').filter(Boolean).map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function checkDirectory(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : 'not a directory';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message;
  }
}

export function execErrorMessage(file: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `exec: "${file}": executable file not found in $PATH`;
  if (err.code === 'EACCES') return `exec: "${file}": permission denied`;
  return `exec: "${file}": ${err.message}`;
}
