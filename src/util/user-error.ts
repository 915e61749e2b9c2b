/** Why a command failed, as the exit code tells it; stable, documented in the README. */
export const ExitCode = {
  ok: 0,
  /** The command ran but the workload did not make it (a pod failed, timed out). */
  workloadFailed: 1,
  /** Bad flags, bad input, or a command that is not built yet. */
  usage: 2,
  /** The container runtime could not be reached or started. */
  runtimeUnavailable: 3,
  /** A waiting command interrupted by SIGINT (Ctrl-C): 128 + 2, as a shell reports a process the signal killed. */
  interrupted: 130,
  /** A waiting command stopped by SIGTERM: 128 + 15, as a shell reports a process the signal killed. */
  terminated: 143,
} as const;

export type ExitCodeName = keyof typeof ExitCode;

/**
 * An error meant for the person at the shell: what went wrong, and what to do
 * next. Commands map `code` to the exit status in one place.
 */
export class UserError extends Error {
  override readonly name = 'UserError';
  constructor(
    readonly code: ExitCodeName,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** An error told as kubectl tells it (`Error from server (NotFound): …`, `error: …`): printed as it is, exit 1; knode's hint after it. */
export class KubectlError extends Error {
  override readonly name = 'KubectlError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}
