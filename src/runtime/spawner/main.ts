// The embedded runtime's spawner: a child of the runtime (child_process.fork)
// that starts container processes when asked over the IPC channel and
// follows them (output to the CRI log, exit reported back). A fork copies
// the forking process's page tables, so it costs this small process less
// than the runtime, and it costs the runtime's thread nothing: a burst of
// starts no longer stops every other call. It ends with the runtime.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { followChild } from '../follow-child.js';
import { CriLogWriter } from '../log-writer.js';
import { detachHere, PROGRAM_ENV, ranToEnd, readyPid, runToEnd, signalGroup, type Ran } from '../proc.js';
import type { GoRequest, RunRequest, SpawnerReply, SpawnerRequest, StartRequest } from './protocol.js';
import { KeyedRuns } from './keyed-runs.js';
import { SpareShells } from './spare-shells.js';

const logs = new Map<number, CriLogWriter>();
/** The process groups of the containers started here that have not ended: they end with the spawner. */
const groups = new Set<number>();
/**
 * The fd 3 of each process whose set-up is under way (or done, and held), for
 * its go-ahead, its report and its release; whether the go-ahead is written,
 * and whether the release came before it (it follows the go-ahead then).
 */
const setUps = new Map<number, { stream: Duplex; held: boolean; went?: boolean; released?: boolean }>();
/** The runs given a key, for the go-aheads that wait for them. */
const keyedRuns = new KeyedRuns();
/** Shells forked ahead for what the runtime starts here, once it has said which shell (its sandboxes' static busybox). */
let spares: SpareShells | undefined;

function send(reply: SpawnerReply): void {
  // A runtime that died as this was sent (EPIPE) is told nothing: the disconnect that follows ends what ran here.
  if (process.connected) process.send!(reply, undefined, undefined, () => {});
}

function openLog(req: StartRequest): CriLogWriter | undefined {
  try {
    return new CriLogWriter(req.logPath, undefined, (err) => send({ type: 'logError', seq: req.seq, message: err.message }));
  } catch (err) {
    send({ type: 'failed', seq: req.seq, stage: 'log', message: (err as Error).message });
    return undefined;
  }
}

function start(req: StartRequest): void {
  // A gated start's wrapper waits for its go-ahead before it runs anything of the container's: it is
  // started first, and its log made (a directory and a file on the node's disk) while it starts.
  let log = req.gated ? undefined : openLog(req);
  if (!req.gated && !log) return;
  let child: ChildProcess | undefined;
  try {
    if (req.cwd === '/') child = spares?.take({ file: req.file, args: req.args, env: req.env, keepFd3: req.reportSetUp });
    child ??= spawn(req.file, req.args, {
      cwd: req.cwd,
      env: req.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(req.reportSetUp ? (['pipe'] as const) : [])],
    });
  } catch (err) {
    // Refused before any fork (a NUL in argv or env): the start fails, the spawner and its other containers go on.
    log?.end();
    send({ type: 'failed', seq: req.seq, stage: 'exec', code: (err as NodeJS.ErrnoException).code, message: (err as Error).message });
    return;
  }
  if (child.pid === undefined) {
    child.once('error', (err: NodeJS.ErrnoException) => {
      log?.end();
      send({ type: 'failed', seq: req.seq, stage: 'exec', code: err.code, message: err.message });
    });
    return;
  }
  log ??= openLog(req);
  if (!log) {
    // Its wrapper had no go-ahead: it ends having run nothing of the container's.
    signalGroup(child.pid, 'SIGKILL');
    return;
  }
  logs.set(req.seq, log);
  groups.add(child.pid);
  send({ type: 'started', seq: req.seq, pid: child.pid });
  if (req.reportSetUp) {
    readSetUp(child, req.seq, req.held === true);
    if (!req.gated) go(req.seq);
  }
  const pid = child.pid;
  void followChild(child, log).then((exit) => {
    logs.delete(req.seq);
    groups.delete(pid);
    send({ type: 'exited', seq: req.seq, exitCode: exit.exitCode, signal: exit.signal, finishedAt: exit.finishedAt.getTime() });
  });
}

/**
 * The first line on the child's fd 3 (a socket: the go-ahead and the release
 * go the other way), the pid of its program, once its set-up is done, or
 * why its set-up failed (a line that starts with '!'); nothing when fd 3
 * closes first. A held process keeps it until its release.
 */
