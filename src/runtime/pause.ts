// What a pod's namespace holder idles on: the host's sleep, started through
// a link named `pause`, so that inside the pod it shows as a pause
// container's process does (`ps` says pause; `pgrep sleep` finds nothing of
// the runtime's). The holder's shell is PID 1 and reaps what is left to it.
import { mkdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { whichSystem } from './executables.js';

/**
 * The shell script of a holder: `$1` is the pause program; it waits, reaping,
 * for ever, or until its pause program is gone (its runtime's directory was
 * deleted), rather than start a missing program again and again.
 */
export const HOLDER_LOOP = 'while [ -x "$1" ]; do "$1" 2147483647 & wait; done';

/**
 * HOLDER_LOOP for a pause program that is a static busybox by a link named
 * pause: busybox runs the applet that its argv[0] names, while the process
 * is called by the name it was started by, as with the host's sleep.
 */
export const STATIC_HOLDER_LOOP = 'while [ -x "$1" ]; do (exec -a sleep "$1" 2147483647) & wait; done';

/**
 * What a pod's holder says before its loop, once its namespaces are made
 * (and its hostname written): a line on fd 3, which it then closes, for
 * the runtime's detachHere, so that its containers need not look for it
 * under /proc. Nothing where fd 3 is not open.
 */
export const HOLDER_READY = '{ { echo >&3; } 2>/dev/null; exec 3>&-; }';

/** Makes (once) `dir`/pause, a link to the host's sleep; falls back to sleep itself where the link cannot be made. */
export function pauseProgram(dir: string): string {
  const sleep = whichSystem('sleep') ?? 'sleep';
  return programLink(dir, 'pause', sleep) ?? sleep;
}

/**
 * Makes (once) `dir`/`name`, a link to `program`, so that what runs through
 * it is called `name` (a process's comm is the name it was started by);
 * undefined where the link cannot be made.
 */
export function programLink(dir: string, name: string, program: string): string | undefined {
  const link = join(dir, name);
  try {
    if (readlinkSync(link) === program) return link;
  } catch {
    // not there yet
  }
  try {
    mkdirSync(dir, { recursive: true });
    rmSync(link, { force: true });
    symlinkSync(program, link);
    return link;
  } catch {
    return undefined;
  }
}
