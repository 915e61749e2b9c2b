import { describe, expect, it } from 'vitest';
import { KubeletAnnotations, KubeletLabels, type ContainerEvent } from '../../../../src/cri/types.js';
import { emptyPodStatus } from '../../../../src/engine/container/types.js';
import { EventStream } from '../../../../src/engine/events.js';
import { EventedHints } from '../../../../src/engine/pleg/evented.js';
import { PodCache } from '../../../../src/engine/pleg/pod-cache.js';
import type { PodLifecycleEvent } from '../../../../src/engine/pleg/types.js';
import { FakeClock } from '../../../../src/util/clock.js';
import {
  FakeRuntimeService,
  fakeContainerStatus,
  fakeRuntimeManager,
  fakeSandboxStatus,
  podLabels,
} from '../../../helpers/fake-runtime-service.js';
import { testPleg } from '../../../helpers/pleg.js';

const NODE = 'node-a';

/** The event of a container of pod UID that started. */
const started = (uid: string): ContainerEvent => ({
  containerId: `c-${uid}`,
  containerEventType: 'CONTAINER_STARTED_EVENT',
  createdAt: 0,
  podSandboxStatus: fakeSandboxStatus({ labels: podLabels({ uid, name: uid, namespace: 'default' }, NODE) }),
  containersStatuses: [],
});

/**
 * A PLEG on a runtime whose pod status reads wait until released, recording the
 * order of reads and relists: a relist lists the node's sandboxes, a read of
 * one pod's status lists that pod's.
 */
