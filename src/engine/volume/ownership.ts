import { chmodSync, lchownSync, lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** The group bits a writable volume gets (the kubelet's rwMask). */
const RW_MASK = 0o660;
/** The group bits a read-only volume gets (roMask): configMap, secret, downwardAPI, projected. */
const RO_MASK = 0o440;
/** Directories also get the search bits (execMask) and setgid, so new files inherit the group. */
const EXEC_MASK = 0o110;
const SETGID = 0o2000;

/**
 * The kubelet's SetVolumeOwnership (pkg/volume/volume_linux.go): every file
 * and directory of the volume, deepest first, gets group `fsGroup`; files
 * keep their mode plus the group read (and, writable, write) bits,
 * directories get the search bits and setgid too; symlinks are chowned but
 * never chmodded (that would change their target). With the policy
 * `OnRootMismatch` nothing is done when the root already has the group and
 * the bits. Errors on single paths are the kubelet's log lines, not failures.
 */
export function setVolumeOwnership(dir: string, fsGroup: number | undefined, readOnly: boolean, policy?: string): void {
  if (fsGroup === undefined) return;
  if (policy === 'OnRootMismatch' && !requiresPermissionChange(dir, fsGroup, readOnly)) return;
  walkDeep(dir, (path, stats) => changeFilePermission(path, fsGroup, readOnly, stats));
}

function changeFilePermission(path: string, fsGroup: number, readOnly: boolean, stats: Stats): void {
  try {
    lchownSync(path, -1, fsGroup);
  } catch {
    // The kubelet logs "Lchown failed" and goes on.
  }
  if (stats.isSymbolicLink()) return;
  let mask = readOnly ? RO_MASK : RW_MASK;
  if (stats.isDirectory()) mask |= SETGID | EXEC_MASK;
  try {
    chmodSync(path, (stats.mode & 0o7777) | mask);
  } catch {
    // "chmod failed", logged and ignored.
  }
}

/** Whether the root lacks the group, the bits or setgid (OnRootMismatch's test). */
export function requiresPermissionChange(dir: string, fsGroup: number, readOnly: boolean): boolean {
  let stats: Stats;
  try {
    stats = statSync(dir);
  } catch {
    return true;
  }
  if (stats.gid !== fsGroup || !stats.isDirectory()) return true;
  const wanted = (readOnly ? RO_MASK : RW_MASK) | EXEC_MASK;
  return (stats.mode & wanted) !== wanted || (stats.mode & SETGID) === 0;
}

/** Visits every path under root, a directory's entries before the directory itself, never following symlinks. */
function walkDeep(root: string, visit: (path: string, stats: Stats) => void): void {
  let stats: Stats;
  try {
    stats = lstatSync(root);
  } catch {
    return;
  }
  if (stats.isDirectory()) for (const name of readdirSync(root)) walkDeep(join(root, name), visit);
  visit(root, stats);
}
