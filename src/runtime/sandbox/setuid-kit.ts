// How a sandboxed container runs as a non-root user without a user
// namespace: util-linux's setpriv, with its loader and libraries, copied
// once into the runtime's directory and bound read-only at KIT_PATH, sets
// the user and execs the program, as runc does. The user is then the same
// on the host as in the container (docs/runtime/sandboxes.md, "Users,
// groups and capabilities").
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Where the kit is seen inside a sandbox. */
export const KIT_PATH = '/.knode';

/**
 * programs: what the kit holds besides setpriv (the basenames of those that
 * link against setpriv's loader): bwrap, which loads a seccomp filter for an
 * exec inside a sandbox; mount and umount, which unmount the host's root
 * once a container set up by util-linux has pivoted away from it. applets:
 * whether it holds a static busybox, run as STATIC_APPLETS (staticApplet).
 */
export type SetuidKit = { ok: true; dir: string; loader: string; programs: string[]; applets: boolean } | { ok: false; reason: string };

/**
 * What a static busybox in the kit runs for a container's set-up and its
 * root file system: it starts quicker than util-linux's programs (no
 * loader, no libraries to map). Each is a link named after it (the
 * name its process has, as util-linux's).
 */
export const STATIC_APPLETS = ['mount', 'umount', 'nsenter', 'unshare'] as const;

/**
 * The kit's busybox under a name of its own, for the shell that sets a
 * container up (`STATIC_INIT sh -c ...`): busybox runs the applet its first
 * argument names when its own name begins with "busybox", and the name is
 * what its process is called, which no container's program is. The shell
 * runs the applets of SHELL_APPLETS by their names, in a fork of itself.
 */
export const STATIC_INIT = 'busybox-kinit';
const SHELL_APPLETS = ['sh', 'pivot_root', 'umount'];

/** The kit's busybox by the name of what a pod's holder idles on (STATIC_HOLDER_LOOP runs it as sleep). */
export const STATIC_PAUSE = 'pause';

type Linked = { libraries: string[]; loader: string };

/**
 * What `ldd` says each of PROGRAMS needs, its libraries and its loader, or
 * why not (a string): one ldd for all of them (each ldd is a shell and a
 * loader run, a few milliseconds of a runtime's start). Given more than one
 * program, ldd heads each one's lines with its name and a colon.
 */
