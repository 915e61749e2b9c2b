import { existsSync } from 'node:fs';
import { rootPaths } from '../util/paths.js';
import { isRuntimeServe, readPid } from '../util/pid-file.js';
import { UserError } from '../util/user-error.js';

/** What stopping the embedded runtime found: none running, a stale pid file, or the pid it stopped. */
export type RuntimeStopResult = { stopped: number } | { none: string };

/**
 * Stops the embedded runtime under `rootDir` (SIGTERM: it stops its
 * containers, unmounts what it mounted, and removes its socket), waiting up
 * to `timeoutMs`; a runtime that does not exit in time is an error naming
 * the pid to kill.
 */
export async function stopEmbeddedRuntime(rootDir: string, timeoutMs: number): Promise<RuntimeStopResult> {
  const paths = rootPaths(rootDir);
  const pid = readPid(paths.runtimePidFile);
  if (pid === undefined) return { none: `no embedded runtime is running under ${paths.root}` };
  if (!isRuntimeServe(pid))
    return { none: `no embedded runtime is running under ${paths.root} (stale pid file: ${pid} is another program)` };
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return { none: `no embedded runtime is running under ${paths.root} (stale pid ${pid})` };
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid) && !existsSync(paths.runtimeSocket)) return { stopped: pid };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new UserError(
    'runtimeUnavailable',
    `the embedded runtime (pid ${pid}) did not exit within ${Math.round(timeoutMs / 1000)}s`,
    `kill -9 ${pid}`,
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
