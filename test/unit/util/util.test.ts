import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDuration, parseNodeLabels } from '../../../src/cli/kubelet-flags.js';
import { jitter, WorkQueue } from '../../../src/engine/work-queue.js';
import { AsyncQueue } from '../../../src/util/async-queue.js';
import { Backoff } from '../../../src/util/backoff.js';
import { eachLimited } from '../../../src/util/each-limited.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { isNear, nearHint, nearNames } from '../../../src/util/near-names.js';
import { UserError } from '../../../src/util/user-error.js';
import { MALLOC_TUNABLES, NODE_FLAGS } from '../../../src/util/node-flags.js';
import { compareStrings } from '../../../src/util/compare.js';

const INITIAL = 10_000;
const MAX = 300_000;

describe('Backoff', () => {
  it('starts at the initial delay, doubles on each failure and stops at the maximum', () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    expect(backoff.get('c')).toBe(0);
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      backoff.next('c', clock.now() + i * 1000);
      seen.push(backoff.get('c'));
    }
    expect(seen).toEqual([10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('keeps keys apart', () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    backoff.next('a', clock.now());
    backoff.next('a', clock.now());
    backoff.next('b', clock.now());
    expect([backoff.get('a'), backoff.get('b')]).toEqual([20_000, 10_000]);
  });

  it.each([
    ['exactly twice the maximum later: still doubling', 2 * MAX, 40_000],
    ['more than twice the maximum later: starts over', 2 * MAX + 1, INITIAL],
  ])('after an idle time, %s', (_case, idle, expected) => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    const t0 = clock.now();
    backoff.next('c', t0);
    backoff.next('c', t0);
    backoff.next('c', t0 + idle);
    expect(backoff.get('c')).toBe(expected);
  });

  it('is in backoff while less than the delay has passed since the event', async () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    const failedAt = clock.now();
    expect(backoff.isInBackOffSince('c', failedAt)).toBe(false);
    backoff.next('c', failedAt);

    expect(backoff.isInBackOffSince('c', failedAt)).toBe(true);
    expect(backoff.remaining('c', failedAt)).toBe(INITIAL);
    await clock.advance(INITIAL - 1);
    expect(backoff.isInBackOffSince('c', failedAt)).toBe(true);
    expect(backoff.remaining('c', failedAt)).toBe(1);
    await clock.advance(1);
    expect(backoff.isInBackOffSince('c', failedAt)).toBe(false);
    expect(backoff.remaining('c', failedAt)).toBe(0);
    await clock.advance(5_000);
    expect(backoff.remaining('c', failedAt)).toBe(0);
  });

  it('measures from an older event time, not from now', async () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    await clock.advance(60_000);
    const failedAt = clock.now() - 8_000;
    backoff.next('c', failedAt);
    expect(backoff.isInBackOffSince('c', failedAt)).toBe(true);
    expect(backoff.remaining('c', failedAt)).toBe(2_000);
    await clock.advance(2_000);
    expect(backoff.isInBackOffSince('c', failedAt)).toBe(false);
  });

  it('is not in backoff for an event long after the last failure', () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    backoff.next('c', clock.now());
    expect(backoff.isInBackOffSince('c', clock.now() + 2 * MAX + 1)).toBe(false);
  });

  it('is in backoff since the last recorded failure, until the delay has passed or the entry expired', async () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    expect(backoff.isInBackOffSinceUpdate('c')).toBe(false);
    expect(backoff.remainingSinceUpdate('c')).toBe(0);
    backoff.next('c', clock.now());
    backoff.next('c', clock.now());
    expect(backoff.isInBackOffSinceUpdate('c')).toBe(true);
    expect(backoff.remainingSinceUpdate('c')).toBe(20_000);
    await clock.advance(19_999);
    expect(backoff.isInBackOffSinceUpdate('c')).toBe(true);
    expect(backoff.remainingSinceUpdate('c')).toBe(1);
    await clock.advance(1);
    expect(backoff.isInBackOffSinceUpdate('c')).toBe(false);
    expect(backoff.remainingSinceUpdate('c')).toBe(0);
  });

  it('takes up a delay from before a restart only where it has none, within its bounds', async () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    backoff.restore('c', 40_000, clock.now());
    expect(backoff.get('c')).toBe(40_000);
    expect(backoff.isInBackOffSince('c', clock.now())).toBe(true);
    backoff.next('c', clock.now());
    expect(backoff.get('c')).toBe(80_000);
    // An entry kept here wins over what a restart would restore.
    backoff.restore('c', 10_000, clock.now());
    expect(backoff.get('c')).toBe(80_000);
    backoff.restore('huge', 10 ** 9, clock.now());
    backoff.restore('tiny', 1, clock.now());
    expect([backoff.get('huge'), backoff.get('tiny')]).toEqual([MAX, INITIAL]);
    // Restored long ago (the container then ran for longer than twice the maximum): over.
    backoff.restore('old', 160_000, clock.now() - 2 * MAX - 1);
    expect(backoff.isInBackOffSince('old', clock.now())).toBe(false);
  });

  it('forgets a key on reset, and idle keys on gc', async () => {
    const clock = new FakeClock();
    const backoff = new Backoff(clock, INITIAL, MAX);
    backoff.next('a', clock.now());
    backoff.next('b', clock.now());
    backoff.reset('a');
    expect(backoff.get('a')).toBe(0);
    expect(backoff.get('b')).toBe(INITIAL);

    await clock.advance(2 * MAX);
    backoff.next('fresh', clock.now());
    backoff.gc();
    expect(backoff.get('b')).toBe(INITIAL);
    await clock.advance(1);
    backoff.gc();
    expect(backoff.get('b')).toBe(0);
    expect(backoff.get('fresh')).toBe(INITIAL);
  });
});

