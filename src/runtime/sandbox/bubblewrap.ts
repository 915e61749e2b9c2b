// Containers of real images run in bubblewrap sandboxes: the container's
// root file system as /, its own /proc and /dev, its mounts bound in, and
// the namespaces CRI asks for. A pod's IPC and UTS namespaces (and its PID
// namespace, when its containers share one) are held by a small process
// per pod, as the pause container holds them; each container enters them
// with nsenter and bwrap.
import { execFile } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { whichSystem as which } from '../executables.js';
import { childrenOf, commOf, detachHere, readProcStat, waitForProcess } from '../proc.js';
import type { NamespaceHolder } from '../pid-namespaces.js';
import type { BubblewrapProbe } from '../host-probes.js';
import {
  KIT_PATH,
  prepareSetuidKit,
  seccompPrefix,
  setuidPrefix,
  STATIC_PAUSE,
  staticApplet,
  staticShell,
  type SetuidKit,
} from './setuid-kit.js';
import { pathMaskArgs } from './masked-paths.js';
import { WRITE_SYSCTLS } from './sysctls.js';
import { HOLDER_LOOP, HOLDER_READY, pauseProgram, STATIC_HOLDER_LOOP } from '../pause.js';
import { dirname, join, posix } from 'node:path';

/** The fd a sandboxed container's start passes the PID namespace to join on (ProcessSpec.files). */
export const PIDNS_FD = 4;

/**
 * What a container's program runs under until it execs (a process's comm is
 * its program's name, cut to 15 characters); env(1) is how a spare process
 * becomes the container (../spares.ts).
 */
export const WRAPPERS: ReadonlySet<string> = new Set(['env', 'nsenter', 'bwrap', 'unshare', 'setpriv']);

/** How long the program of a sandbox that has just started may take to appear. */
export const PROGRAM_TIMEOUT_MS = 5_000;

export interface SandboxMount {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
  /** Read-only with everything mounted under it (CRI's recursive_read_only). */
  recursiveReadOnly?: boolean;
}

export interface SandboxedProcess {
  rootfs: string;
  cwd: string;
  /** PID 1 of the pod's holder: its IPC and UTS namespaces are joined. */
  holder: number;
  /** CONTAINER: a PID namespace of its own; SHARED: the one passed at PIDNS_FD; NODE: the host's. */
  pid: 'CONTAINER' | 'SHARED' | 'NODE';
  /** A non-root user: set by setpriv inside the sandbox, or (without setpriv) a user namespace that maps it to root. */
  uid: number;
  gid: number;
  /** Supplementary groups (set by setpriv; a user namespace cannot). */
  groups: number[];
  mounts: SandboxMount[];
  /** / read-only once everything is mounted on it (the mounts themselves keep their mode). */
  readonlyRootfs?: boolean;
  /** The capabilities the program keeps (setpriv's names); absent: all. */
  capabilities?: readonly string[];
  /** The host's /sys writable (read-only otherwise, as runc binds it for a container on the host's network). */
  privileged?: boolean;
  maskedPaths?: readonly string[];
  readonlyPaths?: readonly string[];
  /** hostIPC: the host's IPC namespace, not the holder's. */
  hostIpc?: boolean;
  /** The fd bwrap reads the seccomp filter from (ProcessSpec.files), loaded just before the program; absent: none. */
  seccompFd?: number;
}

export class Bubblewrap {
  readonly available: boolean;
  readonly reason: string;
  private readonly bwrap: string;
  private readonly nsenter: string;
  private readonly unshare: string | undefined;
  /** How non-root users are set without a user namespace (where setpriv could be copied to `kitDir`). */
  private readonly kit: SetuidKit;
  /** The comms of what runs before a program: WRAPPERS and the kit's loader. */
  private readonly wrappers: Set<string>;

  /** What pod holders idle on (pause.ts). */
  private readonly pause: string;

