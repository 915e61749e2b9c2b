// A read-only copy of the host's /sys, made once per runtime in its scratch
// space, that a container that is not privileged binds recursively as its
// /sys (mount-table.ts). Binding this copy makes each start quicker than
// binding the host's /sys and remounting its cgroup mounts read-only in every
// start (bench/notes/sandboxes.md).
import { mkdirSync, writeFileSync } from 'node:fs';
import { runToEnd } from '../proc.js';
import { readonlySysTable } from './mount-table.js';

/**
 * Binds the host's /sys at `dir` (made), private, read-only with every
 * mount under it (`submounts`: the host's mount points under /sys), with
 * `mount` (mount(8)). Returns `dir`, or why it could not: containers then
 * make their /sys read-only themselves.
 */
export async function makeReadonlySys(
  dir: string,
  submounts: readonly string[],
  mount = 'mount',
): Promise<{ dir: string } | { reason: string }> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const table = `${dir}.fstab`;
  writeFileSync(table, readonlySysTable(dir, submounts));
  const ran = await runToEnd([mount, '--no-canonicalize', '-a', '-T', table]);
  if (ran.ok) return { dir };
  await runToEnd(['umount', '-l', dir]);
  return { reason: ran.reason };
}
