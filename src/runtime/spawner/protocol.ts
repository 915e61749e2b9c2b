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
}

/** Reopen the log of the process started as `seq` (ReopenContainerLog), answered with `reopened`. */
export type SpawnerRequest = StartRequest | { type: 'reopen'; seq: number; ask: number };

export type SpawnerReply =
  | { type: 'ready' }
  | { type: 'started'; seq: number; pid: number }
  /** log: the log file could not be opened; exec: the spawn failed (code as errno names it). */
  | { type: 'failed'; seq: number; stage: 'log' | 'exec'; code?: string; message: string }
  | { type: 'logError'; seq: number; message: string }
  | { type: 'reopened'; ask: number; error?: string }
  /** Sent once the process has exited and its output is in the log. */
  | { type: 'exited'; seq: number; exitCode: number; signal: NodeJS.Signals | null; finishedAt: number };
