import { describe, expect, it } from 'vitest';
import { ConfigHashAnnotation, ConfigMirrorAnnotation, ConfigSourceAnnotation } from '../../../../src/engine/api/pod-util.js';
import type { Pod, PodStatus } from '../../../../src/engine/api/v1.js';
import { ClusterError } from '../../../../src/engine/cluster/client.js';
import { MirrorPods, mirrorPodOf } from '../../../../src/engine/cluster/mirror-pods.js';
import { mergePodStatus, sameStatus, StatusSync, withDeletions } from '../../../../src/engine/cluster/status-sync.js';
import { EventStream } from '../../../../src/engine/events.js';
import { BasicPodManager } from '../../../../src/engine/pod-manager.js';
import { BasicStatusManager } from '../../../../src/engine/status/status-manager.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

const running: PodStatus = {
  phase: 'Running',
  conditions: [
    { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' },
    { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' },
  ],
  containerStatuses: [
    {
      name: 'c',
      ready: true,
      restartCount: 0,
      image: 'busybox:1.36',
      imageID: '',
      state: { running: { startedAt: '2026-01-01T00:00:04Z' } },
    },
  ],
};

function apiPod(name: string, extra: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name, namespace: 'default', annotations: { [ConfigSourceAnnotation]: 'api' }, ...extra },
    spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox:1.36' }] },
  };
}

function staticPod(name: string, hash: string): Pod {
  return {
    metadata: {
      name,
      namespace: 'default',
      uid: `static-${hash}`,
      annotations: { [ConfigSourceAnnotation]: 'file', [ConfigHashAnnotation]: hash },
    },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] },
  };
}

function setup() {
  const cluster = new FakeCluster();
  const clock = new FakeClock();
  const events = new EventStream(() => clock.now());
  const podManager = new BasicPodManager();
  const statusManager = new BasicStatusManager(events);
  const warnings: string[] = [];
  const terminated = new Set<string>();
  const sync = new StatusSync({
    client: cluster,
    podManager,
    statusManager,
    events,
    clock,
    isTerminated: (uid) => terminated.has(uid),
    warn: (m) => warnings.push(m),
  });
  sync.start();
  /** A pod the apiserver has and the source delivered (as the watch would). */
  const bound = (pod: Pod) => {
    const stored = cluster.putPod(pod);
    podManager.addPod(stored);
    return stored;
  };
  const mirrors = new MirrorPods({ client: cluster, podManager, nodeName: 'n1', nodeUid: () => 'node-uid', warn: (m) => warnings.push(m) });
  return { cluster, clock, events, podManager, statusManager, sync, warnings, terminated, bound, mirrors };
}

describe('mergePodStatus', () => {
  it("keeps conditions the kubelet does not own, and their order after the kubelet's", () => {
    const old: PodStatus = {
      phase: 'Pending',
      conditions: [
        { type: 'DisruptionTarget', status: 'True' },
        { type: 'Ready', status: 'False' },
      ],
    };
    expect(mergePodStatus(old, running)?.conditions?.map((c) => c.type)).toEqual(['Ready', 'PodScheduled', 'DisruptionTarget']);
  });

  it("keeps the apiserver's transition time for a condition whose status did not change", () => {
    const old: PodStatus = {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2025-12-31T00:00:00Z' }],
    };
    expect(mergePodStatus(old, running)?.conditions?.[0].lastTransitionTime).toBe('2025-12-31T00:00:00Z');
  });

  it.each([
    ['Succeeded', 'Running', false],
    ['Failed', 'Pending', false],
    ['Succeeded', 'Failed', true],
    ['Running', 'Succeeded', true],
  ] as const)('from %s to %s is written: %s', (from, to, written) => {
    expect(mergePodStatus({ phase: from }, { phase: to }) !== undefined).toBe(written);
  });
});

describe('sameStatus', () => {
  it('takes conditions in any order, and a null or absent field alike', () => {
    const reordered: PodStatus = { ...running, conditions: [...running.conditions!].reverse() };
    expect(sameStatus(running, reordered)).toBe(true);
    const probe = { type: 'Ready', status: 'True', lastProbeTime: null } as unknown as NonNullable<PodStatus['conditions']>[number];
    expect(
      sameStatus({ phase: 'Running', conditions: [probe] }, { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] }),
    ).toBe(true);
    expect(sameStatus({ phase: 'Running', hostIP: undefined }, { phase: 'Running' })).toBe(true);
  });

  it('tells a change anywhere in the status', () => {
    const restarted = structuredClone(running);
    restarted.containerStatuses![0].restartCount = 1;
    expect(sameStatus(running, restarted)).toBe(false);
    expect(sameStatus(running, { ...running, containerStatuses: [] })).toBe(false);
    expect(sameStatus(running, { ...running, message: 'm' })).toBe(false);
    expect(sameStatus({ ...running, message: 'm' }, running)).toBe(false);
    const notReady = structuredClone(running);
    notReady.conditions![0].status = 'False';
    expect(sameStatus(running, notReady)).toBe(false);
  });
});

