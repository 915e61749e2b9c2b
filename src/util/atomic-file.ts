import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a file whole or not at all: the data goes to a temp file beside it,
 * which is then renamed over it, so a crash or a full disk never leaves half
 * a file that a later reader would take for the real one. On failure the temp
 * file is removed (it only takes space) and the error names the path, keeping
 * the system error's code (ENOSPC, EACCES, EROFS ...).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): void {
  const tmp = `${path}.tmp`;
  try {
    writeFileSync(tmp, data, mode === undefined ? undefined : { mode });
    renameSync(tmp, path);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // not a file we made
    }
    throw fileError(`writing ${path}`, err);
  }
}

/**
 * Makes a directory and its parents. The last part is made on its own: a
 * recursive mkdir reports a read-only parent as ENOENT, which sends the reader
 * looking for a missing directory instead of the read-only one.
 */
export function makeDirectory(dir: string, mode = 0o755): void {
  try {
    mkdirSync(dirname(dir), { recursive: true });
    mkdirSync(dir, { mode });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw fileError(`mkdir ${dir}`, err);
  }
}

/** An fs error with what was being done in front of it, and its code kept. */
export function fileError(doing: string, err: unknown): Error {
  const cause = err as NodeJS.ErrnoException;
  const error = new Error(`${doing}: ${describeFsError(cause)}`, { cause }) as NodeJS.ErrnoException;
  if (cause.code) error.code = cause.code;
  return error;
}

/** Node's fs messages end with the call and the path (`ENOSPC: no space left on device, write`); keep the reason. */
function describeFsError(err: NodeJS.ErrnoException): string {
  const message = err.message ?? String(err);
  const comma = message.indexOf(', ');
  return err.code && message.startsWith(`${err.code}:`) && comma > 0 ? message.slice(0, comma) : message;
}
