import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { emptyPodStatus, type RuntimePodStatus } from '../../../../src/engine/container/types.js';
import { PodCache, type CachedPodStatus } from '../../../../src/engine/pleg/pod-cache.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeRuntimeService, fakeRuntimeManager, podLabels } from '../../../helpers/fake-runtime-service.js';
import { testPleg } from '../../../helpers/pleg.js';

const status = (uid: string, ip: string): RuntimePodStatus => ({ ...emptyPodStatus(uid, 'web', 'default'), ips: [ip] });

/** Starts a getNewerThan and reports whether, and with what, it has settled. */
function watch(promise: Promise<CachedPodStatus>) {
  const state: { value?: CachedPodStatus; error?: unknown; settled: boolean } = { settled: false };
  promise.then(
    (value) => Object.assign(state, { value, settled: true }),
    (error: unknown) => Object.assign(state, { error, settled: true }),
  );
  return state;
}

describe('PodCache.get', () => {
  it('returns an empty status for a pod it has never seen, and the stored one after set', () => {
    const cache = new PodCache();
    expect(cache.get('a')).toEqual({ status: emptyPodStatus('a'), modified: 0 });
    const err = new Error('runtime down');
    cache.set('a', status('a', '10.0.0.1'), err, 100);
    expect(cache.get('a')).toEqual({ status: status('a', '10.0.0.1'), error: err, modified: 100 });
    cache.delete('a');
    expect(cache.get('a').modified).toBe(0);
  });
});

describe('PodCache.getNewerThan', () => {
  it.each<[string, (cache: PodCache) => void, number, boolean]>([
    ['an entry newer than minTime', (c) => c.set('a', status('a', '1'), undefined, 101), 100, true],
    ['an entry exactly at minTime', (c) => c.set('a', status('a', '1'), undefined, 100), 100, false],
    ['an old entry but a newer full relist', (c) => (c.set('a', status('a', '1'), undefined, 50), c.updateTime(101)), 100, true],
    ['no entry but a newer full relist', (c) => c.updateTime(101), 100, true],
    ['no entry and a relist exactly at minTime', (c) => c.updateTime(100), 100, false],
    ['nothing at all, minTime 0', () => {}, 0, false],
    ['an old entry and an old relist', (c) => (c.set('a', status('a', '1'), undefined, 90), c.updateTime(95)), 100, false],
  ])('with %s: resolved at once = %s', async (_case, prepare, minTime, ready) => {
    const cache = new PodCache();
    prepare(cache);
    const result = watch(cache.getNewerThan('a', minTime));
    await flushMicrotasks();
    expect(result.settled).toBe(ready);
  });

  it('resolves with the stored entry when it is newer', async () => {
    const cache = new PodCache();
    cache.set('a', status('a', '10.0.0.1'), undefined, 200);
    await expect(cache.getNewerThan('a', 100)).resolves.toEqual({ status: status('a', '10.0.0.1'), modified: 200, error: undefined });
  });

  it('resolves with an empty status, stamped with the relist time, for a pod the relist did not find', async () => {
    const cache = new PodCache();
    cache.updateTime(300);
    await expect(cache.getNewerThan('gone', 100)).resolves.toEqual({ status: emptyPodStatus('gone'), modified: 300 });
  });

  it('waits, then resolves on a set newer than minTime', async () => {
    const cache = new PodCache();
    const result = watch(cache.getNewerThan('a', 100));
    cache.set('a', status('a', 'old'), undefined, 100);
    cache.set('b', status('b', 'other pod'), undefined, 500);
    await flushMicrotasks();
    expect(result.settled).toBe(false);

    cache.set('a', status('a', 'new'), undefined, 101);
    await flushMicrotasks();
    expect(result.value).toEqual({ status: status('a', 'new'), modified: 101, error: undefined });
  });

  it('waits, then resolves on a full relist newer than minTime', async () => {
    const cache = new PodCache();
    cache.set('a', status('a', 'kept'), undefined, 50);
    const result = watch(cache.getNewerThan('a', 100));
    cache.updateTime(100);
    await flushMicrotasks();
    expect(result.settled).toBe(false);

    cache.updateTime(101);
    await flushMicrotasks();
    expect(result.value).toEqual({ status: status('a', 'kept'), modified: 50, error: undefined });
  });

  it('wakes each waiter by its own minTime', async () => {
    const cache = new PodCache();
    const early = watch(cache.getNewerThan('a', 100));
    const late = watch(cache.getNewerThan('a', 200));
    cache.set('a', status('a', '1'), undefined, 150);
    await flushMicrotasks();
    expect([early.settled, late.settled]).toEqual([true, false]);
    cache.set('a', status('a', '2'), undefined, 250);
    await flushMicrotasks();
    expect(late.value?.status.ips).toEqual(['2']);
    expect(early.value?.status.ips).toEqual(['1']);
  });

  it("rejects with the signal's reason on abort, and forgets the waiter", async () => {
    const cache = new PodCache();
    const abort = new AbortController();
    const result = watch(cache.getNewerThan('a', 100, abort.signal));
    const other = watch(cache.getNewerThan('a', 100));
    const reason = new Error('stopping');
    abort.abort(reason);
    await flushMicrotasks();
    expect(result).toMatchObject({ settled: true, error: reason });
    expect(other.settled).toBe(false);

    cache.updateTime(101);
    await flushMicrotasks();
    expect(result.value).toBeUndefined();
    expect(other.settled).toBe(true);
  });

  it('rejects at once with the reason of a signal that is already aborted', async () => {
    const cache = new PodCache();
    const reason = new Error('gone');
    const result = watch(cache.getNewerThan('a', 100, AbortSignal.abort(reason)));
    await flushMicrotasks();
    expect(result).toMatchObject({ settled: true, error: reason });
  });

  it('does not reject once resolved, even if the signal aborts later', async () => {
    const cache = new PodCache();
    const abort = new AbortController();
    const result = watch(cache.getNewerThan('a', 100, abort.signal));
    cache.updateTime(101);
    await flushMicrotasks();
    abort.abort(new Error('late'));
    await flushMicrotasks();
    expect(result.error).toBeUndefined();
    expect(result.value?.modified).toBe(101);
  });

  it('stops listening on the signal once a waiter is resolved, so a long-lived signal does not collect listeners', async () => {
    const cache = new PodCache();
    const abort = new AbortController();
    for (let i = 1; i <= 5; i++) {
      const waiting = cache.getNewerThan('a', i * 100, abort.signal);
      expect(getEventListeners(abort.signal, 'abort')).toHaveLength(1);
      cache.updateTime(i * 100 + 1);
      await waiting;
    }
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });
});

