// A container's mount points made in its overlay's layers before the
// overlay is mounted, so that its set-up need not wait for the mount to make
// them: what the mounted root would show is looked for in the upper layer
// (the container's own, which holds only what was made here before it first
// runs: plain directories and empty files) and then in the image's stacked
// layers (symlinks followed inside them), and what is missing is made in the
// upper layer, as makeInRoot would make it in the mounted root. A directory
// of the image that gets something new is made in the upper layer first with
// the image's mode and owner, as the kernel's copy-up makes it (not its
// extended attributes).
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readlinkSync, type Stats } from 'node:fs';
import { join, posix } from 'node:path';
import { lstatOrUndefined, makeAlong, walkInRoot } from './image-process.js';

/** An overlay root not mounted yet: the image's stacked layers and the container's upper layer. */
export interface OverlayLayers {
  lower: string;
  upper: string;
}

/**
 * makeInRoot (image-process.ts) on the root `layers` will make once mounted:
 * returns `path` with its symlinks resolved, having made what was missing.
 */
export function makeInLayers(layers: OverlayLayers, path: string, kind: 'directory' | 'file', what: string): string {
  return makeAlong(path, kind, what, {
    resolve: (at) => resolveInLayers(layers, at),
    lstat: (at) => statIn(layers, at),
    make: (dir, name, file) => {
      // What the image has there (a dangling symlink) is an error, as the O_EXCL of makeInRoot makes it.
      if (lstatOrUndefined(join(layers.lower, dir, name))) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
      copyUp(layers, dir);
      const host = join(layers.upper, dir, name);
      if (file) closeSync(openSync(host, 'wx', 0o644));
      else mkdirSync(host, { mode: 0o755 });
    },
  });
}

/** Container path `path` with every symlink resolved inside the root; undefined when something is missing or loops. */
export function resolveInLayers(layers: OverlayLayers, path: string): string | undefined {
  // The upper layer holds no symlinks: what is there is the root's.
  const parts = walkInRoot(
    path,
    (rel) => statIn(layers, rel),
    (rel) => readlinkSync(join(layers.lower, rel)),
  );
  return parts && posix.join('/', ...parts);
}

/** Where on the host the file the mounted root will show at container path `path` is (symlinks resolved); undefined when missing. */
export function hostPathInLayers(layers: OverlayLayers, path: string): string | undefined {
  const resolved = resolveInLayers(layers, path);
  if (resolved === undefined) return undefined;
  const upper = join(layers.upper, resolved);
  return lstatOrUndefined(upper) ? upper : join(layers.lower, resolved);
}

/** What the mounted root shows at resolved path `path`. */
function statIn(layers: OverlayLayers, path: string): Stats | undefined {
  return lstatOrUndefined(join(layers.upper, path)) ?? lstatOrUndefined(join(layers.lower, path));
}

/** Makes each directory of resolved path `dir` in the upper layer that is not there, with the image's mode and owner where the image has it. */
function copyUp(layers: OverlayLayers, dir: string): void {
  let rel = '';
  for (const part of dir.split('/').filter(Boolean)) {
    rel = join(rel, part);
    const upper = join(layers.upper, rel);
    if (lstatOrUndefined(upper)) continue;
    const image = lstatOrUndefined(join(layers.lower, rel));
    mkdirSync(upper, { mode: 0o755 });
    if (!image?.isDirectory()) continue;
    chownSync(upper, image.uid, image.gid);
    chmodSync(upper, image.mode & 0o7777);
  }
}