describe('parseDuration', () => {
  it.each([
    ['0', 0],
    ['20s', 20_000],
    ['1m', 60_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['1h', 3_600_000],
    ['2h45m', 9_900_000],
    ['1.5s', 1_500],
    ['1h1m1s1ms', 3_661_001],
    ['100us', 0.1],
    ['100µs', 0.1],
    ['2000000ns', 2],
    ['0s', 0],
    ['.5s', 500],
    ['1.s', 1_000],
    ['1.5h', 5_400_000],
  ])('%s → %s ms', (text, ms) => {
    expect(parseDuration(text, 'sync-frequency')).toBeCloseTo(ms, 9);
  });

  it.each(['', '10', 'abc', '1x', '1m30', ' 1s', '1s ', 's', '1 s', '1d', '1S'])('rejects %j as a usage error', (text) => {
    let caught: unknown;
    try {
      parseDuration(text, 'sync-frequency');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UserError);
    expect(caught).toMatchObject({ code: 'usage', message: `--sync-frequency: invalid duration "${text}"` });
    expect((caught as UserError).hint).toContain('1m30s');
  });

  it('rejects a negative duration as a usage error that says so', () => {
    let caught: unknown;
    try {
      parseDuration('-1s', 'sync-frequency');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UserError);
    expect(caught).toMatchObject({ code: 'usage' });
    expect((caught as UserError).message).toMatch(/must not be negative/);
  });
});

describe('parseNodeLabels', () => {
  it('reads key=value pairs, with or without a prefix, as the kubelet does', () => {
    expect(parseNodeLabels('tier=edge, example.com/zone=lab,empty=,node.kubernetes.io/role=worker')).toEqual({
      tier: 'edge',
      'example.com/zone': 'lab',
      empty: '',
      'node.kubernetes.io/role': 'worker',
    });
  });

  it.each([
    ['tier', /"tier" is not a valid label/],
    ['bad key!=x', /"bad key!=x" is not a valid label/],
    ['tier=a b', /"tier=a b" is not a valid label/],
    [
      'node-role.kubernetes.io/master=',
      /"node-role.kubernetes.io\/master" is in the kubernetes.io\/k8s.io namespace.*NodeRestriction admission would refuse the Node \("is not allowed to set the following labels: node-role.kubernetes.io\/master"\)$/,
    ],
    ['example.k8s.io/x=y', /"example.k8s.io\/x" is in the kubernetes.io\/k8s.io namespace/],
  ])('refuses %j as a usage error', (text, message) => {
    expect(() => parseNodeLabels(text)).toThrow(message);
  });
});

describe('WorkQueue', () => {
  it('hands out only the pods whose time has come, each once', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue(clock);
    queue.enqueue('a', 1_000);
    queue.enqueue('b', 3_000);
    queue.enqueue('now', 0);
    expect(queue.getWork()).toEqual(['now']);
    expect(queue.getWork()).toEqual([]);

    await clock.advance(999);
    expect(queue.getWork()).toEqual([]);
    await clock.advance(1);
    expect(queue.getWork()).toEqual(['a']);
    await clock.advance(5_000);
    expect(queue.getWork()).toEqual(['b']);
    expect(queue.getWork()).toEqual([]);
  });

  it('keeps one due time per pod, the latest enqueued', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue(clock);
    queue.enqueue('a', 1_000);
    queue.enqueue('a', 5_000);
    expect(queue.dueAt('a')).toBe(clock.now() + 5_000);
    await clock.advance(1_000);
    expect(queue.getWork()).toEqual([]);
    await clock.advance(4_000);
    expect(queue.getWork()).toEqual(['a']);
    expect(queue.dueAt('a')).toBeUndefined();
  });

  it('forgets a pod', async () => {
    const clock = new FakeClock();
    const queue = new WorkQueue(clock);
    queue.enqueue('a', 0);
    queue.forget('a');
    expect(queue.dueAt('a')).toBeUndefined();
    expect(queue.getWork()).toEqual([]);
  });
});