describe('GenericPLEG.relistPod after a sync', () => {
  it('stamps what it sees as newer than the sync that asked for it, even within the same millisecond', async () => {
    const clock = new FakeClock();
    const cache = new PodCache();
    const runtime = fakeRuntimeManager(new FakeRuntimeService(), clock);
    const pleg = testPleg({ runtime, cache, clock });
    // The worker's last sync ended now; the clock has not moved since.
    const syncedAt = clock.now();
    await pleg.relistPod('u1', 'p', 'default', syncedAt);
    let got: CachedPodStatus | undefined;
    void cache.getNewerThan('u1', syncedAt).then((c) => (got = c));
    await flushMicrotasks();
    expect(got?.modified).toBeGreaterThan(syncedAt);
  });

  it("stamps a relist an event asked for newer than a confirm() of the pod's last sync, within the same millisecond", async () => {
    const clock = new FakeClock();
    const cache = new PodCache();
    const runtime = fakeRuntimeManager(new FakeRuntimeService(), clock);
    const pleg = testPleg({ runtime, cache, clock });
    await clock.advance(100);
    await pleg.relistPod('u1', 'p', 'default');
    // A sync that changed nothing ends now and takes the status as current; in the same
    // millisecond the runtime sends an event and its relist runs: the worker, which waits for a
    // status newer than its sync, must get what that relist read.
    const syncedAt = clock.now();
    expect(pleg.confirm('u1', syncedAt)).toBe(true);
    await pleg.relistPod('u1', 'p', 'default');
    expect(cache.get('u1').modified).toBeGreaterThan(syncedAt + 1);
  });
});