  /** `found`: bwrap and nsenter, and whether a sandbox worked (startHostProbes in host-probes.ts). */
  constructor(kitDir: string, found: BubblewrapProbe) {
    this.pause = pauseProgram(join(dirname(kitDir), 'bin'));
    this.available = found.available;
    this.reason = found.reason;
    this.bwrap = found.bwrap;
    this.nsenter = found.nsenter;
    this.unshare = which('unshare');
    this.kit = found.available
      ? prepareSetuidKit(kitDir, which('setpriv'), [found.bwrap, which('mount'), which('umount')], which('busybox'))
      : { ok: false, reason: 'no sandboxes' };
    this.wrappers = new Set([...WRAPPERS, ...(this.kit.ok ? [this.kit.loader.slice(0, 15)] : [])]);
  }

  /** What `runtime status` says of sandboxes that work (ImageSandboxes says why when they do not). */
  describe(): string {
    const users = this.kit.ok ? 'non-root users set by setpriv' : `non-root users in a user namespace (${this.kit.reason})`;
    return `bubblewrap sandboxes (${this.reason}; ${users})`;
  }

  /** The setpriv the sandboxes hold, for the containers bwrap does not run (mount-sandbox.ts). */
  get setuidKit(): SetuidKit {
    return this.kit;
  }

  /**
   * Whether a non-root user can run in a PID namespace the sandbox joins:
   * not from a user namespace made after it (setns needs privileges over
   * the namespace's owner).
   */
  get usersJoinPidNamespaces(): boolean {
    return this.kit.ok;
  }

  /**
   * Starts the process that holds a pod's IPC, UTS and PID namespaces, with
   * the pod's hostname, in the network namespace NETNS if the pod has one of
   * its own; without a hostname (a host-network pod) it stays in the host's
   * UTS namespace, as containerd leaves such a pod there. As root, unshare
   * (it starts quicker than bwrap: it mounts nothing): the kit's static
   * busybox where it has one, which needs no loader and no libraries, or
   * util-linux's; otherwise bwrap, in a user namespace. `detach` starts it
   * (the runtime's spawner, whose fork costs less).
   */
  async startHolder(
    hostname: string | undefined,
    netns?: string,
    detach: (argv: readonly string[]) => Promise<number> = detachHere,
  ): Promise<NamespaceHolder> {
    const uts = hostname === undefined ? [] : ['--uts'];
    // Under unshare the holder's shell writes the hostname ($2); bwrap sets it itself.
    const named = hostname === undefined ? '' : 'echo "$2" > /proc/sys/kernel/hostname && ';
    const name = hostname === undefined ? [] : [hostname];
    const root = process.getuid?.() === 0;
    const kit = root && this.kit.ok && this.kit.applets ? this.kit : undefined;
    let [file, args] = kit
      ? // No --kill-child in busybox's unshare: the holder is killed by its process group, its shell with it.
        [
          staticApplet(kit, 'unshare')!,
          [
            ...['--ipc', ...uts, '--pid', '--fork', '--', ...staticShell(kit), '-c', `${named}${HOLDER_READY} && ${STATIC_HOLDER_LOOP}`],
            ...['holder', staticApplet(kit, STATIC_PAUSE)!, ...name],
          ],
        ]
      : root && this.unshare
        ? [
            this.unshare,
            [
              ...['--ipc', ...uts, '--pid', '--fork', '--kill-child', '--', '/bin/sh', '-c', `${named}${HOLDER_READY} && ${HOLDER_LOOP}`],
              ...['holder', this.pause, ...name],
            ],
          ]
        : [
            this.bwrap,
            [
              '--unshare-ipc',
              ...(hostname === undefined ? [] : ['--unshare-uts', '--hostname', hostname]),
              '--unshare-pid',
              '--ro-bind',
              '/',
              '/',
              '--proc',
              '/proc',
              '--dev',
              '/dev',
              '--as-pid-1',
              '--',
              '/bin/sh',
              '-c',
              `${HOLDER_READY} && ${HOLDER_LOOP}`,
              'holder',
              this.pause,
            ],
          ];
    // The pod's own network (a pod network, root only): the holder is made in it, and holds it for its containers.
    if (netns)
      [file, args] = kit
        ? [staticApplet(kit, 'nsenter')!, [`--net=${netns}`, '-F', '--', file, ...args]]
        : [this.nsenter, [`--net=${netns}`, '--', file, ...args]];
    const pid = await detach([file, ...args]).catch((err: Error) =>
      Promise.reject(new Error(`could not start the process that holds the pod's namespaces: ${err.message}`)),
    );
    return { pid, startTime: readProcStat(pid)?.startTime ?? '' };
  }

