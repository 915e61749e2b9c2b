// The pod workers' ShouldPodContentBeRemoved (upstream's pod_workers.go): an evicted pod's content
// may go at once, a deleted one's once it terminated, an unknown one's once the pods synced.
import { afterEach, describe, expect, it } from 'vitest';
import type { PodWorkers } from '../../../src/engine/pod-workers.js';
import { noopPodWorkers, workerPod as pod } from '../../helpers/pod-workers.js';

let workers: PodWorkers | undefined;

function setup() {
  const harness = noopPodWorkers();
  workers = harness.workers;
  return harness;
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
