import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { checkDirectory, execErrorMessage, findExecutable, logErrorMessage } from './executables.js';
import { followChild, OutputTap, type ProcessExit } from './follow-child.js';
import { CriLogWriter } from './log-writer.js';
import type { ProcessSpec } from './process-spec.js';
import { childrenOf, readProcStat, signalGroup, waitForProcess } from './proc.js';
import { SpawnError, StartCancelled, type Spawner } from './spawner/client.js';
import { HOLD_MARK, SpareProcesses, stillHeld } from './spares.js';

export type { ProcessExit } from './follow-child.js';

/** Holds the container in a shell until the runtime writes a line to fd 3, then becomes the program. */
const HOLD_SCRIPT = 'read -r _ <&3 && exec 3<&- && exec "$@"';

/** What runs the container, followed to its end: a child of the runtime, or of its spawner. */
interface Followed {
  /** Resolves once the process has exited and its output is in the log. */
  closed: Promise<ProcessExit>;
  reopenLog(): void | Promise<void>;
  /** The program's stdin, when the container keeps it open (CRI stdin). */
  stdin?: Writable;
  /** Its output as it comes, where this process reads it (not when the spawner does). */
  output?: OutputTap;
  /** A held process's release (ProcessSpec.held). */
  release?: () => void;
  /** Why its wrapper's set-up failed, as it said (reportsSetUp), once its report has come. */
  setUpFailure?: () => string | undefined;
}

/** How long a wrapper's program may take to appear, by default. */
const PROGRAM_TIMEOUT_MS = 2_000;

/**
 * A container run as a host process in its own session and process group.
 * When the main process exits, the rest of its group is killed, as the end
 * of a PID namespace would; the exit is reported once its output is written.
 */
export class ContainerProcess {
  readonly exited: Promise<ProcessExit>;
  /**
   * Resolves once the program runs under its wrapper (with its pid), or
   * once the wrapper reported the container set up (reportsSetUp: the pid
   * its program is about to have), or when the wrapper ended or the wait
   * timed out (undefined). The start does not wait for it: what signals or
   * enters the program does.
   */
  readonly programStarted: Promise<number | undefined>;
  /** Whether its wrapper reports its set-up (programStarted is that report). */
  private readonly reportsSetUp: boolean;
  private constructor(
    private readonly followed: Followed,
    readonly pid: number,
    readonly startTime: string,
    /** Whether a wrapper runs the program in a PID namespace (pid is the wrapper's). */
    readonly wrapped: boolean,
    private readonly findProgram: (wrapperPid: number) => number | undefined,
    programTimeoutMs: number,
    /** What the wrapper reported once it had set the container up (reportsSetUp), when it could. */
    setUp?: Promise<number | undefined>,
  ) {
    this.exited = followed.closed;
    this.reportsSetUp = setUp !== undefined;
    // A held shell (a spare, or a container waiting for its cgroup) is not the program yet, nor its wrapper.
    this.programStarted = !wrapped
      ? Promise.resolve(undefined)
      : (setUp ?? waitForProcess(pid, () => (stillHeld(pid) ? undefined : findProgram(pid)), programTimeoutMs));
  }

