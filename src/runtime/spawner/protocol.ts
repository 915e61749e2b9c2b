// The messages between the embedded runtime and its spawner (./main.ts), a
// small Node process that forks containers so that the runtime does not.

/** Start a container's process: spawned detached, its output written to logPath in the CRI format. */
export interface StartRequest {
  type: 'start';
  seq: number;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  logPath: string;
  /** fd 3 is a socket: the wrapper reads its go-ahead line there, and writes the program's pid and a newline once the container is set up (util-linux's set-up), answered with `setUp`. */
  reportSetUp?: boolean;
  /** With reportSetUp: the go-ahead line goes to fd 3 when `go` comes for it, not at once. */
  gated?: boolean;
  /**
   * With reportSetUp: the second line on fd 3, which lets the wrapper exec
   * the program once it is set up, goes there when `release` comes for it
   * (the container was made by its create), not with the go-ahead.
   */
  held?: boolean;
}

/**
 * A gated start's go-ahead. `after` names a run (RunRequest.key) that must
 * end well first: the go-ahead waits for it here, and is never given when
 * it fails (the runtime ends the start then).
 */
export interface GoRequest {
  type: 'go';
  seq: number;
  after?: string;
}

/**
 * Run a program to its end (a mount, an unmount), answered with `ran`.
 * `key` names it for the go-ahead of a start that needs it done (the mount
 * of a container's root file system, which its set-up waits for).
 */
export interface RunRequest {
  type: 'run';
  ask: number;
  file: string;
  args: string[];
  key?: string;
}

/** Reopen the log of the process started as `seq` (ReopenContainerLog), answered with `reopened`; run a program to its end (a mount, an unmount), answered with `ran`. */
export type SpawnerRequest =
  | StartRequest
  | { type: 'reopen'; seq: number; ask: number }
  | GoRequest
  | { type: 'release'; seq: number }
  | RunRequest
  /** Start a program in a session of its own that the spawner does not follow (a pod's holder), answered with `detached`. */
  | { type: 'detach'; ask: number; file: string; args: string[] }
  /** Fork spare shells of `shell` (a static busybox: the argv before `-c`) for starts, runs and detaches, their orders written in `dir` (a tmpfs where there is one); unanswered. */
  | { type: 'spares'; shell: string[]; dir: string };

export type SpawnerReply =
  | { type: 'ready' }
  | { type: 'started'; seq: number; pid: number }
  /** log: the log file could not be opened; exec: the spawn failed (code as errno names it). */
  | { type: 'failed'; seq: number; stage: 'log' | 'exec'; code?: string; message: string }
  | { type: 'logError'; seq: number; message: string }
  /** What a start with reportSetUp wrote to fd 3: the program's pid, or why its set-up failed, or neither when fd 3 closed first. */
  | { type: 'setUp'; seq: number; pid?: number; failure?: string }
  | { type: 'reopened'; ask: number; error?: string }
  /** A run's end: failure says why it failed (what it wrote to stderr), absent when it exited 0. */
  | { type: 'ran'; ask: number; failure?: string }
  /** A detached program's pid, or why it could not start. */
  | { type: 'detached'; ask: number; pid?: number; error?: string }
  /** Sent once the process has exited and its output is in the log. */
  | { type: 'exited'; seq: number; exitCode: number; signal: NodeJS.Signals | null; finishedAt: number };
