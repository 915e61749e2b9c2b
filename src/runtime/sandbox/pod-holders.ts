// The processes that hold a sandboxed pod's IPC, UTS and PID namespaces, as
// its pause container does on containerd: started with RunPodSandbox, which
// answers while one starts unless the pod has sysctls to write in them (its
// containers wait for it), started again for a container when it is gone (a
// runtime restart ends them), and killed with the pod, even one that is
// still starting then.
import { detachHere, isSameProcess, signalGroup } from '../proc.js';
import { podHostname, podNetns, type SandboxRecord } from '../records.js';
import type { Bubblewrap } from './bubblewrap.js';

export class PodHolders {
  /** The holders that RunPodSandbox did not wait for, by sandbox id, while they start. */
  private readonly starting = new Map<string, { done: Promise<void>; released: boolean }>();
  /** How holders are started: the runtime's spawner, once it has one. */
  private detach: (argv: readonly string[]) => Promise<number> = detachHere;

  constructor(private readonly bubblewrap: Bubblewrap) {}

  useDetach(detach: (argv: readonly string[]) => Promise<number>): void {
    this.detach = detach;
  }

  /**
   * Starts sandbox `sandbox`'s holder (RunPodSandbox); waits for it only when
   * the pod has sysctls to write in its namespaces (a write that fails fails
   * the call). Otherwise `save` is called once the sandbox has it.
   */
  async start(sandbox: SandboxRecord, save: (s: SandboxRecord) => void): Promise<void> {
    const started = this.bubblewrap.startHolder(holderHostname(sandbox), podNetns(sandbox), this.detach);
    if (sandbox.sysctls) {
      sandbox.podHolder = await started;
      await this.writeSysctls(sandbox, await this.programOf(sandbox.podHolder.pid));
      return;
    }
    const start = { released: false, done: Promise.resolve() };
    start.done = started
      .then(
        (holder) => {
          if (start.released) signalGroup(holder.pid, 'SIGKILL');
          else {
            sandbox.podHolder = holder;
            save(sandbox);
          }
        },
        () => {}, // the pod's first container starts one again, and fails saying why
      )
      .finally(() => {
        if (this.starting.get(sandbox.id) === start) this.starting.delete(sandbox.id);
      });
    this.starting.set(sandbox.id, start);
  }

  /** PID 1 of the sandbox's holder, once its start is done, started again if it is gone. */
  async program(sandbox: SandboxRecord, save: (s: SandboxRecord) => void): Promise<number> {
    await this.starting.get(sandbox.id)?.done;
    if (!sandbox.podHolder || !isSameProcess(sandbox.podHolder.pid, sandbox.podHolder.startTime)) {
      sandbox.podHolder = await this.bubblewrap.startHolder(holderHostname(sandbox), podNetns(sandbox), this.detach);
      save(sandbox);
      const init = await this.programOf(sandbox.podHolder.pid);
      if (sandbox.sysctls) await this.writeSysctls(sandbox, init);
      return init;
    }
    return this.programOf(sandbox.podHolder.pid);
  }

  /** Kills the sandbox's holder (one still starting once it has started); false when it had none. */
  release(sandbox: SandboxRecord): boolean {
    const starting = this.starting.get(sandbox.id);
    if (starting) starting.released = true;
    this.starting.delete(sandbox.id);
    const holder = sandbox.podHolder;
    if (!holder && !starting) return false;
    if (holder && isSameProcess(holder.pid, holder.startTime)) signalGroup(holder.pid, 'SIGKILL');
    sandbox.podHolder = undefined;
    return true;
  }

  private async programOf(holder: number): Promise<number> {
    const init = await this.bubblewrap.waitForProgram(holder);
    if (init === undefined) throw new Error(`the process holding the pod's namespaces (${holder}) did not start`);
    return init;
  }

  private async writeSysctls(sandbox: SandboxRecord, init: number): Promise<void> {
    try {
      await this.bubblewrap.writeSysctls(init, sandbox.sysctls ?? []);
    } catch (err) {
      throw new Error(
        `failed to set the pod's sysctls (${(sandbox.sysctls ?? []).map(([file, value]) => `${file.replaceAll('/', '.')}=${value}`).join(', ')}): ${(err as Error).message}`,
        { cause: err },
      );
    }
  }
}

/** The hostname the pod's holder sets in a UTS namespace of its own; none for a host-network pod, which stays in the host's. */
function holderHostname(sandbox: SandboxRecord): string | undefined {
  return sandbox.namespaces.network === 'NODE' ? undefined : podHostname(sandbox);
}
