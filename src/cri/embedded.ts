import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cliEntry } from '../util/install-paths.js';
import { rootPaths } from '../util/paths.js';
import { isRuntimeServe, readPid } from '../util/pid-file.js';
import { UserError } from '../util/user-error.js';
import { CriClient } from './client.js';
import { spawnRuntime, takeEarlyStart } from './runtime-spawn.js';

export interface EnsureRuntimeOptions {
  /** How long to wait for a freshly started runtime to answer; a loaded machine can take tens of seconds. */
  startTimeoutMs?: number;
}

/**
 * Returns the endpoint of the embedded runtime under `rootDir`, starting it
 * first (detached, as its own process, so its containers outlive the command)
 * when nothing answers on its socket.
 */
export async function ensureEmbeddedRuntime(rootDir: string, options: EnsureRuntimeOptions = {}): Promise<string> {
  const client = await connectEmbeddedRuntime(rootDir, options);
  client.close();
  return client.endpoint;
}

/**
 * A client of the embedded runtime under `rootDir`, which has answered
 * once; the runtime is started first when nothing answers on its socket,
 * unless the boot file already started it for this command (runtime-spawn.ts).
 */
export async function connectEmbeddedRuntime(rootDir: string, options: EnsureRuntimeOptions = {}): Promise<CriClient> {
  const paths = rootPaths(rootDir);
  const endpoint = `unix://${paths.runtimeSocket}`;
  const early = takeEarlyStart(rootDir);
  if (!early) {
    const running = await reach(endpoint, 1000);
    if (running) return running;
  }
  const child = early ?? spawnRuntime(spawn, cliEntry(), rootDir);
  const deadline = Date.now() + (options.startTimeoutMs ?? 60_000);
  let exitCode: number | null = null;
  while (Date.now() < deadline) {
    // A child that exits because another runtime holds the pid file lost a race with a
    // command started at the same moment: that runtime is the one to wait for.
    exitCode = child.exitCode();
    if (exitCode !== null && !startedElsewhere(paths.runtimePidFile, child.pid)) break;
    // Its socket appears once it listens: looked for often (a stat), and the runtime asked only then.
    if (existsSync(paths.runtimeSocket)) {
      const started = await reach(endpoint, 500);
      if (started) return started;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new UserError(
    'runtimeUnavailable',
    `the embedded runtime did not start on ${paths.runtimeSocket}${exitCode !== null ? ` (it exited with code ${exitCode})` : ''}`,
    `see ${paths.runtimeLog}:\n${tail(paths.runtimeLog)}`,
  );
}

function startedElsewhere(pidFile: string, ours: number | undefined): boolean {
  const pid = readPid(pidFile);
  return pid !== undefined && pid !== ours && isRuntimeServe(pid);
}

/** A client of ENDPOINT once the runtime there answered within TIMEOUTMS, else undefined. */
async function reach(endpoint: string, timeoutMs: number): Promise<CriClient | undefined> {
  const client = new CriClient(endpoint);
  try {
    await client.version(timeoutMs);
    return client;
  } catch {
    client.close();
    return undefined;
  }
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-5).join('\n');
  } catch {
    return '(no log)';
  }
}
