// The full relist's schedule as the period changes with the runtime's events: once they
// flow, the next relist comes the long period later, so the short period's relist does not
// land in the burst of pods that set the events off; the first relist is never put off.
import { describe, expect, it } from 'vitest';
import { KubeletLabels } from '../../../../src/cri/types.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeRuntimeService, fakeRuntimeManager } from '../../../helpers/fake-runtime-service.js';
import { testPleg } from '../../../helpers/pleg.js';

/** A PLEG whose period is `period.ms`, and the times (from its start) of its full relists. */
function pleg() {
  const clock = new FakeClock();
  const start = clock.now();
  const relists: number[] = [];
  const runtime = new FakeRuntimeService(() => clock.now());
  runtime.beforeCall('listPodSandbox', (filter) => {
    if (filter?.labelSelector?.[KubeletLabels.podUid] === undefined) relists.push(clock.now() - start);
  });
  const period = { ms: 1_000 };
  const p = testPleg({ runtime: fakeRuntimeManager(runtime, clock, 'node-a'), clock, period: () => period.ms });
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 100) {
      await clock.advance(100);
      await flushMicrotasks();
    }
  };
  return { p, relists, period, advance };
}

describe('the full relist as the period changes', () => {
  it('puts the next relist a long period off once events flow, not a short one', async () => {
    const { p, relists, period, advance } = pleg();
    p.start();
    await advance(1_500); // at 0 and 1,000 on the short period
    expect(relists).toEqual([0, 1_000]);
    period.ms = 30_000;
    p.reschedule();
    await advance(29_900);
    expect(relists).toEqual([0, 1_000]);
    await advance(200);
    expect(relists).toEqual([0, 1_000, 31_500]);
    p.stop();
  });

  it('never puts off the first relist, and a shorter period brings the next one forward', async () => {
    const { p, relists, period, advance } = pleg();
    period.ms = 30_000;
    p.start();
    p.reschedule(); // before the first relist ran: it stays due at start
    await advance(100);
    expect(relists).toEqual([0]);
    period.ms = 1_000;
    p.reschedule(); // the events stopped: the next relist a short period from now
    await advance(1_000);
    expect(relists).toEqual([0, 1_100]);
    p.stop();
  });
});
