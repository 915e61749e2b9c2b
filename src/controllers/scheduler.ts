import type { Pod } from '../engine/api/v1.js';
import { rfc3339 } from '../engine/api/v1.js';
import type { KubeObject } from '../engine/api/workloads.js';
import { unschedulable, WorkQueue, type Controller, type ControllerDeps } from './controller.js';
import { compareStrings } from '../util/compare.js';

/**
 * The scheduler's retry for one node: a pod left Pending because it did not
 * fit is bound once it does, when a pod finishes or goes, or when the node
 * restarts; its PodScheduled condition then turns True. Pods are tried
 * oldest first, as the scheduler's queue orders them by creation.
 */
export class SchedulerController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(
      deps.clock,
      () => this.schedule(),
      () => {},
    );
  }

  start(): void {
    this.unsubscribe = this.deps.store.watch(
      (e) => {
        if (e.object.kind !== 'Pod') return;
        const phase = (e.object.status as Pod['status'])?.phase;
        if (e.type === 'DELETED' || phase === 'Succeeded' || phase === 'Failed') this.queue.add('pending');
      },
      { shared: true },
    );
    this.queue.add('pending');
  }

  /** Tries every Pending pod again. */
  retry(): void {
    this.queue.add('pending');
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private schedule(): void {
    const unbound = (o: Readonly<KubeObject>) => {
      const p = o as unknown as Pod;
      return !p.spec.nodeName && !p.metadata.deletionTimestamp && p.status?.phase === 'Pending';
    };
    const pending = (this.deps.store.list<KubeObject>('Pod', undefined, unbound) as unknown as Pod[]).sort((a, b) =>
      compareStrings(a.metadata.creationTimestamp ?? '', b.metadata.creationTimestamp ?? ''),
    );
    for (const pod of pending) {
      const why = unschedulable(this.deps, pod);
      if (why) {
        this.stillUnschedulable(pod, why);
        continue;
      }
      const namespace = pod.metadata.namespace!;
      const bound = this.deps.store.update({ ...pod, spec: { ...pod.spec, nodeName: this.deps.nodeName } } as unknown as KubeObject);
      const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled');
      conditions.unshift({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: rfc3339(this.deps.clock.now()) });
      this.deps.store.updateStatus('Pod', namespace, pod.metadata.name!, { ...pod.status, conditions }, bound.metadata.uid);
    }
  }
  /** A pod that still does not fit, for another reason now, says the new one, as the scheduler rewrites its condition. */
  private stillUnschedulable(pod: Pod, why: string): void {
    const before = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (before?.message === why) return;
    const condition = {
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
      message: why,
      lastProbeTime: null,
      lastTransitionTime: before?.status === 'False' ? before.lastTransitionTime : rfc3339(this.deps.clock.now()),
    };
    const conditions = [condition, ...(pod.status?.conditions ?? []).filter((c) => c.type !== 'PodScheduled')];
    this.deps.store.updateStatus('Pod', pod.metadata.namespace!, pod.metadata.name!, { ...pod.status, conditions }, pod.metadata.uid);
  }
}
