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
  return { clock, prober, changes, execs, set: (c: ContainerInstance | undefined) => (current = c) };
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