function slowPleg(clock: FakeClock, events: EventStream, onEvent: (e: PodLifecycleEvent) => void = () => {}) {
  const log: string[] = [];
  const waiting: (() => void)[] = [];
  const runtime = new FakeRuntimeService(() => clock.now());
  runtime.beforeCall('listPodSandbox', (filter) => {
    const uid = filter?.labelSelector?.[KubeletLabels.podUid];
    if (uid === undefined) return void log.push('relist');
    log.push(uid);
    return new Promise((r) => waiting.push(r));
  });
  const cache = new PodCache();
  const pleg = testPleg({ runtime: fakeRuntimeManager(runtime, clock, NODE), cache, clock, events, onEvent });
  const release = async () => {
    while (waiting.length > 0) waiting.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { pleg, log, release, cache, runtime };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

/** Hints from a runtime's event stream, started, over a PLEG whose relists wait to be released. */
function startHints(onEvent?: (e: PodLifecycleEvent) => void) {
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const { pleg, log, release, cache, runtime } = slowPleg(clock, events, onEvent);
  /** The runtime's event stream yields what the test pushes. */
  const source = {
    push: (uid: string) => runtime.emitContainerEvent(started(uid)),
    send: (events: ContainerEvent[]) => events.forEach((e) => runtime.emitContainerEvent(e)),
  };
  const hints = new EventedHints(runtime, pleg, clock, events, NODE, () => {}, 1_000, 30_000);
  hints.start();
  return { clock, pleg, log, release, source, hints, cache };
}

/**
 * The events of a sync that makes pod UID's sandbox and starts its container,
 * each carrying the pod as the runtime then holds it (as containerd's do).
 */
function syncEvents(uid: string): ContainerEvent[] {
  const labels = podLabels({ uid, name: uid, namespace: 'default' }, NODE);
  const podSandboxStatus = fakeSandboxStatus({
    id: `sb-${uid}`,
    createdAt: 1e6,
    labels,
    metadata: { name: uid, uid, namespace: 'default', attempt: 0 },
  });
  const container = (state: 'CONTAINER_CREATED' | 'CONTAINER_RUNNING') =>
    fakeContainerStatus({
      id: `c-${uid}`,
      metadata: { name: 'app', attempt: 0 },
      state,
      createdAt: 2e6,
      labels: { ...labels, [KubeletLabels.containerName]: 'app' },
      annotations: { [KubeletAnnotations.containerHash]: 'h' },
    });
  const event = (
    containerEventType: ContainerEvent['containerEventType'],
    containerId: string,
    containersStatuses: ContainerEvent['containersStatuses'],
  ) => ({
    containerId,
    containerEventType,
    createdAt: 0,
    podSandboxStatus,
    containersStatuses,
  });
  return [
    event('CONTAINER_CREATED_EVENT', `sb-${uid}`, []),
    event('CONTAINER_STARTED_EVENT', `sb-${uid}`, []),
    event('CONTAINER_CREATED_EVENT', `c-${uid}`, [container('CONTAINER_CREATED')]),
    event('CONTAINER_STARTED_EVENT', `c-${uid}`, [container('CONTAINER_RUNNING')]),
  ];
}

/** What that sync tells the PLEG it made (SyncPodResult.runtimeEvents). */
const madeBy = (uid: string) => [`CONTAINER_STARTED_EVENT:sb-${uid}`, `CONTAINER_STARTED_EVENT:c-${uid}`];

describe('evented PLEG hints', () => {
  it('relists different pods side by side, at most eight at once, and each waiting pod once', async () => {
    const { log, release, source, hints } = startHints();
    for (let i = 0; i < 20; i++) source.push(`p${i}`);
    await settle();
    expect(log).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    // p15 waits: five more hints for it, apart in time, are still one relist.
    for (let i = 0; i < 5; i++) {
      source.push('p15');
      await settle();
    }
    for (let i = 0; i < 5; i++) await release();
    await settle();
    expect(log).toHaveLength(20);
    expect(new Set(log).size).toBe(20);
    hints.stop();
  });

  it('relists a pod whose relist runs once more after it, never two at once', async () => {
    const { log, release, source, hints } = startHints();
    source.push('a');
    await settle();
    expect(log).toEqual(['a']);
    for (let i = 0; i < 5; i++) {
      source.push('a');
      await settle();
    }
    hints.hint('a', 'a', 'default');
    await settle();
    expect(log).toEqual(['a']);
    for (let i = 0; i < 3; i++) await release();
    await settle();
    expect(log).toEqual(['a', 'a']);
    hints.stop();
  });

  it('lets the periodic relist run after at most the targeted relists under way, however many are waiting', async () => {
    const { pleg, log, release, source, hints } = startHints();
    for (let i = 0; i < 100; i++) source.push(`p${i}`);
    await settle();
    const relisted = pleg.relist();
    await release();
    await relisted;
    // Was: every one of the 100 targeted relists first.
    expect(log.indexOf('relist')).toBe(8);
    for (let i = 0; i < 100; i++) await release();
    expect(log.filter((x) => x !== 'relist')).toHaveLength(100);
    hints.stop();
  });
});

describe('after a sync', () => {
  /** Hints with events flowing, and pod a's status cached at 100. */
  async function flowing(onEvent?: (e: PodLifecycleEvent) => void) {
    const h = startHints(onEvent);
    h.source.push('other');
    await settle();
    await h.release();
    h.log.length = 0;
    h.cache.set('a', emptyPodStatus('a', 'a', 'default'), undefined, 100);
    await h.clock.advance(1_000);
    return h;
  }

  it('takes the cached status as current after a sync that did nothing to the runtime: no relist', async () => {
    const { log, cache, clock, hints } = await flowing();
    hints.afterSync('a', 'a', 'default', clock.now(), 'untouched');
    await settle();
    expect(log).toEqual([]);
    expect(cache.get('a').modified).toBeGreaterThan(clock.now() - 1);
    hints.stop();
  });

  it('relists the pod after a sync that did something, or when a relist of it is already on its way', async () => {
    const { log, release, source, clock, hints } = await flowing();
    hints.afterSync('a', 'a', 'default', clock.now(), 'changed');
    await settle();
    expect(log).toEqual(['a']);
    await release();

    source.push('a');
    await settle();
    hints.afterSync('a', 'a', 'default', clock.now(), 'untouched');
    await release();
    await settle();
    expect(log).toEqual(['a', 'a', 'a']);
    hints.stop();
  });

  it('relists the pod a period after a failed sync, once however often it fails meanwhile, stamped newer than the failure', async () => {
    const { log, release, cache, clock, hints } = await flowing();
    const failedAt = clock.now();
    hints.afterSync('a', 'a', 'default', failedAt, 'failed');
    await clock.advance(500);
    hints.afterSync('a', 'a', 'default', clock.now(), 'failed');
    await settle();
    expect(log).toEqual([]);
    await clock.advance(500);
    await settle();
    expect(log).toEqual(['a']);
    await release();
    expect(cache.get('a').modified).toBeGreaterThan(failedAt);
    await clock.advance(5_000);
    await settle();
    expect(log).toEqual(['a']);
    hints.stop();
  });

  it('holds the events of a pod while its sync runs: one relist when the sync ends, stamped newer than it', async () => {
    const { log, release, source, cache, clock, hints } = await flowing();
    hints.syncStarted('a');
    source.push('a');
    source.push('b');
    await settle();
    expect(log).toEqual(['b']);
    await clock.advance(100);
    source.push('a');
    await settle();
    const syncedAt = clock.now();
    hints.afterSync('a', 'a', 'default', syncedAt, 'changed');
    await settle();
    expect(log).toEqual(['b', 'a']);
    await release();
    await settle();
    expect(log).toEqual(['b', 'a']);
    expect(cache.get('a').modified).toBeGreaterThan(syncedAt);
    hints.stop();
  });

  it('relists what a failed sync held at once, and what a sync that runs past a full relist period held then', async () => {
    const { log, release, source, clock, hints } = await flowing();
    hints.syncStarted('a');
    source.push('a');
    await settle();
    hints.afterSync('a', 'a', 'default', clock.now(), 'failed');
    await settle();
    expect(log).toEqual(['a']);
    await release();
    // The failed sync's own relist still comes a period on.
    await clock.advance(1_000);
    await settle();
    expect(log).toEqual(['a', 'a']);
    await release();

    // A sync with no end yet (an image pull): its pod's events wait one full relist period at most.
    hints.syncStarted('c');
    source.push('c');
    await clock.advance(29_999);
    await settle();
    expect(log).toEqual(['a', 'a']);
    await clock.advance(1);
    await settle();
    expect(log).toEqual(['a', 'a', 'c']);
    await release();
    hints.stop();
  });

  it("takes the pod from its events after a sync that made its sandbox and started its container: no read, the sync's changes told", async () => {
    const told: PodLifecycleEvent[] = [];
    const { log, cache, clock, hints, source } = await flowing((e) => told.push(e));
    hints.syncStarted('a');
    source.send(syncEvents('a'));
    await settle();
    await clock.advance(10);
    const syncedAt = clock.now();
    hints.afterSync('a', 'a', 'default', syncedAt, 'changed', madeBy('a'));
    await settle();
    expect(log).toEqual([]);
    const entry = cache.get('a');
    expect(entry.modified).toBeGreaterThan(syncedAt);
    expect(entry.status.sandboxes.map((s) => [s.id, s.state])).toEqual([['sb-a', 'ready']]);
    expect(entry.status.containers.map((c) => [c.id, c.name, c.state, c.hash])).toEqual([['c-a', 'app', 'running', 'h']]);
    expect(told.map((e) => [e.type, e.data])).toEqual([
      ['ContainerStarted', 'sb-a'],
      ['ContainerStarted', 'c-a'],
    ]);
    hints.stop();
  });

  it('reads the pod instead when an event of the sync has not come, the pod was read during the sync, or it has another sandbox', async () => {
    const { log, release, cache, clock, source, hints } = await flowing();
    // The container's start has not been heard of yet, nor a little after the sync.
    hints.syncStarted('a');
    source.send(syncEvents('a').slice(0, 3));
    await settle();
    hints.afterSync('a', 'a', 'default', clock.now(), 'changed', madeBy('a'));
    await clock.advance(50);
    await settle();
    expect(log).toEqual(['a']);
    await release();

    // A relist read pod b while its sync ran: what it saw may be newer than the events.
    hints.syncStarted('b');
    source.send(syncEvents('b'));
    await settle();
    cache.set('b', emptyPodStatus('b', 'b', 'default'), undefined, clock.now());
    hints.afterSync('b', 'b', 'default', clock.now(), 'changed', madeBy('b'));
    await settle();
    expect(log).toEqual(['a', 'b']);
    await release();

    // Pod c still has the sandbox it ran in before: the events show only the new one.
    const old = { id: 'sb-old', state: 'notready' as const, createdAt: 0, attempt: 0, ip: '', network: 'POD' };
    cache.set('c', { ...emptyPodStatus('c', 'c', 'default'), sandboxes: [old] }, undefined, clock.now());
    hints.syncStarted('c');
    source.send(syncEvents('c'));
    await settle();
    hints.afterSync('c', 'c', 'default', clock.now(), 'changed', madeBy('c'));
    await settle();
    expect(log).toEqual(['a', 'b', 'c']);
    await release();
    expect(cache.get('c').status.sandboxes.map((s) => s.id)).toEqual([]);
    hints.stop();
  });

  it('waits a little for an event of the sync that comes after the sync ended, and reads the pod if it does not come', async () => {
    const { log, release, cache, clock, source, hints } = await flowing();
    hints.syncStarted('a');
    source.send(syncEvents('a').slice(0, 3));
    await settle();
    hints.afterSync('a', 'a', 'default', clock.now(), 'changed', madeBy('a'));
    await clock.advance(49);
    source.send(syncEvents('a').slice(3));
    await settle();
    expect(log).toEqual([]);
    expect(cache.get('a').status.containers.map((c) => c.state)).toEqual(['running']);

    hints.syncStarted('b');
    source.send(syncEvents('b').slice(0, 3));
    await settle();
    const syncedAt = clock.now();
    hints.afterSync('b', 'b', 'default', syncedAt, 'changed', madeBy('b'));
    await clock.advance(49);
    await settle();
    expect(log).toEqual([]);
    await clock.advance(1);
    await settle();
    expect(log).toEqual(['b']);
    await release();
    expect(cache.get('b').modified).toBeGreaterThan(syncedAt);
    hints.stop();
  });

  /** Pod a as a terminating sync reads it after the kill: its sandbox and container stopped. */
  const stoppedPod = () => {
    const status = emptyPodStatus('a', 'a', 'default');
    status.sandboxes.push({ id: 'sb-a', state: 'notready' } as (typeof status.sandboxes)[number]);
    return status;
  };

  it("takes a terminating sync's read after the kill as the pod's relist: the events of the stop before it need no read", async () => {
    const told: PodLifecycleEvent[] = [];
    const { log, cache, clock, source, hints } = await flowing((e) => told.push(e));
    hints.syncStarted('a');
    source.push('a'); // the container's stop, and the sandbox's
    source.push('a');
    await settle();
    await clock.advance(5);
    const read = { status: stoppedPod(), readAt: clock.now() };
    await clock.advance(5);
    const syncedAt = clock.now();
    hints.afterSync('a', 'a', 'default', syncedAt, 'changed', undefined, read);
    await settle();
    expect(log).toEqual([]);
    const entry = cache.get('a');
    expect(entry.modified).toBeGreaterThan(syncedAt);
    expect(entry.status).toBe(read.status);
    expect(told.map((e) => [e.type, e.data])).toEqual([['ContainerDied', 'sb-a']]);
    hints.stop();
  });

  it('reads the pod after a terminating sync when a hint came after its read began, or the pod was read since', async () => {
    const { log, release, cache, clock, source, hints } = await flowing();
    hints.syncStarted('a');
    const read = { status: stoppedPod(), readAt: clock.now() };
    await clock.advance(1);
    source.push('a');
    await settle();
    hints.afterSync('a', 'a', 'default', clock.now(), 'changed', undefined, read);
    await settle();
    expect(log).toEqual(['a']);
    await release();

    // A full relist read the pod after the terminating sync's read began: that read is older, the pod is read again.
    hints.syncStarted('a');
    const older = { status: stoppedPod(), readAt: clock.now() };
    cache.set('a', emptyPodStatus('a', 'a', 'default'), undefined, clock.now() + 1);
    await clock.advance(5);
    const syncedAt = clock.now();
    hints.afterSync('a', 'a', 'default', syncedAt, 'changed', undefined, older);
    await settle();
    expect(log).toEqual(['a', 'a']);
    await release();
    await settle();
    expect(cache.get('a').status).not.toBe(older.status);
    expect(cache.get('a').modified).toBeGreaterThan(syncedAt);
    hints.stop();
  });

  it('relists the pod after every sync while no events flow', async () => {
    const { log, cache, clock, hints } = startHints();
    cache.set('a', emptyPodStatus('a', 'a', 'default'), undefined, 100);
    hints.afterSync('a', 'a', 'default', clock.now(), 'untouched');
    await settle();
    expect(log).toEqual(['a']);
    hints.stop();
  });
});

describe('GenericPLEG relists side by side', () => {
  it('runs targeted relists of different pods at once, of one pod one after the other, and a full relist alone', async () => {
    const clock = new FakeClock();
    const { pleg, log, release } = slowPleg(clock, new EventStream(() => clock.now()));
    const done: string[] = [];
    void pleg.relistPod('a', 'a', 'default').then(() => done.push('a1'));
    void pleg.relistPod('a', 'a', 'default').then(() => done.push('a2'));
    void pleg.relistPod('b', 'b', 'default').then(() => done.push('b'));
    await settle();
    expect(log).toEqual(['a', 'b']);
    void pleg.relist().then(() => done.push('relist'));
    void pleg.relistPod('c', 'c', 'default').then(() => done.push('c'));
    await release();
    await settle();
    // a's second relist ran once its first was done; the full relist waits for it, and c for the full relist.
    expect(log).toEqual(['a', 'b', 'a']);
    await release();
    await settle();
    expect(log).toEqual(['a', 'b', 'a', 'relist', 'c']);
    await release();
    await pleg.idle();
    expect(done).toEqual(['a1', 'b', 'a2', 'relist', 'c']);
  });

  it('reads the pods a full relist finds changed eight at a time, and sends their events once all are read', async () => {
    const clock = new FakeClock();
    const sent: string[] = [];
    const { pleg, log, release, runtime } = slowPleg(clock, new EventStream(() => clock.now()), (e) => void sent.push(e.id));
    for (let i = 0; i < 20; i++) {
      const labels = podLabels({ uid: `p${i}`, name: `p${i}`, namespace: 'default' }, NODE);
      runtime.addSandbox({ id: `s${i}`, createdAt: 1e6, labels });
      runtime.addContainer(`s${i}`, {
        id: `c${i}`,
        metadata: { name: 'app', attempt: 0 },
        state: 'CONTAINER_RUNNING',
        createdAt: 2e6,
        labels: { ...labels, [KubeletLabels.containerName]: 'app' },
        annotations: { [KubeletAnnotations.containerHash]: 'h' },
      });
    }
    const relisted = pleg.relist();
    await settle();
    expect(log).toEqual(['relist', 'p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7']);
    await release();
    await settle();
    expect(log).toHaveLength(17);
    expect(sent).toEqual([]);
    for (let i = 0; i < 3; i++) await release();
    await relisted;
    expect(new Set(sent).size).toBe(20);
  });
});
