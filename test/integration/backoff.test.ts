// CrashLoopBackOff through the real path, with time skipped instead of slept:
// the kubelet runs on a SkewClock, the containers on the real embedded runtime.
import { expect, it } from 'vitest';
import { containerOf, startNode } from '../helpers/node.js';
import { eventually } from '../helpers/runtimes.js';
import { SkewClock } from '../helpers/skew-clock.js';
import { skewedNodeOnEmbeddedRuntime } from '../helpers/skew-node.js';

const t = skewedNodeOnEmbeddedRuntime();

it('restarts a crashing container after 10s, 20s, 40s ... of backoff, and not before', async () => {
  t.node.writePod('crasher', {
    restartPolicy: 'Always',
    containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'exit 1'] }],
  });
  const backoffs = () =>
    t.node.events
      .filter((e) => e.type === 'ContainerWaiting' && e.reason === 'CrashLoopBackOff')
      .map((e) => /back-off (\d+)s/.exec(e.message ?? '')?.[1]);
  const restarts = () => containerOf(t.node.pod('crasher')!, 'main')?.restartCount ?? 0;

  // The first restart is immediate; then the container waits 10s.
  await eventually(() => backoffs().includes('10'), 'a 10s backoff', 20_000);
  const before = restarts();
  expect(before, `restarts at the first back-off; the pod's events: ${t.node.eventsOf('crasher')}`).toBe(1);

  // Half the back-off must not restart it. Checked at once: the back-off runs from the exit, in real time too.
  t.clock.skip(5_000);
  await new Promise((r) => setTimeout(r, 300));
  expect(restarts(), `restarts half-way through the back-off; the pod's events: ${t.node.eventsOf('crasher')}`).toBe(before);

  // The sync that met the back-off wrote the crash: the last run's exit, the pod still Running. (It shows
  // CrashLoopBackOff from the next sync on, which may be the restart itself: the last test looks at that.)
  const pod = await t.node.waitForPod('crasher', 'crashed again', (p) => containerOf(p, 'main')?.lastState?.terminated !== undefined);
  expect(containerOf(pod, 'main')!.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
  expect(pod.status?.phase).toBe('Running');

  for (const [skip, next] of [
    [5_000, '20'],
    [20_000, '40'],
    [40_000, '80'],
  ] as const) {
    t.clock.skip(skip);
    await eventually(() => backoffs().includes(next), `a ${next}s backoff`, 20_000);
  }
  expect(restarts()).toBe(4);
  expect(backoffs().filter((b, i, all) => all.indexOf(b) === i)).toEqual(['10', '20', '40', '80']);
});

it('backs off pulling an image it cannot pull: ImagePullBackOff names the last pull error', async () => {
  t.node.writePod('nopull', { containers: [{ name: 'main', image: 'registry.invalid/knode/absent:1', command: ['true'] }] });
  const waiting = () => containerOf(t.node.pod('nopull')!, 'main')?.state?.waiting;
  const failed = await t.node.waitForPod(
    'nopull',
    'ErrImagePull',
    (p) => containerOf(p, 'main')?.state?.waiting?.reason === 'ErrImagePull',
  );
  const pullError = containerOf(failed, 'main')!.state!.waiting!.message!;
  expect(pullError).toMatch(/^failed to pull and unpack image /);

  // A failed sync comes back after the worker's 10s back-off period: the pull fails again (20s of
  // back-off now), and the sync after that meets the back-off.
  for (let i = 0; i < 2 && waiting()?.reason !== 'ImagePullBackOff'; i++) {
    const pulls = t.node.events.filter((e) => e.type === 'ImagePullFailed').length;
    t.clock.skip(10_000);
    await eventually(
      () => t.node.events.filter((e) => e.type === 'ImagePullFailed').length > pulls || waiting()?.reason === 'ImagePullBackOff',
      'another pull or the back-off',
      20_000,
    );
  }
  const pod = await t.node.waitForPod(
    'nopull',
    'ImagePullBackOff',
    (p) => containerOf(p, 'main')?.state?.waiting?.reason === 'ImagePullBackOff',
  );
  expect(containerOf(pod, 'main')!.state!.waiting!.message).toMatch(
    /^Back-off pulling image "registry\.invalid\/knode\/absent:1": ErrImagePull: failed to pull and unpack image /,
  );
  const backOff = t.node.events.find((e) => e.type === 'ImagePullBackOff' && e.uid === pod.metadata.uid)!;
  expect(backOff).toMatchObject({ reason: 'BackOff', message: 'Back-off pulling image "registry.invalid/knode/absent:1"' });
});

it('syncs a pod during a crash-loop back-off longer than the resync interval, so it shows CrashLoopBackOff until the restart', async () => {
  // A resync interval of 2s: the kubelet's worker comes back no later than that, even in a 10s back-off.
  const skew = new SkewClock();
  const short = await startNode(t.runtime.endpoint, { clock: skew, config: { syncFrequency: 2_000 } });
  try {
    short.writePod('crashloop', {
      restartPolicy: 'Always',
      containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', 'exit 1'] }],
    });
    const backOffs = () => short.events.filter((e) => e.type === 'ContainerBackOff' && e.pod.includes('crashloop')).length;
    const main = () => containerOf(short.pod('crashloop')!, 'main')!;
    await eventually(() => backOffs() > 0, 'a back-off', 20_000);
    const restarts = main().restartCount;

    // One resync interval into the back-off the pod syncs again: waiting CrashLoopBackOff, not restarted.
    skew.skip(2_000);
    const pod = await short.waitForPod(
      'crashloop',
      'in CrashLoopBackOff',
      (p) => containerOf(p, 'main')?.state?.waiting?.reason === 'CrashLoopBackOff',
    );
    const waiting = containerOf(pod, 'main')!;
    expect(waiting.state!.waiting!.message).toBe(
      `back-off 10s restarting failed container=main pod=${pod.metadata.name}_default(${pod.metadata.uid})`,
    );
    expect(waiting.lastState?.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect(waiting.restartCount).toBe(restarts);

    // And again one interval later, still waiting.
    const seen = backOffs();
    skew.skip(2_000);
    await eventually(() => backOffs() > seen, 'another sync during the back-off', 20_000);
    expect(main()).toMatchObject({ restartCount: restarts, state: { waiting: { reason: 'CrashLoopBackOff' } } });

    // The sync at the back-off's end restarts it.
    skew.skip(8_000);
    await eventually(() => main().restartCount > restarts, 'the restart after the back-off', 20_000);
  } finally {
    await short.stop();
    skew.dispose();
  }
});
