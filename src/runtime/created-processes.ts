// The processes CreateContainer makes and StartContainer lets go. As runc's
// create runs a container's set-up and leaves its init waiting on the exec
// fifo until `runc start`, a container that util-linux sets up through the
// spawner gets its namespaces, mounts and root while its create answers and
// its start comes, and its start only lets it exec its program.
import { ContainerProcess } from './container-process.js';
import type { ProcessSpec } from './process-spec.js';
import type { Spawner } from './spawner/client.js';

export class CreatedProcesses {
  private readonly made = new Map<string, Promise<ContainerProcess | undefined>>();

  constructor(private readonly spawner: Spawner) {}

  /**
   * Makes container `id`'s process, held, from the spec `spec` gives (in
   * the background: the create does not wait), when the spawner can hold
   * it; a spec it cannot hold (bwrap's) is left to the start.
   */
  make(id: string, spec: () => Promise<ProcessSpec>): void {
    if (!this.spawner.ready) return;
    // Once the create's answer is on its way (its write is an immediate too): the set-up's own work does not hold it up.
    const made = new Promise<void>((resolve) => setImmediate(resolve))
      .then(spec)
      .then((s) =>
        ContainerProcess.gated(s, this.spawner) ? ContainerProcess.start({ ...s, held: true }, undefined, this.spawner) : undefined,
      );
    made.catch(() => {}); // told to the start
    this.made.set(id, made);
  }

  /**
   * The process made for container `id`, taken for its start: undefined when
   * none was made (or the spawner could not hold it); rejects with why it
   * could not be made, which is the start's error.
   */
  take(id: string): Promise<ContainerProcess | undefined> {
    const made = this.made.get(id);
    this.made.delete(id);
    return made ?? Promise.resolve(undefined);
  }

  /** Ends the process made for container `id` (removed before its start), once it is made, and waits for its end. */
  async drop(id: string): Promise<void> {
    const proc = await this.take(id).catch(() => undefined);
    if (!proc) return;
    proc.signal('SIGKILL');
    await proc.exited;
  }

  /** Ends every held process (the runtime's shutdown). */
  async dropAll(): Promise<void> {
    await Promise.all([...this.made.keys()].map((id) => this.drop(id)));
  }
}
