// The host's mount table as /proc/self/mountinfo gives it: where each mount
// is and how it propagates, which a container's launch needs to know (is a
// Bidirectional mount's source shared with the host? which mount holds the
// container's root? what is mounted under a path bound read-only?), and
// what a pod's directory still holds mounted when the pod goes.
import { readFileSync } from 'node:fs';
import { posix } from 'node:path';

export interface MountEntry {
  /** Where it is mounted, its octal escapes undone. */
  mountPoint: string;
  /** Its peer group when it is shared (`shared:N`). */
  shared?: number;
  /** The peer group it receives from when it is a slave (`master:N`). */
  master?: number;
}

/** Parses mountinfo's text (proc(5)); lines that do not parse are passed over. */
export function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const dash = fields.indexOf('-', 6);
    if (fields.length < 7 || dash < 0) continue;
    const entry: MountEntry = { mountPoint: unescape(fields[4]) };
    for (const tag of fields.slice(6, dash)) {
      const [name, value] = tag.split(':');
      if (name === 'shared') entry.shared = Number(value);
      else if (name === 'master') entry.master = Number(value);
    }
    entries.push(entry);
  }
  return entries;
}

/** This process's mount table (the runtime's and knode's mount namespace is the host's). */
export function hostMounts(): MountEntry[] {
  return parseMountinfo(readFileSync('/proc/self/mountinfo', 'utf8'));
}

/** The mount `path` is on: the last mounted of those whose mount point holds it. */
export function mountOf(mounts: readonly MountEntry[], path: string): MountEntry | undefined {
  const clean = posix.resolve('/', path);
  let found: MountEntry | undefined;
  for (const m of mounts) if (within(clean, m.mountPoint) && (!found || m.mountPoint.length >= found.mountPoint.length)) found = m;
  return found;
}

/** The mount points strictly under `dir`, parents first (the table's order). */
export function mountsUnder(mounts: readonly MountEntry[], dir: string): string[] {
  const clean = posix.resolve('/', dir);
  return mounts.map((m) => m.mountPoint).filter((p) => p !== clean && within(p, clean));
}

function within(path: string, dir: string): boolean {
  return dir === '/' || path === dir || path.startsWith(`${dir}/`);
}

/** mountinfo writes space, tab, newline and backslash as \040, \011, \012 and \134. */
function unescape(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
