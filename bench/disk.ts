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
 * `root` itself is gone.
 */
export function diskUsage(root: string): number {
  const top = lstatSync(root, { throwIfNoEntry: false, bigint: false });
  if (!top) return 0;
  const seen = new Set<string>();
  let bytes = 0;
  const visit = (path: string) => {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st || st.dev !== top.dev) return;
    const key = `${st.dev}:${st.ino}`;
    if (seen.has(key)) return;
    seen.add(key);
    bytes += st.blocks * 512;
    if (!st.isDirectory()) return;
    let names: string[];
    try {
      names = readdirSync(path);
    } catch {
      return; // removed, or unreadable mid-walk
    }
    for (const name of names) visit(join(path, name));
  };
  visit(root);
  return bytes;
}
