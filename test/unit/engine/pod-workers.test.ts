import { afterEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/engine/api/v1.js';
import { emptyPodStatus, type RunningPod, type RuntimePodStatus } from '../../../src/engine/container/types.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { PodCache } from '../../../src/engine/pleg/pod-cache.js';
import type { PodSyncer, SyncPodResult, TerminatingRead, UpdateType } from '../../../src/engine/pod-syncer.js';
import { PodWorkers, type PodWorkersOptions, type UpdatePodOptions } from '../../../src/engine/pod-workers.js';
import { WorkQueue } from '../../../src/engine/work-queue.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';

const RESYNC = 60_000;
const BACKOFF = 10_000;

type Call =
  | { fn: 'syncPod'; updateType: UpdateType; pod: Pod; status: RuntimePodStatus }
  | { fn: 'syncTerminatingPod'; pod: Pod; status: RuntimePodStatus; grace: number }
  | { fn: 'syncTerminatingRuntimePod'; running: RunningPod }
  | { fn: 'syncTerminatedPod'; pod: Pod; status: RuntimePodStatus };

/** Records every call; `hold()` makes calls wait until released; `failures` makes the next calls of a function throw. */
class FakeSyncer implements PodSyncer {
  readonly calls: Call[] = [];
  /** What syncPod returns. */
  result: SyncPodResult = { terminal: false };
  readonly failures: Record<Call['fn'], number> = { syncPod: 0, syncTerminatingPod: 0, syncTerminatingRuntimePod: 0, syncTerminatedPod: 0 };
  private gate: Promise<void> | undefined;

  hold(): () => void {
    let release!: () => void;
    this.gate = new Promise((resolve) => (release = resolve));
    return () => {
      this.gate = undefined;
      release();
    };
  }

  private async step(call: Call): Promise<void> {
    this.calls.push(call);
    if (this.gate) await this.gate;
    if (this.failures[call.fn] > 0) {
      this.failures[call.fn]--;
      throw new Error(`${call.fn} failed`);
    }
  }

  /** The signal each syncPod was given. */
  readonly signals: (AbortSignal | undefined)[] = [];

  async syncPod(updateType: UpdateType, pod: Pod, status: RuntimePodStatus, signal?: AbortSignal): Promise<SyncPodResult> {
    this.signals.push(signal);
    await this.step({ fn: 'syncPod', updateType, pod, status });
    return this.result;
  }
  async syncTerminatingPod(pod: Pod, status: RuntimePodStatus, grace: number): Promise<TerminatingRead> {
    await this.step({ fn: 'syncTerminatingPod', pod, status, grace });
    return { status, readAt: 0 };
  }
  async syncTerminatingRuntimePod(running: RunningPod): Promise<void> {
    await this.step({ fn: 'syncTerminatingRuntimePod', running });
  }
  async syncTerminatedPod(pod: Pod, status: RuntimePodStatus): Promise<void> {
    await this.step({ fn: 'syncTerminatedPod', pod, status });
  }

  /** `fn` or `fn(updateType)` per call, with the pod's image for syncs: a compact history. */
  get history(): string[] {
    return this.calls.map((c) => {
      if (c.fn === 'syncPod') return `syncPod(${c.updateType}, ${c.pod.spec.containers[0].image})`;
      if (c.fn === 'syncTerminatingPod') return `syncTerminatingPod(${c.pod.spec.containers[0].image}, ${c.grace})`;
      if (c.fn === 'syncTerminatingRuntimePod') return `syncTerminatingRuntimePod(${c.running.uid})`;
      return `syncTerminatedPod(${c.pod.spec.containers[0].image})`;
    });
  }
}

function pod(uid: string, image = 'v1', extra: { grace?: number; deletionGrace?: number } = {}): Pod {
  return {
    metadata: {
      uid,
      name: `pod-${uid}`,
      namespace: 'default',
      ...(extra.deletionGrace !== undefined
        ? { deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: extra.deletionGrace }
        : {}),
    },
    spec: { containers: [{ name: 'main', image }], terminationGracePeriodSeconds: extra.grace ?? 30 },
  };
}

let workers: PodWorkers | undefined;

function setup(random: () => number = () => 0, afterSync?: PodWorkersOptions['afterSync'], syncStarted?: PodWorkersOptions['syncStarted']) {
  const clock = new FakeClock();
  const cache = new PodCache();
  const workQueue = new WorkQueue(clock);
  const events = new EventStream(() => clock.now());
  const seen: LifecycleEvent[] = [];
  events.subscribe((e) => seen.push(e));
  const syncer = new FakeSyncer();
  workers = new PodWorkers({
    syncer,
    cache,
    workQueue,
    clock,
    random,
    events,
    resyncInterval: RESYNC,
    backOffPeriod: BACKOFF,
    afterSync,
    syncStarted,
  });
  /** A PLEG relist: time moves on and the cache becomes current, so waiting workers go on. */
  const relist = async () => {
    await clock.advance(1);
    cache.updateTime(clock.now());
    await flushMicrotasks(50);
  };
  const update = (options: UpdatePodOptions) => workers!.updatePod(options);
  const stateOf = (uid: string) => workers!.workers().find((w) => w.uid === uid);
  return { clock, cache, workQueue, syncer, workers, seen, relist, update, stateOf };
}

afterEach(async () => {
  await workers?.stop(0);
  workers = undefined;
});

describe('PodWorkers', () => {
  it("syncs a new pod only once the cache has a status newer than the worker's last sync", async () => {
    const { cache, clock, syncer, update, stateOf } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await flushMicrotasks(50);
    expect(syncer.calls).toEqual([]);
    expect(stateOf('a')).toMatchObject({ state: 'syncing', working: true, pod: 'default/pod-a' });

    const status: RuntimePodStatus = { ...emptyPodStatus('a', 'pod-a', 'default'), ips: ['10.0.0.5'] };
    cache.set('a', status, undefined, clock.now());
    await flushMicrotasks(50);

    expect(syncer.calls).toEqual([{ fn: 'syncPod', updateType: 'create', pod: pod('a'), status }]);
    expect(stateOf('a')).toMatchObject({ state: 'syncing', working: false, lastSyncTime: clock.now() });
  });

  it('coalesces updates that arrive during a sync into one more sync of the latest pod', async () => {
    const { syncer, update, relist } = setup();
    const release = syncer.hold();
    update({ updateType: 'create', pod: pod('a', 'v1') });
    await relist();
    update({ updateType: 'update', pod: pod('a', 'v2') });
    update({ updateType: 'update', pod: pod('a', 'v3') });
    release();
    await relist();
    await relist();

    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncPod(update, v3)']);
  });

  it('does not sync again on the same view of the runtime', async () => {
    const { syncer, update, relist } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    update({ updateType: 'sync', pod: pod('a') });
    await flushMicrotasks(50);
    expect(syncer.calls).toHaveLength(1);
    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncPod(sync, v1)']);
  });

  it('syncs again on the next newer status when a sync asks to (a restart in place removed the containers)', async () => {
    const { syncer, update, relist } = setup();
    syncer.result = { terminal: false, requeue: true };
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    syncer.result = { terminal: false };
    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncPod(sync, v1)']);
    // No more without a reason: the next one is the resync.
    await relist();
    expect(syncer.calls).toHaveLength(2);
  });

  it('never lets a later update overwrite a kill that arrived during a sync', async () => {
    const { syncer, update, relist, stateOf, seen } = setup();
    const release = syncer.hold();
    update({ updateType: 'create', pod: pod('a', 'v1') });
    await relist();
    update({ updateType: 'kill', pod: pod('a', 'v1') });
    update({ updateType: 'update', pod: pod('a', 'v2') });
    expect(stateOf('a')?.state).toBe('terminating');
    release();
    await relist();

    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncTerminatingPod(v2, 30)']);
    expect(seen.filter((e) => e.type === 'PodTerminating')).toHaveLength(1);
  });

  it('aborts the sync under way when the pod is killed, and no other', async () => {
    const { syncer, update, relist } = setup();
    const release = syncer.hold();
    update({ updateType: 'create', pod: pod('a', 'v1') });
    await relist();
    update({ updateType: 'update', pod: pod('a', 'v2') });
    expect(syncer.signals[0]?.aborted).toBe(false);
    update({ updateType: 'kill', pod: pod('a', 'v2') });
    expect(syncer.signals[0]?.aborted).toBe(true);
    release();
    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncTerminatingPod(v2, 30)']);
  });

  it.each<[string, UpdatePodOptions]>([
    ['a kill', { updateType: 'kill', pod: pod('a') }],
    ['a pod with a deletionTimestamp', { updateType: 'update', pod: pod('a', 'v1', { deletionGrace: 30 }) }],
    ['a pod in a terminal phase', { updateType: 'update', pod: { ...pod('a'), status: { phase: 'Succeeded' } } }],
  ])('terminates a syncing pod on %s', async (_case, options) => {
    const { syncer, update, relist, stateOf } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    update(options);
    await relist();
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod']);
    expect(stateOf('a')?.state).toBe('terminated');
  });

  it('only cleans up a pod terminal at its first update when the runtime runs none of it (a restart over a finished pod)', async () => {
    const { syncer, update, relist, stateOf, seen } = setup();
    let terminated = 0;
    const done = { ...pod('a'), status: { phase: 'Succeeded' as const } };
    update({ updateType: 'create', pod: done, onTerminated: () => terminated++ });
    await relist();
    await relist();
    // As the kubelet's UpdatePod (kubernetes#105523): no terminating sync, no "stopping the pod".
    expect(syncer.history).toEqual(['syncTerminatedPod(v1)']);
    expect(stateOf('a')).toMatchObject({ state: 'terminated', finished: true });
    expect(terminated).toBe(1);
    expect(seen.map((e) => e.type)).not.toContain('PodTerminating');
    expect(seen.map((e) => e.type)).not.toContain('PodTerminated');
  });

  it('stops a pod terminal at its first update whose container the runtime still runs, and says so', async () => {
    const { syncer, update, relist, cache, clock, seen } = setup();
    const status = emptyPodStatus('b', 'pod-b', 'default');
    status.containers.push({ id: 'c1', name: 'main', state: 'running' } as RuntimePodStatus['containers'][number]);
    cache.set('b', status, undefined, clock.now() + 1);
    update({ updateType: 'create', pod: { ...pod('b'), status: { phase: 'Failed' as const } } });
    await relist();
    await relist();
    expect(syncer.history).toEqual(['syncTerminatingPod(v1, 30)', 'syncTerminatedPod(v1)']);
    expect(seen.filter((e) => e.type === 'PodTerminating' || e.type === 'PodTerminated').map((e) => e.type)).toEqual([
      'PodTerminating',
      'PodTerminated',
    ]);
  });

  it('moves a pod whose sync says it is done through terminating to terminated, then runs the callbacks', async () => {
    const { syncer, update, relist, stateOf, seen, workers } = setup();
    syncer.result = { terminal: true };
    let terminated = 0;
    update({ updateType: 'create', pod: pod('a'), onTerminated: () => terminated++ });

    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)']);
    expect(stateOf('a')?.state).toBe('terminating');
    expect(terminated).toBe(0);

    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncTerminatingPod(v1, 30)']);
    expect(stateOf('a')?.state).toBe('terminated');
    expect(terminated).toBe(1);
    expect(workers.couldHaveRunningContainers('a')).toBe(false);

    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncTerminatingPod(v1, 30)', 'syncTerminatedPod(v1)']);
    expect(stateOf('a')).toMatchObject({ state: 'terminated', finished: true, working: false });
    expect(seen.filter((e) => e.type !== 'PodSynced').map((e) => e.type)).toEqual([
      'WorkerStarted',
      'PodTerminating',
      'PodTerminated',
      'WorkerFinished',
    ]);
    // Each pass of the worker reports the state it ran in.
    expect(seen.filter((e) => e.type === 'PodSynced').map((e) => e.detail?.state)).toEqual(['syncing', 'terminating', 'terminated']);

    // A finished worker runs a new callback at once and does no more work.
    update({ updateType: 'kill', pod: pod('a'), onTerminated: () => terminated++ });
    await relist();
    expect(terminated).toBe(2);
    expect(syncer.calls).toHaveLength(3);
  });

  it('kills a pod only the runtime knows with syncTerminatingRuntimePod', async () => {
    const { syncer, update, relist, stateOf, workers, seen } = setup();
    const running: RunningPod = { uid: 'orphan', name: 'old', namespace: 'ns', sandboxes: [], containers: [] };
    let terminated = false;
    update({ updateType: 'kill', runningPod: running, onTerminated: () => (terminated = true) });
    expect(stateOf('orphan')).toMatchObject({ state: 'terminating', pod: 'ns/old' });

    await relist();

    expect(syncer.calls).toEqual([{ fn: 'syncTerminatingRuntimePod', running }]);
    expect(stateOf('orphan')).toMatchObject({ state: 'terminated', finished: true });
    expect(terminated).toBe(true);
    expect(workers.couldHaveRunningContainers('orphan')).toBe(false);
    expect(seen[0]).toMatchObject({ type: 'WorkerStarted', message: 'terminating a pod no source wants' });
  });

  it('ignores an update with neither a pod nor a running pod', async () => {
    const { update, workers } = setup();
    update({ updateType: 'kill' });
    expect(workers.workers()).toEqual([]);
  });

  it.each([
    [0, RESYNC],
    [0.5, RESYNC * 1.25],
    [1, RESYNC * 1.5],
  ])('after a successful sync, puts the pod back in the work queue at the resync interval (random %s)', async (r, delay) => {
    const { syncer, update, relist, workQueue, clock } = setup(() => r);
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    expect(syncer.calls).toHaveLength(1);
    const syncedAt = clock.now();
    expect(workQueue.dueAt('a')).toBe(syncedAt + delay);

    await clock.advance(delay - 1);
    expect(workQueue.getWork()).toEqual([]);
    await clock.advance(1);
    expect(workQueue.getWork()).toEqual(['a']);
  });

  it('puts a pod whose sync failed back in the work queue after the backoff period, and records the error', async () => {
    const { syncer, update, relist, workQueue, clock, stateOf, seen } = setup();
    syncer.failures.syncPod = 1;
    update({ updateType: 'create', pod: pod('a') });
    await relist();

    expect(workQueue.dueAt('a')).toBe(clock.now() + BACKOFF);
    expect(stateOf('a')).toMatchObject({ state: 'syncing', working: false, lastError: 'syncPod failed' });
    expect(seen.find((e) => e.type === 'SyncFailed')).toMatchObject({
      reason: 'FailedSync',
      message: 'error syncing pod, skipping: syncPod failed',
    });

    update({ updateType: 'sync', pod: pod('a') });
    await relist();
    expect(syncer.calls).toHaveLength(2);
    expect(stateOf('a')?.lastError).toBeUndefined();
    expect(workQueue.dueAt('a')! - clock.now()).toBeGreaterThan(BACKOFF);
  });

  it('after a failed sync, syncs again only once the cache has a status newer than the failed attempt', async () => {
    const { syncer, update, relist, cache, clock } = setup();
    syncer.failures.syncPod = 1;
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    expect(syncer.calls).toHaveLength(1);

    update({ updateType: 'sync', pod: pod('a') });
    await flushMicrotasks(50);
    expect(syncer.calls).toHaveLength(1);
    cache.updateTime(clock.now()); // as of the failed attempt: not newer
    await flushMicrotasks(50);
    expect(syncer.calls).toHaveLength(1);

    await relist();
    expect(syncer.history).toEqual(['syncPod(create, v1)', 'syncPod(sync, v1)']);
  });

  // The kubelet's completeWork: a sync that met a back-off is a failed sync; it comes back when the
  // back-off ends if it names an end, else after the back-off period; never later than the resync
  // interval; jittered by up to half.
  it.each([
    { name: 'a crash-loop back-off ending in 5s: at its end', backOff: { endsInMs: 5_000 }, random: 0, delay: 5_000 },
    { name: 'a crash-loop back-off ending in 5s, full jitter: up to half again', backOff: { endsInMs: 5_000 }, random: 1, delay: 7_500 },
    {
      name: 'a crash-loop back-off ending in 80s: at the resync interval, so the pod syncs during it',
      backOff: { endsInMs: 80_000 },
      random: 0,
      delay: RESYNC,
    },
    {
      name: 'a crash-loop back-off ending in 80s, half jitter: the resync interval and a quarter',
      backOff: { endsInMs: 80_000 },
      random: 0.5,
      delay: RESYNC * 1.25,
    },
    { name: 'a crash-loop back-off already over: at once', backOff: { endsInMs: -100 }, random: 1, delay: 0 },
    { name: 'an image pull back-off (no end named): after the back-off period', backOff: {}, random: 0, delay: BACKOFF },
  ])('after a sync that met $name', async ({ backOff, random, delay }) => {
    const { syncer, update, relist, workQueue, clock, stateOf } = setup(() => random);
    syncer.result = { terminal: false, backOff };
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    expect(workQueue.dueAt('a')).toBe(clock.now() + delay);
    // Waiting out a back-off is nothing to report.
    expect(stateOf('a')?.lastError).toBeUndefined();
  });

  it('caps the retry after a failed sync at the resync interval', async () => {
    const clock = new FakeClock();
    const workQueue = new WorkQueue(clock);
    const cache = new PodCache();
    const syncer = new FakeSyncer();
    syncer.failures.syncPod = 1;
    workers = new PodWorkers({
      syncer,
      cache,
      workQueue,
      clock,
      random: () => 0,
      events: new EventStream(() => clock.now()),
      resyncInterval: 5_000,
      backOffPeriod: BACKOFF,
    });
    workers.updatePod({ updateType: 'create', pod: pod('a') });
    await clock.advance(1);
    cache.updateTime(clock.now());
    await flushMicrotasks(50);
    expect(workQueue.dueAt('a')).toBe(clock.now() + 5_000);
  });

  it('retries a failed termination by itself after the backoff period', async () => {
    const { syncer, update, relist, clock, stateOf } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    syncer.failures.syncTerminatingPod = 1;
    update({ updateType: 'kill', pod: pod('a') });
    await relist();
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod']);
    expect(stateOf('a')?.state).toBe('terminating');

    await clock.advance(BACKOFF - 1);
    expect(syncer.calls).toHaveLength(2);
    await clock.advance(1);
    await flushMicrotasks(50);
    // The retry waits for a runtime status newer than the failed attempt.
    expect(syncer.calls).toHaveLength(2);
    await relist();
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatingPod']);
    expect(stateOf('a')?.state).toBe('terminated');
  });

  it('terminates the workers of pods no longer desired and forgets them once finished', async () => {
    const { syncer, update, relist, workers, workQueue } = setup();
    update({ updateType: 'create', pod: pod('a') });
    update({ updateType: 'create', pod: pod('b') });
    await relist();
    expect(workQueue.dueAt('b')).toBeDefined();

    let known = workers.syncKnownPods(new Set(['a']));
    expect([...known.keys()].sort()).toEqual(['a', 'b']);
    expect(known.get('b')?.state).toBe('terminating');
    await relist();
    await relist();
    expect(syncer.calls.filter((c) => 'pod' in c && c.pod.metadata.uid === 'b').map((c) => c.fn)).toEqual([
      'syncPod',
      'syncTerminatingPod',
      'syncTerminatedPod',
    ]);

    known = workers.syncKnownPods(new Set(['a']));
    expect([...known.keys()]).toEqual(['a']);
    expect(known.get('a')?.state).toBe('syncing');
    expect(workers.isKnown('b')).toBe(false);
    expect(workQueue.dueAt('b')).toBeUndefined();
    expect(workQueue.dueAt('a')).toBeDefined();
  });

  it('tells as each sync starts, and after it whether it changed the runtime or left it untouched', async () => {
    const after: [string, string][] = [];
    const { syncer, update, relist } = setup(
      undefined,
      (p, _at, outcome) => void after.push([p.metadata.uid!, outcome]),
      (uid) => void after.push([uid, 'started']),
    );
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    syncer.result = { terminal: false, runtimeUntouched: true };
    update({ updateType: 'sync', pod: pod('a') });
    await relist();
    expect(after).toEqual([
      ['a', 'started'],
      ['a', 'changed'],
      ['a', 'started'],
      ['a', 'untouched'],
    ]);
  });

  it('tells after a failed sync too, with when it failed (its retry waits for a newer status)', async () => {
    const after: [string, number, string][] = [];
    const { syncer, update, relist, clock } = setup(undefined, (p, at, outcome) => void after.push([p.metadata.uid!, at, outcome]));
    syncer.failures.syncPod = 1;
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    expect(after).toEqual([['a', clock.now(), 'failed']]);
  });

  it('keeps a terminating worker that is not finished', async () => {
    const { syncer, update, relist, workers } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    const release = syncer.hold();
    workers.syncKnownPods(new Set());
    await relist();
    expect(syncer.calls.at(-1)?.fn).toBe('syncTerminatingPod');
    expect(workers.syncKnownPods(new Set()).get('a')?.state).toBe('terminating');
    release();
  });

  it('takes a pod created again with the UID of one being torn down only once that life has ended, then forgets the worker', async () => {
    const { syncer, update, relist, workers } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    const release = syncer.hold();
    update({ updateType: 'kill', pod: pod('a') });
    await relist();
    // The manifest is put back while the pod is still stopping: nothing changes now.
    update({ updateType: 'create', pod: pod('a') });
    expect(workers.syncKnownPods(new Set(['a'])).get('a')?.state).toBe('terminating');
    release();
    await relist();
    await relist();
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);

    // Its life has ended: the worker is forgotten though the pod is desired, for housekeeping to start it anew.
    expect([...workers.syncKnownPods(new Set(['a'])).keys()]).toEqual([]);
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod', 'syncPod']);
    expect(workers.syncKnownPods(new Set(['a'])).get('a')?.state).toBe('syncing');
  });

  it('ends the worker once the pod is finished, though an update came while it cleaned up: nothing waits for a relist that may be half a minute away', async () => {
    const { syncer, update, relist, workers } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    update({ updateType: 'kill', pod: pod('a') });
    await relist();
    const release = syncer.hold();
    await relist();
    expect(syncer.calls.map((c) => c.fn)).toEqual(['syncPod', 'syncTerminatingPod', 'syncTerminatedPod']);
    // A PLEG event of the stopped pod, and its manifest put back, while the clean-up runs.
    update({ updateType: 'sync', pod: pod('a') });
    update({ updateType: 'create', pod: pod('a') });
    release();
    await flushMicrotasks(50);
    expect(workers.workers()[0]).toMatchObject({ finished: true, working: false });
    expect([...workers.syncKnownPods(new Set(['a'])).keys()]).toEqual([]);
    expect(syncer.calls).toHaveLength(3);
  });

  it('keeps the finished worker of a desired pod that was not created again', async () => {
    const { update, relist, workers } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await relist();
    update({ updateType: 'kill', pod: pod('a') });
    await relist();
    await relist();
    update({ updateType: 'sync', pod: pod('a') });
    expect(workers.syncKnownPods(new Set(['a'])).get('a')).toMatchObject({ state: 'terminated', finished: true });
  });

  it.each<[string, Pod, UpdatePodOptions[], number]>([
    ["the spec's grace period", pod('a', 'v1', { grace: 45 }), [{ updateType: 'kill' }], 45],
    [
      'the smallest override',
      pod('a'),
      [
        { updateType: 'kill', gracePeriodOverride: 20 },
        { updateType: 'kill', gracePeriodOverride: 10 },
        { updateType: 'kill', gracePeriodOverride: 15 },
      ],
      10,
    ],
    ['an override shorter than the spec', pod('a', 'v1', { grace: 45 }), [{ updateType: 'kill', gracePeriodOverride: 5 }], 5],
    ['the deletion grace period', pod('a'), [{ updateType: 'update', pod: pod('a', 'v1', { deletionGrace: 7 }) }], 7],
    [
      'a later, longer deletion grace period cannot lengthen it',
      pod('a'),
      [
        { updateType: 'kill', gracePeriodOverride: 3 },
        { updateType: 'update', pod: pod('a', 'v1', { deletionGrace: 20 }) },
      ],
      3,
    ],
  ])('terminates with %s', async (_case, desired, kills, grace) => {
    const { syncer, update, relist } = setup();
    const release = syncer.hold();
    update({ updateType: 'create', pod: desired });
    await relist();
    for (const k of kills) update({ ...k, pod: k.pod ?? desired });
    release();
    await relist();
    const terminating = syncer.calls.find((c) => c.fn === 'syncTerminatingPod');
    expect(terminating).toMatchObject({ grace });
  });

  it('stop ends waiting workers and takes no more work', async () => {
    const { syncer, update, cache, clock, stateOf, workers } = setup();
    update({ updateType: 'create', pod: pod('a') });
    await flushMicrotasks(50);
    expect(stateOf('a')?.working).toBe(true);

    await workers.stop();

    expect(stateOf('a')?.working).toBe(false);
    update({ updateType: 'create', pod: pod('b') });
    cache.updateTime(clock.now());
    await flushMicrotasks(50);
    expect(syncer.calls).toEqual([]);
    expect(workers.isKnown('b')).toBe(false);
  });
});