  /**
   * Starts the process; rejects with a runc-like message when it cannot be
   * executed. A spare that fits becomes the container; otherwise the spawner
   * starts it, when it runs and the start needs nothing of this process (no
   * stdin, no files, no cgroup before the exec); otherwise it is spawned
   * here. Only the last costs this thread a fork.
   */
  static async start(spec: ProcessSpec, spares?: SpareProcesses, spawner?: Spawner, cancelled?: () => boolean): Promise<ContainerProcess> {
    if (ContainerProcess.gated(spec, spawner)) return ContainerProcess.startGated(spec, spawner!, cancelled);
    if (spec.held) throw new Error('only a start through the spawner whose wrapper reports its set-up can be held');
    await spec.prepare?.();
    await spec.awaits?.done;
    const cwdProblem = spec.hasProgram ? undefined : checkDirectory(spec.cwd);
    if (cwdProblem) throw new Error(`chdir to cwd ("${spec.cwd}") set in config failed: ${cwdProblem}`);
    const held = spec.beforeExec !== undefined;
    // Behind a shell or a wrapper, a missing program would be an exit code: it is a start error.
    const found = spec.hasProgram
      ? spec.hasProgram(spec.argv[0])
      : findExecutable(spec.argv[0], spec.env.PATH ?? '', spec.cwd) !== undefined;
    if ((held || spec.wrapper) && !found)
      throw new Error(execErrorMessage(spec.argv[0], Object.assign(new Error('not found'), { code: 'ENOENT' })));
    const argv = [...(spec.wrapper ?? []), ...spec.argv];
    // A sandbox's working directory is inside its root file system: the wrapper starts in /.
    const cwd = spec.hasProgram ? '/' : spec.cwd;
    const make = (followed: Followed, pid: number, setUp?: Promise<number | undefined>) =>
      ContainerProcess.made(spec, followed, pid, setUp);

    const order = { argv, env: spec.env, cwd };
    const plain = !spec.stdin && !spec.files?.length;
    const fitsSpare = found && plain && SpareProcesses.fits(order) && (spares?.waiting ?? 0) > 0;
    if (!fitsSpare && plain && !held && spawner?.ready) {
      spares?.fillWhenQuiet(); // a start, as a spare taken: the pool waits for quiet again
      const req = { file: argv[0], args: argv.slice(1), cwd, env: spec.env, logPath: spec.logPath, reportSetUp: spec.reportsSetUp };
      const spawned = await spawner.start(req, spec.onLogError ?? (() => {}), { cancelled }).catch((err: Error) => err);
      if (spawned instanceof Error) throw spawnerFailure(spec, spawned);
      return make(
        { closed: spawned.closed, reopenLog: () => spawned.reopenLog(), setUpFailure: () => spawned.setUpFailure() },
        spawned.pid,
        spawned.setUp,
      );
    }

    const guarded = spec.orphanGuard ? [...spec.orphanGuard, ...argv] : argv;
    let log: CriLogWriter;
    try {
      log = new CriLogWriter(spec.logPath, undefined, spec.onLogError);
    } catch (err) {
      throw new Error(logErrorMessage(spec.logPath, err as Error), { cause: err });
    }
    const spare = fitsSpare ? spares?.take() : undefined;
    let child: ChildProcess;
    if (spare) {
      child = spare;
    } else {
      const spawned = spawnProcess(spec, guarded, cwd, held);
      if (spawned instanceof Error) {
        log.end();
        throw spawned;
      }
      child = spawned;
    }
    if (child.pid === undefined) {
      log.end();
      const err = await new Promise<NodeJS.ErrnoException>((resolve) => child.once('error', resolve));
      throw new Error(execErrorMessage(spec.argv[0], err));
    }
    spec.beforeExec?.(child.pid);
    if (spare) SpareProcesses.order(spare, { ...order, argv: guarded });
    else if (held) (child.stdio[3] as NodeJS.WritableStream).end('go\n');
    const output = new OutputTap();
    return make(
      { closed: followChild(child, log, output), reopenLog: () => log.reopen(), stdin: child.stdin ?? undefined, output },
      child.pid,
    );
  }

  /** Whether the spawner starts it with a gate on its fd 3 (which a held start needs). */
  static gated(spec: ProcessSpec, spawner?: Spawner): boolean {
    return Boolean(
      spec.prepare &&
      spec.reportsSetUp &&
      spec.wrapper &&
      spec.hasProgram &&
      !spec.stdin &&
      !spec.files?.length &&
      !spec.beforeExec &&
      spawner?.ready,
    );
  }

  /**
   * A start through the spawner whose wrapper waits on fd 3: `prepare` runs
   * meanwhile, then the program is looked for, and the wrapper gets its
   * go-ahead; when either fails, the wrapper is killed and the start fails.
   */
  private static async startGated(spec: ProcessSpec, spawner: Spawner, cancelled?: () => boolean): Promise<ContainerProcess> {
    let open!: (go: boolean) => void;
    const gate = new Promise<boolean>((resolve) => (open = resolve));
    const argv = [...spec.wrapper!, ...spec.argv];
    const req = { file: argv[0], args: argv.slice(1), cwd: '/', env: spec.env, logPath: spec.logPath, reportSetUp: true, held: spec.held };
    // Asked of the spawner first, so that its fork runs beside prepare.
    const spawning = spawner
      .start(req, spec.onLogError ?? (() => {}), { cancelled, gate, after: spec.awaits?.key })
      .catch((err: Error) => err);
    const ready = spec.prepare!().then(() => {
      if (!spec.hasProgram!(spec.argv[0]))
        throw new Error(execErrorMessage(spec.argv[0], Object.assign(new Error('not found'), { code: 'ENOENT' })));
    });
    ready.then(
      () => open(true),
      () => open(false),
    );
    // The go-ahead, once ready, waits in the spawner for what awaits names; the start fails when either fails,
    // with what awaits says first (a program not found in a root that cannot be mounted is the mount's failure).
    const prepared = spec.awaits ? spec.awaits.done.then(() => ready) : ready;
    prepared.catch(() => {}); // awaited below
    const spawned = await spawning;
    if (spawned instanceof Error) {
      await gate; // what prepare makes is there for the caller to undo
      throw spawnerFailure(spec, spawned);
    }
    const failed = await prepared.then(
      () => undefined,
      (err: Error) => err,
    );
    if (failed) {
      signalGroup(spawned.pid, 'SIGKILL');
      await spawned.closed;
      throw failed;
    }
    return ContainerProcess.made(
      spec,
      {
        closed: spawned.closed,
        reopenLog: () => spawned.reopenLog(),
        release: () => spawned.release(),
        setUpFailure: () => spawned.setUpFailure(),
      },
      spawned.pid,
      spawned.setUp,
    );
  }

