// The active deadline handler with a fake clock: when a pod is past its
// activeDeadlineSeconds, and what it says then.
import { describe, expect, it } from 'vitest';
import { ActiveDeadlineHandler } from '../../../src/engine/active-deadline.js';
import { rfc3339, type Pod, type PodStatus } from '../../../src/engine/api/v1.js';
import { EventStream, type LifecycleEvent } from '../../../src/engine/events.js';
import { FakeClock } from '../../../src/util/clock.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

function pod(activeDeadlineSeconds: number | undefined, status?: PodStatus): Pod {
  return {
    metadata: { name: 'deadline', namespace: 'default', uid: 'uid-1' },
    spec: { activeDeadlineSeconds, containers: [{ name: 'main' }] },
    ...(status ? { status } : {}),
  };
}

function handler(statuses: Record<string, PodStatus> = {}) {
  const clock = new FakeClock(T0);
  const events = new EventStream(() => clock.now());
  const seen: LifecycleEvent[] = [];
  events.subscribe((e) => seen.push(e));
  return { clock, seen, deadline: new ActiveDeadlineHandler({ getPodStatus: (uid) => statuses[uid] }, events, clock) };
}

describe('ActiveDeadlineHandler', () => {
  const started = { startTime: rfc3339(T0) };
  it.each([
    ['no activeDeadlineSeconds', undefined, started, 60_000, false],
    ['no start time yet', 8, {}, 60_000, false],
    ['before the deadline', 8, started, 7_999, false],
    ['at the deadline', 8, started, 8_000, true],
    ['past the deadline', 8, started, 30_000, true],
  ] as const)('%s → %s', async (_name, seconds, status, elapsed, want) => {
    const { clock, deadline } = handler({ 'uid-1': status });
    await clock.advance(elapsed);
    expect(deadline.shouldSync(pod(seconds))).toBe(want);
    expect(deadline.shouldEvict(pod(seconds)).evict).toBe(want);
  });

  it("measures from the status manager's start time, else from the pod's own status", async () => {
    const { clock, deadline } = handler({ 'uid-1': { startTime: rfc3339(T0 + 5_000) } });
    await clock.advance(10_000);
    expect(deadline.shouldSync(pod(8, { startTime: rfc3339(T0) }))).toBe(false);
    expect(handler().deadline.shouldSync(pod(8, { startTime: rfc3339(T0 - 10_000) }))).toBe(true);
  });

  it("evicts with the kubelet's reason and message, and says so on the event stream", async () => {
    const { clock, seen, deadline } = handler({ 'uid-1': { startTime: rfc3339(T0) } });
    expect(deadline.shouldEvict(pod(8))).toEqual({ evict: false });
    expect(seen).toEqual([]);
    await clock.advance(8_000);
    expect(deadline.shouldEvict(pod(8))).toEqual({
      evict: true,
      reason: 'DeadlineExceeded',
      message: 'Pod was active on the node longer than the specified deadline',
    });
    expect(seen).toMatchObject([
      { type: 'PodDeadlineExceeded', pod: 'default/deadline', uid: 'uid-1', reason: 'DeadlineExceeded', at: T0 + 8_000 },
    ]);
  });
});
