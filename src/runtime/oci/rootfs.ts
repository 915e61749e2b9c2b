// Stacks unpacked layers into one directory by copying, lowest first, with
// each layer's whiteouts and opaque directories applied to what is below it:
// the result is the image's filesystem as overlayfs would show it. Nothing
// is ever followed through a symlink, so a lower layer's symlink cannot
// redirect an upper layer's files out of the target.
import {
  chmodSync,
  copyFileSync,
  constants,
  lchownSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  chownSync,
  utimesSync,
  type Stats,
} from 'node:fs';
import { join } from 'node:path';

export interface StackedLayer {
  /** The layer's files. */
  fs: string;
  whiteouts: string[];
  opaque: string[];
}

/** Copies `layers` (lowest first) into `target`, applying whiteouts. */
export function composeRootfs(layers: StackedLayer[], target: string): void {
  mkdirSync(target, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  for (const layer of layers) {
    for (const dir of layer.opaque) {
      const path = dir === '' ? target : pathBelow(target, dir);
      if (path && lstatOrUndefined(path)?.isDirectory())
        for (const child of readdirSync(path)) rmSync(join(path, child), { recursive: true, force: true });
    }
    for (const whiteout of layer.whiteouts) {
      const path = pathBelow(target, whiteout);
      if (path) rmSync(path, { recursive: true, force: true });
    }
    copyTree(layer.fs, target, asRoot);
  }
}

/** `rel` under root when every directory on the way is a real one; undefined otherwise (nothing there to touch). */
function pathBelow(root: string, rel: string): string | undefined {
  const parts = rel.split('/').filter(Boolean);
  let current = root;
  for (const part of parts.slice(0, -1)) {
    current = join(current, part);
    if (!lstatOrUndefined(current)?.isDirectory()) return undefined;
  }
  return parts.length ? join(current, parts[parts.length - 1]) : undefined;
}

function copyTree(from: string, to: string, asRoot: boolean): void {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    const dest = join(to, name);
    const stat = lstatSync(source);
    const existing = lstatOrUndefined(dest);
    if (stat.isDirectory()) {
      if (!existing?.isDirectory()) {
        if (existing) rmSync(dest, { force: true });
        mkdirSync(dest, { mode: 0o700 });
      }
      copyTree(source, dest, asRoot);
      copyMetadata(dest, stat, asRoot);
      continue;
    }
    if (existing) rmSync(dest, { recursive: true, force: true });
    if (stat.isSymbolicLink()) {
      symlinkSync(readlinkSync(source), dest);
      if (asRoot) lchownSync(dest, stat.uid, stat.gid);
      lutimesSync(dest, stat.atime, stat.mtime);
    } else if (stat.isFile()) {
      // A reflink where the file system can (btrfs, xfs), a copy elsewhere: containers write to their own files.
      copyFileSync(source, dest, constants.COPYFILE_FICLONE);
      copyMetadata(dest, stat, asRoot);
    }
  }
}

function copyMetadata(path: string, stat: Stats, asRoot: boolean): void {
  if (asRoot) chownSync(path, stat.uid, stat.gid);
  chmodSync(path, stat.mode & 0o7777);
  utimesSync(path, stat.atime, stat.mtime);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
