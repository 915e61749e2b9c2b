import type { Job } from '../engine/api/workloads.js';
import { ClusterError } from '../engine/cluster/client.js';
import { objectKey, splitKey, WorkQueue, type Controller, type ControllerDeps } from './controller.js';
import { finishedCondition } from './job-util.js';

/**
 * The TTL-after-finished controller (pkg/controller/ttlafterfinished): a
 * finished Job with `ttlSecondsAfterFinished` is deleted that many seconds
 * after its Complete or Failed condition's transition, in the foreground as
 * upstream: its pods go first, the Job waits for them with foregroundDeletion.
 */
export class TtlAfterFinishedController implements Controller {
  private readonly queue: WorkQueue;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.queue = new WorkQueue(
      deps.clock,
      (key) => this.sync(key),
      () => {},
    );
  }

  start(): void {
    this.unsubscribe = this.deps.store.watch(
      (e) => {
        if (e.object.kind === 'Job' && e.type !== 'DELETED' && needsCleanup(e.object as Job)) this.queue.add(objectKey(e.object));
      },
      { shared: true },
    );
    for (const job of this.deps.store.list<Job>('Job')) if (needsCleanup(job)) this.queue.add(objectKey(job));
  }

  stop(): void {
    this.unsubscribe?.();
    this.queue.stop();
  }

  private sync(key: string): void {
    const [namespace, name] = splitKey(key);
    const job = this.deps.store.get<Job>('Job', namespace, name);
    if (!job || job.metadata.deletionTimestamp || !needsCleanup(job)) return;
    const finishedAt = Date.parse(finishedCondition(job)?.lastTransitionTime ?? '');
    if (Number.isNaN(finishedAt)) return;
    const left = finishedAt + job.spec.ttlSecondsAfterFinished! * 1000 - this.deps.clock.now();
    if (left > 0) return this.queue.addAfter(key, left);
    try {
      this.deps.store.delete('Job', namespace, name, { uid: job.metadata.uid, propagationPolicy: 'Foreground' });
    } catch (err) {
      if (!ClusterError.notFound(err)) throw err;
    }
  }
}

function needsCleanup(job: Job): boolean {
  return job.spec.ttlSecondsAfterFinished !== undefined && job.spec.ttlSecondsAfterFinished !== null && !!finishedCondition(job);
}
