import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/engine/api/v1.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { CONTAINER_GC_PERIOD, GarbageCollector, podStateProvider } from '../../../src/engine/garbage-collector.js';
import { DEFAULT_GC_POLICY, type GCResult } from '../../../src/engine/kuberuntime/container-gc.js';
import { FakeClock } from '../../../src/util/clock.js';

describe('podStateProvider', () => {
  const cases = [
    {
      description: 'a wanted pod whose worker still runs it',
      wanted: true,
      worker: 'running',
      sourcesReady: true,
      content: false,
      runtime: false,
    },
    {
      description: 'a wanted pod that has terminated (a pod that Succeeded)',
      wanted: true,
      worker: 'terminated',
      sourcesReady: true,
      content: false,
      runtime: true,
    },
    { description: 'a wanted pod no worker knows yet', wanted: true, worker: 'none', sourcesReady: true, content: false, runtime: true },
    {
      description: 'a deleted pod still terminating',
      wanted: false,
      worker: 'running',
      sourcesReady: true,
      content: false,
      runtime: false,
    },
    {
      description: 'a deleted pod that has terminated',
      wanted: false,
      worker: 'terminated',
      sourcesReady: true,
      content: true,
      runtime: true,
    },
    {
      description: 'a pod no source wants and no worker knows',
      wanted: false,
      worker: 'none',
      sourcesReady: true,
      content: true,
      runtime: true,
    },
    {
      description: 'the same before every source was seen',
      wanted: false,
      worker: 'none',
      sourcesReady: false,
      content: false,
      runtime: false,
    },
  ] as const;

  it.each(cases)('$description', ({ wanted, worker, sourcesReady, content, runtime }) => {
    const pod = { metadata: { uid: 'uid-1' } } as Pod;
    const state = podStateProvider(
      { getPodByUid: (uid) => (wanted && uid === 'uid-1' ? pod : undefined) },
      { isKnown: () => worker !== 'none', couldHaveRunningContainers: () => worker === 'running' },
      () => sourcesReady,
    );
    expect([state.shouldPodContentBeRemoved('uid-1'), state.shouldPodRuntimeBeRemoved('uid-1')]).toEqual([content, runtime]);
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
});
