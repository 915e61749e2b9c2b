// What a container runs when it runs its image: the image config's
// Entrypoint, Cmd, Env, WorkingDir and User merged with the container's
// command, args, envs, workingDir and runAsUser, by the rules containerd's
// CRI plugin applies (which are Docker's), and the program looked up inside
// the image's file system rather than the host's.
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, type Stats } from 'node:fs';
import { join, posix, relative } from 'node:path';
import type { ImageConfig } from '../oci/manifest.js';

export interface ContainerAsked {
  command: string[];
  args: string[];
  envs: { key: string; value: string }[];
  workingDir: string;
  /** CRI's run_as_user / run_as_username, when the pod asked for one. */
  runAsUser?: number;
  runAsUsername?: string;
  runAsGroup?: number;
}

export interface ImageProcess {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  /** The user as the image or the pod names it (`uid`, `name`, `uid:gid`, `name:group`); '' is root. */
  user: string;
}

export class ImageProcessError extends Error {
  override readonly name = 'ImageProcessError';
}

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The process of a container of `image`: without a command, the image's
 * Entrypoint, and its Cmd too when no args are given either; args replace
 * Cmd. Image Env first, the container's over it; PATH defaults as in runc.
 */
export function imageProcess(image: ImageConfig['config'] | undefined, asked: ContainerAsked): ImageProcess {
  let command = asked.command;
  let args = asked.args;
  if (command.length === 0) {
    if (args.length === 0) args = [...(image?.Cmd ?? [])];
    const entrypoint = image?.Entrypoint ?? [];
    // An Entrypoint of [""] is how an image says it has none.
    if (!(entrypoint.length === 1 && entrypoint[0] === '')) command = [...entrypoint];
  }
  const argv = [...command, ...args];
  if (argv.length === 0)
    throw new ImageProcessError('no command specified: the container has no command or args, and the image no Entrypoint or Cmd');
  const env: Record<string, string> = {};
  for (const entry of image?.Env ?? []) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  env.PATH ??= DEFAULT_PATH;
  for (const { key, value } of asked.envs) env[key] = value;
  const cwd = asked.workingDir || image?.WorkingDir || '/';
  let user = image?.User ?? '';
  if (asked.runAsUser !== undefined) user = String(asked.runAsUser);
  else if (asked.runAsUsername) user = asked.runAsUsername;
  if (asked.runAsGroup !== undefined) user = `${user.split(':')[0] || '0'}:${asked.runAsGroup}`;
  return { argv, env, cwd: posix.resolve('/', cwd), user };
}

/** uid and gid of `user` (`uid`, `name`, `uid:gid`, `name:group`), names read from the rootfs's /etc/passwd and /etc/group. */
export function resolveUser(rootfs: string, user: string): { uid: number; gid: number } {
  if (user === '') return { uid: 0, gid: 0 };
  const [userPart, groupPart] = user.split(':');
  let uid: number;
  let gid: number;
  if (/^\d+$/.test(userPart)) {
    uid = Number(userPart);
    const entry = readEntries(rootfs, '/etc/passwd').find((f) => f[2] === userPart);
    gid = entry ? Number(entry[3]) : 0;
  } else {
    const entry = readEntries(rootfs, '/etc/passwd').find((f) => f[0] === userPart);
    if (!entry) throw new ImageProcessError(`unable to find user ${userPart}: no matching entries in passwd file`);
    uid = Number(entry[2]);
    gid = Number(entry[3]);
  }
  if (groupPart !== undefined && groupPart !== '') {
    if (/^\d+$/.test(groupPart)) gid = Number(groupPart);
    else {
      const entry = readEntries(rootfs, '/etc/group').find((f) => f[0] === groupPart);
      if (!entry) throw new ImageProcessError(`unable to find group ${groupPart}: no matching entries in group file`);
      gid = Number(entry[2]);
    }
  }
  return { uid, gid };
}

/**
 * The supplementary groups of `uid` in its image, as containerd gives them:
 * every group of the image's /etc/group that lists the user's name.
 */
export function imageGroups(rootfs: string, uid: number): number[] {
  const name = readEntries(rootfs, '/etc/passwd').find((f) => f[2] === String(uid))?.[0];
  if (name === undefined) return [];
  return readEntries(rootfs, '/etc/group')
    .filter((f) => (f[3] ?? '').split(',').includes(name))
    .map((f) => Number(f[2]))
    .filter((g) => Number.isInteger(g));
}

function readEntries(rootfs: string, file: string): string[][] {
  const path = resolveInRoot(rootfs, file);
  if (!path) return [];
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split(':'));
  } catch {
    return [];
  }
}

/**
 * Where `command` is inside `rootfs`, or inside one of the volumes `mounts`
 * puts in it, as execvp in the container would find it (through PATH when it
 * has no slash); undefined when it is not there or not an executable file.
 * Symlinks resolve inside the rootfs or the volume, never out of it.
 */
