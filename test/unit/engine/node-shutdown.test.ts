import { afterEach, describe, expect, it } from 'vitest';
import type { Pod, PodStatus } from '../../../src/engine/api/v1.js';
import type { RunningPod, RuntimePodStatus } from '../../../src/engine/container/types.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { NODE_SHUTDOWN_MESSAGE, NodeShutdown, shutdownGroups } from '../../../src/engine/node-shutdown.js';
import { PodCache } from '../../../src/engine/pleg/pod-cache.js';
import type { PodSyncer, SyncPodResult, TerminatingRead } from '../../../src/engine/pod-syncer.js';
import { PodWorkers } from '../../../src/engine/pod-workers.js';
import { WorkQueue } from '../../../src/engine/work-queue.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';

function pod(name: string, extra: { grace?: number; priority?: number } = {}): Pod {
  return {
    metadata: { uid: name, name, namespace: 'default' },
    spec: { containers: [{ name: 'main', image: 'busybox' }], terminationGracePeriodSeconds: extra.grace, priority: extra.priority },
  };
}

/** Syncs succeed at once; a kill records its grace period and the status it would write; `stuck` pods never finish stopping. */
class StopSyncer implements PodSyncer {
  readonly stopped: { pod: string; grace: number; status: PodStatus }[] = [];
  readonly stuck = new Set<string>();

  async syncPod(): Promise<SyncPodResult> {
    return { terminal: false };
  }
  async syncTerminatingPod(
    pod: Pod,
    runtime: RuntimePodStatus,
    grace: number,
    statusFn?: (status: PodStatus) => void,
  ): Promise<TerminatingRead> {
    const status: PodStatus = { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] };
    statusFn?.(status);
    this.stopped.push({ pod: pod.metadata.name!, grace, status });
    if (this.stuck.has(pod.metadata.name!)) await new Promise(() => {});
    return { status: runtime, readAt: 0 };
  }
  async syncTerminatingRuntimePod(_running: RunningPod): Promise<void> {}
  async syncTerminatedPod(): Promise<void> {}
}

let workers: PodWorkers | undefined;

function setup(shutdownGracePeriodMs: number, criticalPodsMs: number, pods: Pod[]) {
  const clock = new FakeClock();
  const cache = new PodCache();
  const events = new EventStream(() => clock.now());
  const seen: LifecycleEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const syncer = new StopSyncer();
  workers = new PodWorkers({
    syncer,
    cache,
    workQueue: new WorkQueue(clock),
    clock,
    random: () => 0,
    events,
    resyncInterval: 60_000,
    backOffPeriod: 10_000,
  });
  const shutdown = new NodeShutdown({
    podWorkers: workers,
    activePods: () => pods,
    events,
    clock,
    shutdownGracePeriodMs,
    shutdownGracePeriodCriticalPodsMs: criticalPodsMs,
  });
  /** Time moves on and the cache becomes current, so waiting workers go on. */
  const relist = async (ms = 1) => {
    await clock.advance(ms);
    cache.updateTime(clock.now());
    await flushMicrotasks(50);
  };
  return { clock, syncer, workers, shutdown, seen, relist };
}

afterEach(async () => {
  await workers?.stop(0);
  workers = undefined;
});

describe('shutdownGroups (the kubelet migrateConfig and groupByPriority)', () => {
  const pods = [
    pod('app', { priority: 100 }),
    pod('critical', { priority: 2_000_000_000 }),
    pod('above', { priority: 2_000_001_000 }),
    pod('low', { priority: -5 }),
    pod('none'),
  ];
  const names = (groups: ReturnType<typeof shutdownGroups>) =>
    groups.map((g) => ({ priority: g.priority, grace: g.gracePeriodSeconds, pods: g.pods.map((p) => p.metadata.name) }));

  it("puts pods below system-critical priority first with the shutdown grace period less the critical pods' part, then the critical ones", () => {
    expect(names(shutdownGroups(30_000, 10_000, pods))).toEqual([
      { priority: 0, grace: 20, pods: ['app', 'low', 'none'] },
      { priority: 2_000_000_000, grace: 10, pods: ['critical', 'above'] },
    ]);
  });

  it('without a shutdown grace period, stops every pod at once with its own', () => {
    expect(names(shutdownGroups(0, 0, pods))).toEqual([
      { priority: 0, grace: undefined, pods: ['app', 'critical', 'above', 'low', 'none'] },
    ]);
  });
});

