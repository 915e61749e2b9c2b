import { afterEach, describe, expect, it } from 'vitest';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { CONTAINER_GC_PERIOD, GarbageCollector, podStateProvider } from '../../../src/engine/garbage-collector.js';
import { DEFAULT_GC_POLICY, type GCResult } from '../../../src/engine/kuberuntime/container-gc.js';
import type { PodWorkers } from '../../../src/engine/pod-workers.js';
import { FakeClock } from '../../../src/util/clock.js';
import { noopPodWorkers, workerPod } from '../../helpers/pod-workers.js';

type Step = 'create' | 'evict' | 'kill' | 'delete' | 'fail' | 'unwanted' | 'relist';

describe('podStateProvider', () => {
  // The kubelet's pod workers as the GC's podStateProvider (pod_workers.go ShouldPodContentBeRemoved and
  // ShouldPodRuntimeBeRemoved), asked of pod "a" after STEPS: content is what the GC removes of a pod
  // (dead containers, sandboxes, log directory), runtime what it removes only when evicting hard.
  const cases: { description: string; steps: Step[]; podsSynced: boolean; content: boolean; runtime: boolean }[] = [
    { description: 'a running pod', steps: ['create', 'relist'], podsSynced: true, content: false, runtime: false },
    {
      description: 'an evicted pod, from the kill on',
      steps: ['create', 'relist', 'evict'],
      podsSynced: true,
      content: true,
      runtime: false,
    },
    {
      description: 'an evicted pod that terminated',
      steps: ['create', 'relist', 'evict', 'relist', 'relist'],
      podsSynced: true,
      content: true,
      runtime: true,
    },
    {
      description: 'a pod a node shutdown stopped, still wanted',
      steps: ['create', 'relist', 'kill', 'relist', 'relist'],
      podsSynced: true,
      content: false,
      runtime: true,
    },
    {
      description: 'a pod that failed and terminated, still wanted',
      steps: ['create', 'relist', 'fail', 'relist', 'relist'],
      podsSynced: true,
      content: false,
      runtime: true,
    },
    {
      description: 'a deleted pod still terminating',
      steps: ['create', 'relist', 'delete'],
      podsSynced: true,
      content: false,
      runtime: false,
    },
    {
      description: 'a deleted pod that terminated',
      steps: ['create', 'relist', 'delete', 'relist'],
      podsSynced: true,
      content: true,
      runtime: true,
    },
    {
      description: 'a pod no source wants any more, once terminated',
      steps: ['create', 'relist', 'unwanted', 'relist'],
      podsSynced: true,
      content: true,
      runtime: true,
    },
    { description: 'a pod no worker knows, once the pods synced', steps: [], podsSynced: true, content: true, runtime: true },
    { description: 'a pod no worker knows, before the pods synced', steps: [], podsSynced: false, content: false, runtime: false },
  ];

  let workers: PodWorkers | undefined;
  afterEach(async () => {
    await workers?.stop(0);
    workers = undefined;
  });

  it.each(cases)('$description', async ({ steps, podsSynced, content, runtime }) => {
    const harness = noopPodWorkers();
    workers = harness.workers;
    for (const step of steps) {
      if (step === 'relist') await harness.relist();
      else if (step === 'create') workers.updatePod({ updateType: 'create', pod: workerPod('a') });
      else if (step === 'evict') workers.updatePod({ updateType: 'kill', pod: workerPod('a'), evict: true });
      else if (step === 'kill') workers.updatePod({ updateType: 'kill', pod: workerPod('a') });
      else if (step === 'delete') workers.updatePod({ updateType: 'update', pod: workerPod('a', { deleted: true }) });
      else if (step === 'fail') workers.updatePod({ updateType: 'update', pod: workerPod('a', { phase: 'Failed' }) });
      else workers.syncKnownPods(new Set());
    }
    const state = podStateProvider(workers, () => podsSynced);
    expect([state.shouldPodContentBeRemoved('a'), state.shouldPodRuntimeBeRemoved('a')]).toEqual([content, runtime]);
  });
});

