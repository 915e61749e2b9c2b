// An orphan delete in the local store as the apiserver and the garbage
// collector do it: the owner is marked (deletionTimestamp) with the `orphan`
// finalizer, its dependents lose their reference to it, then it loses the
// finalizer and goes, unless another finalizer holds it. What watches or
// lists the store in between sees each of those states. Through the real
// controllers for the Deployment, plain ConfigMaps for the graph.
import { beforeEach, describe, expect, it } from 'vitest';
import type { LocalWorkloads } from '../../../src/controllers/index.js';
import type { StoreEvent } from '../../../src/controllers/store.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { FakeClock, flushMicrotasks } from '../../../src/util/clock.js';
import { startedWorkloads, webDeployment } from '../../helpers/workloads.js';

describe('orphan deletion in the local store', () => {
  let workloads: LocalWorkloads;
  let events: StoreEvent[];

  beforeEach(() => {
    workloads = startedWorkloads(new FakeClock());
    events = [];
    workloads.store.watch((e) => events.push(e));
  });

  const store = () => workloads.store;
  /** The events since the last call, as `TYPE Kind/name finalizers refs-to-names deleting?`. */
  const seen = () =>
    events
      .splice(0)
      .map(({ type, object: { kind, metadata: m } }) =>
        [
          type,
          `${kind}/${m.name!.replace(/-\w+$/, '-*')}`,
          (m.finalizers ?? []).join(',') || '-',
          (m.ownerReferences ?? []).map((r) => r.name.replace(/-\w+$/, '-*')).join(',') || '-',
          m.deletionTimestamp ? 'deleting' : 'live',
        ].join(' '),
      );
  const configMap = (name: string, extra: Partial<KubeObject['metadata']> = {}) =>
    store().create<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } });
  const ownedBy = (name: string, owner: KubeObject, extra: Partial<KubeObject['metadata']> = {}) =>
    configMap(name, {
      ownerReferences: [
        { apiVersion: 'v1', kind: 'ConfigMap', name: owner.metadata.name!, uid: owner.metadata.uid!, blockOwnerDeletion: true },
      ],
      ...extra,
    });
  const get = (name: string) => store().get<KubeObject>('ConfigMap', 'default', name);

  it('marks a Deployment with the orphan finalizer, takes its reference out of its ReplicaSet, then removes the finalizer and it', async () => {
    workloads.api.applyObjects('file', [webDeployment({ name: 'c', image: 'busybox' })]);
    await flushMicrotasks();
    events.splice(0);
    // A lister in the middle: what the store holds when the ReplicaSet loses its reference.
    let mid: KubeObject | undefined;
    const stop = store().watch((e) => {
      if (e.object.kind === 'ReplicaSet') mid = store().get('Deployment', 'default', 'web');
    });
    workloads.api.deleteObject('Deployment', 'default', 'web', 'Orphan');
    stop();
    expect(seen()).toEqual([
      'MODIFIED Deployment/web orphan - deleting',
      'MODIFIED ReplicaSet/web-* - - live',
      'MODIFIED Deployment/web - - deleting',
      'DELETED Deployment/web - - deleting',
    ]);
    expect(mid!.metadata).toMatchObject({ deletionTimestamp: expect.any(String), deletionGracePeriodSeconds: 0, finalizers: ['orphan'] });
    await flushMicrotasks();
    // The ReplicaSet runs on alone: nothing adopts, deletes or replaces it or its pods.
    const [rs] = store().list('ReplicaSet');
    expect(rs.metadata.ownerReferences).toBeUndefined();
    expect(
      store()
        .list('Pod')
        .every((p) => !p.metadata.deletionTimestamp && p.metadata.ownerReferences?.[0].uid === rs.metadata.uid),
    ).toBe(true);
    expect(store().list('Pod')).toHaveLength(2);
  });

  it('orphans an owner without dependents the same way: marked, then gone', () => {
    configMap('alone');
    store().delete('ConfigMap', 'default', 'alone', { propagationPolicy: 'Orphan' });
    expect(seen()).toEqual([
      'ADDED ConfigMap/alone - - live',
      'MODIFIED ConfigMap/alone orphan - deleting',
      'MODIFIED ConfigMap/alone - - deleting',
      'DELETED ConfigMap/alone - - deleting',
    ]);
  });

  it('keeps the owner, marked, while another finalizer holds it: the dependents are orphaned, the orphan finalizer goes', () => {
    const owner = configMap('owner', { finalizers: ['example.com/keep'] });
    ownedBy('dep', owner);
    events.splice(0);
    store().delete('ConfigMap', 'default', 'owner', { propagationPolicy: 'Orphan' });
    expect(seen()).toEqual([
      'MODIFIED ConfigMap/owner example.com/keep,orphan - deleting',
      'MODIFIED ConfigMap/dep - - live',
      'MODIFIED ConfigMap/owner example.com/keep - deleting',
    ]);
    expect(get('owner')!.metadata).toMatchObject({ deletionTimestamp: expect.any(String), finalizers: ['example.com/keep'] });
    expect(get('dep')!.metadata.ownerReferences).toBeUndefined();
    const held = get('owner')!;
    store().update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    expect(
      store()
        .list<KubeObject>('ConfigMap')
        .map((o) => o.metadata.name),
    ).toEqual(['dep']);
  });

  it('orphans, without a policy in the delete, an owner that carries the orphan finalizer; an explicit Background drops it', () => {
    const a = configMap('a', { finalizers: ['orphan'] });
    ownedBy('of-a', a);
    const b = configMap('b', { finalizers: ['orphan'] });
    ownedBy('of-b', b);
    store().delete('ConfigMap', 'default', 'a');
    expect(get('a')).toBeUndefined();
    expect(get('of-a')!.metadata.ownerReferences).toBeUndefined();
    store().delete('ConfigMap', 'default', 'b', { propagationPolicy: 'Background' });
    expect(get('b')).toBeUndefined();
    expect(get('of-b')).toBeUndefined();
  });

  it('collects a dependent that carries the orphan finalizer by orphaning, as attemptToDeleteItem: its own dependents stay', () => {
    const owner = configMap('owner');
    const mid = ownedBy('mid', owner, { finalizers: ['orphan'] });
    ownedBy('leaf', mid);
    store().delete('ConfigMap', 'default', 'owner', { propagationPolicy: 'Background' });
    expect(get('owner')).toBeUndefined();
    expect(get('mid')).toBeUndefined();
    expect(get('leaf')!.metadata.ownerReferences).toBeUndefined();
    expect(get('leaf')!.metadata.deletionTimestamp).toBeUndefined();
  });

  it('turns a foreground delete into an orphan one: the waiting owner drops foregroundDeletion, its blocker loses the reference', () => {
    const owner = configMap('owner');
    ownedBy('blocker', owner, { finalizers: ['example.com/keep'] });
    store().delete('ConfigMap', 'default', 'owner', { propagationPolicy: 'Foreground' });
    expect(get('owner')!.metadata.finalizers).toEqual(['foregroundDeletion']);
    store().delete('ConfigMap', 'default', 'owner', { propagationPolicy: 'Orphan' });
    expect(get('owner')).toBeUndefined();
    // The blocker, deleted by the foreground cascade before, stays held by its own finalizer, without its owner.
    expect(get('blocker')!.metadata).toMatchObject({ deletionTimestamp: expect.any(String), finalizers: ['example.com/keep'] });
    expect(get('blocker')!.metadata.ownerReferences).toBeUndefined();
  });

  it('orphans when an update adds the finalizer to an object being deleted, as the graph builder sees that change', () => {
    const owner = configMap('owner', { finalizers: ['example.com/keep'] });
    ownedBy('dep', owner);
    store().delete('ConfigMap', 'default', 'owner', { propagationPolicy: 'Background' });
    const held = get('owner')!;
    expect(get('dep')!.metadata.ownerReferences).toHaveLength(1);
    store().update({ ...held, metadata: { ...held.metadata, finalizers: ['example.com/keep', 'orphan'] } });
    expect(get('dep')!.metadata.ownerReferences).toBeUndefined();
    expect(get('owner')!.metadata.finalizers).toEqual(['example.com/keep']);
  });

  it('finishes, on load, an orphan delete that knode stopped in the middle of', () => {
    const owner = configMap('owner');
    ownedBy('dep', owner);
    const saved = store()
      .dump()
      .map((o) =>
        o.metadata.name === 'owner'
          ? {
              ...o,
              metadata: { ...o.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0, finalizers: ['orphan'] },
            }
          : o,
      );
    workloads = startedWorkloads(new FakeClock());
    workloads.store.load(saved, 100);
    expect(workloads.store.list<KubeObject>('ConfigMap').map((o) => [o.metadata.name, o.metadata.ownerReferences])).toEqual([
      ['dep', undefined],
    ]);
  });
});
