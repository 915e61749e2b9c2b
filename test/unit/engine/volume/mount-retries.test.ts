// A pod's volumes as its sync waits for them: a failed mount is tried again after 0.5 s,
// 1 s, 2 s ... (the kubelet reconciler's back-off) for up to 2m3s, each failure a FailedMount.
import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { mountWithRetries } from '../../../../src/engine/kubelet-volumes.js';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { VolumeError, type VolumeManager } from '../../../../src/engine/volume/volume-manager.js';

const pod: Pod = { metadata: { name: 'web', namespace: 'default', uid: 'u1' }, spec: { containers: [] } };

/** A volume manager whose tries fail with ERRORS in turn, then mount; the clock's time of each try. */
function volumes(clock: FakeClock, errors: Error[]) {
  const tries: number[] = [];
  const start = clock.now();
  const manager = {
    waitForAttachAndMount: async () => {
      tries.push(clock.now() - start);
      const err = errors.shift();
      if (err) throw err;
      return new Map([['config', '/volumes/config']]);
    },
  } as unknown as VolumeManager;
  return { manager, tries };
}

/** Runs the wait while the clock moves LIMIT ms on (its timers firing in order), and how it ended. */
async function settle<T>(clock: FakeClock, work: Promise<T>, limit: number): Promise<PromiseSettledResult<T>> {
  const result = Promise.allSettled([work]);
  await clock.advance(limit);
  return (await result)[0];
}

describe('mountWithRetries', () => {
  it('tries again after 0.5, 1 and 2 s while a volume fails, and reports each failure', async () => {
    const clock = new FakeClock();
    const notFound = () => new VolumeError('volume "config": configmap "app" not found');
    const { manager, tries } = volumes(clock, [notFound(), notFound(), notFound()]);
    const failures: string[] = [];
    const result = await settle(
      clock,
      mountWithRetries(manager, pod, clock, (e) => failures.push(e.message)),
      10_000,
    );
    expect(result).toMatchObject({ status: 'fulfilled' });
    expect(tries).toEqual([0, 500, 1_500, 3_500]);
    expect(failures).toEqual(Array(3).fill('volume "config": configmap "app" not found'));
  });

  it('gives up with the last failure once 2m3s would pass, the waits capped', async () => {
    const clock = new FakeClock();
    const { manager, tries } = volumes(
      clock,
      Array.from({ length: 20 }, (_, i) => new VolumeError(`failure ${i}`)),
    );
    const result = await settle(
      clock,
      mountWithRetries(manager, pod, clock, () => {}),
      200_000,
    );
    expect(result.status).toBe('rejected');
    // 0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5 s; the next wait (128 s) would end past 123 s.
    expect(tries).toEqual([0, 500, 1_500, 3_500, 7_500, 15_500, 31_500, 63_500]);
    expect(((result as PromiseRejectedResult).reason as Error).message).toBe('failure 7');
  });

  it('does not wait on an error that is not a volume’s, nor once the sync is aborted', async () => {
    const clock = new FakeClock();
    const other = volumes(clock, [new Error('EIO')]);
    await expect(mountWithRetries(other.manager, pod, clock, () => {})).rejects.toThrow('EIO');
    expect(other.tries).toEqual([0]);

    const abort = new AbortController();
    const failing = volumes(clock, [new VolumeError('volume "config": not yet'), new VolumeError('again')]);
    const waiting = settle(
      clock,
      mountWithRetries(failing.manager, pod, clock, () => {}, abort.signal),
      300,
    );
    await flushMicrotasks();
    abort.abort();
    const result = await waiting;
    expect(result.status).toBe('rejected');
    expect(((result as PromiseRejectedResult).reason as Error).message).toBe('volume "config": not yet');
    expect(failing.tries).toEqual([0]);
  });
});
