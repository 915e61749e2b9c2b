import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { LocalWorkloads, rolloutState, type ControllerEvent } from '../../../src/controllers/index.js';
import { rfc3339, type Pod } from '../../../src/engine/api/v1.js';
import type { DaemonSet, KubeObject } from '../../../src/engine/api/workloads.js';
import { fitsNodeAffinity, untoleratedTaints } from '../../../src/controllers/node-fit.js';

const NODE = 'n1';

function daemonSet(podSpec: Record<string, unknown> = {}, image = 'busybox:1', strategy?: DaemonSet['spec']['updateStrategy']): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: {
      selector: { matchLabels: { app: 'agent' } },
      template: { metadata: { labels: { app: 'agent' } }, spec: { containers: [{ name: 'agent', image }], ...podSpec } },
      ...(strategy ? { updateStrategy: strategy } : {}),
    },
  };
}

describe('the local DaemonSet controller', () => {
  let clock: FakeClock;
  let workloads: LocalWorkloads;
  let events: ControllerEvent[];

  beforeEach(() => {
    clock = new FakeClock();
    let seed = 0;
    workloads = new LocalWorkloads({
      nodeName: NODE,
      nodeLabels: { 'kubernetes.io/hostname': NODE, 'kubernetes.io/os': 'linux' },
      clock,
      random: () => (seed++ * 0.37) % 1,
    });
    events = [];
    workloads.start((e) => events.push(e));
  });

  const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
  const get = () => workloads.store.get<DaemonSet>('DaemonSet', 'default', 'agent')!;
  const messages = () => events.map((e) => `${e.reason}: ${e.message.replace(/agent-[a-z0-9]{5}$/, 'agent-xxxxx')}`);

  async function kubeletRound(): Promise<void> {
    await flushMicrotasks();
    // Only the pods bound to this node reach its kubelet.
    for (const pod of pods().filter((p) => p.spec.nodeName === NODE)) {
      if (pod.metadata.deletionTimestamp) workloads.store.delete('Pod', 'default', pod.metadata.name!, { gracePeriodSeconds: 0 });
      else if (pod.status?.phase !== 'Running')
        workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, {
          ...pod.status,
          phase: 'Running',
          conditions: [...(pod.status?.conditions ?? []), { type: 'Ready', status: 'True', lastTransitionTime: rfc3339(clock.now()) }],
        });
    }
    await flushMicrotasks();
  }

  it('runs one pod on the node, with the daemon tolerations, the node name affinity and the revision labels', async () => {
    workloads.api.applyObjects('file', [daemonSet({ nodeSelector: { 'kubernetes.io/os': 'linux' } })]);
    await flushMicrotasks();
    expect(pods()).toHaveLength(1);
    const [pod] = pods();
    const hash = pod.metadata.labels!['controller-revision-hash'];
    expect(pod.metadata.name).toMatch(/^agent-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(pod.metadata.labels).toEqual({ app: 'agent', 'controller-revision-hash': hash, 'pod-template-generation': '1' });
    expect(pod.spec.nodeName).toBe(NODE);
    expect(pod.spec.tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' },
      { key: 'node.kubernetes.io/disk-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/memory-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/pid-pressure', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' },
    ]);
    expect((pod.spec as unknown as { affinity: unknown }).affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: [NODE] }] }],
        },
      },
    });
    expect(get().spec.updateStrategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    expect(rolloutState(get()).message).toBe('Waiting for daemon set "agent" rollout to finish: 0 of 1 updated pods are available...');
    await kubeletRound();
    expect(rolloutState(get())).toEqual({ state: 'ready', message: 'daemon set "agent" successfully rolled out' });
    expect(get().status).toEqual({
      currentNumberScheduled: 1,
      numberMisscheduled: 0,
      desiredNumberScheduled: 1,
      numberReady: 1,
      observedGeneration: 1,
      updatedNumberScheduled: 1,
      numberAvailable: 1,
    });
    expect(messages()).toEqual(['SuccessfulCreate: Created pod: agent-xxxxx']);
  });

  it('runs nothing where the node selector does not match, and removes its pod when an edit stops matching', async () => {
    workloads.api.applyObjects('file', [daemonSet({ nodeSelector: { disk: 'ssd' } })]);
    await flushMicrotasks();
    expect(pods()).toEqual([]);
    expect(get().status).toMatchObject({ desiredNumberScheduled: 0, currentNumberScheduled: 0, numberMisscheduled: 0 });
    workloads.api.applyObjects('file', [daemonSet()]);
    await kubeletRound();
    expect(pods()).toHaveLength(1);
    workloads.api.applyObjects('file', [daemonSet({ nodeSelector: { disk: 'ssd' } })]);
    await flushMicrotasks();
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
    await kubeletRound();
    expect(pods()).toEqual([]);
  });

  it('rolls an update: the old pod goes first, the new one comes once it is gone', async () => {
    workloads.api.applyObjects('file', [daemonSet()]);
    await kubeletRound();
    const [old] = pods();
    events.length = 0;
    workloads.api.applyObjects('file', [daemonSet({}, 'busybox:2')]);
    await flushMicrotasks();
    expect(pods().map((p) => [p.metadata.uid, Boolean(p.metadata.deletionTimestamp)])).toEqual([[old.metadata.uid, true]]);
    await kubeletRound();
    expect(pods()).toHaveLength(1);
    const [fresh] = pods();
    expect(fresh.spec.containers[0].image).toBe('busybox:2');
    expect(fresh.metadata.labels!['pod-template-generation']).toBe('2');
    expect(fresh.metadata.labels!['controller-revision-hash']).not.toBe(old.metadata.labels!['controller-revision-hash']);
    expect(messages()).toEqual(['SuccessfulDelete: Deleted pod: agent-xxxxx', 'SuccessfulCreate: Created pod: agent-xxxxx']);
    await kubeletRound();
    expect(get().status).toMatchObject({ observedGeneration: 2, updatedNumberScheduled: 1, numberAvailable: 1 });
  });

  it('with maxSurge makes the new pod first and deletes the old one once the new is available', async () => {
    const surge = { type: 'RollingUpdate' as const, rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } };
    workloads.api.applyObjects('file', [daemonSet({}, 'busybox:1', surge)]);
    await kubeletRound();
    workloads.api.applyObjects('file', [daemonSet({}, 'busybox:2', surge)]);
    await flushMicrotasks();
    expect(
      pods()
        .map((p) => [p.spec.containers[0].image, Boolean(p.metadata.deletionTimestamp)])
        .sort(),
    ).toEqual([
      ['busybox:1', false],
      ['busybox:2', false],
    ]);
    await kubeletRound();
    expect(
      pods()
        .map((p) => [p.spec.containers[0].image, Boolean(p.metadata.deletionTimestamp)])
        .sort(),
    ).toEqual([
      ['busybox:1', true],
      ['busybox:2', false],
    ]);
  });

  it('replaces a failed pod, saying so', async () => {
    workloads.api.applyObjects('file', [daemonSet()]);
    await flushMicrotasks();
    const [pod] = pods();
    workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, { ...pod.status, phase: 'Failed' });
    await flushMicrotasks();
    expect(pods().map((p) => p.metadata.uid)).not.toContain(pod.metadata.uid);
    expect(pods()).toHaveLength(1);
    expect(messages()).toContain(
      `FailedDaemonPod: Found failed daemon pod default/${pod.metadata.name} on node ${NODE}, will try to kill it`,
    );
  });
});

