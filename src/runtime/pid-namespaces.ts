import { spawn } from 'node:child_process';
import { UNSHARE_PID, type PidNamespaceProbe } from './host-probes.js';
import { childrenOf, isSameProcess, readProcStat, signalGroup, waitForProcess } from './proc.js';
import { HOLDER_LOOP, pauseProgram } from './pause.js';

/** CRI's NamespaceMode for a container's PID namespace. */
export type PidNamespaceMode = 'POD' | 'CONTAINER' | 'NODE' | 'TARGET';

/** A process holding a sandbox's shared PID namespace open, as the pause container does. */
export interface NamespaceHolder {
  /** The `unshare` process (its process group is the holder's). */
  pid: number;
  startTime: string;
}

/** PID 1 of a shared namespace: waiting on its own sleep, it reaps the orphans the containers leave. */

/** How long a new namespace's PID 1 may take to appear. */
const INIT_TIMEOUT_MS = 2_000;

/**
 * PID namespaces for host-process containers, made with util-linux's
 * unshare and nsenter, as CRI's NamespaceOption.pid asks: CONTAINER, a
 * namespace of the container's own in which its program is PID 1 (so, as
 * in any container, it ignores signals it has no handler for); POD, the
 * sandbox's namespace, held by a process the sandbox owns; TARGET, another
 * container's; NODE, the host's. Where namespaces cannot be made (no
 * privileges, no unshare), containers run in the host's, and `describe()`
 * says why.
 */
export class PidNamespaces {
  readonly available: boolean;
  readonly reason: string;

  /** What holders idle on: a `pause` link in `binDir`, or sleep itself without one. */
  private readonly pause: string;

  /** `found`: whether the host can make them (startHostProbes in host-probes.ts). */
  constructor(found: PidNamespaceProbe, binDir?: string) {
    this.available = found.available;
    this.reason = found.reason;
    this.pause = binDir ? pauseProgram(binDir) : 'sleep';
  }

  /** What `knode runtime status` says about PID namespaces. */
  describe(): string {
    return this.available ? 'a PID namespace per container, or per pod when it shares one' : `host PID namespace only: ${this.reason}`;
  }

  /** The command before a program's argv that runs it as PID 1 of a new namespace. */
  ownNamespace(): string[] {
    return ['unshare', ...UNSHARE_PID, '--'];
  }

  /** The command before a program's argv that runs it in `cwd`, in the PID (and /proc) namespace whose PID 1 is `init`. */
  joinNamespace(init: number, cwd: string): string[] {
    return ['nsenter', `--target=${init}`, '--pid', '--mount', `--wd=${cwd}`, '--'];
  }

  /**
   * The command before a program's argv that runs it in the PID namespace of `pid` and nothing else:
   * where an exec's terminal is made, so that its session and process groups are ones the container sees.
   */
  enterPidNamespace(pid: number): string[] {
    return ['nsenter', `--target=${pid}`, '--pid', '--'];
  }

  /** PID 1 of the namespace a wrapped container or holder made: the child of its unshare or nsenter. */
  private initOf(wrapperPid: number): number | undefined {
    return childrenOf(wrapperPid)[0];
  }

  /**
   * Waits (briefly) for the PID 1 of a wrapper that has just started;
   * undefined when the wrapper ended first (a program that exited at once).
   */
  waitForInit(wrapperPid: number): Promise<number | undefined> {
    return waitForProcess(wrapperPid, () => this.initOf(wrapperPid), INIT_TIMEOUT_MS);
  }

  /** Starts a holder for a sandbox's shared namespace; it lives until `release`. */
  startHolder(): NamespaceHolder {
    const [file, ...args] = [...this.ownNamespace(), '/bin/sh', '-c', HOLDER_LOOP, 'holder', this.pause];
    const child = spawn(file, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => {});
    child.unref();
    if (child.pid === undefined) throw new Error("could not start the process that holds the pod's PID namespace");
    return { pid: child.pid, startTime: readProcStat(child.pid)?.startTime ?? '' };
  }

  isAlive(holder: NamespaceHolder): boolean {
    return isSameProcess(holder.pid, holder.startTime);
  }

  /** Ends a holder, and with it every process left in its namespace. */
  release(holder: NamespaceHolder): void {
    if (this.isAlive(holder)) signalGroup(holder.pid, 'SIGKILL');
  }
}
