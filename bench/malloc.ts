// What glibc's malloc holds in a process, read through gdb (Debian's gdb and
// libc6-dbg, for mallinfo2's type): the bytes the program has allocated and
// not freed, against the free bytes malloc keeps. A leak grows the first; a
// churn's peak leaves the second behind (glibc returns only the top of its
// heap to the kernel). Without gdb, or with another allocator preloaded, the
// bench reads none of it.
import { execFileSync } from 'node:child_process';

export interface MallocInfo {
  /** Allocated and not freed: uordblks (in the arenas) + hblkhd (mmapped chunks). */
  inUseMiB: number;
  /** Free in the arenas, kept by malloc: fordblks. */
  freeMiB: number;
}

const MiB = 2 ** 20;

/** mallinfo2() of a glibc process, called in it by gdb (which stops it for a few hundred ms); undefined when that cannot be done here. */
export function mallocInfo(pid: number): MallocInfo | undefined {
  const out = gdb(pid, 'p mallinfo2()');
  const field = (name: string) => Number(new RegExp(`\\b${name} = (\\d+)`).exec(out ?? '')?.[1]);
  const [uordblks, hblkhd, fordblks] = [field('uordblks'), field('hblkhd'), field('fordblks')];
  if ([uordblks, hblkhd, fordblks].some(Number.isNaN)) return undefined;
  return { inUseMiB: (uordblks + hblkhd) / MiB, freeMiB: fordblks / MiB };
}

/** Has glibc give the kernel every free page it keeps (malloc_trim(0)); false when that cannot be done here. */
export function trimMalloc(pid: number): boolean {
  return /^\$1 = [01]$/m.test(gdb(pid, 'p (int) malloc_trim(0)') ?? '');
}

function gdb(pid: number, command: string): string | undefined {
  if (process.env.KNODE_BENCH_PRELOAD) return undefined;
  try {
    return execFileSync('gdb', ['-p', String(pid), '-batch', '-nx', '-q', '-ex', command], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 60_000,
    });
  } catch {
    return undefined;
  }
}