describe('node fit', () => {
  const node = {
    name: NODE,
    labels: { zone: 'a', cores: '8' },
    taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' as const }],
  };
  const required = (terms: unknown[]) => ({
    containers: [],
    affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } },
  });

  it.each([
    ['no affinity', { containers: [] }, true],
    ['a selector that matches', { containers: [], nodeSelector: { zone: 'a' } }, true],
    ['a selector that does not', { containers: [], nodeSelector: { zone: 'b' } }, false],
    ['In on a label', required([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }]), true],
    ['Gt on a label', required([{ matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['16'] }] }]), false],
    [
      'one of two terms',
      required([
        { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['other'] }] },
        { matchExpressions: [{ key: 'zone', operator: 'Exists' }] },
      ]),
      true,
    ],
    ['another node by name', required([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['other'] }] }]), false],
  ])('%s', (_what, spec, fits) => {
    expect(fitsNodeAffinity(spec as never, node)).toBe(fits);
  });

  it('leaves a NoSchedule taint untolerated unless a toleration matches it', () => {
    expect(untoleratedTaints([], node)).toEqual(node.taints);
    expect(untoleratedTaints([{ key: 'dedicated', operator: 'Equal', value: 'db', effect: 'NoSchedule' }], node)).toEqual([]);
    expect(untoleratedTaints([{ operator: 'Exists' }], node)).toEqual([]);
  });
});