describe('PodCache.touch', () => {
  it('marks a status current as of a later time and wakes who waits for it; not a missing or failed one', async () => {
    const cache = new PodCache();
    const status = emptyPodStatus('a', 'a', 'default');
    cache.set('a', status, undefined, 100);
    const waiting = cache.getNewerThan('a', 150);
    expect(cache.touch('a', 151)).toBe(true);
    await expect(waiting).resolves.toEqual({ status, modified: 151 });
    // Never back in time.
    cache.touch('a', 120);
    expect(cache.get('a').modified).toBe(151);

    expect(cache.touch('missing', 200)).toBe(false);
    cache.set('b', status, new Error('runtime down'), 100);
    expect(cache.touch('b', 200)).toBe(false);
    expect(cache.get('b').modified).toBe(100);
  });
});

describe('GenericPLEG.runningPods', () => {
  it('is nothing before the first relist, then each pod as its last relist saw it', async () => {
    const clock = new FakeClock();
    const web = {
      uid: 'u1',
      name: 'web',
      namespace: 'default',
      sandboxes: [{ id: 's1', state: 'ready' as const, createdAt: 1 }],
      containers: [],
    };
    const fake = new FakeRuntimeService();
    fake.addSandbox({ id: 's1', createdAt: 1e6, labels: podLabels(web, 'node-1') });
    const runtime = fakeRuntimeManager(fake, clock);
    const pleg = testPleg({ runtime, clock });
    expect(pleg.runningPods()).toBeUndefined();
    await pleg.relist();
    expect(pleg.runningPods()).toEqual([web]);
    // A targeted relist that finds the pod gone takes it out.
    fake.sandboxes.delete('s1');
    await pleg.relistPod('u1', 'web', 'default');
    expect(pleg.runningPods()).toEqual([]);
  });
});

describe('GenericPLEG.reschedule', () => {
  it('never puts off a relist that is due sooner: the first, due at start, runs at once when the period grows; a shorter period brings the next one forward', async () => {
    const clock = new FakeClock();
    let period = 1_000;
    const fake = new FakeRuntimeService();
    const runtime = fakeRuntimeManager(fake, clock);
    const relists = () => fake.calls('listPodSandbox').length;
    const pleg = testPleg({ runtime, clock, period: () => period });
    pleg.start();
    // The runtime's events begin to flow before the first relist ran: the period grows to 30 s.
    period = 30_000;
    pleg.reschedule();
    await clock.advance(0);
    expect(relists()).toBe(1);
    await clock.advance(29_999);
    expect(relists()).toBe(1);
    await clock.advance(1);
    expect(relists()).toBe(2);
    // The events stop: the next relist comes a short period from now, not at the end of the long one.
    await clock.advance(10_000);
    period = 1_000;
    pleg.reschedule();
    await clock.advance(1_000);
    expect(relists()).toBe(3);
    await clock.advance(1_000);
    expect(relists()).toBe(4);
    pleg.stop();
  });
});

describe('GenericPLEG.healthy', () => {
  it('is healthy before it starts; turns unhealthy once no relist succeeded for the threshold past the period, and healthy with the next that does', async () => {
    const clock = new FakeClock();
    const fake = new FakeRuntimeService();
    const runtime = fakeRuntimeManager(fake, clock);
    const pleg = testPleg({ runtime, clock, period: () => 30_000 });
    await clock.advance(1_000_000);
    expect(pleg.healthy()).toEqual({ ok: true, message: '' });
    pleg.start();
    await pleg.relist();
    // The runtime stops answering: the relists every period fail.
    fake.respond('listPodSandbox', () => {
      throw new Error('connection refused');
    });
    await clock.advance(210_000);
    expect(pleg.healthy()).toEqual({ ok: true, message: '' });
    await clock.advance(1);
    expect(pleg.healthy()).toEqual({ ok: false, message: 'pleg was last seen active 210s ago; threshold is 210s' });
    fake.respond('listPodSandbox', undefined);
    await clock.advance(30_000);
    expect(pleg.healthy()).toEqual({ ok: true, message: '' });
    pleg.stop();
  });
});
