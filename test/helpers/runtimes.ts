import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { CriClient } from '../../src/cri/client.js';

export const repoRoot = join(import.meta.dirname, '../..');
export const cliEntry = join(repoRoot, 'bin/run.js');

/**
 * Polls `check` until it returns a value (not undefined/false) or the deadline
 * passes; WHAT names what it waits for (a function: worded at the deadline).
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string | (() => string),
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface EmbeddedRuntimeProcess {
  endpoint: string;
  rootDir: string;
  child: ChildProcess;
  /** SIGTERM and wait: the runtime stops its containers before exiting. */
  stop(): Promise<void>;
  /** SIGKILL: the runtime dies without cleaning up. */
  kill(): Promise<void>;
}

/** A real embedded runtime: `bin/run.js runtime serve` as a child process with its own root dir, run by `wrapper` when one is given. */
export async function startEmbeddedRuntime(
  rootDir = mkdtempSync(join(tmpdir(), 'knode-rt-')),
  args: string[] = [],
  wrapper: string[] = [],
): Promise<EmbeddedRuntimeProcess> {
  // The runtime's own log stays in its root dir (runtime.log), out of the test report.
  const log = openSync(join(rootDir, 'runtime.log'), 'a');
  const argv = [process.execPath, cliEntry, 'runtime', 'serve', '--root-dir', rootDir, '--shutdown-grace-period', '1', ...args];
  // A wrapper (e.g. unshare) that execs the runtime: the child's pid is the runtime's.
  const [file, ...rest] = [...wrapper, ...argv];
  const child = spawn(file, rest, { stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const endpoint = `unix://${join(rootDir, 'run', 'runtime.sock')}`;
  await eventually(async () => {
    const client = new CriClient(endpoint, { requestTimeoutMs: 500 });
    try {
      return (await client.version()).runtimeName;
    } finally {
      client.close();
    }
  }, 'the embedded runtime to answer');
  return {
    endpoint,
    rootDir,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface RuntimeUnderTest {
  /** As test titles name it: `embedded`, `containerd 1.6`, `containerd 2`. */
  name: string;
  /** The embedded runtime (host processes) or a containerd (isolated containers). */
  kind: 'embedded' | 'containerd';
  /** Whether it streams GetContainerEvents (containerd 1.6 does not). */
  events: boolean;
  /** Starts (or finds) the runtime; returns its endpoint and a cleanup. */
  start(): Promise<{ endpoint: string; cleanup(): Promise<void> }>;
}

/**
 * The runtimes every CRI-level suite runs against: the embedded runtime (a
 * fresh process per suite) and the real containerds from the global setup.
 */
export function runtimesUnderTest(): RuntimeUnderTest[] {
  const list: RuntimeUnderTest[] = [
    {
      name: 'embedded',
      kind: 'embedded',
      events: true,
      start: async () => {
        const rt = await startEmbeddedRuntime();
        return {
          endpoint: rt.endpoint,
          cleanup: async () => {
            await rt.stop();
            rmSync(rt.rootDir, { recursive: true, force: true });
          },
        };
      },
    },
  ];
  const running = (endpoint: string) => async () => ({ endpoint, cleanup: async () => {} });
  const containerd = inject('containerdEndpoint');
  if (containerd) list.push({ name: 'containerd 1.6', kind: 'containerd', events: false, start: running(containerd) });
  const containerd2 = inject('containerd2Endpoint');
  if (containerd2) list.push({ name: 'containerd 2', kind: 'containerd', events: true, start: running(containerd2) });
  return list;
}
