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
import { ImageProcessError, lstatOrUndefined } from './image-process.js';

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
  const parts = path.split('/').filter(Boolean);
  let resolved = '/';
  for (const [i, part] of parts.entries()) {
    const next = posix.join(resolved, part);
    const last = i === parts.length - 1;
    const found = resolveInLayers(layers, next);
    if (found === undefined) {
      const host = join(layers.upper, resolved, part);
      try {
        // What the image has there (a dangling symlink) is an error, as the O_EXCL of makeInRoot makes it.
        if (lstatOrUndefined(join(layers.lower, resolved, part))) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
        copyUp(layers, resolved);
        if (last && kind === 'file') closeSync(openSync(host, 'wx', 0o644));
        else mkdirSync(host, { mode: 0o755 });
      } catch (err) {
        throw new ImageProcessError(`cannot make ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} at ${next}`);
      }
      resolved = next;
    } else {
      if ((!last || kind === 'directory') && !statIn(layers, found)?.isDirectory()) throw new ImageProcessError(`${what} ${path} is not a directory: ${next}`);
      resolved = found;
    }
  }
  return resolved;
}

/** Container path `path` with every symlink resolved inside the root; undefined when something is missing or loops. */
export function resolveInLayers(layers: OverlayLayers, path: string): string | undefined {
  const pending = path.split('/').filter(Boolean);
  const done: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      done.pop();
      continue;
    }
    const rel = join(...done, part);
    // The upper layer holds no symlinks: what is there is the root's.
    if (lstatOrUndefined(join(layers.upper, rel))) {
      done.push(part);
      continue;
    }
    const image = join(layers.lower, rel);
    const stat = lstatOrUndefined(image);
    if (!stat) return undefined;
    if (stat.isSymbolicLink()) {
      if (++hops > 40) return undefined;
      const target = readlinkSync(image);
      if (target.startsWith('/')) done.length = 0;
      pending.unshift(...target.split('/').filter(Boolean));
      continue;
    }
    done.push(part);
  }
  return posix.join('/', ...done);
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
