// CRI's masked_paths and readonly_paths, as runc applies an OCI spec's
// maskedPaths and readonlyPaths: each read-only path is bound onto itself
// read-only, then each masked file is covered with /dev/null and each masked
// directory with an empty read-only tmpfs. A path that is not there is passed
// over. Where a path is: /proc and /sys are the kernel's (the sandbox's own
// procfs shows the same entries, its /sys is the host's), a path inside a
// volume is in that volume's directory, any other is in the root file system;
// symlinks resolve inside the volume or the root, never out of it.
import type { Stats } from 'node:fs';
import { posix } from 'node:path';
import { lstatOrUndefined, resolveInRoot, rootHolding } from './image-process.js';

/** A bind mount of the sandbox: `hostPath` appears at `containerPath`. */
export interface BoundPath {
  hostPath: string;
  containerPath: string;
}

/** Why a path cannot be masked or made read-only (INVALID_ARGUMENT at create). */
export class PathListError extends Error {}

/** Throws PathListError unless every path is absolute and has no `..`. */
export function checkPathList(field: string, paths: readonly string[]): void {
  for (const path of paths) {
    if (!path.startsWith('/')) throw new PathListError(`${field}: "${path}" is not an absolute path`);
    if (path.split('/').includes('..')) throw new PathListError(`${field}: "${path}" has a ".." component`);
  }
}

/** The paths that are there, as the sandbox sees them (symlinks resolved) and where they are on the host: each read-only one, and each masked one with whether it is a directory. */
export function locatePaths(
  masked: readonly string[],
  readonly: readonly string[],
  rootfs: string,
  mounts: readonly BoundPath[],
): { readonly: BoundPath[]; masked: { containerPath: string; directory: boolean }[] } {
  const found = (paths: readonly string[]) => paths.map((p) => locate(p, rootfs, mounts)).filter((f): f is Found => f !== undefined);
  return {
    readonly: found(readonly).map((f) => ({ hostPath: f.host, containerPath: f.target })),
    masked: found(masked).map((f) => ({ containerPath: f.target, directory: f.stat.isDirectory() })),
  };
}

/** The bwrap arguments that apply them, after the volumes are mounted. */
export function pathMaskArgs(
  masked: readonly string[],
  readonly: readonly string[],
  rootfs: string,
  mounts: readonly BoundPath[],
): string[] {
  const paths = locatePaths(masked, readonly, rootfs, mounts);
  return [
    ...paths.readonly.flatMap((p) => ['--ro-bind', p.hostPath, p.containerPath]),
    // A masked file gets /dev/null, a device: plain binds are nodev.
    ...paths.masked.flatMap((p) =>
      p.directory ? ['--tmpfs', p.containerPath, '--remount-ro', p.containerPath] : ['--dev-bind', '/dev/null', p.containerPath],
    ),
  ];
}

interface Found {
  /** Where it is on the host. */
  host: string;
  /** Where it is in the sandbox, its symlinks resolved. */
  target: string;
  stat: Stats;
}

function locate(path: string, rootfs: string, mounts: readonly BoundPath[]): Found | undefined {
  const clean = posix.normalize(path);
  if (under(clean, '/proc') || under(clean, '/sys')) {
    const stat = lstatOrUndefined(clean);
    return stat && !stat.isSymbolicLink() ? { host: clean, target: clean, stat } : undefined;
  }
  const { root, base, rest } = rootHolding(rootfs, clean, mounts);
  const host = resolveInRoot(root, rest);
  const stat = host === undefined ? undefined : lstatOrUndefined(host);
  if (host === undefined || !stat) return undefined;
  return { host, target: posix.join(base, posix.relative(root, host)), stat };
}

function under(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir.slice(0, -1) : dir;
  return path === d || path.startsWith(`${d}/`);
}
