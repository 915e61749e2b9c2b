import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';

/**
 * The argument a held shell carries as its $0 (/proc/PID/cmdline's fourth
 * field), until it execs what it was given.
 */
export const HOLD_MARK = 'knode-hold';

/** Reads the script from fd 3 to its end, closes it, and runs it; a closed fd with nothing on it ends the shell. */
const SPARE_SCRIPT = 's=; while IFS= read -r l <&3; do s="$s$l\n"; done; exec 3<&-; [ -n "$s" ] || exit 0; eval "$s"';

const ENV = '/usr/bin/env';

/** How many spares wait at most. */
const DEFAULT_SIZE = 2;

/**
 * How long the pool waits for a pause in container creates and starts before
 * it spawns spares. With a short wait, a burst of pods had such a pause
 * before nearly every start, and most containers came from spares: each
 * costs the machine a shell and an env(1) more than a spawn, and the burst
 * took longer. With this wait none did (bench/notes/cri-and-startup.md).
 */
const QUIET_MS = 250;

/** Whether `pid` is still a held shell: a spare, or a container waiting for its cgroup. */
export function stillHeld(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[3] === HOLD_MARK;
  } catch {
    return false;
  }
}

/** What a spare is told to become. */
export interface SpareOrder {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/**
 * Container processes spawned ahead of their start. A spare is a shell in a
 * session of its own, with its output on pipes, waiting on fd 3 for the
 * script that makes it the container: a change of directory, and an exec of
 * env(1) with the container's environment and argv. Spawning costs this
 * thread a fork, milliseconds on a small VM; taking a spare costs a write
 * to a pipe. Spares are made once the runtime has been quiet for a moment, so
 * they never compete with the calls of a burst, which spawn as before.
 */
export class SpareProcesses {
  private readonly spares: ChildProcess[] = [];
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  readonly available: boolean;

  constructor(
    private readonly size = DEFAULT_SIZE,
    private readonly quietMs = QUIET_MS,
  ) {
    this.available = size > 0 && executable('/bin/sh') && executable(ENV);
  }

  /** How many spares wait. */
  get waiting(): number {
    return this.spares.length;
  }

  /**
   * Whether a spare can become this: env(1) would take a first word with
   * `=` for a variable, and a NUL cannot pass through a script (a spawn
   * refuses it with a clear error).
   */
  static fits(order: SpareOrder): boolean {
    if (order.argv.length === 0 || order.argv[0].includes('=')) return false;
    const words = [order.cwd, ...order.argv, ...Object.keys(order.env), ...Object.values(order.env)];
    return words.every((w) => !w.includes('\0')) && Object.keys(order.env).every((key) => key !== '' && !key.includes('='));
  }

  /** A live spare, or undefined when none waits (the caller spawns); the pool fills again once it is quiet. */
  take(): ChildProcess | undefined {
    let spare: ChildProcess | undefined;
    while ((spare = this.spares.shift())) {
      if (spare.exitCode === null && spare.signalCode === null) break;
    }
    this.fillWhenQuiet();
    if (spare) setHeld(spare, true);
    return spare;
  }

  /** Tells a taken spare what to become: it runs once fd 3 closes. */
  static order(spare: ChildProcess, order: SpareOrder): void {
    const env = Object.entries(order.env).map(([key, value]) => quote(`${key}=${value}`));
    const script = `cd -- ${quote(order.cwd)} && exec ${ENV} -i -- ${[...env, ...order.argv.map(quote)].join(' ')}\n`;
    const gate = spare.stdio[3] as NodeJS.WritableStream;
    // A spare that died unseen refuses the order: its exit is then the container's.
    gate.on('error', () => {});
    gate.end(script);
  }

  /** Fills the pool once nothing has asked for a spare for a moment (each call puts it off again). */
  fillWhenQuiet(): void {
    if (!this.available || this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fill(), this.quietMs);
    this.timer.unref();
  }

  /** Spawns spares, one per turn of the event loop, until the pool is full. */
  private fill(): void {
    if (this.closed || this.spares.length >= this.size) return;
    const spare = spawn('/bin/sh', ['-c', SPARE_SCRIPT, HOLD_MARK], {
      cwd: '/',
      env: {},
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    });
    spare.on('error', () => {});
    if (spare.pid === undefined) return;
    // A waiting spare keeps nothing alive: taken, it is held as any container.
    setHeld(spare, false);
    this.spares.push(spare);
    spare.once('exit', () => {
      // Killed while it waited: its pipes go with it (a taken spare's are its container's).
      const waiting = this.spares.indexOf(spare);
      if (waiting < 0) return;
      this.spares.splice(waiting, 1);
      for (const pipe of spare.stdio) pipe?.destroy();
    });
    // Held: an immediate that is not waits for the next event of the loop to run.
    setImmediate(() => this.fill());
  }

  /** Ends the spares (a shutdown); a spare whose runtime died ends by itself, its fd 3 closed. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    for (const spare of this.spares.splice(0)) {
      try {
        process.kill(-spare.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/** Whether a child process and its pipes keep the event loop alive. */
function setHeld(child: ChildProcess, held: boolean): void {
  for (const handle of [child, ...child.stdio]) {
    const h = handle as { ref?: () => void; unref?: () => void } | null;
    if (held) h?.ref?.();
    else h?.unref?.();
  }
}

/** A word the shell reads back as exactly `s`. */
export function quote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
