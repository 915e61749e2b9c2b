import { Flags } from '@oclif/core';
import type { CriClient } from '../cri/client.js';
import type { RemoteCommandIo, RemoteOutcome, TerminalSize } from '../cri/streaming/remote-command.js';
import { BaseCommand } from './base-command.js';
import { NodeClient } from './node-client.js';
import { findRunningPod, type RunningPod } from './pod-target.js';
import { KubectlError } from '../util/user-error.js';
import { resolvePod } from './workload-target.js';

export const namespaceFlag = Flags.string({ char: 'n', description: 'The namespace of the pod (default: default; or give NAMESPACE/POD)' });

/**
 * What exec, attach and port-forward share: the pod found by name, or picked
 * from a workload's (`deploy/web`), through the running node when there is
 * one, else in the runtime alone; errors told
 * in kubectl's words with exit 1, and the local terminal joined to a remote
 * command with kubectl's exit codes.
 */
export abstract class StreamingCommand extends BaseCommand {
  protected async withPod<T>(
    flags: { namespace?: string; 'root-dir'?: string; 'runtime-endpoint'?: string },
    podArg: string,
    use: (client: CriClient, found: RunningPod) => Promise<T>,
  ): Promise<T> {
    const rootDir = this.rootDir(flags);
    const node = await NodeClient.find(rootDir);
    const { namespace, name, pod } = await resolvePod(podArg, flags.namespace, rootDir, node, 'attach');
    const client = await this.connectRuntime(flags);
    try {
      return await use(client, await findRunningPod(client, namespace, name, (phase) => this.completedPod(phase), node, pod));
    } finally {
      client.close();
    }
  }

  /** kubectl's refusal of a pod that has completed (exec's and cp's; attach and port-forward have their own). */
  protected completedPod(phase: string): string {
    return `error: cannot exec into a container in a completed pod; current phase is ${phase}`;
  }

  /** The terminal's size now and as it changes (SIGWINCH), for a TTY. */
  protected followSize(send: (size: TerminalSize) => void): () => void {
    const out = process.stdout;
    const tell = () => {
      if (out.columns && out.rows) send({ width: out.columns, height: out.rows });
    };
    tell();
    out.on('resize', tell);
    return () => out.off('resize', tell);
  }

  /** Joins this process's stdio to the remote command (raw mode for a TTY) and ends with its exit code, as kubectl does. */
  protected async runJoined(run: (io: RemoteCommandIo) => Promise<RemoteOutcome>, stdin: boolean, tty: boolean): Promise<void> {
    const raw = tty && stdin && process.stdin.isTTY;
    if (raw) process.stdin.setRawMode(true);
    let outcome: RemoteOutcome;
    try {
      outcome = await run({
        stdin: stdin ? process.stdin : undefined,
        stdout: process.stdout,
        stderr: process.stderr,
        tty,
        followSize: tty && process.stdout.isTTY ? (send) => this.followSize(send) : undefined,
      });
    } finally {
      if (raw) process.stdin.setRawMode(false);
      if (stdin) process.stdin.destroy();
    }
    if ('error' in outcome) throw new KubectlError(`error: ${outcome.error}`);
    if (outcome.exitCode !== 0) {
      this.logToStderr(`command terminated with exit code ${outcome.exitCode}`);
      this.exit(outcome.exitCode);
    }
  }

  /** Whether to ask for a TTY: -t, unless stdin is asked for and is no terminal (kubectl's warning then). */
  protected useTty(tty: boolean, stdin: boolean): boolean {
    if (!tty) return false;
    if (stdin && !process.stdin.isTTY) {
      this.logToStderr('Unable to use a TTY - input is not a terminal or the right kind of file');
      return false;
    }
    return true;
  }
}
