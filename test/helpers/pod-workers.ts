// Real pod workers over a fake clock and a no-op syncer, for unit tests of what they say of a pod.
import type { Pod } from '../../src/engine/api/v1.js';
import { EventStream } from '../../src/engine/events.js';
import { PodCache } from '../../src/engine/pleg/pod-cache.js';
import type { PodSyncer } from '../../src/engine/pod-syncer.js';
import { PodWorkers } from '../../src/engine/pod-workers.js';
import { WorkQueue } from '../../src/engine/work-queue.js';
import { FakeClock, flushMicrotasks } from '../../src/util/clock.js';

/** Pod workers whose syncs do nothing; `relist` gives them a newer runtime status, as the PLEG does. */
export function noopPodWorkers() {
  const clock = new FakeClock();
  const cache = new PodCache();
  const syncer: PodSyncer = {
    syncPod: async () => ({ terminal: false }),
    syncTerminatingPod: async (_pod, status) => ({ status, readAt: clock.now() }),
    syncTerminatingRuntimePod: async () => {},
    syncTerminatedPod: async () => {},
  };
  const workers = new PodWorkers({
    syncer,
    cache,
    workQueue: new WorkQueue(clock),
    clock,
    random: () => 0,
    events: new EventStream(() => clock.now()),
    resyncInterval: 60_000,
    backOffPeriod: 10_000,
  });
  const relist = async () => {
    await clock.advance(1);
    cache.updateTime(clock.now());
    await flushMicrotasks(50);
  };
  const state = (uid: string) => workers.workers().find((w) => w.uid === uid)?.state;
  return { workers, relist, state };
}

/** A one-container pod; DELETED gives it a deletion timestamp, PHASE a status phase. */
export function workerPod(uid: string, extra: { deleted?: boolean; phase?: 'Failed' | 'Succeeded' } = {}): Pod {
  return {
    metadata: { uid, name: `pod-${uid}`, namespace: 'default', ...(extra.deleted ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
    ...(extra.phase ? { status: { phase: extra.phase } } : {}),
  };
}
