// The pod workers' ShouldPodContentBeRemoved (upstream's pod_workers.go): an evicted pod's content
// may go at once, a deleted one's once it terminated, an unknown one's once the pods synced.
import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/engine/api/v1.js';
import { EventStream } from '../../../src/engine/events.js';
import { PodCache } from '../../../src/engine/pleg/pod-cache.js';
import { PodWorkers, type PodSyncer } from '../../../src/engine/pod-workers.js';
import { WorkQueue } from '../../../src/engine/work-queue.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';

let workers: PodWorkers | undefined;

function setup() {
  const clock = new FakeClock();
  const cache = new PodCache();
  const syncer: PodSyncer = {
    syncPod: async () => ({ terminal: false }),
    syncTerminatingPod: async () => {},
    syncTerminatingRuntimePod: async () => {},
    syncTerminatedPod: async () => {},
  };
  workers = new PodWorkers({
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
  const state = (uid: string) => workers!.workers().find((w) => w.uid === uid)?.state;
  return { workers, relist, state };
}

function pod(uid: string, extra: { deleted?: boolean; phase?: 'Failed' } = {}): Pod {
  return {
    metadata: { uid, name: `pod-${uid}`, namespace: 'default', ...(extra.deleted ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
    ...(extra.phase ? { status: { phase: extra.phase } } : {}),
  };
}

afterEach(async () => {
  await workers?.stop(0);
  workers = undefined;
});

describe('PodWorkers.shouldPodContentBeRemoved', () => {
  it('is true for an evicted pod from the kill on', async () => {
    const { workers, relist, state } = setup();
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    await relist();
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(false);
    workers.updatePod({ updateType: 'kill', pod: pod('a'), evict: true });
    expect(state('a')).toBe('terminating');
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(true);
  });

  it('is false for a pod killed without eviction (a node shutdown) while it is wanted', async () => {
    const { workers, relist, state } = setup();
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    await relist();
    workers.updatePod({ updateType: 'kill', pod: pod('a') });
    await relist();
    await relist();
    expect(state('a')).toBe('terminated');
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(false);
  });

  it('does not hold as evicted a pod already terminating when the eviction came', async () => {
    const { workers, relist } = setup();
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    await relist();
    workers.updatePod({ updateType: 'kill', pod: pod('a') });
    workers.updatePod({ updateType: 'kill', pod: pod('a'), evict: true });
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(false);
  });

  it('does not hold as evicted a pod whose kill came with a deletion or a terminal phase', async () => {
    const { workers, relist } = setup();
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    workers.updatePod({ updateType: 'create', pod: pod('b') });
    await relist();
    workers.updatePod({ updateType: 'kill', pod: pod('a', { deleted: true }), evict: true });
    workers.updatePod({ updateType: 'kill', pod: pod('b', { phase: 'Failed' }), evict: true });
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(false);
    expect(workers.shouldPodContentBeRemoved('b', true)).toBe(false);
  });

  it('is true for a deleted pod only once it terminated', async () => {
    const { workers, relist, state } = setup();
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    await relist();
    workers.updatePod({ updateType: 'update', pod: pod('a', { deleted: true }) });
    expect(state('a')).toBe('terminating');
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(false);
    await relist();
    expect(state('a')).toBe('terminated');
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(true);
  });

  it('is true for a pod no source wants once it terminated', async () => {
    const { workers, relist, state } = setup();
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    await relist();
    workers.syncKnownPods(new Set());
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(false);
    await relist();
    expect(state('a')).toBe('terminated');
    expect(workers.shouldPodContentBeRemoved('a', true)).toBe(true);
  });

  it('answers for a pod no worker knows with whether the pods synced', () => {
    const { workers } = setup();
    expect(workers.shouldPodContentBeRemoved('nobody', false)).toBe(false);
    expect(workers.shouldPodContentBeRemoved('nobody', true)).toBe(true);
  });
});
