// Starting the embedded runtime (`knode runtime serve`) as a process of its
// own. The boot file (src/cli/boot.ts) loads this module for every command,
// so it imports nothing heavy: the caller hands it node:child_process's spawn,
// which takes a short command milliseconds to load.
import type { spawn as Spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { rootPaths } from '../util/paths.js';

/** A runtime process this command started: its pid, and its exit code once it exited. */
export interface RuntimeStart {
  readonly pid: number | undefined;
  exitCode(): number | null;
}

/** The runtimes started before their command asked (startRuntimeEarly), by root dir; shared by the process's bundles. */
const EARLY = Symbol.for('knode.earlyRuntimeStarts');

function earlyStarts(): Map<string, RuntimeStart> {
  const global = globalThis as Record<symbol, Map<string, RuntimeStart> | undefined>;
  return (global[EARLY] ??= new Map());
}

/**
 * Spawns the runtime of ROOTDIR with the CLI entry CLI, detached, so that
 * its containers outlive the command; its output goes to the runtime's log.
 */
export function spawnRuntime(spawn: typeof Spawn, cli: string, rootDir: string): RuntimeStart {
  const paths = rootPaths(rootDir);
  mkdirSync(paths.logs, { recursive: true });
  const logFd = openSync(paths.runtimeLog, 'a');
  const child = spawn(process.execPath, [cli, 'runtime', 'serve', '--root-dir', paths.root], {
    detached: true,
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  let exitCode: number | null = null;
  child.once('exit', (code) => (exitCode = code ?? 1));
  child.unref();
  return { pid: child.pid, exitCode: () => exitCode };
}

/**
 * Starts the runtime of ROOTDIR now, unless its socket is there, for a
 * command that will connect to it once its own code has loaded: the two
 * starts overlap instead of following each other. The command takes it
 * with takeEarlyStart. Any failure is left for the command to meet and
 * report.
 */
export function startRuntimeEarly(spawn: typeof Spawn, cli: string, rootDir: string): void {
  try {
    const paths = rootPaths(rootDir);
    if (existsSync(paths.runtimeSocket)) return;
    earlyStarts().set(paths.root, spawnRuntime(spawn, cli, rootDir));
  } catch {
    // The command starts it again, and says why it cannot.
  }
}

/** The runtime that startRuntimeEarly started for ROOTDIR, if any; taken once. */
export function takeEarlyStart(rootDir: string): RuntimeStart | undefined {
  const root = rootPaths(rootDir).root;
  const start = earlyStarts().get(root);
  earlyStarts().delete(root);
  return start;
}
