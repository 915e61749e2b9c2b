import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Bytes and inodes under a directory, as `du` counts them (allocated blocks,
 * symlinks not followed, each hard link once). Stops counting at `limit`
 * entries, so a huge tree cannot stall the caller.
 */
export function diskUsage(dir: string, limit = 100_000): { usedBytes: number; inodesUsed: number } {
  let usedBytes = 0;
  let inodesUsed = 0;
  const seen = new Set<string>();
  const stack = [dir];
  while (stack.length > 0 && inodesUsed < limit) {
    const path = stack.pop()!;
    let st;
    try {
      st = lstatSync(path);
    } catch {
      continue;
    }
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inodesUsed++;
    usedBytes += st.blocks * 512;
    if (st.isDirectory()) {
      try {
        for (const entry of readdirSync(path)) stack.push(join(path, entry));
      } catch {
        // unreadable: counted itself, not its contents
      }
    }
  }
  return { usedBytes, inodesUsed };
}
