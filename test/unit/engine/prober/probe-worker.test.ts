// The probe worker on the fake clock: a container the runtime shows created but
// not yet started is waited for, not counted as failed, so the sync that sees it
// running a moment later does not kill it for a failed startup or liveness probe.
import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../../src/engine/api/v1.js';
import type { ContainerInstance } from '../../../../src/engine/container/types.js';
import { EventStream } from '../../../../src/engine/events.js';
import { ProberManager } from '../../../../src/engine/prober/prober-manager.js';
import type { ProbeResult } from '../../../../src/engine/prober/probe.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeRuntimeService } from '../../../helpers/fake-runtime-service.js';
import { containerInstance } from '../../../helpers/container-instances.js';

const container: Container = {
  name: 'main',
  image: 'busybox',
  startupProbe: {
    exec: { command: ['test', '-f', '/tmp/up'] },
    periodSeconds: 3,
    failureThreshold: 3,
    successThreshold: 1,
    timeoutSeconds: 1,
  },
};
const pod: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default', uid: 'u1' },
  spec: { containers: [container] },
};

function instance(state: ContainerInstance['state'], startedAt: number): ContainerInstance {
  return containerInstance('main', state, { started: startedAt, finished: 0 }, { id: 'c1', createdAt: 0, startedAt });
}

function setup(execExitCode: () => number) {
  const clock = new FakeClock();
  let current: ContainerInstance | undefined;
  const changes: [string, ProbeResult][] = [];
  const runtime = new FakeRuntimeService();
  runtime.respond('execSync', () => ({ exitCode: execExitCode(), stdout: Buffer.alloc(0), stderr: Buffer.alloc(0) }));
  const execs = () => runtime.calls('execSync').map(([id]) => id);
  const prober = new ProberManager({
    runtime,
    clock,
    random: () => 0,
    events: new EventStream(() => clock.now()),
    current: () => current,
    podIP: () => '127.0.0.1',
    onChange: (_uid, kind, _id, result) => changes.push([kind, result]),
  });
  return { clock, prober, changes, execs, runtime, current: () => current, set: (c: ContainerInstance | undefined) => (current = c) };
}

describe('probe worker', () => {
  it('waits while the container is created but not started, then probes it once it runs', async () => {
    const t = setup(() => 1);
    t.set(instance('created', 0));
    t.prober.addPod(pod);
    await t.clock.advance(10_000);
    expect(t.prober.probeFailed('main', 'c1')).toBeUndefined();
    expect(t.changes).toEqual([]);
    expect(t.execs()).toEqual([]);

    t.set(instance('running', t.clock.now()));
    await t.clock.advance(3_000);
    expect(t.execs()).toEqual(['c1']);
    // One failure of three: still not a verdict.
    expect(t.prober.probeFailed('main', 'c1')).toBeUndefined();
    await t.clock.advance(6_000);
    expect(t.prober.probeFailed('main', 'c1')).toBe('Container main failed startup probe');
    expect(t.changes).toEqual([['startup', 'failure']]);
    t.prober.stopAll();
  });

  it('counts a container that exited as failed, as the kubelet does', async () => {
    const t = setup(() => 0);
    t.set(instance('exited', 0));
    t.prober.addPod(pod);
    await t.clock.advance(1);
    expect(t.prober.probeFailed('main', 'c1')).toBe('Container main failed startup probe');
    t.prober.stopAll();
  });
});

describe('a container that ran before the node started', () => {
  const shown = (containerID: string): Pod => ({
    ...pod,
    status: { containerStatuses: [{ name: 'main', containerID, started: true, ready: false, restartCount: 0, image: '', imageID: '' }] },
  });

  it('keeps the Started its pod status shows, as a restarted kubelet does: no startup probe runs again', async () => {
    const t = setup(() => 1);
    t.set(instance('running', t.clock.now() - 60_000));
    // Before its worker too: the status a node writes before its first sync keeps it.
    expect(t.prober.isStarted(shown('knode://c1'), 'main', 'c1')).toBe(true);
    t.prober.addPod(shown('knode://c1'));
    expect(t.prober.isStarted(shown('knode://c1'), 'main', 'c1')).toBe(true);
    await t.clock.advance(30_000);
    expect(t.execs()).toEqual([]);
    expect(t.prober.probeFailed('main', 'c1')).toBeUndefined();
    t.prober.stopAll();
  });

  it('starts anew when the status shows another container of that name, or none started', async () => {
    for (const other of [shown('knode://c0'), pod]) {
      const t = setup(() => 0);
      t.set(instance('running', t.clock.now() - 60_000));
      t.prober.addPod(other);
      expect(t.prober.isStarted(other, 'main', 'c1')).toBe(false);
      await t.clock.advance(3_000);
      expect(t.execs()).toEqual(['c1']);
      expect(t.prober.isStarted(other, 'main', 'c1')).toBe(true);
      t.prober.stopAll();
    }
  });
});

