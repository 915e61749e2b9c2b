// The sync loop's PLEG case (upstream's syncLoopIteration): a ContainerDied event has the
// pod's dead containers cleaned up (cleanUpContainersInPod), as the pod workers allow.
import { describe, expect, it } from 'vitest';
import { emptyPodStatus, type RuntimePodStatus } from '../../../src/engine/container/types.js';
import { EventStream } from '../../../src/engine/events.js';
import type { PodLifecycleEvent } from '../../../src/engine/pleg/types.js';
import { SyncLoop, type SyncLoopDeps } from '../../../src/engine/sync-loop.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';

function setup(contentRemovable: (uid: string, podsSynced: boolean) => boolean, cacheError?: Error) {
  const clock = new FakeClock();
  const calls: { filter: string; uid: string; removeAll: boolean }[] = [];
  const plegEvents: string[] = [];
  const status: RuntimePodStatus = emptyPodStatus('uid-1', 'p', 'default');
  const deps = {
    events: new EventStream(() => clock.now()),
    podManager: { getPodByUid: () => undefined, getPods: () => [] },
    workQueue: { getWork: () => [] },
    podSyncLoopHandlers: [],
    handler: { handlePlegEvent: (e: PodLifecycleEvent) => plegEvents.push(e.type) },
    housekeeping: { handlePodCleanups: async () => {} },
    podConfig: { seenAllSources: () => false },
    stopped: () => false,
    containerCleanup: {
      deletor: {
        deleteContainersInPod: (filter: string, s: RuntimePodStatus, removeAll: boolean) => calls.push({ filter, uid: s.uid, removeAll }),
      },
      podCache: { get: (uid: string) => ({ status: { ...status, uid }, modified: 0, error: cacheError }) },
      podWorkers: { shouldPodContentBeRemoved: contentRemovable },
    },
  } as unknown as SyncLoopDeps;
  const loop = new SyncLoop(deps);
  loop.start();
  return { loop, calls, plegEvents };
}

describe('SyncLoop: dead containers on ContainerDied', () => {
  it('cleans up the dead instances of the container that died, and nothing on other events', async () => {
    const { loop, calls, plegEvents } = setup(() => false);
    loop.onPlegEvent({ id: 'uid-1', type: 'ContainerStarted', data: 'c1' });
    loop.onPlegEvent({ id: 'uid-1', type: 'ContainerDied', data: 'c2' });
    loop.onPlegEvent({ id: 'uid-1', type: 'ContainerRemoved', data: 'c3' });
    await flushMicrotasks(20);
    expect(plegEvents).toEqual(['ContainerStarted', 'ContainerDied', 'ContainerRemoved']);
    expect(calls).toEqual([{ filter: 'c2', uid: 'uid-1', removeAll: false }]);
    await loop.close();
  });

  it('removes them all when the pod workers let the content go (an evicted pod), asking with whether the pods synced', async () => {
    const asked: boolean[] = [];
    const { loop, calls } = setup((_uid, synced) => {
      asked.push(synced);
      return true;
    });
    loop.onPlegEvent({ id: 'uid-1', type: 'ContainerDied', data: 'c2' });
    await flushMicrotasks(20);
    expect(calls).toEqual([{ filter: 'c2', uid: 'uid-1', removeAll: true }]);
    expect(asked).toEqual([false]);
    await loop.close();
  });

  it('leaves a pod whose cached status is an error alone', async () => {
    const { loop, calls } = setup(() => true, new Error('rpc error'));
    loop.onPlegEvent({ id: 'uid-1', type: 'ContainerDied', data: 'c2' });
    await flushMicrotasks(20);
    expect(calls).toEqual([]);
    await loop.close();
  });
});