describe('GarbageCollector', () => {
  function setUp(answers: (GCResult | Error)[]) {
    const clock = new FakeClock();
    const events: LifecycleEvent[] = [];
    const stream = new EventStream(() => clock.now());
    stream.subscribe((e) => events.push(e));
    const calls: [unknown, boolean][] = [];
    let ready = false;
    const gc = {
      garbageCollect: async (policy: typeof DEFAULT_GC_POLICY, allSourcesReady: boolean) => {
        calls.push([policy, allSourcesReady]);
        const answer = answers.shift() ?? { containers: 0, sandboxes: 0, logDirectories: 0, failures: [] };
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
    const collector = new GarbageCollector({ gc, policy: DEFAULT_GC_POLICY, clock, events: stream, allSourcesReady: () => ready });
    return { clock, events, calls, collector, setReady: () => (ready = true) };
  }

  it("collects at start and every minute with the kubelet's policy, until stopped", async () => {
    const { clock, calls, collector, setReady } = setUp([]);
    collector.start();
    await clock.advance(0);
    expect(calls).toEqual([[{ minAge: 0, maxPerPodContainer: 1, maxContainers: -1 }, false]]);
    setReady();
    await clock.advance(CONTAINER_GC_PERIOD - 1);
    expect(calls).toHaveLength(1);
    await clock.advance(1);
    expect(calls.map(([, ready]) => ready)).toEqual([false, true]);
    await collector.stop();
    expect(clock.pending).toBe(0);
  });

  it('says what it removed, nothing when it removed nothing, and warns when a collection fails', async () => {
    const removed = { containers: 2, sandboxes: 1, logDirectories: 1, failures: ['failed to remove container c-9: NOT_FOUND'] };
    const { events, collector } = setUp([
      { containers: 0, sandboxes: 0, logDirectories: 0, failures: [] },
      removed,
      new Error('ListContainers: UNAVAILABLE: connection refused'),
    ]);
    await collector.collect();
    expect(events).toEqual([]);
    await collector.collect();
    await collector.collect();
    expect(events.map((e) => [e.type, e.reason, e.message])).toEqual([
      [
        'ContainerGarbageCollected',
        undefined,
        'removed 2 dead containers, 1 sandboxes, 1 pod log directories; failed to remove container c-9: NOT_FOUND',
      ],
      ['ContainerGCFailed', 'ContainerGCFailed', 'ListContainers: UNAVAILABLE: connection refused'],
    ]);
    expect(events[0].detail).toEqual(removed);
  });

  it("runs the eviction manager's reclaim after the collection under way, and a collection due meanwhile is the reclaim", async () => {
    const clock = new FakeClock();
    const calls: boolean[] = [];
    const held: (() => void)[] = [];
    const gc = {
      garbageCollect: async (_policy: typeof DEFAULT_GC_POLICY, _ready: boolean, evictNonDeletedPods = false) => {
        calls.push(evictNonDeletedPods);
        await new Promise<void>((resolve) => held.push(resolve));
        return { containers: 0, sandboxes: 0, logDirectories: 0, failures: [] };
      },
    };
    const events = new EventStream(() => clock.now());
    const collector = new GarbageCollector({ gc, policy: DEFAULT_GC_POLICY, clock, events, allSourcesReady: () => true });
    const periodic = collector.collect();
    const reclaim = collector.deleteAllUnused();
    await Promise.resolve();
    expect(calls).toEqual([false]);
    // A collection due while the reclaim waits or runs is the reclaim: no pass of its own.
    expect(collector.collect()).toBe(reclaim);
    held.shift()!();
    await periodic;
    await clock.advance(0);
    expect(calls).toEqual([false, true]);
    held.shift()!();
    await reclaim;
    expect(calls).toEqual([false, true]);
    // Nothing under way any more: the next collection is a pass of its own.
    const next = collector.collect();
    await clock.advance(0);
    expect(calls).toEqual([false, true, false]);
    held.shift()!();
    await next;
  });
});
