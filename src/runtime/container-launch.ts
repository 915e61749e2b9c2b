import { homedir } from 'node:os';
import type { ProcessSpec } from './process-spec.js';
import { precondition } from './errors.js';
import { execSync, type ExecResult } from './exec.js';
import type { PidNamespaces } from './pid-namespaces.js';
import { podHostname, type ContainerRecord, type SandboxedSpec, type SandboxRecord } from './records.js';
import { findInRootfs } from './sandbox/image-process.js';
import type { ImageSandboxes } from './sandbox/image-sandboxes.js';
import type { RuntimeState } from './state.js';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** What a start runs: the program and what wraps it, without the log and stdin the start adds. */
export type LaunchSpec = Omit<ProcessSpec, 'logPath' | 'stdin'>;

/** What runs a command beside a container: the wrapper goes in front of the command. */
export interface ExecCommand {
  env: Record<string, string>;
  cwd: string;
  wrapper?: string[];
  /** Whether a program exists where the command runs (a sandbox's root); the host when absent. */
  hasProgram?: (command: string) => boolean;
  /**
   * What a terminal for the command is made behind (the container's PID namespace): a shell
   * there must see the terminal's session and foreground group, as it does under runc.
   */
  terminalWrapper?: string[];
}

/**
 * How a container's program is run and entered: a host process gets its argv,
 * environment and working directory, wrapped in the PID namespace CRI asks for
 * (its own, the pod's or another container's); a container of a real image
 * runs in the pod's sandbox. ExecSync enters the same namespaces.
 */
export class ContainerLaunch {
  constructor(
    private readonly state: RuntimeState,
    private readonly pidNamespaces: PidNamespaces,
    private readonly sandboxes: ImageSandboxes,
    /** A running container's program once it has started under its wrapper; undefined without one. */
    private readonly programOf: (id: string) => Promise<number | undefined>,
  ) {}

  /** What StartContainer runs for `c` in its (ready) sandbox. */
  spec(c: ContainerRecord, sandbox: SandboxRecord): Promise<LaunchSpec> {
    return c.sandboxed ? this.sandboxedProcess(c, c.sandboxed, sandbox) : this.hostProcess(c, sandbox);
  }

  /** ExecSync of `cmd` in a running container whose program is `program` (undefined: it has no namespace of its own). */
  exec(
    c: ContainerRecord,
    sandbox: SandboxRecord | undefined,
    program: number | undefined,
    cmd: string[],
    timeoutSeconds: number,
  ): Promise<ExecResult> {
    const run = this.execCommand(c, sandbox, program);
    return execSync(cmd, run.env, run.cwd, timeoutSeconds, run.wrapper, run.hasProgram);
  }

  /** How a command is run beside a running container: what enters its namespaces (or sandbox), its environment and directory. */
  execCommand(c: ContainerRecord, sandbox: SandboxRecord | undefined, program: number | undefined): ExecCommand {
    const hostname = sandbox ? podHostname(sandbox) : '';
    if (c.sandboxed) {
      if (program === undefined) throw precondition(`container ${c.id} is not running`);
      const spec = c.sandboxed;
      const env: Record<string, string> = { ...spec.env, HOSTNAME: hostname };
      // A root mounted in the container's namespace only is seen through its program's.
      const hasProgram = spec.ownRoot
        ? (command: string) => findInRootfs(`/proc/${program}/root`, command, env.PATH ?? '', spec.cwd) !== undefined
        : (command: string) => findInRootfs(spec.rootfs, command, env.PATH ?? '', spec.cwd, c.mounts) !== undefined;
      const terminalWrapper = this.pidNamespaces.enterPidNamespace(program);
      return { env, cwd: '/', wrapper: this.sandboxes.execWrapper(spec, program), hasProgram, terminalWrapper };
    }
    const cwd = c.workingDir || '/';
    if (program === undefined) return { env: this.environment(c, hostname), cwd };
    const wrapper = this.pidNamespaces.joinNamespace(program, cwd);
    return { env: this.environment(c, hostname), cwd, wrapper, terminalWrapper: this.pidNamespaces.enterPidNamespace(program) };
  }

