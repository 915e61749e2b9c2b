// The local apiserver's pod watch, which a standalone node's api source reads:
// this node's pods only, each a copy the watcher may keep and change, whether
// it came as a change after the watch opened or from the changes before it.
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
