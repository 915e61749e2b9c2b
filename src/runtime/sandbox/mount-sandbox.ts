// Containers that bubblewrap cannot run as CRI asks (bwrap always sets
// no_new_privs and makes every mount a slave), set up with util-linux as
// runc sets one up: unshare, one `mount -a` over a table (mount-table.ts),
// pivot_root, then the kit's setpriv. Root only; never under a seccomp
// filter. Why and when: docs/runtime/sandboxes.md, "The two programs that
// make sandboxes"; the start: its "The start protocol".
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { whichSystem as which } from '../executables.js';
import { programLink } from '../pause.js';
import { depth, joined, programBelow, WRAPPERS, type SandboxedProcess } from './bubblewrap.js';
import { makeInRoot } from './image-process.js';
import { makeInLayers, type OverlayLayers } from './overlay-layers.js';
import { locatePaths } from './masked-paths.js';
import { hostMounts, mountOf, mountsUnder } from '../../util/mountinfo.js';
import { devTemplate, fillDev } from './dev-dir.js';
import { mountTable, type RootOverlay, type TableMount } from './mount-table.js';
import { makeReadonlySys } from './readonly-sys.js';
import { ScratchSpace } from './scratch.js';
import { SpareDirs } from './spare-dirs.js';
import { KIT_PATH, kitPrefix, setuidPrefix, STATIC_INIT, staticApplet, type SetuidKit } from './setuid-kit.js';

/** What the shell that sets a container up is called (in ps, and to programBelow). */
const INIT = 'knode-init';

/** What a container made here runs under until its program besides bwrap's wrappers (env among them, a spare becoming the container): the init shell and what it runs. */
const SETUP_PROGRAMS = [INIT, 'mount', 'pivot_root', 'umount'];

/** A sandboxed process as this launcher takes it: the mounts keep their propagation, and no_new_privs is asked or not. */
export interface LaunchedProcess extends SandboxedProcess {
  /** The container's id: its set-up files are in its directory of the scratch space. */
  id: string;
  mounts: (SandboxedProcess['mounts'][number] & { propagation?: TableMount['propagation'] })[];
  noNewPrivs: boolean;
  /** pid SHARED: the PID 1 of the namespace to join. */
  sharedPid?: number;
  /**
   * Its root's overlay layers, when the set-up may start before the overlay
   * is mounted: its mount points and working directory are made in them
   * while the mount runs (in the mounted root otherwise).
   */
  layers?: OverlayLayers;
  /**
   * Its root's overlay, which its own table mounts in its mount namespace
   * (nothing is mounted on the host): its mount points are made in the
   * layers, and its set-up waits for no mount.
   */
  overlay?: RootOverlay;
}

/** The directories every container made here mounts on: its /proc, /dev and /sys, and the kit. */
export const FIXED_MOUNT_POINTS = ['/proc', '/dev', '/sys', KIT_PATH] as const;

/** The paths written into the init script: plain ones only. */
const PLAIN_PATH = /^[\w/.+-]+$/;

type Tools = Record<'setpriv' | 'nsenter' | 'unshare' | 'mount' | 'pivotRoot', string>;

export class MountSandbox {
  private readonly wrappers: Set<string>;
  /** The host's mounts under /sys, made read-only in a container that is not privileged. */
  private readonly sysSubmounts: string[];
  /** The read-only copy of the host's /sys such a container binds, or why there is none (it remounts them itself then). */
  readonly readonlySys: { dir: string } | { reason: string };
  /** Containers' /dev made ahead of their set-ups, in the scratch space. */
  private readonly devSpares: SpareDirs;

  private constructor(
    private readonly tools: Tools,
    private readonly kit: Extract<SetuidKit, { ok: true }>,
    /** The set-up shell: the kit's busybox as STATIC_INIT, else the host's sh through a link named INIT. */
    private readonly init: readonly string[],
    /** Where each container's /dev, new root and table are made. */
    readonly scratch: ScratchSpace,
    /** The host's mounts under /sys, and their read-only copy in `scratch` (or why there is none). */
    sys: { submounts: string[]; readonly: { dir: string } | { reason: string } },
  ) {
    this.wrappers = new Set([...WRAPPERS, ...SETUP_PROGRAMS, STATIC_INIT, kit.loader.slice(0, 15)]);
    this.sysSubmounts = sys.submounts;
    this.readonlySys = sys.readonly;
    this.devSpares = new SpareDirs(scratch.dir, fillDev);
  }

