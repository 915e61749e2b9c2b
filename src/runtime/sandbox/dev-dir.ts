// The directory that becomes a sandboxed container's /dev (a util-linux
// set-up's, in the scratch space): a file for each device its table binds
// over, pts and shm to mount on, and the usual links, as runc makes a /dev.
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEVICES } from './mount-table.js';

const LINKS: readonly (readonly [string, string])[] = [
  ['fd', '/proc/self/fd'],
  ['stdin', '/proc/self/fd/0'],
  ['stdout', '/proc/self/fd/1'],
  ['stderr', '/proc/self/fd/2'],
  ['ptmx', 'pts/ptmx'],
  ['core', '/proc/kcore'],
];

/** Makes a container's /dev at `dir`, unless it is there (a start that found no spare). */
export function devTemplate(dir: string): void {
  if (existsSync(dir)) return;
  mkdirSync(dir);
  fill(dir);
}

/**
 * Fills a spare /dev (`dir`, made) for SpareDirs, ahead of the set-up that
 * takes it: its fifteen calls showed in each set-up's CPU profile.
 */
export async function fillDev(dir: string): Promise<void> {
  fill(dir);
}

function fill(dir: string): void {
  chmodSync(dir, 0o755);
  for (const device of DEVICES) writeFileSync(join(dir, device), '', { mode: 0o644 });
  for (const sub of ['pts', 'shm']) mkdirSync(join(dir, sub), { mode: 0o755 });
  for (const [name, target] of LINKS) symlinkSync(target, join(dir, name));
}
