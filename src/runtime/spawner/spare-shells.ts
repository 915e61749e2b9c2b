// Shells the spawner forks ahead of the programs it starts for sandboxes (a
// container's set-up chain, a pod's holder, the mount of a root file system):
// a static busybox shell in a session of its own, its output on pipes, that
// waits on fd 3 for a line and then reads its order (an exec of the program,
// with the program's environment) from fd 4, a file on the scratch tmpfs
// that the spawner unlinked as soon as the shell had it. A waiting shell's
// exec costs less than a fork of this Node process (bench/notes/sandboxes.md),
// and the start of a sandbox forks three programs on its way, the chain last.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { RealClock, type Clock, type Timer } from '../../util/clock.js';
import { quote } from '../spares.js';

/** What a spare shell's $0 is (ps shows it), until it execs its order. */
export const SPARE_MARK = 'knode-spare';

/** The line on fd 3 (an end of fd 3 ends the shell), then the order on fd 4. */
const SCRIPT = 'read -r _ <&3 || exit 0; . /proc/self/fd/4';

/**
 * How long nothing must be asked of the pool before a spare is made, and
 * between two spares made: the pool fills one spare per quiet spell, while
 * no start is under way. A pool that forked its spares one turn of the
 * event loop after another, in a burst's pauses (between its sandboxes and
 * its containers), cost the burst what they saved it
 * (bench/notes/sandboxes.md).
 */
export const REFILL_DELAY_MS = 30;

/**
 * How many spares wait: a burst of twelve pods takes them all, each pod one
 * for its holder and one for its container's set-up. A waiting spare is a
 * static busybox shell of about 0.1 MiB of its own, and four fds here.
 */
export const SPARES = 24;

/** A start's program for a spare: exec'd with exactly `env`, from /. */
export interface ShellOrder {
  file: string;
  args: readonly string[];
  env: Record<string, string>;
  /**
   * What of its output stays on the spare's pipes (the rest goes to
   * /dev/null, and the spawner's ends of those pipes are closed): both (a
   * container's, the default), stderr (a run's, for its failure), or none (a
   * holder's, which nobody reads).
   */
  output?: 'both' | 'stderr' | 'none';
  /** fd 3 stays open in the program (its set-up or readiness is reported there); closed otherwise. */
  keepFd3?: boolean;
}

interface Spare {
  child: ChildProcess;
  /** The spawner's fd of the order file (unlinked): the spare holds it as its fd 4. */
  order: number;
  /** What takes it out of the pool when it dies waiting. */
  onExit: () => void;
}

export class SpareShells {
  private readonly spares: Spare[] = [];
  private refill: Timer | undefined;
  private closed = false;
  private made = 0;

  /**
   * Spares of `shell` (a static busybox's sh: argv before `-c`), up to `size`
   * at a time, their orders written in `dir` (made here; emptied of what a
   * spawner before this one left); none where `dir` cannot be made.
   */
  constructor(
    private readonly shell: readonly string[],
    private readonly dir: string,
    private readonly size = SPARES,
    private readonly clock: Clock = new RealClock(),
  ) {
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch {
      this.closed = true; // no spares: the starts fork their programs
      return;
    }
    this.fill();
  }

  /** How many spares wait. */
  get waiting(): number {
    return this.spares.length;
  }

  /**
   * A spare that becomes `order`'s program, told so; undefined when none
   * waits or the order is not one for a spare (the caller spawns then, and
   * a spawn's errors are its own): a program that is not an executable file
   * by its absolute path, or a NUL anywhere.
   */
  take(order: ShellOrder): ChildProcess | undefined {
    // Asked for: a start is under way, spare or not, and the refill waits for the starts to end.
    this.refillLater();
    if (this.spares.length === 0 || !fits(order)) return undefined;
    const spare = this.spares.shift()!;
    try {
      writeSync(spare.order, script(order), 0);
    } catch {
      this.discard(spare);
      return undefined;
    }
    closeSync(spare.order);
    const child = spare.child;
    child.off('exit', spare.onExit);
    const fd3 = child.stdio[3] as Writable;
    if (order.keepFd3) fd3.write('\n');
    else fd3.end('\n');
    if (order.output === 'stderr' || order.output === 'none') child.stdout?.destroy();
    if (order.output === 'none') child.stderr?.destroy();
    ref(child, true);
    return child;
  }