describe('readiness as the kubelet reports it', () => {
  const readiness: Container = { name: 'main', image: 'busybox', readinessProbe: { exec: { command: ['true'] }, periodSeconds: 10 } };
  const ready = (status: 'True' | 'False'): Pod => ({
    ...pod,
    spec: { containers: [readiness] },
    status: { conditions: [{ type: 'Ready', status }] },
  });

  it('probes a new container as soon as the status asks, not a period later, once the node has run a period', async () => {
    const t = setup(() => 0);
    await t.clock.advance(10_000); // the node started a period ago: no spreading wait
    t.prober.addPod(ready('False'));
    await t.clock.advance(1);
    expect(t.execs()).toEqual([]); // nothing runs yet
    t.set(instance('running', t.clock.now()));
    // The status of the sync that saw it start asks; the probe runs at once.
    expect(t.prober.isReady(ready('False'), 'main', 'c1')).toBe(false);
    await t.clock.advance(1);
    expect(t.execs()).toEqual(['c1']);
    expect(t.prober.isReady(ready('False'), 'main', 'c1')).toBe(true);
    // Then every period from that run.
    await t.clock.advance(9_998);
    expect(t.execs()).toHaveLength(1);
    await t.clock.advance(2);
    expect(t.execs()).toHaveLength(2);
    t.prober.stopAll();
  });

  it('keeps the readiness of a container that ran before a restart until its first probe, which waits a random part of a period', async () => {
    const t = setup(() => 0);
    const startedBefore = t.clock.now() - 60_000;
    t.set(instance('running', startedBefore));
    t.prober.addPod(ready('True'));
    expect(t.prober.isReady(ready('True'), 'main', 'c1')).toBe(true);
    expect(t.prober.isReady(ready('False'), 'main', 'c1')).toBe(false);
    t.prober.stopAll();

    // A container that started after the restart has no readiness to keep.
    const fresh = setup(() => 0);
    fresh.set(instance('running', fresh.clock.now()));
    fresh.prober.addPod(ready('True'));
    expect(fresh.prober.isReady(ready('True'), 'main', 'c1')).toBe(false);
    fresh.prober.stopAll();
  });

  it('spreads no probe of a pod started after the node, even within its first period (knode apply of a new Deployment)', async () => {
    const t = setup(() => 0);
    const random = setupRandom(t, 0.5);
    random.prober.addPod(ready('False'));
    t.set(instance('running', t.clock.now()));
    expect(random.prober.isReady(ready('False'), 'main', 'c1')).toBe(false);
    await t.clock.advance(1);
    expect(t.execs()).toEqual(['c1']);
    expect(random.prober.isReady(ready('False'), 'main', 'c1')).toBe(true);
    random.prober.stopAll();
  });

  it('runs a trigger that comes during the first wait after that wait, and the probe again right after', async () => {
    const t = setup(() => 0);
    const random = setupRandom(t, 0.5);
    t.set(instance('running', t.clock.now() - 60_000));
    random.prober.addPod(ready('False'));
    expect(random.prober.isReady(ready('False'), 'main', 'c1')).toBe(false);
    await t.clock.advance(4_999);
    expect(t.execs()).toEqual([]);
    await t.clock.advance(1);
    expect(t.execs()).toEqual(['c1', 'c1']);
    random.prober.stopAll();
  });
});

/** A second prober on T's clock, runtime and container whose first waits are RANDOM of a period. */
function setupRandom(t: ReturnType<typeof setup>, random: number) {
  const prober = new ProberManager({
    runtime: t.runtime,
    clock: t.clock,
    random: () => random,
    events: new EventStream(() => t.clock.now()),
    current: () => t.current(),
    podIP: () => '127.0.0.1',
    onChange: () => {},
  });
  return { prober };
}
