import type { Clock, Timer } from '../util/clock.js';
import type { EventStream } from './events.js';
import type { ContainerGC, GCPolicy, PodStateProvider } from './kuberuntime/container-gc.js';
import type { PodWorkers } from './pod-workers.js';

/** How often containers are collected (the kubelet's ContainerGCPeriod). */
export const CONTAINER_GC_PERIOD = 60_000;

/**
 * What the pod workers say of a pod, for the garbage collector: the kubelet
 * hands its pod workers to the GC as its podStateProvider. Its content
 * (ShouldPodContentBeRemoved) may go when the pod was evicted, at once, or
 * deleted and terminated; its runtime (ShouldPodRuntimeBeRemoved) once it
 * terminated. A pod no worker knows is gone once the pods synced
 * (PODS_SYNCED: every pod the sources gave reached its worker), not before.
 */
export function podStateProvider(
  podWorkers: Pick<PodWorkers, 'isKnown' | 'couldHaveRunningContainers' | 'shouldPodContentBeRemoved'>,
  podsSynced: () => boolean,
): PodStateProvider {
  return {
    shouldPodContentBeRemoved: (uid) => podWorkers.shouldPodContentBeRemoved(uid, podsSynced()),
    shouldPodRuntimeBeRemoved: (uid) => (podWorkers.isKnown(uid) ? !podWorkers.couldHaveRunningContainers(uid) : podsSynced()),
  };
}

export interface GarbageCollectorDeps {
  gc: Pick<ContainerGC, 'garbageCollect'>;
  policy: GCPolicy;
  clock: Clock;
  events: EventStream;
  allSourcesReady: () => boolean;
}

/**
 * The kubelet's StartGarbageCollection for containers: a collection at
 * start and every minute, on its own timer beside the sync loop; what it
 * removed is a ContainerGarbageCollected event, a collection that failed a
 * ContainerGCFailed warning (the kubelet's node event).
 */
export class GarbageCollector {
  private timer: Timer | undefined;
  private pass: Promise<void> | undefined;

  constructor(private readonly deps: GarbageCollectorDeps) {}

  start(): void {
    if (this.timer) return;
    this.timer = this.deps.clock.setInterval(() => void this.collect(), CONTAINER_GC_PERIOD);
    void this.collect();
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    await this.pass;
  }

  /** One collection; one at a time (a collection still under way when the next is due makes that one a no-op). */
  collect(): Promise<void> {
    return this.pass ?? this.afterPass(() => this.run());
  }

  /**
   * The eviction manager's reclaim (the kubelet's DeleteAllUnusedContainers):
   * every dead container of a pod that is no longer running too, not only of
   * pods that are gone, reported as a periodic collection is. One at a time
   * with the periodic ones: it follows a collection under way, and a
   * collection due meanwhile is this one.
   */
  deleteAllUnused(): Promise<void> {
    return this.afterPass(() => this.run(true));
  }

  /** Runs WORK once the pass under way, if any, has ended; WORK is the pass under way until it ends. */
  private afterPass(work: () => Promise<void>): Promise<void> {
    const previous = this.pass;
    const pass: Promise<void> = (async () => {
      await previous;
      await work();
    })().finally(() => {
      if (this.pass === pass) this.pass = undefined;
    });
    this.pass = pass;
    return pass;
  }

  private async run(evictNonDeletedPods = false): Promise<void> {
    const { events } = this.deps;
    try {
      const result = await this.deps.gc.garbageCollect(this.deps.policy, this.deps.allSourcesReady(), evictNonDeletedPods);
      const total = result.containers + result.sandboxes + result.logDirectories;
      if (total === 0 && result.failures.length === 0) return;
      const failures = result.failures.length > 0 ? `; ${result.failures.join('; ')}` : '';
      events.emit({
        type: 'ContainerGarbageCollected',
        pod: '',
        uid: '',
        message: `removed ${result.containers} dead containers, ${result.sandboxes} sandboxes, ${result.logDirectories} pod log directories${failures}`,
        detail: result,
      });
    } catch (err) {
      events.emit({ type: 'ContainerGCFailed', pod: '', uid: '', reason: 'ContainerGCFailed', message: (err as Error).message });
    }
  }
}
