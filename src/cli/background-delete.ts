import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** Set in the environment of the `knode delete` that a `--wait=false` leaves running. */
const DETACHED = 'KNODE_DELETE_DETACHED';

/** What the background delete tells the command that started it, until the deletion is requested. */
type Report = { stderr: string } | { requested: true };

/**
 * The background half of `delete --wait=false`, as the kubelet goes on
 * stopping pods after kubectl returned: kubectl returns once the apiserver
 * took the deletion, and the errors of that request are its own (exit 1).
 * Here the request is the background delete finding its runtime and its
 * pods: what it writes to stderr until then is passed to the command that
 * started it. What comes after (a pod that could not be stopped) is
 * appended to `log`, as the kubelet's own errors go to its log.
 */
export class DetachedDelete {
  private requestedAt: Date | undefined;

  private constructor(private readonly log: string) {}

  /** The report of this process when it is a background delete; undefined otherwise. */
  static ofThisProcess(log: string): DetachedDelete | undefined {
    return process.env[DETACHED] === '1' && process.send ? new DetachedDelete(log) : undefined;
  }

  /** A line for stderr: to the command that started this one, or to the log once the deletion is requested. */
  stderr(line: string): void {
    if (this.requestedAt === undefined) {
      this.send({ stderr: line });
      return;
    }
    try {
      mkdirSync(dirname(this.log), { recursive: true });
      appendFileSync(this.log, `${new Date().toISOString()} knode delete[${process.pid}]: ${line}\n`);
    } catch {
      // nowhere left to say it
    }
  }

  /** The deletion is requested: the command that started this one returns. */
  requested(): void {
    if (this.requestedAt) return;
    this.requestedAt = new Date();
    this.send({ requested: true });
    process.disconnect?.();
  }

  private send(report: Report): void {
    if (process.connected) process.send!(report);
  }
}

export interface BackgroundOutcome {
  /** Whether the background delete requested the deletion (it goes on alone). */
  requested: boolean;
  /** The lines of stderr it passed on before that. */
  errors: string[];
}

/**
 * Starts `knode delete ARGV` in the background (its own process group, so
 * that it outlives this one) and waits until it has requested the deletion
 * or has ended; its stderr until then is passed to `onError`. Its later
 * errors go to `log`, and so does anything it writes to stderr itself.
 */
export function startBackgroundDelete(
  argv: string[],
  log: string,
  onError: (line: string) => void,
  /** The knode that runs it: this one. */
  entry = process.argv[1],
): Promise<BackgroundOutcome> {
  mkdirSync(dirname(log), { recursive: true });
  const logFd = openSync(log, 'a');
  const child = spawn(process.execPath, [entry, 'delete', ...argv], {
    detached: true,
    stdio: ['ignore', 'ignore', logFd, 'ipc'],
    env: { ...process.env, [DETACHED]: '1' },
  });
  closeSync(logFd);
  const errors: string[] = [];
  return new Promise((resolve) => {
    let done = false;
    const finish = (requested: boolean) => {
      if (done) return;
      done = true;
      if (requested) {
        if (child.connected) child.disconnect();
        child.unref();
      }
      resolve({ requested, errors });
    };
    child.on('message', (report: Report) => {
      if ('stderr' in report) {
        errors.push(report.stderr);
        onError(report.stderr);
      } else if (report.requested) finish(true);
    });
    child.once('error', (err) => {
      const line = `error: could not start the background delete: ${err.message}`;
      errors.push(line);
      onError(line);
      finish(false);
    });
    child.once('exit', (code, signal) => {
      if (code === 0) return finish(true); // all done already
      if (!done && errors.length === 0) {
        const line = `error: the background delete ended (${signal ?? `exit code ${code}`}) before it requested the deletion; see ${log}`;
        errors.push(line);
        onError(line);
      }
      finish(false);
    });
  });
}