  /** Writes sysctls (files under /proc/sys, values) in the IPC and UTS namespaces of `program`, a holder's PID 1 (the UTS one the host's for a host-network pod, where none are allowed); rejects with what the write said. */
  writeSysctls(program: number, files: readonly (readonly [string, string])[]): Promise<void> {
    const user = process.getuid?.() === 0 ? [] : ['--user'];
    const args = [
      `--target=${program}`,
      ...user,
      '--ipc',
      '--uts',
      ...joined(program, 'net'),
      '--',
      '/bin/sh',
      '-c',
      WRITE_SYSCTLS,
      'sh',
      ...files.flat(),
    ];
    return new Promise((resolve, reject) => {
      execFile(this.nsenter, args, { timeout: 10_000, encoding: 'utf8' }, (err, _stdout, stderr) =>
        err ? reject(new Error(stderr.trim() || err.message)) : resolve(),
      );
    });
  }

  /** The command before a program's argv that runs it in its sandbox. */
  wrapper(p: SandboxedProcess): string[] {
    const args = [
      this.nsenter,
      `--target=${p.holder}`,
      ...(p.hostIpc ? [] : ['--ipc']),
      ...joined(p.holder, 'uts'),
      ...joined(p.holder, 'net'),
      '--',
      this.bwrap,
      '--bind',
      p.rootfs,
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      p.privileged ? '--bind' : '--ro-bind',
      '/sys',
      '/sys',
    ];
    // The program dies with the runtime (a restart's recovery stops the others by their process group).
    // Not in a shared PID namespace: there bwrap forks the program from a short-lived intermediate
    // child, and a program whose parent-death signal is armed before that child has exited gets
    // SIGKILL when it does (exit code 137, seen under load).
    if (p.pid !== 'SHARED') args.push('--die-with-parent');
    if (p.pid === 'CONTAINER') args.push('--unshare-pid', '--as-pid-1');
    else if (p.pid === 'SHARED') args.push('--pidns', String(PIDNS_FD));
    const nonRoot = p.uid !== 0 || p.gid !== 0;
    // The kit's setpriv sets the user, the groups and the capability bounding set; it is bound in
    // for exec too (which enters without bwrap), whenever one of them is the container's own.
    const kit = (nonRoot || p.groups.length > 0 || p.capabilities) && this.kit.ok ? this.kit : undefined;
    if (nonRoot && !kit) args.push('--unshare-user', '--uid', String(p.uid), '--gid', String(p.gid));
    // Without the kit, bwrap drops them (for the program alone: an exec keeps root's).
    if (p.capabilities && !kit) args.push('--cap-drop', 'ALL', ...p.capabilities.flatMap((c) => ['--cap-add', `CAP_${c.toUpperCase()}`]));
    // Parents before children, so a mount inside another volume lands on it.
    const mounts = [...p.mounts].sort((a, b) => depth(a.containerPath) - depth(b.containerPath));
    // A read-only mount is read-only itself, what is mounted under it on the host keeps its mode (as
    // runc's); a recursive one makes those read-only too. Remounted once all are in place.
    for (const m of mounts) args.push(m.recursiveReadOnly ? '--ro-bind' : '--bind', m.hostPath, m.containerPath);
    if (kit) args.push('--ro-bind', kit.dir, KIT_PATH);
    args.push(...pathMaskArgs(p.maskedPaths ?? [], p.readonlyPaths ?? [], p.rootfs, mounts));
    for (const m of mounts) if (m.readonly && !m.recursiveReadOnly) args.push('--remount-ro', m.containerPath);
    if (p.readonlyRootfs) args.push('--remount-ro', '/');
    if (p.seccompFd !== undefined) args.push('--seccomp', String(p.seccompFd));
    args.push('--chdir', p.cwd, '--');
    if (kit) args.push(...setuidPrefix(kit, p.uid, p.gid, p.groups, p.capabilities));
    return args;
  }

