import { fork, type ChildProcess } from 'node:child_process';
import { spawnerMain } from '../../util/install-paths.js';
import type { ProcessExit } from '../follow-child.js';
import { HEAP_GROWING_FLAG, NODE_FLAGS } from '../../util/node-flags.js';
import { detachHere, runToEnd, signalGroup, type Ran } from '../proc.js';
import { KeyedRuns, type KeyedRun } from './keyed-runs.js';
import type { SpawnerReply, StartRequest } from './protocol.js';

/** A process the spawner started: its pid, and its end once its output is in the log. */
export interface SpawnedProcess {
  pid: number;
  closed: Promise<ProcessExit>;
  reopenLog(): Promise<void>;
  /** With reportSetUp: the pid its wrapper wrote once the container was set up; undefined when it ended first, or said why its set-up failed (setUpFailure). */
  setUp?: Promise<number | undefined>;
  /** Why its set-up failed, as its wrapper said, once setUp has resolved. */
  setUpFailure(): string | undefined;
  /** A held start's release: its wrapper execs the program once set up. */
  release(): void;
}

/** Why a start failed: the log could not be opened, or the program not executed (with its errno code). */
export class SpawnError extends Error {
  constructor(
    readonly stage: 'log' | 'exec',
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

interface Started {
  pid: number;
  exit: (exit: ProcessExit) => void;
  onLogError: (err: Error) => void;
  setUp?: (pid: number | undefined, failure?: string) => void;
}

/**
 * Starts handed to the spawner at a time: enough that it never waits for the
 * next while the runtime's loop is busy (in a burst a turn of the loop lasts
 * longer than a spawn: bench/notes/density.md), few enough that the rest wait
 * where they can be cancelled.
 */
const SENT_AT_ONCE = 8;

/** How a start is followed before it is made. */
export interface StartOptions {
  /** Its caller has gone: a start still queued is dropped. */
  cancelled?: () => boolean;
  /** A gated start's go-ahead: sent once this resolves true. */
  gate?: Promise<boolean>;
  /** The key of a run (run's `key`) the go-ahead waits for in the spawner, which never gives it when that run fails. */
  after?: string;
}

interface Queued extends StartOptions {
  req: Omit<StartRequest, 'type' | 'seq'>;
  onLogError: (err: Error) => void;
  resolve: (p: SpawnedProcess) => void;
  reject: (err: Error) => void;
}

/** A start dropped before it reached the spawner: its caller had gone. Nothing was started. */
export class StartCancelled extends Error {
  override readonly name = 'StartCancelled';
  constructor() {
    super('the start was cancelled before the spawner had it; nothing was started');
  }
}

/**
 * The runtime's end of its spawner (./main.ts): a Node process of its own
 * that forks the containers and writes their logs. Until it is ready, and
 * after it died, `ready` is false and the runtime spawns containers itself.
 */
export class Spawner {
  private readonly child: ChildProcess;
  private isReady = false;
  private seq = 0;
  private asks = 0;
  private readonly starting = new Map<
    number,
    { resolve: (p: SpawnedProcess) => void; reject: (err: Error) => void; onLogError: (err: Error) => void; reportSetUp?: boolean }
  >();
  private readonly running = new Map<number, Started>();
  private readonly reopening = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private readonly runs = new Map<number, (ran: Ran) => void>();
  private readonly detaching = new Map<number, { resolve: (pid: number) => void; reject: (err: Error) => void }>();
  /** The runs given a key (run's `key`), and whether each was the spawner's (which then holds the go-aheads that wait for it). */
  private readonly keyedRuns = new KeyedRuns<KeyedRun & { inSpawner: boolean }>();
  /** Starts not yet sent: they wait here, where a cancelled one can still be dropped, not in the spawner's pipe. */
  private readonly queued: Queued[] = [];
  /** The spare shells asked for (useSpares), sent once the spawner is ready. */
  private spares: { shell: string[]; dir: string } | undefined;

  constructor(private readonly warn: (message: string) => void = () => {}) {
    const main = spawnerMain();
    // From the sources (tests), the spawner is TypeScript too.
    const execArgv = main.endsWith('.ts') ? ['--import', 'tsx'] : [];
    this.child = fork(main, [], {
      execArgv: [...execArgv, ...NODE_FLAGS, HEAP_GROWING_FLAG],
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    });
    this.child.on('message', (reply: SpawnerReply) => this.receive(reply));
    this.child.on('error', () => {});
    this.child.on('exit', (code, signal) => this.died(code, signal));
    this.child.unref();
    (this.child.channel as { unref?: () => void } | undefined)?.unref?.();
  }

  get ready(): boolean {
    return this.isReady;
  }

  /** What `runtime status` says. */
  describe(): string {
    return this.isReady
      ? `a spawner process (pid ${this.child.pid}) forks the containers and writes their logs`
      : 'the runtime forks the containers itself (no spawner running)';
  }

  /**
   * Starts a process (detached: a session of its own) with its output going
   * to `logPath`. At most SENT_AT_ONCE starts are with the spawner at a time;
   * the rest wait their turn here, and one whose caller has gone by then
   * (`cancelled`) is not sent: it rejects with StartCancelled. With
   * reportSetUp, the process gets its go-ahead on fd 3 at once, or, given a
   * `gate`, once that resolves true (never, when false: its caller ends it);
   * a `held` one execs its program only once released (SpawnedProcess.release).
   */
  start(
    req: Omit<StartRequest, 'type' | 'seq' | 'gated'>,
    onLogError: (err: Error) => void,
    options: StartOptions = {},
  ): Promise<SpawnedProcess> {
    if (!this.isReady) return Promise.reject(new Error('the spawner is not running'));
    return new Promise((resolve, reject) => {
      this.queued.push({ ...options, req, onLogError, resolve, reject });
      this.send();
    });
  }

  private send(): void {
    while (this.starting.size < SENT_AT_ONCE && this.queued.length > 0) {
      const next = this.queued.shift()!;
      if (next.cancelled?.()) {
        next.reject(new StartCancelled());
        continue;
      }
      const seq = ++this.seq;
      this.starting.set(seq, {
        resolve: next.resolve,
        reject: next.reject,
        onLogError: next.onLogError,
        reportSetUp: next.req.reportSetUp,
      });
      this.child.send({ type: 'start', seq, ...next.req, gated: next.gate !== undefined });
      // After the start on the same channel, so the spawner has the process when its go-ahead comes.
      void next.gate?.then((go) => {
        if (go) this.goAhead(seq, next.after);
      });
    }
  }

  /**
   * Runs a program to its end (a mount, an unmount) in the spawner, whose
   * fork costs less than this process's and none of its thread's time; here
   * when the spawner is not running. A spawner that dies first fails it.
   * `key` names it for the go-ahead of a start that waits for it (StartOptions.after).
   */
  run(argv: readonly string[], key?: string): Promise<Ran> {
    const here = !this.isReady || !this.child.connected;
    const ran = here
      ? runToEnd(argv)
      : new Promise<Ran>((resolve) => {
          const ask = ++this.asks;
          this.runs.set(ask, resolve);
          this.child.send({ type: 'run', ask, file: argv[0], args: argv.slice(1), key });
        });
    if (key !== undefined) this.keyedRuns.add(key, { ok: ran.then((r) => r.ok), inSpawner: !here });
    return ran;
  }

  /**
   * A gated start's go-ahead, given once the run keyed `after` has ended
   * well (never when it failed): the spawner waits for a run it was given,
   * which it sees end before this process does; here for one run here.
   */
  private goAhead(seq: number, after?: string): void {
    const run = after === undefined ? undefined : this.keyedRuns.get(after);
    const send = (waitFor?: string) => {
      if (this.child.connected) this.child.send({ type: 'go', seq, after: waitFor });
    };
    if (!run) return send();
    if (run.inSpawner) return send(after);
    void run.ok.then((ok) => {
      if (ok) send();
    });
  }

  /** Starts a program in a session of its own that nobody follows (a pod's holder), from the spawner when it runs: its pid. */
  detach(argv: readonly string[]): Promise<number> {
    if (!this.isReady || !this.child.connected) return detachHere(argv);
    const ask = ++this.asks;
    return new Promise((resolve, reject) => {
      this.detaching.set(ask, { resolve, reject });
      this.child.send({ type: 'detach', ask, file: argv[0], args: argv.slice(1) });
    });
  }

  /**
   * Has the spawner fork spare shells of `shell` (a static busybox: the argv
   * before `-c`) for what it starts, their orders written in `dir`.
   */
  useSpares(shell: readonly string[], dir: string): void {
    this.spares = { shell: [...shell], dir };
    if (this.isReady && this.child.connected) this.child.send({ type: 'spares', ...this.spares });
  }

  /** Ends the spawner (the runtime's shutdown, once its containers are stopped). */
  close(): void {
    if (this.child.connected) this.child.disconnect();
  }

  private receive(reply: SpawnerReply): void {
    switch (reply.type) {
      case 'ready':
        this.isReady = true;
        if (this.spares) this.child.send({ type: 'spares', ...this.spares });
        return;
      case 'started': {
        const waiting = this.starting.get(reply.seq);
        if (!waiting) return;
        this.starting.delete(reply.seq);
        this.send();
        let exit!: (e: ProcessExit) => void;
        const closed = new Promise<ProcessExit>((resolve) => (exit = resolve));
        let setUp: ((pid: number | undefined, failure?: string) => void) | undefined;
        let failed: string | undefined;
        const setUpDone = waiting.reportSetUp
          ? new Promise<number | undefined>(
              (resolve) =>
                (setUp = (pid, failure) => {
                  failed ??= failure;
                  resolve(pid);
                }),
            )
          : undefined;
        this.running.set(reply.seq, { pid: reply.pid, exit, onLogError: waiting.onLogError, setUp });
        const release = () => {
          if (this.child.connected) this.child.send({ type: 'release', seq: reply.seq });
        };
        waiting.resolve({
          pid: reply.pid,
          closed,
          reopenLog: () => this.reopen(reply.seq),
          setUp: setUpDone,
          setUpFailure: () => failed,
          release,
        });
        return;
      }
      case 'failed': {
        const waiting = this.starting.get(reply.seq);
        this.starting.delete(reply.seq);
        this.send();
        waiting?.reject(new SpawnError(reply.stage, reply.code, reply.message));
        return;
      }
      case 'setUp':
        this.running.get(reply.seq)?.setUp?.(reply.pid, reply.failure);
        return;
      case 'logError':
        this.running.get(reply.seq)?.onLogError(new Error(reply.message));
        return;
      case 'ran': {
        const waiting = this.runs.get(reply.ask);
        this.runs.delete(reply.ask);
        waiting?.(reply.failure === undefined ? { ok: true, reason: '' } : { ok: false, reason: reply.failure });
        return;
      }
      case 'detached': {
        const waiting = this.detaching.get(reply.ask);
        this.detaching.delete(reply.ask);
        if (reply.pid === undefined) waiting?.reject(new Error(reply.error ?? 'it did not start'));
        else waiting?.resolve(reply.pid);
        return;
      }
      case 'reopened': {
        const waiting = this.reopening.get(reply.ask);
        this.reopening.delete(reply.ask);
        if (reply.error) waiting?.reject(new Error(reply.error));
        else waiting?.resolve();
        return;
      }
      case 'exited': {
        const started = this.running.get(reply.seq);
        this.running.delete(reply.seq);
        started?.setUp?.(undefined);
        started?.exit({ exitCode: reply.exitCode, signal: reply.signal, finishedAt: new Date(reply.finishedAt) });
        return;
      }
    }
  }

  private reopen(seq: number): Promise<void> {
    if (!this.child.connected) return Promise.reject(new Error('the spawner is not running'));
    const ask = ++this.asks;
    return new Promise((resolve, reject) => {
      this.reopening.set(ask, { resolve, reject });
      this.child.send({ type: 'reopen', seq, ask });
    });
  }

  /**
   * The spawner ended (the runtime's shutdown, or a crash): the containers it
   * followed lost the reader of their output, so they are killed and
   * reported exited, as after a restart of the runtime.
   */
  private died(code: number | null, signal: NodeJS.Signals | null): void {
    const unexpected =
      this.isReady && (this.starting.size > 0 || this.running.size > 0 || (code !== 0 && code !== null) || signal !== null);
    this.isReady = false;
    if (unexpected) this.warn(`the spawner exited (${signal ?? `code ${code}`}); containers are spawned by the runtime itself from now on`);
    const gone = new Error('the spawner exited');
    for (const waiting of [...this.starting.values(), ...this.queued.splice(0)]) waiting.reject(gone);
    for (const waiting of this.reopening.values()) waiting.reject(gone);
    for (const waiting of this.runs.values()) waiting({ ok: false, reason: 'the spawner exited before it ran it' });
    for (const waiting of this.detaching.values()) waiting.reject(new Error('the spawner exited before it started it'));
    for (const started of this.running.values()) {
      signalGroup(started.pid, 'SIGKILL');
      started.setUp?.(undefined);
      started.exit({ exitCode: 255, signal: null, finishedAt: new Date() });
    }
    this.starting.clear();
    this.reopening.clear();
    this.runs.clear();
    this.detaching.clear();
    this.running.clear();
  }
}
