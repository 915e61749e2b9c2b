// Deletion in the local store as the apiserver and the garbage collector do
// it: finalizers hold an object (with a deletionTimestamp) until the last
// is removed; a foreground delete keeps the owner, with foregroundDeletion,
// until the dependents that block it are gone; orphan leaves them ownerless;
// a dependent with another live owner only loses its reference to the deleted one.
// Through the real controllers, which must not replace what is going.
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalWorkloads } from '../../../src/controllers/index.js';
import type { StoreEvent } from '../../../src/controllers/store.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { startedWorkloads, webDeployment } from '../../helpers/workloads.js';

const deployment = webDeployment({ name: 'c', image: 'busybox' });

describe('deletion in the local store', () => {
  let workloads: LocalWorkloads;
  let deleted: string[];

  beforeEach(() => {
    workloads = startedWorkloads(new FakeClock());
    deleted = [];
    workloads.store.watch((e: StoreEvent) => {
      if (e.type === 'DELETED') deleted.push(e.object.kind);
    });
  });

  const store = () => workloads.store;
  const pods = () => store().list<KubeObject>('Pod') as unknown as Pod[];
  /** What the node does once a pod's containers stopped: delete it with grace 0. */
  const nodeLetsGo = (pod: Pod) => store().delete('Pod', 'default', pod.metadata.name!, { gracePeriodSeconds: 0 });

  it('keeps an object with a finalizer, marked, until an update removes the finalizer', () => {
    store().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', finalizers: ['example.com/keep'] } });
    store().delete('ConfigMap', 'default', 'c');
    const held = store().get('ConfigMap', 'default', 'c')!;
    expect(held.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      deletionGracePeriodSeconds: 0,
      finalizers: ['example.com/keep'],
    });
    store().delete('ConfigMap', 'default', 'c'); // again: nothing changes
    expect(store().get('ConfigMap', 'default', 'c')).toEqual(held);
    store().update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(store().get('ConfigMap', 'default', 'c')).toBeUndefined();
    expect(deleted).toEqual(['ConfigMap']);
  });

  it("keeps a pod with a finalizer after the node let it go, but not for the Job controller's tracking finalizer", () => {
    for (const [name, finalizer] of [
      ['held', 'example.com/keep'],
      ['tracked', 'batch.kubernetes.io/job-tracking'],
    ])
      store().create({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, finalizers: [finalizer] },
        spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'busybox' }] },
      });
    for (const pod of pods()) store().delete('Pod', 'default', pod.metadata.name!); // graceful: marked, 30 s
    expect(pods().map((p) => p.metadata.deletionGracePeriodSeconds)).toEqual([30, 30]);
    for (const pod of pods()) nodeLetsGo(pod);
    expect(pods().map((p) => [p.metadata.name, p.metadata.deletionGracePeriodSeconds])).toEqual([['held', 0]]);
    store().update({ ...pods()[0], metadata: { ...pods()[0].metadata, finalizers: undefined } } as unknown as KubeObject);
    expect(pods()).toEqual([]);
  });

  it('deletes a Deployment in the foreground: it and its ReplicaSet stay marked until the pods are gone, and nothing replaces them', async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    expect(pods()).toHaveLength(2);
    workloads.api.deleteObject('Deployment', 'default', 'web', 'Foreground');
    await flushMicrotasks();
    const d = store().get('Deployment', 'default', 'web')!;
    const [rs] = store().list('ReplicaSet');
    for (const owner of [d, rs])
      expect(owner.metadata).toMatchObject({ deletionTimestamp: expect.any(String), finalizers: ['foregroundDeletion'] });
    expect(pods().map((p) => p.metadata.deletionTimestamp !== undefined)).toEqual([true, true]);

    const [first, second] = pods();
    nodeLetsGo(first);
    await flushMicrotasks();
    expect(pods().map((p) => p.metadata.name)).toEqual([second.metadata.name]); // no replacement made
    expect(store().get('ReplicaSet', 'default', rs.metadata.name!)).toBeDefined();
    nodeLetsGo(second);
    await flushMicrotasks();
    expect(store().list('ReplicaSet')).toEqual([]);
    expect(store().list('Deployment')).toEqual([]);
    expect(deleted).toEqual(['Pod', 'Pod', 'ReplicaSet', 'Deployment']);
  });

  it('deletes a Deployment without a policy in the background (DeleteDependents): the owner at once, the pods marked to stop', async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    store().delete('Deployment', 'default', 'web');
    expect(deleted).toEqual(['Deployment', 'ReplicaSet']);
    expect(pods()).toHaveLength(2);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
  });

  it('deletes a ReplicaSet without a policy in the background too', async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    const [rs] = store().list('ReplicaSet');
    store().delete('ReplicaSet', 'default', rs.metadata.name!);
    expect(deleted).toEqual(['ReplicaSet']);
    expect(pods()).toHaveLength(2);
    expect(pods().every((p) => p.metadata.deletionTimestamp && p.metadata.ownerReferences?.[0].uid === rs.metadata.uid)).toBe(true);
  });

  /** Job NAME, two pods at once, with FINALIZERS; the pods the Job controller made for it. */
  async function applyJob(name: string, finalizers?: string[]): Promise<Pod[]> {
    const template = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };
    workloads.api.applyObjects(name, [
      { apiVersion: 'batch/v1', kind: 'Job', metadata: { name, finalizers }, spec: { parallelism: 2, completions: 2, template } },
    ]);
    await flushMicrotasks();
    const job = store().get<KubeObject>('Job', 'default', name)!;
    const owned = pods().filter((p) => p.metadata.ownerReferences?.some((r) => r.uid === job.metadata.uid));
    expect(owned).toHaveLength(2);
    return owned;
  }
  const podNames = (list: Pod[]) => list.map((p) => p.metadata.name).sort();

  it('orphans the pods of a Job deleted without a policy (batch/v1 OrphanDependents): they stay and run, without their reference', async () => {
    const owned = await applyJob('pi');
    store().delete('Job', 'default', 'pi');
    await flushMicrotasks();
    expect(store().get('Job', 'default', 'pi')).toBeUndefined();
    expect(deleted).toEqual(['Job']);
    expect(podNames(pods())).toEqual(podNames(owned));
    for (const pod of pods()) {
      expect(pod.metadata.ownerReferences).toBeUndefined();
      expect(pod.metadata.deletionTimestamp).toBeUndefined();
    }
  });

  it('deletes the pods of a Job deleted in the background', async () => {
    await applyJob('pi');
    store().delete('Job', 'default', 'pi', { propagationPolicy: 'Background' });
    await flushMicrotasks();
    expect(deleted).toEqual(['Job']);
    expect(pods()).toHaveLength(2);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
    for (const pod of pods()) nodeLetsGo(pod);
    expect(pods()).toEqual([]);
  });

  it('deletes, in the background, a Job its manifest source no longer holds, and its pods (kubectl apply --prune)', async () => {
    await applyJob('pi');
    workloads.api.applyObjects('pi', []);
    await flushMicrotasks();
    expect(deleted).toEqual(['Job']);
    expect(pods()).toHaveLength(2);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
  });

  it("lets a Job's own finalizer choose before its kind's default, and the delete's policy before both", async () => {
    // foregroundDeletion, no policy: the Job waits, marked, while its pods stop.
    await applyJob('fg', ['foregroundDeletion']);
    store().delete('Job', 'default', 'fg');
    expect(store().get('Job', 'default', 'fg')!.metadata).toMatchObject({
      deletionTimestamp: expect.any(String),
      finalizers: ['foregroundDeletion'],
    });
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
    for (const pod of pods()) nodeLetsGo(pod);
    expect(store().get('Job', 'default', 'fg')).toBeUndefined();
    expect(pods()).toEqual([]);
    // orphan, explicit Background: the policy wins, the finalizer is dropped and the pods go.
    await applyJob('or', ['orphan']);
    store().delete('Job', 'default', 'or', { propagationPolicy: 'Background' });
    expect(store().get('Job', 'default', 'or')).toBeUndefined();
    expect(pods()).toHaveLength(2);
    expect(pods().every((p) => p.metadata.deletionTimestamp)).toBe(true);
  });

  it('orphans: the ReplicaSet goes, its pods stay without their reference to it', async () => {
    workloads.api.applyObjects('file', [deployment]);
    await flushMicrotasks();
    const [rs] = store().list('ReplicaSet');
    workloads.api.deleteObject('Deployment', 'default', 'web', 'Orphan');
    await flushMicrotasks();
    expect(deleted).toEqual(['Deployment']);
    expect(store().get('ReplicaSet', 'default', rs.metadata.name!)!.metadata.ownerReferences).toBeUndefined();
    expect(pods().every((p) => p.metadata.ownerReferences?.[0].name === rs.metadata.name && !p.metadata.deletionTimestamp)).toBe(true);
  });

  /** ConfigMap NAME, owned by the objects OWNERS (their uids, or made-up ones for owners that are not there). */
  const ownedConfigMap = (name: string, ...owners: { name: string; uid: string }[]) =>
    store().create<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, ownerReferences: owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...o, blockOwnerDeletion: true })) },
    });
  const owner = (name: string) => {
    const o = store().create<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    return { name, uid: o.metadata.uid! };
  };
  const refsOf = (name: string) =>
    store()
      .get('ConfigMap', 'default', name)
      ?.metadata.ownerReferences?.map((r) => r.name);

  it('keeps, in the background, a dependent that has another live owner: only the reference to the deleted one goes', () => {
    const [a, b] = [owner('a'), owner('b')];
    ownedConfigMap('shared', a, b);
    ownedConfigMap('only-a', a);
    store().delete('ConfigMap', 'default', 'a');
    expect(refsOf('shared')).toEqual(['b']);
    expect(store().get('ConfigMap', 'default', 'only-a')).toBeUndefined();
    store().delete('ConfigMap', 'default', 'b');
    expect(store().list('ConfigMap')).toEqual([]);
    expect(deleted).toEqual(['ConfigMap', 'ConfigMap', 'ConfigMap', 'ConfigMap']);
  });

  it('keeps, in the foreground, a dependent that has another live owner, and the owner does not wait for it', () => {
    const [a, b] = [owner('a'), owner('b')];
    ownedConfigMap('shared', a, b);
    store().delete('ConfigMap', 'default', 'a', { propagationPolicy: 'Foreground' });
    expect(store().get('ConfigMap', 'default', 'a')).toBeUndefined();
    expect(refsOf('shared')).toEqual(['b']);
  });

  it('collects a dependent whose owners are not there, and drops the reference to one that is gone beside a live one', () => {
    const a = owner('a');
    ownedConfigMap('dangling', { name: 'gone', uid: 'no-such-uid' });
    expect(store().get('ConfigMap', 'default', 'dangling')).toBeUndefined();
    ownedConfigMap('half', a, { name: 'gone', uid: 'no-such-uid' });
    expect(refsOf('half')).toEqual(['a']);
    // Another object under the owner's name is not the owner.
    ownedConfigMap('renamed', { name: 'a', uid: 'the-old-a' });
    expect(store().get('ConfigMap', 'default', 'renamed')).toBeUndefined();
    // A reference added later to an owner that is gone is looked at too.
    const half = store().get('ConfigMap', 'default', 'half')!;
    store().update({ ...half, metadata: { ...half.metadata, ownerReferences: [{ ...half.metadata.ownerReferences![0], uid: 'x' }] } });
    expect(store().get('ConfigMap', 'default', 'half')).toBeUndefined();
    expect(deleted).toEqual(['ConfigMap', 'ConfigMap', 'ConfigMap']);
  });

  it('collects a manifest pod that names a ReplicaSet not there, once: the same manifest read again does not make it again', async () => {
    const pod: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'stray',
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'old', uid: 'u1', controller: true }],
      },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    };
    workloads.api.applyObjects('file', [pod]);
    await flushMicrotasks();
    expect(pods()).toEqual([]);
    workloads.api.applyObjects('file', [pod]);
    await flushMicrotasks();
    expect(deleted).toEqual(['Pod']);
  });

  it('unblocks the owner of a dependent whose own dependent is already deleting in the foreground, as the cycle guard does', () => {
    const a = owner('a');
    const x = ownedConfigMap('x', a);
    const y = ownedConfigMap('y', { name: 'x', uid: x.metadata.uid! });
    store().create<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'z',
        finalizers: ['example.com/keep'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'y', uid: y.metadata.uid!, blockOwnerDeletion: true }],
      },
    });
    store().delete('ConfigMap', 'default', 'y', { propagationPolicy: 'Foreground' });
    store().delete('ConfigMap', 'default', 'a', { propagationPolicy: 'Foreground' });
    // a does not wait for x, which waits for y, which waits for z's finalizer.
    expect(store().get('ConfigMap', 'default', 'a')).toBeUndefined();
    expect(store().get('ConfigMap', 'default', 'x')!.metadata).toMatchObject({
      finalizers: ['foregroundDeletion'],
      ownerReferences: [{ name: 'a', blockOwnerDeletion: false }],
    });
    const held = store().get<KubeObject>('ConfigMap', 'default', 'z')!;
    expect(held.metadata.deletionTimestamp).toBeDefined();
    store().update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(store().list('ConfigMap')).toEqual([]);
    expect(deleted).toEqual(['ConfigMap', 'ConfigMap', 'ConfigMap', 'ConfigMap']);
  });

  it('collects, on load, what a deletion left before knode stopped: dangling dependents, and owners waiting in the foreground', () => {
    const [a, b] = [owner('a'), owner('b')];
    ownedConfigMap('only-a', a);
    ownedConfigMap('both', a, b);
    ownedConfigMap('none');
    const waiting = owner('waiting');
    store().create<KubeObject>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'blocker',
        finalizers: ['example.com/keep'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', ...waiting, blockOwnerDeletion: true }],
      },
    });
    store().delete('ConfigMap', 'default', 'waiting', { propagationPolicy: 'Foreground' });
    expect(store().get('ConfigMap', 'default', 'waiting')!.metadata.finalizers).toEqual(['foregroundDeletion']);
    // Saved just after a and blocker went, before what they left was looked at (a node stopped), then loaded by a new store.
    const saved = store()
      .dump()
      .filter((o) => o.metadata.name !== 'a' && o.metadata.name !== 'blocker');
    workloads = startedWorkloads(new FakeClock());
    deleted = [];
    workloads.store.watch((e: StoreEvent) => {
      if (e.type === 'DELETED') deleted.push(e.object.metadata.name!);
    });
    workloads.store.load(saved, 100);
    expect(
      workloads.store
        .list<KubeObject>('ConfigMap')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['b', 'both', 'none']);
    expect(workloads.store.get<KubeObject>('ConfigMap', 'default', 'both')!.metadata.ownerReferences!.map((r) => r.name)).toEqual(['b']);
    expect(deleted.sort()).toEqual(['only-a', 'waiting']);
  });
});
