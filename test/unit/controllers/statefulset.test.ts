import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { LocalWorkloads, rolloutState, type ControllerEvent } from '../../../src/controllers/index.js';
import { rfc3339, type Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject, PersistentVolumeClaim, StatefulSet } from '../../../src/engine/api/workloads.js';

const NODE = 'n1';

function statefulSet(spec: Partial<StatefulSet['spec']> = {}, image = 'busybox:1'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'web' },
    spec: {
      replicas: 3,
      serviceName: 'nginx',
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image, volumeMounts: [{ name: 'www', mountPath: '/data' }] }] },
      },
      volumeClaimTemplates: [
        { metadata: { name: 'www' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
      ],
      ...spec,
    },
  };
}

describe('the local StatefulSet controller', () => {
  let clock: FakeClock;
  let workloads: LocalWorkloads;
  let events: ControllerEvent[];
  let claimsDir: string;

  beforeEach(() => {
    clock = new FakeClock();
    claimsDir = mkdtempSync(join(tmpdir(), 'knode-claims-'));
    workloads = new LocalWorkloads({ nodeName: NODE, nodeLabels: { 'kubernetes.io/hostname': NODE }, clock, claimsDir });
    events = [];
    workloads.start((e) => events.push(e));
  });

  afterEach(() => {
    workloads.stop();
    rmSync(claimsDir, { recursive: true, force: true });
  });

  const pods = () => workloads.store.list<KubeObject>('Pod') as unknown as Pod[];
  const names = () => pods().map((p) => `${p.metadata.name}${p.metadata.deletionTimestamp ? ' (deleting)' : ''}`);
  const get = () => workloads.store.get<StatefulSet>('StatefulSet', 'default', 'web')!;
  const claims = () => workloads.store.list<PersistentVolumeClaim>('PersistentVolumeClaim');
  const messages = () => events.map((e) => `${e.reason}: ${e.message}`);

  /** The kubelet's part, one round: pods being deleted go, the others run and are Ready. */
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

  it('OrderedReady makes web-0, then web-1 once web-0 is Running and Ready, each with its identity and claim', async () => {
    workloads.api.applyObjects('file', [statefulSet()]);
    await flushMicrotasks();
    expect(names()).toEqual(['web-0']);
    expect(rolloutState(get())).toEqual({ state: 'waiting', message: 'Waiting for 3 pods to be ready...' });
    await kubeletRound();
    expect(names()).toEqual(['web-0', 'web-1']);
    await kubeletRound();
    await kubeletRound();
    expect(names()).toEqual(['web-0', 'web-1', 'web-2']);
    const web1 = pods()[1];
    const revision = get().status!.updateRevision!;
    expect(revision).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(web1.metadata.labels).toEqual({
      app: 'web',
      'statefulset.kubernetes.io/pod-name': 'web-1',
      'apps.kubernetes.io/pod-index': '1',
      'controller-revision-hash': revision,
    });
    expect(web1.spec).toMatchObject({ hostname: 'web-1', subdomain: 'nginx', nodeName: NODE });
    expect(web1.spec.volumes).toEqual([{ name: 'www', persistentVolumeClaim: { claimName: 'www-web-1', readOnly: false } }]);
    expect(claims().map((c) => [c.metadata.name, c.metadata.labels, c.status])).toEqual(
      ['www-web-0', 'www-web-1', 'www-web-2'].map((name) => [
        name,
        { app: 'web' },
        { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } },
      ]),
    );
    expect(messages().slice(0, 3)).toEqual([
      'SuccessfulCreate: Create Claim www-web-0 Pod web-0 in StatefulSet web success',
      'SuccessfulCreate: Create Pod web-0 in StatefulSet web successful',
      'SuccessfulCreate: Create Claim www-web-1 Pod web-1 in StatefulSet web success',
    ]);
    expect(get().status).toEqual({
      observedGeneration: 1,
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      currentRevision: revision,
      updateRevision: revision,
      collisionCount: 0,
    });
    expect(workloads.store.list('ControllerRevision').map((r) => r.metadata.name)).toEqual([revision]);
    expect(rolloutState(get())).toEqual({ state: 'ready', message: 'partitioned roll out complete: 3 new pods have been updated...' });
  });

  it('scales down from the highest ordinal, one at a time, and keeps the claims', async () => {
    workloads.api.applyObjects('file', [statefulSet()]);
    for (let i = 0; i < 4; i++) await kubeletRound();
    workloads.api.applyObjects('file', [statefulSet({ replicas: 1 })]);
    await flushMicrotasks();
    expect(names()).toEqual(['web-0', 'web-1', 'web-2 (deleting)']);
    await kubeletRound();
    expect(names()).toEqual(['web-0', 'web-1 (deleting)']);
    await kubeletRound();
    expect(names()).toEqual(['web-0']);
    expect(claims().map((c) => c.metadata.name)).toEqual(['www-web-0', 'www-web-1', 'www-web-2']);
    expect(get().status).toMatchObject({ replicas: 1, readyReplicas: 1 });
  });

  it('with whenScaled Delete, a scaled-down pod takes its claim with it, and the claim its directory', async () => {
    const policy = { persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain' as const, whenScaled: 'Delete' as const } };
    workloads.api.applyObjects('file', [statefulSet({ ...policy, replicas: 2 })]);
    for (let i = 0; i < 3; i++) await kubeletRound();
    expect(existsSync(join(claimsDir, 'default', 'www-web-1'))).toBe(true);
    workloads.api.applyObjects('file', [statefulSet({ ...policy, replicas: 1 })]);
    await flushMicrotasks();
    expect(claims().map((c) => c.metadata.name)).toEqual(['www-web-0', 'www-web-1']);
    await kubeletRound();
    expect(names()).toEqual(['web-0']);
    expect(claims().map((c) => c.metadata.name)).toEqual(['www-web-0']);
    expect(existsSync(join(claimsDir, 'default', 'www-web-1'))).toBe(false);
  });

  it('removes at start the directory of a claim deleted before a restart, and no other', async () => {
    mkdirSync(join(claimsDir, 'default', 'gone'), { recursive: true });
    writeFileSync(join(claimsDir, 'default', '.gone.released'), '');
    mkdirSync(join(claimsDir, 'default', 'unknown'), { recursive: true });
    const again = new LocalWorkloads({ nodeName: NODE, nodeLabels: {}, clock, claimsDir });
    again.start(() => {});
    expect(readdirSync(join(claimsDir, 'default'))).toEqual(['unknown']);
    again.stop();
  });

  it('leaves a pod whose required node affinity names another node Unschedulable, and OrderedReady waits on it', async () => {
    const set = statefulSet();
    const template = (set.spec as StatefulSet['spec']).template;
    Object.assign(template.spec, {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['elsewhere'] }] }],
          },
        },
      },
    });
    workloads.api.applyObjects('file', [set]);
    await kubeletRound();
    await kubeletRound();
    expect(names()).toEqual(['web-0']);
    expect(pods()[0].spec.nodeName).toBeUndefined();
    expect(pods()[0].status?.conditions?.[0]).toMatchObject({ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' });
  });

  it('Parallel makes every pod at once', async () => {
    workloads.api.applyObjects('file', [statefulSet({ podManagementPolicy: 'Parallel' })]);
    await flushMicrotasks();
    expect(names()).toEqual(['web-0', 'web-1', 'web-2']);
    workloads.api.applyObjects('file', [statefulSet({ podManagementPolicy: 'Parallel', replicas: 0 })]);
    await flushMicrotasks();
    expect(names()).toEqual(['web-0 (deleting)', 'web-1 (deleting)', 'web-2 (deleting)']);
  });

  it('rolls an update from the highest ordinal down to the partition, then below it when the partition drops', async () => {
    const partitioned = (partition: number, image: string) =>
      statefulSet({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition } } }, image);
    workloads.api.applyObjects('file', [partitioned(1, 'busybox:1')]);
    for (let i = 0; i < 4; i++) await kubeletRound();
    const first = get().status!.currentRevision!;
    workloads.api.applyObjects('file', [partitioned(1, 'busybox:2')]);
    await flushMicrotasks();
    const second = get().status!.updateRevision!;
    expect(second).not.toBe(first);
    expect(names()).toEqual(['web-0', 'web-1', 'web-2 (deleting)']);
    for (let i = 0; i < 6; i++) await kubeletRound();
    const revisionOf = () => pods().map((p) => [p.metadata.name, p.metadata.labels!['controller-revision-hash']]);
    expect(revisionOf()).toEqual([
      ['web-0', first],
      ['web-1', second],
      ['web-2', second],
    ]);
    expect(pods()[1].spec.containers[0].image).toBe('busybox:2');
    expect(get().status).toMatchObject({ currentRevision: first, updateRevision: second, currentReplicas: 1, updatedReplicas: 2 });
    workloads.api.applyObjects('file', [partitioned(0, 'busybox:2')]);
    for (let i = 0; i < 3; i++) await kubeletRound();
    expect(revisionOf().every(([, r]) => r === second)).toBe(true);
    expect(get().status).toMatchObject({ currentRevision: second, updateRevision: second, currentReplicas: 3, updatedReplicas: 3 });
    expect(messages().filter((m) => m.startsWith('SuccessfulDelete'))).toEqual([
      'SuccessfulDelete: Delete Pod web-2 in StatefulSet web successful',
      'SuccessfulDelete: Delete Pod web-1 in StatefulSet web successful',
      'SuccessfulDelete: Delete Pod web-0 in StatefulSet web successful',
    ]);
  });

  it("keeps a claim's directory while a pod uses it, and removes it once the claim and its pods are gone", async () => {
    const claim: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'shared' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'user', namespace: 'default' },
      spec: {
        nodeName: NODE,
        containers: [{ name: 'c', image: 'busybox' }],
        volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'shared' } }],
      },
    } as KubeObject;
    workloads.api.applyObjects('file', [claim]);
    await flushMicrotasks();
    const dir = await workloads.api.claimPath('default', 'shared');
    expect(dir).toBe(join(claimsDir, 'default', 'shared'));
    expect(workloads.store.get<PersistentVolumeClaim>('PersistentVolumeClaim', 'default', 'shared')!.spec.volumeMode).toBe('Filesystem');
    workloads.store.create(pod);
    workloads.api.applyObjects('file', []);
    await flushMicrotasks();
    expect(existsSync(dir)).toBe(true);
    expect(existsSync(join(claimsDir, 'default', '.shared.released'))).toBe(true);
    await expect(workloads.api.claimPath('default', 'shared')).rejects.toThrow('persistentvolumeclaims "shared" not found');
    workloads.store.delete('Pod', 'default', 'user', { gracePeriodSeconds: 0 });
    await flushMicrotasks();
    expect(readdirSync(join(claimsDir, 'default'))).toEqual([]);
  });
});
