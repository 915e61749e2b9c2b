import { readFileSync, rmSync, writeFileSync } from 'node:fs';

/** True when `pid` is a live `knode runtime serve` (not a stale pid reused by another program). */
export function isRuntimeServe(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes('runtime') && argv.includes('serve');
  } catch {
    return false;
  }
}

/** The pid a pid file names, or undefined when there is none or it is not a number. */
export function readPid(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Claims `path` for this process: the file is created only when it does not
 * exist, so of two processes starting at once exactly one wins. A file left
 * by a process that is gone (or is now another program) is replaced. Returns
 * the pid of the live holder when the claim fails.
 */
export function claimPidFile(path: string, isHolder: (pid: number) => boolean): { held: true } | { held: false; by: number } {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return { held: true };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const pid = readPid(path);
    if (pid !== undefined && pid !== process.pid && isHolder(pid)) return { held: false, by: pid };
    rmSync(path, { force: true });
  }
  return { held: false, by: readPid(path) ?? 0 };
}