  private static made(spec: ProcessSpec, followed: Followed, pid: number, setUp?: Promise<number | undefined>): ContainerProcess {
    const programOf = spec.programOf ?? ((wrapperPid: number) => childrenOf(wrapperPid)[0]);
    return new ContainerProcess(
      followed,
      pid,
      readProcStat(pid)?.startTime ?? '',
      spec.wrapper !== undefined,
      programOf,
      spec.programTimeoutMs ?? PROGRAM_TIMEOUT_MS,
      setUp,
    );
  }

  /** The program under the wrapper, while it runs; undefined without a wrapper. */
  program(): number | undefined {
    return this.wrapped && !stillHeld(this.pid) ? this.findProgram(this.pid) : undefined;
  }

  /** Why its wrapper's set-up failed, as it said once done (reportsSetUp); undefined when it did not fail, or said nothing. */
  async setUpFailed(): Promise<string | undefined> {
    if (!this.reportsSetUp) return undefined;
    await this.programStarted;
    return this.followed.setUpFailure?.();
  }

  /** Lets a held process (ProcessSpec.held) exec its program, once it is set up. */
  release(): void {
    this.followed.release?.();
  }

  /** Signals the whole process group. */
  signal(signal: NodeJS.Signals): void {
    signalGroup(this.pid, signal);
  }

  /**
   * Signals the program, as a runtime sends the stop signal to a container's
   * init: in a PID namespace, its PID 1 alone (which ignores what it has no
   * handler for); otherwise the whole process group. Waits for the program
   * to have started under its wrapper first.
   */
  async signalProgram(signal: NodeJS.Signals): Promise<void> {
    await this.programStarted;
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

  async reopenLog(): Promise<void> {
    await this.followed.reopenLog();
  }

  /** Where an attach writes what its client types: the program's stdin, when the container was created with one. */
  get stdin(): Writable | undefined {
    return this.followed.stdin;
  }

  /** The program's output as it comes, when this process reads it (undefined when the spawner does: read the log then). */
  get output(): OutputTap | undefined {
    return this.followed.output;
  }
}

/** Spawns the container's process (held in a shell when it must wait for its cgroup), or says why it cannot. */
function spawnProcess(spec: ProcessSpec, argv: string[], cwd: string, held: boolean): ChildProcess | Error {
  const [file, args] = held ? ['/bin/sh', ['-c', HOLD_SCRIPT, HOLD_MARK, ...argv]] : [argv[0], argv.slice(1)];
  let fds: number[];
  try {
    fds = (spec.files ?? []).map((f) => openSync(f, 'r'));
  } catch (err) {
    return new Error(`cannot open ${(err as NodeJS.ErrnoException).path ?? 'a namespace'} for the container: ${(err as Error).message}`);
  }
  try {
    return spawn(file, args, {
      cwd,
      env: spec.env,
      detached: true,
      stdio: [spec.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe', held ? 'pipe' : 'ignore', ...fds],
    });
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** What a start the spawner did not make says: the log or the exec refused (runc's words), a cancel, or the spawner's end. */
function spawnerFailure(spec: ProcessSpec, err: Error): Error {
  if (err instanceof StartCancelled) return err;
  if (err instanceof SpawnError)
    return new Error(err.stage === 'log' ? logErrorMessage(spec.logPath, err) : execErrorMessage(spec.argv[0], err));
  // The spawner died before it answered: it may have started the process, so it is not started again here.
  return new Error(`the runtime's spawner exited before it started the process: ${err.message}`);
}
