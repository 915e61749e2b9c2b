// What a directory tree takes on disk, read in-process (no `du` child every
// few seconds): the soak bench samples its node's root dir with it.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Bytes the tree at `root` takes on disk, as `du -sx --block-size=1` counts
 * them: allocated blocks (st_blocks × 512), each inode once (hard links, and
 * a bind mount of a directory of the same file system), never crossing into
 * another file system (the containers' overlays and proc). Entries removed
 * while the walk runs (a log rotated, a layer removed) are skipped; 0 when
 * `root` itself is gone. `within` also gives the part of the total under each
 * of these directories, from the same walk, so the parts never add up to
 * more than the total.
 */
export function diskUsage(root: string, within: readonly string[] = []): { total: number; parts: number[] } {
  const top = lstatSync(root, { throwIfNoEntry: false });
  const parts = within.map(() => 0);
  if (!top) return { total: 0, parts };
  const seen = new Set<string>();
  let total = 0;
  const visit = (path: string, part: number) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st || st.dev !== top.dev) return;
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    const here = part >= 0 ? part : within.indexOf(path);
    total += st.blocks * 512;
    if (here >= 0) parts[here] += st.blocks * 512;
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return; // removed, or unreadable mid-walk
    }
    for (const name of names) visit(join(path, name), here);
  };
  visit(root, -1);
  return { total, parts };
}
