import { describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { LocalWorkloads } from '../../../src/controllers/index.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import type { Taint } from '../../../src/controllers/node-fit.js';

const NODE = 'n1';

function deployment(name: string, cpu: string): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu } } }] },
      },
    },
  };
}

describe('the local scheduler', () => {
  it('leaves a pod that does not fit Pending, in the scheduler words, and binds it once room is made', async () => {
    const workloads = new LocalWorkloads({
      nodeName: NODE,
      nodeLabels: { 'kubernetes.io/hostname': NODE },
      allocatable: { cpu: 2000, memory: 8 << 30, pods: 110 },
      clock: new FakeClock(),
    });
    workloads.start(() => {});
    const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
    const podOf = (app: string) => pods().find((p) => p.metadata.labels?.app === app)!;
    workloads.api.applyObjects('file', [deployment('first', '1500m'), deployment('second', '1')]);
    await flushMicrotasks();
    expect(podOf('first').spec.nodeName).toBe(NODE);
    const waiting = podOf('second');
    expect(waiting.spec.nodeName).toBeUndefined();
    expect(waiting.status?.conditions).toEqual([
      expect.objectContaining({
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message:
          '0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.',
      }),
    ]);
    // One pod only: the ReplicaSet counts the pending pod, so nothing is made again and again.
    expect(pods()).toHaveLength(2);

    const first = podOf('first');
    workloads.store.updateStatus('Pod', 'default', first.metadata.name!, { ...first.status, phase: 'Succeeded' });
    await flushMicrotasks();
    const bound = pods().find((p) => p.metadata.name === waiting.metadata.name)!;
    expect(bound.spec.nodeName).toBe(NODE);
    expect(bound.status?.conditions?.find((c) => c.type === 'PodScheduled')?.status).toBe('True');
    workloads.stop();
  });

  it('counts the static pods the node runs, and keeps a pod off a node whose pressure taint it does not tolerate until the taint goes', async () => {
    const staticPod = {
      metadata: { name: 'big-n1', namespace: 'default' },
      spec: { nodeName: NODE, containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '1500m' } } }] },
      status: { phase: 'Running' },
    } as Pod;
    let taints: Taint[] = [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }];
    const workloads = new LocalWorkloads({
      nodeName: NODE,
      nodeLabels: { 'kubernetes.io/hostname': NODE },
      allocatable: { cpu: 2000, memory: 8 << 30, pods: 110 },
      clock: new FakeClock(),
    });
    workloads.start(() => {}, { taints: () => taints, otherPods: () => [staticPod] });
    const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
    const podOf = (app: string) => pods().find((p) => p.metadata.labels?.app === app)!;
    workloads.api.applyObjects('file', [deployment('small', '100m'), deployment('large', '1')]);
    await flushMicrotasks();
    const scheduled = (app: string) => podOf(app).status?.conditions?.find((c) => c.type === 'PodScheduled');
    expect(scheduled('small')?.message).toBe(
      '0/1 nodes are available: 1 node(s) had untolerated taint(s). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.',
    );
    // The pressure ends: the small pod fits beside the static pod, the large one does not.
    taints = [];
    workloads.nodeChanged();
    await flushMicrotasks();
    expect(podOf('small').spec.nodeName).toBe(NODE);
    expect(podOf('large').spec.nodeName).toBeUndefined();
    expect(scheduled('large')?.message).toMatch(/^0\/1 nodes are available: 1 Insufficient cpu\./);
    workloads.stop();
  });
});