  /**
   * The shell the spawner forks ahead of what it starts for sandboxes (the
   * kit's static busybox), and where their orders are written; none without
   * that busybox.
   */
  get spareShells(): { shell: string[]; dir: string } | undefined {
    const shell = staticApplet(this.kit, STATIC_INIT);
    return shell ? { shell: [shell, 'sh'], dir: join(this.scratch.dir, 'orders') } : undefined;
  }

  /** The runtime's shutdown, its containers stopped: no more spares, and the scratch space goes. */
  close(): void {
    void this.devSpares.close();
    this.scratch.close();
  }

  /**
   * The launcher, or why there is none: it needs root, util-linux's tools
   * and the kit. `binDir` holds the init link; the scratch space is the one
   * of the runtime whose directory is `rootDir`.
   */
  static async detect(binDir: string, kit: SetuidKit, rootDir: string): Promise<MountSandbox | string> {
    if (process.getuid?.() !== 0) return 'it needs root';
    if (!kit.ok) return kit.reason;
    if (!kit.programs.includes('mount') || !kit.programs.includes('umount'))
      return "the kit has no mount and umount (they link against another loader than setpriv's)";
    const names = { setpriv: 'setpriv', nsenter: 'nsenter', unshare: 'unshare', mount: 'mount', pivotRoot: 'pivot_root' } as const;
    const tools: Partial<Tools> = {};
    for (const [key, name] of Object.entries(names) as [keyof Tools, string][]) {
      const found = which(name);
      if (!found || !PLAIN_PATH.test(found)) return `${name} (util-linux) is not installed`;
      tools[key] = found;
    }
    const staticInit = staticApplet(kit, STATIC_INIT);
    const sh = which('sh');
    const init = staticInit ? [staticInit, 'sh'] : sh && [programLink(binDir, INIT, sh)];
    if (!init?.[0]) return `cannot link ${join(binDir, INIT)} to the host's sh`;
    const scratch = ScratchSpace.open(rootDir);
    const submounts = mountsUnder(hostMounts(), '/sys');
    const readonly = await makeReadonlySys(join(scratch.dir, 'sys'), submounts, tools.mount!);
    return new MountSandbox(tools as Tools, kit, init as string[], scratch, { submounts, readonly });
  }

  /**
   * The command before a program's argv that runs it in its container, in
   * `p.holder`'s namespaces (steps 4-10 of docs/runtime/sandboxes.md's
   * start protocol). `prepare` does the host's part while the wrapper
   * starts: the container's /dev, its root's directory, its mount points
   * and its table, given what mounts its root (`mounted`); it throws when a
   * Bidirectional mount's source is not shared (containerd's check).
   * Without p.layers, the mount must be made before the wrapper starts.
   * `orphanGuard`: what ties the wrapper to its parent when the runtime
   * forks it (ProcessSpec.orphanGuard). `readsRoot`: `prepare` waits for
   * the mounted root, having no layers to make its mount points in.
   */
  wrapper(p: LaunchedProcess): {
    argv: string[];
    prepare: (mounted: () => Promise<void>) => Promise<void>;
    orphanGuard?: string[];
    readsRoot: boolean;
  } {
    const base = this.scratch.of(p.id);
    const root = join(base, 'root');
    const table = join(base, 'mounts');
    const bidirectional = p.mounts.some((m) => m.propagation === 'PROPAGATION_BIDIRECTIONAL');
    // Read only when needed: with a container per mount, a busy host's table is long.
    const hostTable = bidirectional || p.mounts.some((m) => m.recursiveReadOnly) ? hostMounts() : [];
    // A Bidirectional mount stays shared: so is everything else until the init shell has made slaves of
    // the mounts that hold the new root and the old one (pivot_root refuses shared parents).
    const holding = bidirectional ? (mountOf(hostTable, root)?.mountPoint ?? '/') : '/';
    const slaves = bidirectional ? ['/', holding === '/' ? '' : holding] : ['', ''];
    const t = this.tools;
    // It dies with the runtime, as bwrap's --die-with-parent makes it: the program through the kit's setpriv,
    // which ties it to its parent (the spawner, nsenter in a shared PID namespace, unshare in one of its own),
    // and an unshare that forks through the spawner, which kills what it started when it ends, or through
    // orphanGuard when the runtime forks it.
    const orphanGuard = p.pid === 'CONTAINER' ? [t.setpriv, '--pdeathsig=KILL', '--'] : undefined;
    // busybox's nsenter forks unless told not to (-F); util-linux's only to enter a PID namespace, as both do then.
    const staticNsenter = staticApplet(this.kit, 'nsenter');
    const argv = [
      staticNsenter ?? t.nsenter,
      `--target=${p.holder}`,
      ...(p.hostIpc ? [] : ['--ipc']),
      ...joined(p.holder, 'uts'),
      ...joined(p.holder, 'net'),
    ];
    if (p.pid === 'SHARED') argv.push(`--pid=/proc/${p.sharedPid}/ns/pid`);
    else if (staticNsenter) argv.push('-F');
    // util-linux's unshare for a Bidirectional mount (busybox's --propagation=unchanged fails: it remounts / with no
    // flags, EINVAL). In a PID namespace of its own, the program is killed when its unshare dies: by the kit's
    // setpriv, and by util-linux's --kill-child (which busybox's has not).
    const staticUnshare = bidirectional ? undefined : staticApplet(this.kit, 'unshare');
    const ownPid = p.pid === 'CONTAINER' ? ['--pid', '--fork', ...(staticUnshare ? [] : ['--kill-child'])] : [];
    argv.push('--', staticUnshare ?? t.unshare, '--mount', `--propagation=${bidirectional ? 'unchanged' : 'slave'}`, ...ownPid, '--');
    argv.push(...this.init, '-c', this.script(), INIT, table, root, p.cwd, ...slaves);
    argv.push(...setuidPrefix(this.kit, p.uid, p.gid, p.groups, p.capabilities, { noNewPrivs: p.noNewPrivs, dieWithParent: true }));
    const layers = p.overlay ?? inLayers(p);
    return {
      argv,
      prepare: (mounted) =>
        this.prepare(p, layers, { dev: join(base, 'dev'), root, table, hostTable }, p.overlay ? async () => {} : mounted),
      orphanGuard,
      readsRoot: layers === undefined,
    };
  }

