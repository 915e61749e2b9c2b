// ContainerManager.doBackOff with a fake clock: which instance of a container
// its CrashLoopBackOff is measured from.
import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance, RuntimePodStatus } from '../../../../src/engine/container/types.js';
import { EventStream, type LifecycleEvent } from '../../../../src/engine/events.js';
import { ContainerManager } from '../../../../src/engine/kuberuntime/containers.js';
import { SyncError, SyncErrors } from '../../../../src/engine/kuberuntime/sync-result.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { fakeContainerManager, FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';

const T0 = Date.UTC(2026, 0, 1);
const main: Container = { name: 'main', image: 'busybox:1.36', command: ['sleep', '3600'] };
const pod: Pod = { metadata: { name: 'liveness-fail', namespace: 'default', uid: 'uid-1' }, spec: { containers: [main] } };

function instance(n: number, state: 'running' | 'exited', startedAt: number, finishedAt = 0): ContainerInstance {
  return {
    id: `main-${n}`,
    name: 'main',
    state,
    createdAt: startedAt,
    startedAt,
    finishedAt,
    exitCode: state === 'exited' ? 137 : 0,
    image: main.image!,
    imageRef: '',
    imageId: '',
    reason: '',
    message: '',
    hash: '',
    restartCount: n,
    logPath: '',
    labels: {},
    annotations: {},
  };
}

/** The pod's containers, newest first (as the runtime manager lists them). */
const status = (...containers: ContainerInstance[]): RuntimePodStatus => ({
  uid: 'uid-1',
  name: 'liveness-fail',
  namespace: 'default',
  ips: [],
  sandboxes: [],
  containers,
});

function manager() {
  const clock = new FakeClock(T0);
  const events = new EventStream(() => clock.now());
  const runtime = new FakeRuntimeService(() => clock.now());
  // doBackOff writes no file
  const containers = fakeContainerManager(runtime, clock, events, '/nonexistent');
  const emitted: LifecycleEvent[] = [];
  events.subscribe((e) => emitted.push(e));
  return { clock, containers, emitted };
}

/** What doBackOff says: undefined (start now) or the back-off message and when to try again. */
function backOff(containers: ContainerManager, s: RuntimePodStatus): { message: string; retryAfterMs?: number } | undefined {
  try {
    containers.doBackOff(pod, main, s);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(SyncError);
    expect((err as SyncError).reason).toBe(SyncErrors.crashLoopBackOff);
    return { message: (err as SyncError).message, retryAfterMs: (err as SyncError).retryAfterMs };
  }
}

const at = (s: number) => T0 + s * 1000;

describe('doBackOff', () => {
  it('backs off restarts after probe kills from the newest exited instance, not the running one being killed', async () => {
    const { clock, containers } = manager();
    // A liveness probe (period 3 s, threshold 1) kills the container every 3 s; each
    // kill and restart happen in one sync, from a status where the victim still runs.
    await clock.advance(3_000);
    expect(backOff(containers, status(instance(0, 'running', at(0))))).toBeUndefined();
    await clock.advance(3_000);
    expect(backOff(containers, status(instance(1, 'running', at(3)), instance(0, 'exited', at(0), at(3))))).toBeUndefined();
    await clock.advance(3_000);
    // The third kill: the second ended 3 s ago, inside its 10 s back-off.
    expect(backOff(containers, status(instance(2, 'running', at(6)), instance(1, 'exited', at(3), at(6))))).toEqual({
      message: 'back-off 10s restarting failed container=main pod=liveness-fail_default(uid-1)',
      retryAfterMs: 7_000,
    });
    // The next sync sees the third run exited: 10 s from its end.
    await clock.advance(1_000);
    expect(backOff(containers, status(instance(2, 'exited', at(6), at(9)), instance(1, 'exited', at(3), at(6))))?.retryAfterMs).toBe(9_000);
    await clock.advance(9_000);
    expect(backOff(containers, status(instance(2, 'exited', at(6), at(9))))).toBeUndefined();
    // Restarted at 19 s and killed at 22 s: now 20 s from the previous end.
    await clock.advance(3_000);
    expect(backOff(containers, status(instance(3, 'running', at(19)), instance(2, 'exited', at(6), at(9))))?.message).toMatch(
      /^back-off 20s /,
    );
  });

  it("posts the kubelet's BackOff event, naming the container and the pod", async () => {
    const { clock, containers, emitted } = manager();
    await clock.advance(1_000);
    expect(backOff(containers, status(instance(0, 'exited', at(0), at(1))))).toBeUndefined();
    expect(backOff(containers, status(instance(1, 'exited', at(1), at(1))))?.message).toMatch(/^back-off 10s /);
    expect(emitted.filter((e) => e.type === 'ContainerBackOff').map((e) => [e.container, e.reason, e.message])).toEqual([
      ['main', 'BackOff', 'Back-off restarting failed container main in pod liveness-fail_default(uid-1)'],
    ]);
  });

  it('does not back off a container that never exited', async () => {
    const { clock, containers } = manager();
    await clock.advance(1_000);
    expect(backOff(containers, status(instance(0, 'running', at(0))))).toBeUndefined();
    expect(backOff(containers, status())).toBeUndefined();
  });
});
