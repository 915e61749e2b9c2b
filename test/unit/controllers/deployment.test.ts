import { beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { LocalWorkloads, type ControllerEvent } from '../../../src/controllers/index.js';
import { rfc3339, type Pod } from '../../../src/engine/api/v1.js';
import type { Deployment, KubeObject, ReplicaSet } from '../../../src/engine/api/workloads.js';
import { webDeployment } from '../../helpers/workloads.js';

const NODE = 'n1';

function deployment(image: string, spec: Partial<Deployment['spec']> = {}): KubeObject {
  return webDeployment({ name: 'web', image }, spec);
}

describe('the local Deployment and ReplicaSet controllers', () => {
  let clock: FakeClock;
  let workloads: LocalWorkloads;
  let events: ControllerEvent[];
  let seed: number;

  beforeEach(() => {
    clock = new FakeClock();
    seed = 0;
    workloads = new LocalWorkloads({
      nodeName: NODE,
      nodeLabels: { 'kubernetes.io/hostname': NODE },
      clock,
      random: () => (seed++ * 0.37) % 1,
    });
    events = [];
    workloads.start((e) => events.push(e));
  });

  const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
  const sets = () => workloads.store.list<ReplicaSet>('ReplicaSet');
  const get = () => workloads.store.get<Deployment>('Deployment', 'default', 'web')!;
  const messages = () => events.map((e) => `${e.object.kind}/${e.reason}: ${e.message.replace(/-[a-z0-9]{5}$/, '-xxxxx')}`);

  /** What the kubelet would report: every pod bound here Running and Ready (since NOW). */
  async function kubeletRunsEverything(): Promise<void> {
    for (const pod of pods()) {
      if (pod.metadata.deletionTimestamp) {
        workloads.store.delete('Pod', 'default', pod.metadata.name!, { gracePeriodSeconds: 0 });
        continue;
      }
      if (pod.status?.phase === 'Running') continue;
      const at = rfc3339(clock.now());
      workloads.store.updateStatus('Pod', 'default', pod.metadata.name!, {
        ...pod.status,
        phase: 'Running',
        conditions: [...(pod.status?.conditions ?? []), { type: 'Ready', status: 'True', lastTransitionTime: at }],
      });
    }
    await flushMicrotasks();
  }

  it('makes a ReplicaSet <name>-<hash> and its pods <rs>-<5 random>, labelled and owned, bound to the node', async () => {
    workloads.api.applyObjects('file', [deployment('busybox:1')]);
    await flushMicrotasks();
    const [rs] = sets();
    const hash = rs.metadata.labels!['pod-template-hash'];
    expect(rs.metadata.name).toBe(`web-${hash}`);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(rs.metadata.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
    expect(rs.metadata.ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: get().metadata.uid, controller: true, blockOwnerDeletion: true },
    ]);
    expect(pods()).toHaveLength(2);
    for (const pod of pods()) {
      expect(pod.metadata.name).toMatch(new RegExp(`^web-${hash}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      expect(pod.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
      expect(pod.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', name: rs.metadata.name, controller: true });
      expect(pod.spec.nodeName).toBe(NODE);
      expect(pod.spec.restartPolicy).toBe('Always');
    }
    expect(get().status).toMatchObject({ replicas: 2, updatedReplicas: 2, unavailableReplicas: 2 });
    // Counts of 0 are left out, as the Go types' omitempty leaves them out.
    expect(get().status).not.toHaveProperty('availableReplicas');
    expect(get().status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['Available', 'False', 'MinimumReplicasUnavailable'],
      ['Progressing', 'True', 'ReplicaSetUpdated'],
    ]);
    await kubeletRunsEverything();
    expect(get().status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(get().status).not.toHaveProperty('unavailableReplicas');
    expect(get().status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "${sets()[0].metadata.name}" has successfully progressed.`],
    ]);
  });

  it('rolls a new template out one surge pod at a time, and keeps the old ReplicaSet at 0 as history', async () => {
    workloads.api.applyObjects('file', [deployment('busybox:1')]);
    await flushMicrotasks();
    await kubeletRunsEverything();
    const [first] = sets();
    events.length = 0;
    workloads.api.applyObjects('file', [deployment('busybox:2')]);
    await flushMicrotasks();
    const second = sets().find((rs) => rs.metadata.uid !== first.metadata.uid)!;
    for (let i = 0; i < 4; i++) await kubeletRunsEverything();
    expect(messages()).toEqual([
      `Deployment/ScalingReplicaSet: Scaled up replica set ${second.metadata.name} from 0 to 1`,
      `ReplicaSet/SuccessfulCreate: Created pod: ${second.metadata.name}-xxxxx`,
      `Deployment/ScalingReplicaSet: Scaled down replica set ${first.metadata.name} from 2 to 1`,
      `Deployment/ScalingReplicaSet: Scaled up replica set ${second.metadata.name} from 1 to 2`,
      `ReplicaSet/SuccessfulDelete: Deleted pod: ${first.metadata.name}-xxxxx`,
      `ReplicaSet/SuccessfulCreate: Created pod: ${second.metadata.name}-xxxxx`,
      `Deployment/ScalingReplicaSet: Scaled down replica set ${first.metadata.name} from 1 to 0`,
      `ReplicaSet/SuccessfulDelete: Deleted pod: ${first.metadata.name}-xxxxx`,
    ]);
    expect(
      sets().map((rs) => [rs.metadata.name, rs.spec.replicas, rs.metadata.annotations?.['deployment.kubernetes.io/revision']]),
    ).toEqual(
      expect.arrayContaining([
        [first.metadata.name, 0, '1'],
        [second.metadata.name, 2, '2'],
      ]),
    );
    expect(get().metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(get().metadata.generation).toBe(2);
    expect(get().status).toMatchObject({ observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 });
  });

  it('Recreate stops every old pod before the new ReplicaSet has any', async () => {
    const recreate = { strategy: { type: 'Recreate' as const } };
    workloads.api.applyObjects('file', [deployment('busybox:1', recreate)]);
    await flushMicrotasks();
    await kubeletRunsEverything();
    workloads.api.applyObjects('file', [deployment('busybox:2', recreate)]);
    await flushMicrotasks();
    expect(sets()).toHaveLength(1);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
    await kubeletRunsEverything();
    expect(sets()).toHaveLength(2);
    expect(pods()).toHaveLength(2);
    expect(new Set(pods().map((p) => p.metadata.labels!['pod-template-hash'])).size).toBe(1);
  });

  it('marks the rollout ProgressDeadlineExceeded when its pods never become ready', async () => {
    workloads.api.applyObjects('file', [deployment('busybox:1', { progressDeadlineSeconds: 30 })]);
    await flushMicrotasks();
    await clock.advance(31_000);
    await flushMicrotasks();
    const progressing = get().status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
    expect(progressing?.message).toBe(`ReplicaSet "${sets()[0].metadata.name}" has timed out progressing.`);
  });

  it('scales down the extra pods, not ready and newest first, counts them terminating, and deletes everything when the manifest goes', async () => {
    workloads.api.applyObjects('file', [deployment('busybox:1', { replicas: 3 })]);
    await flushMicrotasks();
    await kubeletRunsEverything();
    workloads.api.applyObjects('file', [deployment('busybox:1', { replicas: 1 })]);
    await flushMicrotasks();
    expect(pods().filter((p) => !p.metadata.deletionTimestamp)).toHaveLength(1);
    // The two being deleted are terminatingReplicas of their ReplicaSet and its Deployment, until they are gone.
    expect(sets()[0].status).toMatchObject({ replicas: 1, terminatingReplicas: 2 });
    expect(get().status).toMatchObject({ replicas: 1, terminatingReplicas: 2 });
    await kubeletRunsEverything();
    expect(sets()[0].status).toMatchObject({ replicas: 1, terminatingReplicas: 0 });
    expect(get().status).toMatchObject({ replicas: 1, terminatingReplicas: 0 });
    workloads.api.applyObjects('file', []);
    await flushMicrotasks();
    expect(workloads.store.list('Deployment')).toEqual([]);
    expect(sets()).toEqual([]);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
  });
});
