import type { ContainerInstance, RuntimePodStatus } from '../container/types.js';
import type { EventStream } from '../events.js';
import { DEFAULT_GC_POLICY } from './container-gc.js';

/** The most removals waiting at once; more are dropped (the kubelet's containerDeletorBufferLimit). */
export const CONTAINER_DELETOR_BUFFER_LIMIT = 50;

/** The fewest dead instances of a container the deletor keeps, whatever the policy says (the kubelet's minDeadContainerInPod). */
export const MIN_DEAD_CONTAINER_IN_POD = 1;

export interface ContainerDeletorDeps {
  /** Removes a container and its logs (the runtime manager's removeContainer). */
  removeContainer: (id: string) => Promise<void>;
  /** A removal failed: reported, never thrown (the kubelet logs it). */
  onError?: (id: string, err: Error) => void;
  /** A removal was dropped: too many were waiting. */
  onDropped?: (id: string) => void;
}

/**
 * The exited containers of a pod to remove (the kubelet's
 * getContainersToDeleteInPod): those named as the one with id FILTER_ID (every
 * exited one when FILTER_ID is empty), newest first, all but the newest KEEP.
 * A FILTER_ID the pod does not hold selects nothing.
 */
export function containersToDeleteInPod(filterId: string, status: RuntimePodStatus, keep: number): ContainerInstance[] {
  const matched = filterId ? status.containers.find((c) => c.id === filterId) : undefined;
  if (filterId && !matched) return [];
  const candidates = status.containers.filter((c) => c.state === 'exited' && (!matched || c.name === matched.name));
  if (candidates.length <= keep) return [];
  return candidates.sort((a, b) => b.createdAt - a.createdAt).slice(keep);
}

/**
 * The kubelet's podContainerDeletor: on each container death, the dead
 * instances of that container beyond the newest `containersToKeep` are
 * removed, and every dead container of a pod whose content may go (an evicted
 * pod, a deleted one that terminated). Removals run one at a time in the
 * background, in order; the caller never waits for them. A container
 * already waiting is not queued twice: each death of a pod (its sandbox's,
 * each container's) names every dead container of a pod whose content goes.
 */
export class ContainerDeletor {
  private readonly queue: string[] = [];
  /** The containers queued or being removed. */
  private readonly queued = new Set<string>();
  private draining: Promise<void> | undefined;

  constructor(
    private readonly deps: ContainerDeletorDeps,
    private readonly containersToKeep: number,
  ) {}

  /** Queues the removals for the death of container FILTER_ID; REMOVE_ALL keeps none and ignores the filter. */
  deleteContainersInPod(filterId: string, status: RuntimePodStatus, removeAll: boolean): void {
    const keep = removeAll ? 0 : this.containersToKeep;
    for (const c of containersToDeleteInPod(removeAll ? '' : filterId, status, keep)) {
      if (this.queued.has(c.id)) continue;
      if (this.queue.length >= CONTAINER_DELETOR_BUFFER_LIMIT) {
        this.deps.onDropped?.(c.id);
        continue;
      }
      this.queue.push(c.id);
      this.queued.add(c.id);
    }
    this.kick();
  }

  /** Resolves once every queued removal was tried (for tests and stopping). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private kick(): void {
    if (this.draining || this.queue.length === 0) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // A removal queued as the drain ended.
      this.kick();
    });
  }

  private async drain(): Promise<void> {
    for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) {
      try {
        await this.deps.removeContainer(id);
      } catch (err) {
        this.deps.onError?.(id, err as Error);
      } finally {
        this.queued.delete(id);
      }
    }
  }
}

/**
 * The kubelet's deletor: it keeps as many dead instances of each container as the garbage
 * collector's policy does, at least one; a removal that fails is a warning in the log.
 */
export function kubeletContainerDeletor(runtime: { removeContainer(id: string): Promise<void> }, events: EventStream): ContainerDeletor {
  const report = (message: string) => events.emit({ type: 'SyncFailed', pod: '', uid: '', reason: 'ContainerDeletor', message });
  return new ContainerDeletor(
    {
      removeContainer: (id) => runtime.removeContainer(id),
      onError: (id, err) => report(`removing dead container ${id}: ${err.message}`),
      onDropped: (id) => report(`too many dead containers waiting to be removed: ${id} left to the garbage collector`),
    },
    Math.max(DEFAULT_GC_POLICY.maxPerPodContainer, MIN_DEAD_CONTAINER_IN_POD),
  );
}