describe('NodeShutdown', () => {
  it('stops each pod with its own grace period capped by its group, marks it Failed (Terminated, DisruptionTarget), and admits no new pod', async () => {
    const pods = [pod('app', { grace: 30 }), pod('quick', { grace: 2 }), pod('critical', { grace: 30, priority: 2_000_000_000 })];
    const { syncer, workers, shutdown, seen, relist } = setup(25_000, 5_000, pods);
    for (const p of pods) workers.updatePod({ updateType: 'create', pod: p });
    await relist();
    expect(shutdown.admit()).toEqual({ admit: true });

    let drained = false;
    void shutdown.drain().then(() => (drained = true));
    expect(shutdown.admit()).toEqual({ admit: false, reason: 'NodeShutdown', message: 'Pod was rejected as the node is shutting down.' });
    await relist();
    await relist();
    expect(drained).toBe(true);
    expect(syncer.stopped.map((s) => [s.pod, s.grace])).toEqual([
      ['app', 20],
      ['quick', 2],
      ['critical', 5],
    ]);
    expect(syncer.stopped[0].status).toMatchObject({
      phase: 'Failed',
      reason: 'Terminated',
      message: NODE_SHUTDOWN_MESSAGE,
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'DisruptionTarget', status: 'True', reason: 'TerminationByKubelet', message: NODE_SHUTDOWN_MESSAGE },
      ],
    });
    expect(seen.find((e) => e.type === 'NodeShutdown')).toMatchObject({
      reason: 'Shutdown',
      message: 'draining the node: stopping 3 pods',
    });
  });

  it("stops the critical pods only once the others stopped or their group's time ran out", async () => {
    const pods = [pod('stuck', { grace: 30 }), pod('critical', { grace: 30, priority: 2_000_000_000 })];
    const { syncer, workers, shutdown, relist } = setup(30_000, 10_000, pods);
    syncer.stuck.add('stuck');
    for (const p of pods) workers.updatePod({ updateType: 'create', pod: p });
    await relist();
    let drained = false;
    void shutdown.drain().then(() => (drained = true));
    await relist(19_000);
    expect(syncer.stopped.map((s) => s.pod)).toEqual(['stuck']);
    await relist(1_000);
    await relist();
    expect(syncer.stopped.map((s) => s.pod)).toEqual(['stuck', 'critical']);
    expect(drained).toBe(true);
  });

  it('without a shutdown grace period waits for the longest grace period and a margin, no more', async () => {
    const pods = [pod('stuck', { grace: 3 })];
    const { syncer, workers, shutdown, relist } = setup(0, 0, pods);
    syncer.stuck.add('stuck');
    workers.updatePod({ updateType: 'create', pod: pods[0] });
    await relist();
    let drained = false;
    void shutdown.drain().then(() => (drained = true));
    await relist(12_000);
    expect(drained).toBe(false);
    await relist(1_000);
    expect(drained).toBe(true);
    expect(syncer.stopped.map((s) => [s.pod, s.grace])).toEqual([['stuck', 3]]);
  });

  it('tells a kill waiting on a pod already stopped at once', async () => {
    const p = pod('gone', { grace: 1 });
    const { workers, relist } = setup(0, 0, [p]);
    workers.updatePod({ updateType: 'create', pod: p });
    await relist();
    workers.updatePod({ updateType: 'kill', pod: p });
    await relist();
    // Stopped, its final clean-up not done yet (it waits for the next relist).
    expect(workers.workers()[0]).toMatchObject({ state: 'terminated', finished: false });
    let told = false;
    workers.updatePod({ updateType: 'kill', pod: p, onTerminated: () => (told = true) });
    expect(told).toBe(true);
  });
});