  /**
   * The container's /dev and new root's directory, its mount points and
   * working directory, and its table of mounts, written to `table`; resolves
   * once its root is `mounted` too. The mount points are made in `layers`
   * (inLayers) while the mount runs, when there are.
   */
  private async prepare(
    p: LaunchedProcess,
    layers: OverlayLayers | undefined,
    at: { dev: string; root: string; table: string; hostTable: ReturnType<typeof hostMounts> },
    mounted: () => Promise<void>,
  ): Promise<void> {
    const { dev, root, table, hostTable } = at;
    const mounting = mounted();
    mounting.catch(() => {}); // awaited below
    mkdirSync(root, { recursive: true, mode: 0o700 });
    if (!this.devSpares.take(dev)) devTemplate(dev);
    if (!layers) await mounting;
    const make: MakeInRootfs = (path, kind, what) =>
      layers ? makeInLayers(layers, path, kind, what) : makeInRoot(p.rootfs, path, kind, what);
    for (const fixed of FIXED_MOUNT_POINTS) {
      if (make(fixed, 'directory', 'the mount point') !== fixed)
        throw new Error(`the image's ${fixed} is a symbolic link: it cannot be mounted on`);
    }
    make(p.cwd, 'directory', 'the working directory');
    // A volume under /dev (the termination log) gets its mount point in the container's /dev.
    const mounts = placeMounts(p, [{ hostPath: dev, containerPath: '/dev', asked: '/dev' }], make);
    for (const m of mounts) {
      if (m.propagation !== 'PROPAGATION_BIDIRECTIONAL') continue;
      const on = mountOf(hostTable, m.hostPath);
      if (on?.shared === undefined)
        throw new Error(`path "${m.hostPath}" is mounted on "${on?.mountPoint ?? '/'}" but it is not a shared mount`);
    }
    const paths = locatePaths(p.maskedPaths ?? [], p.readonlyPaths ?? [], p.rootfs, mounts);
    writeFileSync(
      table,
      mountTable({
        rootfs: p.rootfs,
        overlay: p.overlay,
        root,
        dev,
        kit: this.kit.dir,
        kitPath: KIT_PATH,
        mounts: mounts.map((m) => (m.recursiveReadOnly ? { ...m, readonlySubmounts: mountsUnder(hostTable, m.hostPath) } : m)),
        privileged: p.privileged === true,
        sysSubmounts: this.sysSubmounts,
        readonlySys: 'dir' in this.readonlySys ? this.readonlySys.dir : undefined,
        readonlyPaths: paths.readonly.map((r) => r.containerPath),
        masked: paths.masked,
        readonlyRootfs: p.readonlyRootfs === true,
      }),
    );
    await mounting;
  }

  /** The container's program under its wrappers. */
  programOf(pid: number): number | undefined {
    return programBelow(pid, this.wrappers);
  }

