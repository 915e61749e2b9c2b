import { status } from '@grpc/grpc-js';
import { spawn } from 'node:child_process';
import { execErrorMessage, findExecutable } from './executables.js';
import { RuntimeError, unknown } from './errors.js';
import { childrenOf, exitCodeOf, readProcStat, signalGroup } from './proc.js';

export interface ExecResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

/** How long each level of a timed-out command's processes is given to be reaped by its parent. */
const REAP_WAIT_MS = 100;

/**
 * Kills what `pid` started, the deepest first, giving each level a moment to
 * be reaped by its parent, then `pid`'s group. Killed all at once, a command
 * inside a container's PID namespace would lose its parent (nsenter, outside)
 * first and stay a zombie under the container's PID 1, which may never reap it.
 */
async function killReaped(pid: number): Promise<void> {
  const levels: number[][] = [];
  for (let level = [pid]; levels.length < 8;) {
    level = level.flatMap((p) => childrenOf(p));
    if (level.length === 0) break;
    levels.push(level);
  }
  for (const level of levels.reverse()) {
    for (const p of level) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    const deadline = Date.now() + REAP_WAIT_MS;
    while (level.some((p) => readProcStat(p) !== undefined) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }
  signalGroup(pid, 'SIGKILL');
}

/** Output kept per stream; beyond it ExecSync truncates rather than exhausting memory. */
const MAX_OUTPUT = 16 * 1024 * 1024 - 64 * 1024;

/**
 * Runs a command beside a container (same environment and working directory,
 * and its PID namespace when `wrapper` enters it) and collects its output. A
 * timeout kills the command's processes and answers DEADLINE_EXCEEDED; a
 * command that cannot be executed is an error, not an exit code, as with runc.
 */
export function execSync(
  argv: string[],
  env: Record<string, string>,
  cwd: string,
  timeoutSeconds: number,
  wrapper?: string[],
  /** Whether argv[0] exists where the command runs (a sandbox's root); the host by default. */
  hasProgram?: (command: string) => boolean,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    // Behind a wrapper (nsenter into the container's namespaces), a missing program would be an exit code.
    const found = hasProgram ? hasProgram(argv[0]) : findExecutable(argv[0], env.PATH ?? '', cwd) !== undefined;
    if (wrapper && !found) {
      reject(unknown(`OCI runtime exec failed: ${execErrorMessage(argv[0], Object.assign(new Error('not found'), { code: 'ENOENT' }))}`));
      return;
    }
    const command = [...(wrapper ?? []), ...argv];
    const child = spawn(command[0], command.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid === undefined) {
      child.once('error', (err: NodeJS.ErrnoException) => reject(unknown(`OCI runtime exec failed: ${execErrorMessage(argv[0], err)}`)));
      return;
    }
    const pid = child.pid;
    const out = collector();
    const err = collector();
    child.stdout!.on('data', out.add);
    child.stderr!.on('data', err.add);
    child.on('error', () => {});
    child.on('exit', () => signalGroup(pid, 'SIGKILL')); // so background children cannot hold the pipes open
    let timedOut = false;
    const timer =
      timeoutSeconds > 0
        ? setTimeout(() => {
            timedOut = true;
            void killReaped(pid);
          }, timeoutSeconds * 1000)
        : undefined;
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      signalGroup(pid, 'SIGKILL');
      if (timedOut) {
        reject(new RuntimeError(status.DEADLINE_EXCEEDED, `command ${JSON.stringify(argv)} timed out after ${timeoutSeconds}s`));
      } else {
        resolve({ stdout: out.result(), stderr: err.result(), exitCode: exitCodeOf(code, signal) });
      }
    });
  });
}

function collector() {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add: (chunk: Buffer) => {
      if (size >= MAX_OUTPUT) return;
      const piece = chunk.subarray(0, MAX_OUTPUT - size);
      chunks.push(piece);
      size += piece.length;
    },
    result: () => Buffer.concat(chunks),
  };
}
