// What a test reads of a process under /proc: the embedded runtime's containers seen from the host.
import { readdirSync, readFileSync } from 'node:fs';
import { childrenOf, readProcStat } from '../../src/runtime/proc.js';
import { SPARE_MARK } from '../../src/runtime/spawner/spare-shells.js';

/** The set-up shell of container `id`: not one of the forks it runs its applets in (pivot_root, umount), which have its name and arguments until they end. */
export function setUpShellOf(id: string): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'busybox-kinit') continue;
      if (!readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`/${id}/mounts`)) continue;
      const parent = readProcStat(Number(entry))?.ppid;
      if (parent !== undefined && readFileSync(`/proc/${parent}/comm`, 'utf8').trim() !== 'busybox-kinit') return Number(entry);
    } catch {
      // gone as it was read
    }
  }
  return undefined;
}

/** A process's state letter (R, S, Z...), or undefined once it is gone. */
export function readProcState(pid: number): string | undefined {
  try {
    return /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** The mount points of process `pid`'s mount namespace. */
export function mountPointsOf(pid: number | string): string[] {
  return readFileSync(`/proc/${pid}/mountinfo`, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' ')[4]);
}

/** The spare shells waiting in the spawner whose pid is SPAWNER. */
export function sparesOf(spawner: number): number[] {
  return childrenOf(spawner).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').includes(SPARE_MARK);
    } catch {
      return false; // gone as it was read
    }
  });
}