describe('jitter', () => {
  it.each([
    [1_000, 0.5, 0, 1_000],
    [1_000, 0.5, 0.5, 1_250],
    [1_000, 0.5, 1, 1_500],
    [60_000, 0, 0.9, 60_000],
  ])('jitter(%s, %s) with random %s is %s', (duration, factor, r, expected) => {
    expect(jitter(duration, factor, () => r)).toBe(expected);
  });
});

describe('AsyncQueue', () => {
  it('hands out items in order, those pushed before next() and after', async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    queue.push(2);
    expect(queue.length).toBe(2);
    expect(await queue.next()).toBe(1);
    expect(await queue.next()).toBe(2);
    expect(queue.length).toBe(0);

    const waiting = queue.next();
    let got: number | undefined;
    void waiting.then((v) => (got = v));
    await flushMicrotasks();
    expect(got).toBeUndefined();
    queue.push(3);
    expect(await waiting).toBe(3);
    expect(queue.length).toBe(0);
  });

  it('resolves a waiting next() with undefined on close, and every next() after', async () => {
    const queue = new AsyncQueue<string>();
    const waiting = queue.next();
    queue.close();
    expect(await waiting).toBeUndefined();
    expect(await queue.next()).toBeUndefined();
  });

  it('drops queued items on close and ignores pushes after it', async () => {
    const queue = new AsyncQueue<string>();
    queue.push('queued');
    queue.close();
    queue.push('late');
    expect(queue.length).toBe(0);
    expect(await queue.next()).toBeUndefined();
  });
});

describe('eachLimited', () => {
  it('runs at most LIMIT at once, every item once, in order of the items', async () => {
    let running = 0;
    let most = 0;
    const started: number[] = [];
    await eachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
      started.push(n);
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    });
    expect(most).toBe(3);
    expect(started).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('after a failure starts nothing more, lets what runs finish, then throws the first failure', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = eachLimited([0, 1, 2, 3, 4, 5], 2, async (n, index) => {
      expect(index).toBe(n);
      started.push(n);
      if (n === 1) throw new Error('layer 1 failed');
      await new Promise((r) => setTimeout(r, 10));
      finished.push(n);
    });
    await expect(run).rejects.toThrow('layer 1 failed');
    expect(started).toEqual([0, 1]);
    expect(finished).toEqual([0]);
  });
});

describe('NODE_FLAGS', () => {
  it("are the flags (and MALLOC_TUNABLES the malloc tunables) bin/run.js's shebang gives node, so the CLI, the runtime it starts and the bench run alike", () => {
    const shebang = readFileSync(join(import.meta.dirname, '../../../bin/run.js'), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S GLIBC_TUNABLES=${MALLOC_TUNABLES} node ${NODE_FLAGS.join(' ')}`);
  });
});

describe('compareStrings', () => {
  it("orders as Go's sort.Strings does: by code unit, capitals first, punctuation by its code", () => {
    // localeCompare gives a, a_b, a-b, a.b, a0, ab, B.
    const sorted = ['ab', 'a_b', 'a.b', 'B', 'a0', 'a-b', 'a'].sort(compareStrings);
    expect(sorted).toEqual(['B', 'a', 'a-b', 'a.b', 'a0', 'a_b', 'ab']);
    expect(compareStrings('x', 'x')).toBe(0);
  });
});

describe('near names', () => {
  it("takes a static pod's name for its stem, and a name holding the one asked for", () => {
    expect(isNear('web', 'web-myhost')).toBe(true);
    expect(isNear('web-other', 'web-myhost')).toBe(true);
    expect(isNear('hello', 'web-myhost')).toBe(false);
    expect(nearNames('hello', ['hello-a', 'web-a', 'shell-hello-b'])).toEqual(['hello-a', 'shell-hello-b']);
  });

  it('hints the near ones, else where to list pods', () => {
    expect(nearHint(['hello-a'])).toBe('did you mean hello-a?');
    expect(nearHint([])).toBe('list the pods with `knode status`');
    expect(nearHint(undefined)).toBe('list the pods with `knode status`');
  });
});