describe('the status sync', () => {
  it('patches the status subresource of an apiserver pod when its status changes, with its UID, once', async () => {
    const { cluster, podManager, statusManager, sync, bound } = setup();
    const pod = bound(apiPod('web'));
    statusManager.setPodStatus(pod, running);
    await sync.idle();
    expect(cluster.calls.filter((c) => c.startsWith('patchPodStatus'))).toEqual(['patchPodStatus default/web']);
    expect(cluster.pods.get('default/web')?.status?.phase).toBe('Running');
    // The watch brings the patched pod back (a RECONCILE): nothing to write again.
    podManager.updatePod(cluster.pods.get('default/web')!);
    statusManager.setPodStatus(pod, { ...running });
    await sync.idle();
    expect(cluster.calls.filter((c) => c.startsWith('patchPodStatus'))).toHaveLength(1);
  });

  it('writes four pods at a time, and one pod never twice at once, its patches in order', async () => {
    const { cluster, statusManager, sync, bound } = setup();
    const patch = cluster.patchPodStatus.bind(cluster);
    const inFlight: { name: string; phase?: string; release: () => void }[] = [];
    const started: string[] = [];
    cluster.patchPodStatus = async (namespace, name, body) => {
      started.push(name);
      await new Promise<void>((release) => inFlight.push({ name, phase: (body as { status: PodStatus }).status.phase, release }));
      await patch(namespace, name, body);
    };
    const pods = [1, 2, 3, 4, 5, 6].map((i) => bound(apiPod(`p${i}`)));
    for (const pod of pods) statusManager.setPodStatus(pod, { ...running, phase: 'Pending' });
    await flushMicrotasks();
    expect(inFlight.map((p) => p.name)).toEqual(['p1', 'p2', 'p3', 'p4']);
    // p1 changes again while its first patch is out: that one goes after p5 and p6, never beside its first.
    statusManager.setPodStatus(pods[0], running);
    inFlight.shift()!.release();
    await flushMicrotasks();
    expect(inFlight.map((p) => p.name)).toEqual(['p2', 'p3', 'p4', 'p5']);
    while (inFlight.length > 0) {
      inFlight.shift()!.release();
      await flushMicrotasks();
      expect(new Set(inFlight.map((p) => p.name)).size).toBe(inFlight.length);
      expect(inFlight.length).toBeLessThanOrEqual(4);
    }
    await sync.idle();
    expect(started).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p1']);
    expect(cluster.pods.get('default/p1')?.status?.phase).toBe('Running');
    expect(pods.slice(1).map((p) => cluster.pods.get(`default/${p.metadata.name}`)?.status?.phase)).toEqual(Array(5).fill('Pending'));
  });

  it("writes a static pod's status to its mirror pod, and nothing while there is none", async () => {
    const { cluster, podManager, statusManager, sync, mirrors } = setup();
    const pod = staticPod('etcd-n1', 'h1');
    podManager.addPod(pod);
    statusManager.setPodStatus(pod, running);
    await sync.idle();
    expect(cluster.calls.filter((c) => c.startsWith('patchPodStatus'))).toEqual([]);
    await mirrors.reconcile(pod);
    podManager.addPod(cluster.pods.get('default/etcd-n1')!);
    statusManager.setPodStatus(pod, { ...running, phase: 'Running', podIP: '10.0.0.9' });
    await sync.idle();
    expect(cluster.pods.get('default/etcd-n1')?.status?.podIP).toBe('10.0.0.9');
  });

  it('deletes a reason the last patch wrote even when the watch has not brought that patch back yet', async () => {
    const { cluster, statusManager, sync, bound } = setup();
    // The node's copy of the pod keeps the status it had before either patch (a mirror pod's copy often does).
    const pod = bound(apiPod('slow-echo'));
    const notReady = {
      type: 'Ready',
      status: 'False' as const,
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [c]',
    };
    statusManager.setPodStatus(pod, { ...running, conditions: [notReady] });
    await sync.idle();
    expect(cluster.pods.get('default/slow-echo')?.status?.conditions?.[0]).toMatchObject({ reason: 'ContainersNotReady' });
    statusManager.setPodStatus(pod, running);
    await sync.idle();
    // The fake keeps the patch as sent: a strategic merge patch must null what the apiserver would otherwise keep.
    const ready = cluster.pods.get('default/slow-echo')?.status?.conditions?.find((c) => c.type === 'Ready');
    expect(ready).toMatchObject({ status: 'True', reason: null, message: null });
  });

  it('deletes a pod being deleted once its worker has stopped every container, with grace 0 and its UID', async () => {
    const { cluster, statusManager, sync, bound, terminated, events } = setup();
    const pod = bound(apiPod('leaving', { deletionTimestamp: '2026-01-01T00:01:00Z', deletionGracePeriodSeconds: 30 }));
    statusManager.setPodStatus(pod, running);
    await sync.idle();
    expect(cluster.pods.has('default/leaving')).toBe(true);
    terminated.add(pod.metadata.uid!);
    events.emit({ type: 'PodTerminated', pod: 'default/leaving', uid: pod.metadata.uid! });
    await sync.idle();
    expect(cluster.calls.filter((c) => c.startsWith('deletePod'))).toEqual([`deletePod default/leaving ${pod.metadata.uid} 0`]);
    expect(cluster.pods.has('default/leaving')).toBe(false);
  });

  it('retries a failed patch at the next batch sync, 10 s later', async () => {
    const { cluster, clock, statusManager, sync, bound, warnings } = setup();
    const pod = bound(apiPod('flaky'));
    cluster.failNext('patchPodStatus', new ClusterError(500, 'InternalError', 'etcd leader changed'));
    statusManager.setPodStatus(pod, running);
    await sync.idle();
    expect(warnings[0]).toMatch(/etcd leader changed/);
    expect(cluster.pods.get('default/flaky')?.status).toBeUndefined();
    await clock.advance(10_000);
    await sync.idle();
    expect(cluster.pods.get('default/flaky')?.status?.phase).toBe('Running');
  });
});

