// The local apiserver's pod watch, and what an apply did to each object.
// The pod watch, which a standalone node's api source reads:
// this node's pods only, each a copy the watcher may keep and change, whether
// it came as a change after the watch opened or from the changes before it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalApiserver, ObjectStore } from '../../../src/controllers/index.js';
import type { KubeObject } from '../../../src/engine/api/workloads.js';
import { FakeClock } from '../../../src/util/clock.js';

const pod = (name: string, nodeName: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName, containers: [{ name: 'c', image: 'busybox:1.36' }] },
  }) as KubeObject;

describe('the local apiserver pod watch', () => {
  it("delivers this node's pods, before and after it opened, as copies of the store's", async () => {
    const clock = new FakeClock();
    const store = new ObjectStore(clock);
    const api = new LocalApiserver(store, clock);
    store.create(pod('early', 'n1'));
    const seen: { type: string; object: Record<string, unknown> }[] = [];
    const watch = await api.watchPods('spec.nodeName=n1', '0', 0, (type, object) => seen.push({ type, object }));
    store.create(pod('other-node', 'n2'));
    store.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'default' }, data: {} } as KubeObject);
    store.create(pod('late', 'n1'));
    await Promise.resolve();
    expect(seen.map((e) => `${e.type} ${(e.object.metadata as { name: string }).name}`).sort()).toEqual(['ADDED early', 'ADDED late']);

    for (const { object } of seen) (object.metadata as { labels?: Record<string, string> }).labels = { changed: 'by the watcher' };
    expect(store.get('Pod', 'default', 'early')!.metadata.labels).toBeUndefined();
    expect(store.get('Pod', 'default', 'late')!.metadata.labels).toBeUndefined();
    watch.stop();
  });
});

describe('what an apply did to each object', () => {
  const cm = (value: string): KubeObject =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'site', namespace: 'default' }, data: { v: value } }) as KubeObject;

  it("says kubectl apply's word: created, configured, unchanged; an unchanged read again keeps the first word", () => {
    const clock = new FakeClock();
    const store = new ObjectStore(clock);
    const first = new LocalApiserver(store, clock);
    const key = 'ConfigMap/default/site';
    expect(first.appliedAs(key)).toBeUndefined();
    first.applyObjects('file:a', [cm('1')]);
    expect(first.appliedAs(key)).toBe('created');
    // The file source reads its file again while the same apply waits: still what this apply did.
    first.applyObjects('file:a', [cm('1')]);
    expect(first.appliedAs(key)).toBe('created');
    first.applyObjects('file:a', [cm('2')]);
    expect(first.appliedAs(key)).toBe('configured');
    expect(store.get<KubeObject & { data: Record<string, string> }>('ConfigMap', 'default', 'site')!.data).toEqual({ v: '2' });
  });

  it('knows an object unchanged since an apply before this one, from the saved manifests', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-local-api-'));
    const clock = new FakeClock();
    const before = new LocalApiserver(new ObjectStore(clock), clock, join(dir, 'objects.json'));
    before.applyObjects('file:a', [cm('1')]);
    before.save();
    const next = new LocalApiserver(new ObjectStore(clock), clock, join(dir, 'objects.json'));
    next.applyObjects('file:a', [cm('1')]);
    expect(next.appliedAs('ConfigMap/default/site')).toBe('unchanged');
    rmSync(dir, { recursive: true });
  });
});

describe('objects of the same name from two sources', () => {
  const deployment = (replicas: number): KubeObject =>
    ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }] } },
      },
    }) as KubeObject;
  const replicas = (store: ObjectStore) =>
    store.get<KubeObject & { spec: { replicas: number } }>('Deployment', 'default', 'web')!.spec.replicas;

  it('stays with the source of this process that gave it first', () => {
    const clock = new FakeClock();
    const store = new ObjectStore(clock);
    const api = new LocalApiserver(store, clock);
    api.applyObjects('file:/a', [deployment(2)]);
    api.applyObjects('url:b', [deployment(3)]);
    expect(replicas(store)).toBe(2);
    expect(api.keysFrom('url:b')).toEqual([]);
  });

  it("goes to this process's source when the one that gave it before is not read now (a former --static-dir)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-local-api-'));
    const clock = new FakeClock();
    const before = new LocalApiserver(new ObjectStore(clock), clock, join(dir, 'objects.json'));
    before.applyObjects('file:/examples', [deployment(2)]);
    before.save();
    const store = new ObjectStore(clock);
    const next = new LocalApiserver(store, clock, join(dir, 'objects.json'));
    next.applyObjects('file:/copy', [deployment(3)]);
    expect(replicas(store)).toBe(3);
    expect(next.keysFrom('file:/copy')).toEqual(['Deployment/default/web']);
    expect(next.appliedAs('Deployment/default/web')).toBe('configured');
    rmSync(dir, { recursive: true });
  });
});