  /** No more spares; those waiting end (their fd 3 closes). */
  close(): void {
    this.closed = true;
    this.refill?.cancel();
    for (const spare of this.spares.splice(0)) this.discard(spare);
  }

  /** Makes the next spare once nothing was asked for REFILL_DELAY_MS: an ask puts it off again. */
  private refillLater(): void {
    this.refill?.cancel();
    this.refill = this.clock.setTimeout(() => this.fill(), REFILL_DELAY_MS);
  }

  /** Forks a spare, and the next after REFILL_DELAY_MS more of quiet, until the pool is full. */
  private fill(): void {
    if (this.closed || this.spares.length >= this.size) return;
    const path = join(this.dir, String(this.made++));
    let order: number;
    try {
      order = openSync(path, 'w+', 0o600);
    } catch {
      return; // the starts fork their programs
    } finally {
      // The spare reads its order through its fd 4: the name is not needed past the open.
      rmSync(path, { force: true });
    }
    let child: ChildProcess;
    try {
      child = spawn(this.shell[0], [...this.shell.slice(1), '-c', SCRIPT, SPARE_MARK], {
        cwd: '/',
        env: {},
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe', 'pipe', order],
      });
    } catch {
      closeSync(order);
      return;
    }
    child.on('error', () => {});
    // A spare that died unseen refuses its line: its exit is then its program's.
    child.stdio[3]?.on('error', () => {});
    if (child.pid === undefined) {
      closeSync(order);
      return;
    }
    // Killed while it waited: its pipes and its order go with it.
    const onExit = () => {
      const at = this.spares.indexOf(spare);
      if (at < 0) return;
      this.spares.splice(at, 1);
      this.discard(spare);
    };
    const spare: Spare = { child, order, onExit };
    child.once('exit', onExit);
    ref(child, false);
    this.spares.push(spare);
    this.refillLater();
  }

  private discard(spare: Spare): void {
    try {
      closeSync(spare.order);
    } catch {
      // closed already
    }
    for (const pipe of spare.child.stdio) (pipe as Readable | null)?.destroy();
    try {
      process.kill(-spare.child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}

/** What the spare runs: its fd 4 closed, its environment exactly the program's, then the program. */
function script(order: ShellOrder): Buffer {
  const exports = Object.entries(order.env).map(([key, value]) => `export ${quote(`${key}=${value}`)}\n`);
  const quiet = { both: [], stderr: ['>/dev/null'], none: ['>/dev/null', '2>&1'] }[order.output ?? 'both'];
  const redirects = [...quiet, ...(order.keepFd3 ? [] : ['3>&-'])];
  const exec = ['exec', quote(order.file), ...order.args.map(quote), ...redirects].join(' ');
  return Buffer.from(['exec 4<&-\n', 'unset SHLVL PWD OLDPWD PATH\n', ...exports, `${exec}\n`].join(''));
}

function fits(order: ShellOrder): boolean {
  if (!order.file.startsWith('/')) return false;
  const words = [order.file, ...order.args, ...Object.keys(order.env), ...Object.values(order.env)];
  if (words.some((w) => w.includes('\0')) || Object.keys(order.env).some((key) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))) return false;
  try {
    accessSync(order.file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether a child process and its pipes keep the event loop alive. */
function ref(child: ChildProcess, held: boolean): void {
  for (const handle of [child, ...child.stdio]) {
    const h = handle as { ref?: () => void; unref?: () => void } | null;
    if (held) h?.ref?.();
    else h?.unref?.();
  }
}