describe('mirror pods', () => {
  it('are the static pod with the mirror annotation, bound to and owned by the node', () => {
    const mirror = mirrorPodOf(staticPod('etcd-n1', 'h1'), 'n1', 'node-uid');
    expect(mirror.metadata).toMatchObject({
      name: 'etcd-n1',
      annotations: { [ConfigMirrorAnnotation]: 'h1', [ConfigHashAnnotation]: 'h1', [ConfigSourceAnnotation]: 'file' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'node-uid', controller: true }],
    });
    expect(mirror.metadata.uid).toBeUndefined();
    expect(mirror.spec.nodeName).toBe('n1');
  });

  it('are replaced when the static pod changes, and deleted when it goes', async () => {
    const { cluster, podManager, mirrors } = setup();
    const v1 = staticPod('web-n1', 'h1');
    podManager.addPod(v1);
    await mirrors.reconcile(v1);
    podManager.addPod(cluster.pods.get('default/web-n1')!);
    await mirrors.reconcile(v1);
    expect(cluster.calls.filter((c) => c.startsWith('createPod'))).toHaveLength(1);

    const v2 = staticPod('web-n1', 'h2');
    podManager.removePod(v1);
    podManager.addPod(v2);
    await mirrors.reconcile(v2);
    expect(cluster.pods.get('default/web-n1')?.metadata.annotations?.[ConfigMirrorAnnotation]).toBe('h2');

    podManager.removePod(podManager.getMirrorPodByPod(v2)!);
    podManager.addPod(cluster.pods.get('default/web-n1')!);
    podManager.removePod(v2);
    await mirrors.deleteOrphans();
    expect(cluster.pods.has('default/web-n1')).toBe(false);
  });
});

describe('withDeletions', () => {
  it('deletes with null a reason or message the apiserver has and the new status lacks, and nothing else', () => {
    const old: PodStatus = {
      phase: 'Pending',
      reason: 'Unknown',
      conditions: [
        {
          type: 'Ready',
          status: 'False',
          reason: 'ContainersNotReady',
          message: 'containers with unready status: [app]',
          lastProbeTime: null,
        },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null },
      ],
    };
    const now: PodStatus = {
      phase: 'Running',
      conditions: [
        { type: 'Ready', status: 'True', lastProbeTime: null },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null },
        { type: 'Initialized', status: 'True', lastProbeTime: null },
      ],
    };
    expect(withDeletions(now, old)).toEqual({
      phase: 'Running',
      reason: null,
      conditions: [
        { type: 'Ready', status: 'True', lastProbeTime: null, reason: null, message: null },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null },
        { type: 'Initialized', status: 'True', lastProbeTime: null },
      ],
    });
  });
});
