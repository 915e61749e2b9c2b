// Finding the programs to run, and runc's words when one cannot be run.
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** The system's directories, where the runtime looks for its helpers (nsenter, bwrap, sleep ...) whatever PATH it got. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Where one of the system's programs is. */
export function whichSystem(name: string): string | undefined {
  return findExecutable(name, SYSTEM_PATH, '/');
}

/** Where a command would be found: a path as given, or a name looked up in PATH, executable. */
export function findExecutable(command: string, path: string, cwd: string): string | undefined {
  const candidates = command.includes('/')
    ? [isAbsolute(command) ? command : join(cwd, command)]
    : path
        .split(':')
        .filter(Boolean)
        .map((dir) => join(dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Why a working directory cannot be used, or undefined when it can. */
export function checkDirectory(path: string): string | undefined {
  try {
    return statSync(path).isDirectory() ? undefined : 'not a directory';
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : (err as Error).message;
  }
}

/** runc's words for a container log it cannot open. */
export function logErrorMessage(path: string, err: Error): string {
  return `failed to open container log ${path}: ${err.message}`;
}

/** runc's words for a program it cannot execute. */
export function execErrorMessage(file: string, err: NodeJS.ErrnoException): string {
  if (err.code === 'ENOENT') return `exec: "${file}": executable file not found in $PATH`;
  if (err.code === 'EACCES') return `exec: "${file}": permission denied`;
  return `exec: "${file}": ${err.message}`;
}
