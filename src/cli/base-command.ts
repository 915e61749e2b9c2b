import { Command, Errors, Flags, type Interfaces } from '@oclif/core';
import { CriClient } from '../cri/client.js';
import { connectEmbeddedRuntime } from '../cri/embedded.js';
import { globalSettingFlags } from './kubelet-flags.js';
import { defaultRootDir } from '../util/paths.js';
import { ExitCode, KubectlError, UserError } from '../util/user-error.js';
import { onFirstStopSignal, type StopSignal } from './signals.js';

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>;

/** The exit code of a waiting command that a signal interrupted. */
const SIGNAL_EXIT_CODES: Record<StopSignal, number> = { SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated };

/**
 * What every knode command shares: the root dir, the runtime endpoint, and
 * one mapping from errors and signals to messages and exit codes.
 */
export abstract class BaseCommand extends Command {
  /** The signal that interrupted the command, once one did (see interruptSignal). */
  private interruptedBy: StopSignal | undefined;
  private stopListening: (() => void) | undefined;

  static override baseFlags = {
    ...globalSettingFlags,
    verbose: Flags.boolean({ description: 'Show stack traces of unexpected errors', helpGroup: 'GLOBAL', default: false }),
    // Read by src/cli/boot.ts before anything draws (as NO_COLOR is); declared here so every command accepts it.
    'no-color': Flags.boolean({
      description: 'No colours in tables, task lists and the live view (also: NO_COLOR=1)',
      helpGroup: 'GLOBAL',
      default: false,
    }),
  };

  protected rootDir(flags: { 'root-dir'?: string }): string {
    return flags['root-dir'] ?? defaultRootDir();
  }

  /**
   * A client for the runtime the flags name; without --runtime-endpoint, the
   * embedded runtime under the root dir, started when nothing answers.
   */
  protected async connectRuntime(flags: { 'root-dir'?: string; 'runtime-endpoint'?: string }): Promise<CriClient> {
    const endpoint = flags['runtime-endpoint'];
    if (!endpoint) return connectEmbeddedRuntime(this.rootDir(flags));
    const client = new CriClient(endpoint);
    try {
      await client.version();
    } catch (err) {
      client.close();
      throw new UserError(
        'runtimeUnavailable',
        `cannot reach the container runtime at ${endpoint}: ${(err as Error).message}`,
        'is the runtime running? Leave out --runtime-endpoint to use the embedded runtime.',
      );
    }
    return client;
  }

  /**
   * Aborts on the first SIGINT or SIGTERM, for a command that waits (apply,
   * logs -f, status --watch, pleg). The command ends as it would, then
   * exits 130 (SIGINT) or 143 (SIGTERM) whatever its own outcome: a script
   * must tell "interrupted" from "done". A second signal ends it at once.
   */
  protected interruptSignal(): AbortSignal {
    const abort = new AbortController();
    this.stopListening?.();
    this.stopListening = onFirstStopSignal((signal) => {
      this.interruptedBy = signal;
      abort.abort();
    });
    return abort.signal;
  }

  /**
   * Tells ERR on stderr (kubectl's words, a UserError and its hint, or an
   * unexpected error, its stack with --verbose) and gives its exit code;
   * undefined for oclif's own errors, which oclif tells.
   */
  protected tell(err: unknown): number | undefined {
    if (err instanceof KubectlError) {
      this.logToStderr(err.message);
      if (err.hint) this.logToStderr(`Hint: ${err.hint}`);
      return 1;
    }
    if (err instanceof UserError) {
      this.logToStderr(`Error: ${err.message}`);
      if (err.hint) this.logToStderr(`Hint: ${err.hint}`);
      return ExitCode[err.code];
    }
    if (err instanceof Errors.CLIError || err instanceof Errors.ExitError || !(err instanceof Error)) return undefined;
    const verbose = this.argv.includes('--verbose');
    this.logToStderr(`Error: ${verbose ? (err.stack ?? err.message) : err.message}`);
    if (!verbose) this.logToStderr('Hint: run again with --verbose for the stack trace');
    return 1;
  }

  protected override async finally(err: Error | undefined): Promise<unknown> {
    this.stopListening?.();
    const result = await super.finally(err);
    if (this.interruptedBy) this.exit(SIGNAL_EXIT_CODES[this.interruptedBy]);
    return result;
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    const code = this.tell(err);
    if (code === undefined) throw err;
    this.exit(code);
  }
}