function readSetUp(child: ChildProcess, seq: number, held: boolean): void {
  const stream = child.stdio[3] as unknown as Duplex;
  setUps.set(seq, { stream, held });
  let text = '';
  let told = false;
  const tell = (pid?: number, failure?: string) => {
    if (told) return;
    told = true;
    send({ type: 'setUp', seq, pid, failure });
    if (held && pid !== undefined) return;
    setUps.delete(seq);
    stream.destroy();
  };
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('latin1');
    const line = text.indexOf('\n');
    if (line < 0) return;
    if (text.startsWith('!')) return tell(undefined, text.slice(1, line).trim() || 'the set-up failed');
    const pid = Number(text.slice(0, line));
    tell(Number.isSafeInteger(pid) && pid > 0 ? pid : undefined);
  });
  stream.on('error', () => tell());
  stream.on('close', () => tell());
  // Whatever still holds it open once the container exits (its group is killed then) does not hold up its end.
  child.once('exit', () => {
    tell();
    setUps.get(seq)?.stream.destroy();
    setUps.delete(seq);
  });
}

/**
 * The go-ahead a set-up waits for on its fd 3 (gone already when the process
 * has ended), and with it the release that lets it exec its program once set
 * up, unless it is held.
 */
function go(seq: number): void {
  const setUp = setUps.get(seq);
  if (!setUp) return;
  setUp.went = true;
  if (setUp.released) return release(seq);
  setUp.stream.write(setUp.held ? 'go\n' : 'go\nstart\n');
}

/** The go-ahead `req` asks for, once the run it names has ended well (never when it failed). */
function goAfter(req: GoRequest): void {
  const run = req.after === undefined ? undefined : keyedRuns.get(req.after);
  if (!run) {
    go(req.seq);
    return;
  }
  void run.ok.then((ok) => {
    if (ok) go(req.seq);
  });
}

/** A run, answered with `ran`; one with a key is kept for the go-aheads that wait for it. */
function runAsked(req: RunRequest): void {
  const ran = run([req.file, ...req.args]);
  void ran.then((r) => send({ type: 'ran', ask: req.ask, failure: r.ok ? undefined : r.reason }));
  if (req.key !== undefined) keyedRuns.add(req.key, { ok: ran.then((r) => r.ok) });
}

/**
 * A held process's release: it execs its program once set up (at once, when
 * it is set up already). Its shell reads the line only after its report, so
 * the release may come while it sets up; one that comes before its go-ahead
 * waits for it, which its shell reads first.
 */
function release(seq: number): void {
  const setUp = setUps.get(seq);
  if (!setUp?.held) return;
  if (!setUp.went) {
    setUp.released = true;
    return;
  }
  setUps.delete(seq);
  setUp.stream.end(setUp.released ? 'go\nstart\n' : 'start\n');
}

function reopen(seq: number, ask: number): void {
  const log = logs.get(seq);
  try {
    if (!log) throw new Error('the container is not running');
    log.reopen();
    send({ type: 'reopened', ask });
  } catch (err) {
    send({ type: 'reopened', ask, error: (err as Error).message });
  }
}

/** runToEnd, by a spare when one waits. */
function run(argv: string[]): Promise<Ran> {
  const spare = spares?.take({ file: argv[0], args: argv.slice(1), env: PROGRAM_ENV, output: 'stderr' });
  return spare ? ranToEnd(spare, argv) : runToEnd(argv);
}

/** detachHere, by a spare when one waits. */
function detach(argv: string[]): Promise<number> {
  const spare = spares?.take({ file: argv[0], args: argv.slice(1), env: PROGRAM_ENV, output: 'none', keepFd3: true });
  return spare ? readyPid(spare, argv) : detachHere(argv);
}

process.on('message', (req: SpawnerRequest) => {
  if (req.type === 'start') start(req);
  else if (req.type === 'reopen') reopen(req.seq, req.ask);
  else if (req.type === 'go') goAfter(req);
  else if (req.type === 'release') release(req.seq);
  else if (req.type === 'run') runAsked(req);
  else if (req.type === 'spares') spares ??= new SpareShells(req.shell, req.dir);
  else if (req.type === 'detach') {
    detach([req.file, ...req.args]).then(
      (pid) => send({ type: 'detached', ask: req.ask, pid }),
      (err: Error) => send({ type: 'detached', ask: req.ask, error: err.message }),
    );
  }
});
// The runtime is gone: so is the reader of every container's output, as when it held the pipes itself, and so
// is every container, as a container dies with its runtime here (its wrapper need not be tied to its parent).
process.on('disconnect', () => {
  spares?.close();
  for (const pid of groups) signalGroup(pid, 'SIGKILL');
  process.exit(0);
});
send({ type: 'ready' });