  private async hostProcess(c: ContainerRecord, sandbox: SandboxRecord): Promise<LaunchSpec> {
    return {
      argv: [...c.command, ...c.args],
      wrapper: await this.pidNamespaceWrapper(c, sandbox),
      env: this.environment(c, podHostname(sandbox)),
      cwd: c.workingDir || '/',
    };
  }

  /** A container of a real image: in its sandbox, within the pod's namespaces and the PID namespace CRI asks for. */
  private async sandboxedProcess(c: ContainerRecord, spec: SandboxedSpec, sandbox: SandboxRecord): Promise<LaunchSpec> {
    const holder = await this.sandboxes.podHolder(sandbox, (s) => this.state.saveSandbox(s));
    const { mode, targetId } = c.pidNamespace ?? { mode: 'POD', targetId: '' };
    let pid: number | 'own' | 'node';
    if (mode === 'CONTAINER') pid = 'own';
    else if (mode === 'NODE') pid = 'node';
    else if (mode === 'TARGET') {
      const target = await this.programOf(targetId);
      if (target === undefined) throw new Error(`the target container ${targetId} of the PID namespace is not running`);
      pid = target;
    } else pid = holder;
    return this.sandboxes.processSpec(c, spec, sandbox, holder, pid);
  }

  /** What runs the container in the PID namespace it asked for (CRI's NamespaceOption.pid); undefined: the host's. */
  private async pidNamespaceWrapper(c: ContainerRecord, sandbox: SandboxRecord): Promise<string[] | undefined> {
    const namespaces = this.pidNamespaces;
    if (!namespaces.available) return undefined;
    const cwd = c.workingDir || '/';
    const { mode, targetId } = c.pidNamespace ?? { mode: 'POD', targetId: '' };
    switch (mode) {
      case 'NODE':
        return undefined;
      case 'CONTAINER':
        return namespaces.ownNamespace();
      case 'TARGET': {
        const init = await this.programOf(targetId);
        if (init === undefined)
          throw new Error(`the target container ${targetId} of the PID namespace does not run in a namespace of its own`);
        return namespaces.joinNamespace(init, cwd);
      }
      default:
        return namespaces.joinNamespace(await this.sharedPidNamespace(sandbox), cwd);
    }
  }

  /**
   * PID 1 of the sandbox's shared PID namespace. Its holder started with
   * RunPodSandbox; it starts again here when it is gone (after a restart of
   * the runtime) or was never needed before (a container of an image
   * without layers in a runtime with sandboxes).
   */
  private async sharedPidNamespace(sandbox: SandboxRecord): Promise<number> {
    if (!sandbox.pidHolder || !this.pidNamespaces.isAlive(sandbox.pidHolder)) {
      sandbox.pidHolder = this.pidNamespaces.startHolder();
      this.state.saveSandbox(sandbox);
    }
    const init = await this.pidNamespaces.waitForInit(sandbox.pidHolder.pid);
    if (init === undefined) throw new Error(`the process holding the pod's PID namespace (${sandbox.pidHolder.pid}) did not start`);
    return init;
  }

  /**
   * A host process sees the host's file system, not its mounts: each mount is
   * handed over as KNODE_MOUNT_<CONTAINER PATH> (upper case, other characters
   * as _), e.g. /var/cache → KNODE_MOUNT_VAR_CACHE, naming the host path.
   */
  private environment(c: ContainerRecord, hostname: string): Record<string, string> {
    const env: Record<string, string> = { PATH: DEFAULT_PATH, HOSTNAME: hostname, HOME: homedir() };
    for (const m of c.mounts) env[mountVariable(m.containerPath)] = m.hostPath;
    for (const { key, value } of c.envs) env[key] = value;
    return env;
  }
}

function mountVariable(containerPath: string): string {
  return `KNODE_MOUNT_${containerPath
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}`;
}