  /**
   * The command before an argv that runs it in a running sandbox whose program is `program`, in the
   * container's working directory `cwd` (a path in its root), as `uid`:`gid`
   * with supplementary `groups` (and no_new_privs when the container has it): set by the kit's setpriv,
   * which the sandbox then holds (wrapper).
   */
  execWrapper(
    program: number,
    cwd: string,
    uid: number,
    gid: number,
    groups: readonly number[] = [],
    capabilities?: readonly string[],
    seccomp?: string,
    noNewPrivs = false,
  ): string[] {
    const args = [this.nsenter, `--target=${program}`, '--mount', '--uts', '--ipc', '--pid', ...joined(program, 'net')];
    // The container's working directory in its root, as runc starts an exec there: not its program's current one.
    // util-linux 2.38's nsenter opens the directory before it enters, so it is named through the program's root.
    const root = ['--root', `--wd=/proc/${program}/root${posix.resolve('/', cwd)}`];
    const extras = { noNewPrivs };
    if (seccomp) {
      // Under the container's filter: the host's shell opens it at fd 3, which nsenter and the kit's bwrap keep.
      if (!this.kit.ok || !this.kit.programs.includes('bwrap'))
        throw new Error(
          `cannot run an exec under the container's seccomp filter: the sandbox has no bwrap to load it (${this.kit.ok ? 'bwrap links against another loader than setpriv' : this.kit.reason})`,
        );
      return [
        '/bin/sh',
        '-c',
        'exec 3<"$0" && exec "$@"',
        seccomp,
        ...args,
        ...root,
        '--',
        ...seccompPrefix(this.kit, 3),
        ...setuidPrefix(this.kit, uid, gid, groups, capabilities, extras),
      ];
    }
    if ((groups.length > 0 || capabilities || noNewPrivs) && this.kit.ok)
      return [...args, ...root, '--', ...setuidPrefix(this.kit, uid, gid, groups, capabilities, extras)];
    if (uid !== 0 || gid !== 0) args.push(...(this.kit.ok ? [] : ['--user']), `--setuid=${uid}`, `--setgid=${gid}`);
    args.push(...root, '--');
    return args;
  }

  /** The container's program under its wrappers (nsenter, bwrap): the first process down the chain that is neither. */
  programOf(pid: number): number | undefined {
    return programBelow(pid, this.wrappers);
  }

  /** Waits (briefly) for the program of a sandbox that has just started; undefined when the sandbox ended first. */
  waitForProgram(pid: number): Promise<number | undefined> {
    return waitForProcess(pid, () => this.programOf(pid), PROGRAM_TIMEOUT_MS);
  }
}

/**
 * The program under a chain of wrappers, whose comms are `wrappers`: the
 * first process down the chain that is none of them; undefined while the
 * chain is still being set up.
 */
export function programBelow(pid: number, wrappers: ReadonlySet<string>): number | undefined {
  let current = pid;
  for (let depth = 0; depth < 4; depth++) {
    const comm = commOf(current);
    // Gone as it was read (bwrap's short-lived intermediate child, in a shared PID namespace): not the program.
    if (comm === undefined) return undefined;
    if (!wrappers.has(comm)) return current;
    const next = childrenOf(current)[0];
    if (next === undefined) return undefined;
    current = next;
  }
  return undefined;
}

/**
 * nsenter's option to join PID's namespace of kind NS, when it is not the
 * runtime's own: a pod network's, or a UTS namespace the holder of a pod off
 * the host's network made (a host-network pod's holder stays in the host's).
 */
export function joined(pid: number, ns: 'net' | 'uts'): string[] {
  try {
    return readlinkSync(`/proc/${pid}/ns/${ns}`) === readlinkSync(`/proc/self/ns/${ns}`) ? [] : [`--${ns}`];
  } catch {
    return [];
  }
}

export function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