function linkedFiles(programs: readonly string[]): Map<string, Linked | string> {
  const ldd = spawnSync('ldd', programs, { encoding: 'utf8', timeout: 10_000 });
  const lines = new Map<string, string[]>(programs.length === 1 ? [[programs[0], []]] : []);
  let current = programs.length === 1 ? programs[0] : undefined;
  for (const line of ldd.stdout?.split('\n') ?? []) {
    if (programs.length > 1 && line.endsWith(':') && programs.includes(line.slice(0, -1))) {
      current = line.slice(0, -1);
      lines.set(current, []);
    } else if (current !== undefined) lines.get(current)!.push(line);
  }
  const linked = new Map<string, Linked | string>();
  for (const program of programs) {
    const libraries: string[] = [];
    let loader: string | undefined;
    for (const line of lines.get(program) ?? []) {
      const resolved = /=>\s+(\/\S+)/.exec(line);
      if (resolved) libraries.push(resolved[1]);
      else if (/^\s*(\/\S+)\s+\(/.test(line)) loader = line.trim().split(/\s+/)[0];
    }
    // What ldd said of this one on its own, or of all when there is one (`ldd: PROGRAM: No such file or directory`).
    const said = programs.length === 1 ? ldd.stderr?.trim() : ldd.stderr?.split('\n').find((l) => l.includes(`${program}:`));
    if (loader) linked.set(program, { libraries, loader });
    else if (ldd.error || (ldd.status !== 0 && said)) linked.set(program, `ldd ${program} failed: ${ldd.error?.message ?? said}`);
    else linked.set(program, `ldd names no loader for ${program}`);
  }
  return linked;
}

/** The file in a kit that says what it was made from and what it holds (KitStamp). */
const KIT_STAMP = '.made-from.json';

interface KitStamp {
  /** Each program the kit was made from: its path, then its size, modification time and inode (null when missing). */
  from: unknown[];
  kit: { loader: string; programs: string[]; applets: boolean };
}

/** What a kit made now from these programs would be made from (KitStamp's `from`). */
function madeFrom(programs: readonly string[]): KitStamp['from'] {
  return programs.map((program) => {
    try {
      const { size, mtimeMs, ino } = statSync(program);
      return [program, size, mtimeMs, ino];
    } catch {
      return [program, null];
    }
  });
}

/** The kit in DIR when it was made from the same programs as they are now (`from`), and still holds them. */
function keptKit(dir: string, from: KitStamp['from']): SetuidKit | undefined {
  try {
    const stamp = JSON.parse(readFileSync(join(dir, KIT_STAMP), 'utf8')) as KitStamp;
    if (JSON.stringify(stamp.from) !== JSON.stringify(from)) return undefined;
    const { loader, programs, applets } = stamp.kit;
    const held = ['setpriv', loader, ...programs, ...(applets ? [join('static', 'busybox')] : [])];
    return held.every((file) => existsSync(join(dir, file))) ? { ok: true, dir, loader, programs, applets } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Copies setpriv (found at `setpriv`) and what `ldd` says it needs into
 * `dir`, and each of `others` with its libraries where it links against the
 * same loader. Not ok where setpriv is missing or is not a dynamically
 * linked program whose loader ldd names. A kit that DIR already holds is
 * kept when it was made from the same programs (the same size, modification
 * time and inode of each): a runtime's start then runs no ldd and copies
 * nothing. It is a copy that holds together on its own, so a library
 * upgraded on the host since does not touch it.
 */
export function prepareSetuidKit(
  dir: string,
  setpriv: string | undefined,
  others: readonly (string | undefined)[] = [],
  busybox?: string,
): SetuidKit {
  if (!setpriv) return { ok: false, reason: 'setpriv (util-linux) is not installed' };
  const wanted = others.filter((other): other is string => other !== undefined);
  const from = madeFrom([setpriv, ...wanted, ...(busybox ? [busybox] : [])]);
  const kept = keptKit(dir, from);
  if (kept) return kept;
  const all = linkedFiles([setpriv, ...wanted]);
  const linked = all.get(setpriv)!;
  if (typeof linked === 'string') return { ok: false, reason: linked };
  const { loader } = linked;
  const files = new Set([setpriv, loader, ...linked.libraries]);
  const programs: string[] = [];
  for (const other of wanted) {
    const needs = all.get(other);
    if (typeof needs !== 'object' || needs.loader !== loader) continue;
    for (const file of [other, ...needs.libraries]) files.add(file);
    programs.push(basename(other));
  }
  const applets = busybox !== undefined && isStaticBusybox(busybox);
  const partial = `${dir}.partial-${process.pid}`;
  try {
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial, { recursive: true });
    for (const file of files) copyFileSync(file, join(partial, basename(file)));
    if (applets) {
      mkdirSync(join(partial, 'static'));
      copyFileSync(busybox!, join(partial, 'static', 'busybox'));
      for (const applet of [...STATIC_APPLETS, STATIC_INIT, STATIC_PAUSE]) symlinkSync('busybox', join(partial, 'static', applet));
    }
    const stamp: KitStamp = { from, kit: { loader: basename(loader), programs, applets } };
    writeFileSync(join(partial, KIT_STAMP), JSON.stringify(stamp));
    rmSync(dir, { recursive: true, force: true });
    renameSync(partial, dir);
  } catch (err) {
    rmSync(partial, { recursive: true, force: true });
    return { ok: false, reason: `cannot copy setpriv and its libraries into ${dir}: ${(err as Error).message}` };
  }
  return { ok: true, dir, loader: basename(loader), programs, applets };
}

/** Whether `busybox` is linked statically (ldd says it is not dynamic) and has every one of STATIC_APPLETS and SHELL_APPLETS, and sleep (STATIC_PAUSE). */
function isStaticBusybox(busybox: string): boolean {
  const ldd = spawnSync('ldd', [busybox], { encoding: 'utf8', timeout: 10_000 });
  if (ldd.error || ldd.status === 0 || !/not a dynamic executable/.test(`${ldd.stdout}${ldd.stderr}`)) return false;
  const list = spawnSync(busybox, ['--list'], { encoding: 'utf8', timeout: 10_000 });
  const listed = new Set(list.stdout?.split('\n') ?? []);
  return list.status === 0 && [...STATIC_APPLETS, ...SHELL_APPLETS, 'sleep'].every((applet) => listed.has(applet));
}

/** The kit's static `applet` (or its set-up shell, STATIC_INIT, or STATIC_PAUSE), as the host sees it; undefined when the kit has no static busybox. */
export function staticApplet(
  kit: Extract<SetuidKit, { ok: true }>,
  applet: (typeof STATIC_APPLETS)[number] | typeof STATIC_INIT | typeof STATIC_PAUSE,
): string | undefined {
  return kit.applets ? join(kit.dir, 'static', applet) : undefined;
}

/** The argv before `-c` of the static shell (STATIC_INIT sh) of a kit that has applets, as the host sees it. */
export function staticShell(kit: Extract<SetuidKit, { ok: true }>): string[] {
  return [staticApplet(kit, STATIC_INIT)!, 'sh'];
}

/** The argv before a program's that runs the kit's `program` (one of its programs) inside a sandbox holding it. */
export function kitPrefix(kit: Extract<SetuidKit, { ok: true }>, program: string): string[] {
  return [`${KIT_PATH}/${kit.loader}`, '--library-path', KIT_PATH, `${KIT_PATH}/${program}`];
}

/**
 * The argv before a program's that runs it under the seccomp filter read
 * from fd `fd`, inside a sandbox holding a kit with bwrap: a bwrap that
 * shares everything (a new mount namespace holding the same mounts) and only
 * loads the filter, as runc loads one before an exec's program.
 */
export function seccompPrefix(kit: Extract<SetuidKit, { ok: true }>, fd: number): string[] {
  return [...kitPrefix(kit, 'bwrap'), '--dev-bind', '/', '/', '--seccomp', String(fd), '--'];
}

/** What setpriv sets besides the user: no_new_privs, and a parent-death signal (set after the user, which clears it). */
export interface SetprivExtras {
  noNewPrivs?: boolean;
  dieWithParent?: boolean;
}

/**
 * The argv before a program's that runs it as `uid`:`gid` with supplementary
 * `groups` (none when empty), inside a sandbox holding the kit; with
 * `capabilities`, the bounding set is those alone (root's program then has
 * them and no more; another user's, none).
 */
export function setuidPrefix(
  kit: Extract<SetuidKit, { ok: true }>,
  uid: number,
  gid: number,
  groups: readonly number[] = [],
  capabilities?: readonly string[],
  extras: SetprivExtras = {},
): string[] {
  const supplementary = groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups';
  const bounding = capabilities ? [`--bounding-set=${['-all', ...capabilities.map((c) => `+${c}`)].join(',')}`] : [];
  const more = [...(extras.noNewPrivs ? ['--no-new-privs'] : []), ...(extras.dieWithParent ? ['--pdeathsig=KILL'] : [])];
  return [...kitPrefix(kit, 'setpriv'), `--reuid=${uid}`, `--regid=${gid}`, supplementary, ...bounding, ...more, '--'];
}