  /**
   * The init shell's script: $1 the table, $2 the new root, $3 the working
   * directory, $4 and $5 the mount points to make slaves first (with a
   * Bidirectional mount; '' otherwise); then the program under setpriv.
   * With fd 3 open (the spawner's socket) it waits for the go-ahead, reports
   * its pid or '!' and mount's error, and waits for its start, as runc's
   * init waits on its exec fifo (steps 5-10 of docs/runtime/sandboxes.md's
   * start protocol). An end of fd 3 instead of a line ends it.
   */
  private script(): string {
    const { mount } = this.tools;
    // Once pivoted, the host's programs no longer find their loader: the kit's run through its own. busybox's
    // shell runs its own applets by their names, in a fork of itself that execs nothing.
    const kitMount = kitPrefix(this.kit, 'mount').join(' ');
    const applets = this.init[0] === staticApplet(this.kit, STATIC_INIT);
    const kitUmount = applets ? 'umount' : kitPrefix(this.kit, 'umount').join(' ');
    const pivotRoot = applets ? 'pivot_root' : this.tools.pivotRoot;
    return [
      'set -e',
      't=$1 r=$2 w=$3 a=$4 b=$5',
      'shift 5',
      // The go-ahead, once the runtime has prepared the table (a start through the spawner); nothing to wait for otherwise.
      // (true, not the special built-in `:`, whose failed redirection would end the shell.)
      'h=; { true >&3; } 2>/dev/null && h=1',
      '[ -z "$h" ] || read -r _ <&3',
      `[ -z "$a" ] || ${mount} --make-slave "$a"`,
      `[ -z "$b" ] || ${mount} --make-slave "$b"`,
      // The table's paths are resolved already (in the root, or on the host): libmount need not look them up again, in every start.
      // In the C locale, whatever the container's LANG: util-linux reads no locale files then. A mount that fails is
      // the start's error: what mount said goes to fd 3 after a '!' (and to the container's log).
      `LC_ALL=C ${mount} --no-canonicalize -a -T "$t" 2>"$t.err" || { [ -z "$h" ] || { printf '!'; tr '\\n' ' ' <"$t.err"; echo; } >&3; cat "$t.err" >&2; exit 32; }`,
      'cd "$r"',
      // The host's root goes over the container's /dev, and is unmounted from there.
      `${pivotRoot} . dev`,
      `[ -z "$a" ] || ${kitMount} --make-rslave /dev`,
      `${kitUmount} -l /dev`,
      'cd "$w"',
      '[ -z "$h" ] || { echo $$ >&3; read -r _ <&3; exec 3>&-; }',
      'exec "$@"',
    ].join('\n');
  }
}

/** The layers `p`'s set-up makes its mount points in before its root is mounted: its own, unless a masked or read-only path is looked for in the mounted root. */
function inLayers(p: LaunchedProcess): OverlayLayers | undefined {
  return p.layers && kernelPathsOnly(p.maskedPaths ?? [], p.readonlyPaths ?? []) ? p.layers : undefined;
}

/** Whether every masked and read-only path is under /proc or /sys, which its set-up need not look for in its root (locatePaths). */
export function kernelPathsOnly(masked: readonly string[], readonly: readonly string[]): boolean {
  const kernels = (path: string) => ['/proc', '/sys'].some((k) => path === k || path.startsWith(`${k}/`));
  return [...masked, ...readonly].every(kernels);
}

/** makeInRoot in the container's root file system, mounted or not yet. */
type MakeInRootfs = (path: string, kind: 'directory' | 'file', what: string) => string;

/** Where a directory on the host is in the container: as asked, and as resolved. */
type Placed = { hostPath: string; containerPath: string; asked: string };

/**
 * The volumes in the order they are mounted (parents first), each with its
 * mount point made inside the root file system or inside the volume (or
 * one of `fixed`, mounted before them) that holds it, and its container path
 * as that mount point resolved.
 */
function placeMounts(
  p: LaunchedProcess,
  fixed: readonly Placed[],
  makeInRootfs: MakeInRootfs,
): (LaunchedProcess['mounts'][number] & Placed)[] {
  const placed: (LaunchedProcess['mounts'][number] & Placed)[] = [];
  for (const m of [...p.mounts].sort((a, b) => depth(a.containerPath) - depth(b.containerPath))) {
    const asked = posix.resolve('/', m.containerPath);
    const holder = [...fixed, ...placed].filter((h) => asked.startsWith(`${h.asked}/`)).sort((a, b) => b.asked.length - a.asked.length)[0];
    const kind = isDirectory(m.hostPath) ? 'directory' : 'file';
    const inside = holder
      ? makeInRoot(holder.hostPath, asked.slice(holder.asked.length), kind, 'the mount point')
      : makeInRootfs(asked, kind, 'the mount point');
    const base = holder ? holder.containerPath : '/';
    placed.push({ ...m, asked, containerPath: posix.join(base, inside) });
  }
  return placed;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return true; // missing: the mount says so
  }
}