export function findInRootfs(
  rootfs: string,
  command: string,
  path: string,
  cwd: string,
  mounts: readonly { hostPath: string; containerPath: string }[] = [],
  /** Where a path of the root file system is on the host, when it is not `rootfs` (a root not mounted yet: hostPathInLayers). */
  inRoot: (path: string) => string | undefined = (rest) => resolveInRoot(rootfs, rest),
): string | undefined {
  const candidates = command.includes('/')
    ? [posix.resolve(cwd, command)]
    : path
        .split(':')
        .filter(Boolean)
        .map((dir) => posix.join(posix.resolve('/', dir), command));
  for (const candidate of candidates) {
    const { root, rest } = rootHolding(rootfs, candidate, mounts);
    const host = root === rootfs ? inRoot(rest) : resolveInRoot(root, rest);
    const stat = host ? lstatOrUndefined(host) : undefined;
    if (stat?.isFile() && (stat.mode & 0o111) !== 0) return candidate;
  }
  return undefined;
}

/**
 * Where container path `path` is looked for: inside the deepest of `mounts`
 * that holds it (or is it), else inside `rootfs`. `base` is where that root
 * is in the container, `rest` the path inside it.
 */
export function rootHolding(
  rootfs: string,
  path: string,
  mounts: readonly { hostPath: string; containerPath: string }[],
): { root: string; base: string; rest: string } {
  let holder: { root: string; base: string } | undefined;
  for (const m of mounts) {
    const base = posix.resolve('/', m.containerPath);
    if ((path === base || path.startsWith(`${base}/`)) && (!holder || base.length > holder.base.length))
      holder = { root: m.hostPath, base };
  }
  const { root, base } = holder ?? { root: rootfs, base: '/' };
  return { root, base, rest: posix.relative(base, path) };
}

/** The host path of `path` inside `root`, every symlink on the way resolved against `root`; undefined when something is missing or loops. */
export function resolveInRoot(root: string, path: string): string | undefined {
  const parts = walkInRoot(
    path,
    (rel) => lstatOrUndefined(join(root, rel)),
    (rel) => readlinkSync(join(root, rel)),
  );
  return parts && join(root, ...parts);
}

/**
 * The components of `path` with every symlink on the way resolved inside
 * the root that `lstat` and `readlink` look into (paths relative to it);
 * undefined when something is missing or the links loop.
 */
export function walkInRoot(
  path: string,
  lstat: (rel: string) => Stats | undefined,
  readlink: (rel: string) => string,
): string[] | undefined {
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
    const stat = lstat(rel);
    if (!stat) return undefined;
    if (stat.isSymbolicLink()) {
      if (++hops > 40) return undefined;
      const target = readlink(rel);
      if (target.startsWith('/')) done.length = 0;
      pending.unshift(...target.split('/').filter(Boolean));
      continue;
    }
    done.push(part);
  }
  return done;
}

/**
 * Makes directory `path` inside `root`, as runc makes a missing working
 * directory: what exists is followed inside the root, never out of it.
 */
export function mkdirInRoot(root: string, path: string): void {
  makeInRoot(root, path, 'directory', 'the working directory');
}

/**
 * Makes `path` inside `root` where it is missing, as runc makes a mount's
 * target: directories on the way and, at its end, a directory or an empty
 * file. What exists is followed inside the root, never out of it, and is
 * kept (a mount onto something of the wrong kind fails at the mount).
 * Returns the path inside the root with its symlinks resolved. `what` names
 * it in errors.
 */
export function makeInRoot(root: string, path: string, kind: 'directory' | 'file', what: string): string {
  return makeAlong(path, kind, what, {
    resolve: (at) => {
      const host = resolveInRoot(root, at);
      return host && posix.join('/', relative(root, host));
    },
    lstat: (at) => lstatOrUndefined(join(root, at)),
    // O_EXCL: a dangling symlink there is an error, never followed out of the root.
    make: (dir, name, file) =>
      file ? closeSync(openSync(join(root, dir, name), 'wx', 0o644)) : mkdirSync(join(root, dir, name), { mode: 0o755 }),
  });
}

/** How makeAlong sees a root: a path resolved in it, what is at a resolved path, and how a missing entry of a resolved directory is made. */
export interface RootMaker {
  resolve(path: string): string | undefined;
  lstat(path: string): Stats | undefined;
  make(dir: string, name: string, file: boolean): void;
}

/** makeInRoot's walk over a root as `root` sees it. */
export function makeAlong(path: string, kind: 'directory' | 'file', what: string, root: RootMaker): string {
  const parts = path.split('/').filter(Boolean);
  let resolved = '/';
  for (const [i, part] of parts.entries()) {
    const next = posix.join(resolved, part);
    const last = i === parts.length - 1;
    const found = root.resolve(next);
    if (found === undefined) {
      try {
        root.make(resolved, part, last && kind === 'file');
      } catch (err) {
        throw new ImageProcessError(
          `cannot make ${what} ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message} at ${next}`,
        );
      }
    } else if ((!last || kind === 'directory') && !root.lstat(found)?.isDirectory()) {
      throw new ImageProcessError(`${what} ${path} is not a directory: ${next}`);
    }
    resolved = found ?? next;
  }
  return resolved;
}

/** lstat, or undefined when nothing is there (a missing path costs no exception: many are looked for at each start). */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined; // a file on the way (ENOTDIR)
  }
}
