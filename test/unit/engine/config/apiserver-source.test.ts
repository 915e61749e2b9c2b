import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { ClusterError } from '../../../../src/engine/cluster/client.js';
import { ApiserverSource } from '../../../../src/engine/config/apiserver-source.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

function pod(name: string, nodeName = 'n1'): Pod {
  return { metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'busybox:1.36' }] } };
}

function setup() {
  const cluster = new FakeCluster();
  const clock = new FakeClock();
  const snapshots: string[][] = [];
  const warnings: string[] = [];
  const source = new ApiserverSource(
    { client: cluster, nodeName: 'n1', clock, random: () => 0, warn: (m) => warnings.push(m) },
    { snapshot: (pods) => snapshots.push(pods.map((p) => p.metadata.name!).sort()), error: () => {} },
  );
  const last = () => snapshots.at(-1);
  return { cluster, clock, source, snapshots, warnings, last };
}

describe('the apiserver source', () => {
  it('lists the pods bound to the node, then sends the full set on every watch event', async () => {
    const { cluster, source, last } = setup();
    cluster.putPod(pod('a'));
    cluster.putPod(pod('elsewhere', 'n2'));
    await source.start();
    expect(last()).toEqual(['a']);
    await flushMicrotasks();
    expect(cluster.calls).toEqual(['listPods spec.nodeName=n1', 'watchPods spec.nodeName=n1 102']);
    cluster.putPod(pod('b'));
    expect(last()).toEqual(['a', 'b']);
    cluster.removePod('default', 'a');
    expect(last()).toEqual(['b']);
    source.stop();
  });

  it('resumes a watch the server ended from the last resourceVersion, bookmarks included', async () => {
    const { cluster, source } = setup();
    await source.start();
    await flushMicrotasks();
    cluster.putPod(pod('a'));
    cluster.emit('BOOKMARK', { metadata: { resourceVersion: '500' } });
    cluster.endWatches();
    await flushMicrotasks();
    expect(cluster.calls.slice(-1)).toEqual(['watchPods spec.nodeName=n1 500']);
    expect(cluster.calls.filter((c) => c.startsWith('listPods'))).toHaveLength(1);
    source.stop();
  });

  it('relists on 410 Gone, from an ERROR event or from the watch call, and drops pods the new list lacks', async () => {
    const { cluster, source, last } = setup();
    cluster.putPod(pod('a'));
    await source.start();
    await flushMicrotasks();
    cluster.pods.clear(); // deleted while the watch was away
    cluster.emit('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });
    await flushMicrotasks();
    expect(cluster.calls.filter((c) => c.startsWith('listPods'))).toHaveLength(2);
    expect(last()).toEqual([]);
    cluster.failNext('watchPods', new ClusterError(410, 'Gone', 'gone'));
    cluster.endWatches();
    await flushMicrotasks();
    expect(cluster.calls.filter((c) => c.startsWith('listPods'))).toHaveLength(3);
    source.stop();
  });

  it("retries a failing apiserver with client-go's backoff, warns once, and keeps the last pods meanwhile", async () => {
    const { cluster, clock, source, warnings, snapshots } = setup();
    cluster.putPod(pod('a'));
    await source.start();
    await flushMicrotasks();
    const down = new ClusterError(0, 'Unreachable', 'watch pods: connection refused');
    for (let i = 0; i < 4; i++) cluster.failNext('watchPods', down);
    cluster.endWatches(down);
    await flushMicrotasks();
    const watchCalls = () => cluster.calls.filter((c) => c.startsWith('watchPods')).length;
    const before = watchCalls();
    await clock.advance(799);
    expect(watchCalls()).toBe(before);
    await clock.advance(1);
    expect(watchCalls()).toBe(before + 1);
    await clock.advance(1_600);
    expect(watchCalls()).toBe(before + 2);
    await clock.advance(3_200 + 6_400);
    expect(watchCalls()).toBe(before + 4);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/apiserver source: watch pods: connection refused; retrying in 0\.8s/);
    expect(snapshots.at(-1)).toEqual(['a']);
    source.stop();
  });

  it('starts the node even when the apiserver is down, and sends the first list once it answers', async () => {
    const { cluster, clock, source, snapshots } = setup();
    cluster.putPod(pod('a'));
    cluster.failNext('listPods', new ClusterError(0, 'Unreachable', 'list pods: connection refused'));
    await source.start();
    expect(snapshots).toEqual([]);
    await clock.advance(800);
    expect(snapshots).toEqual([['a']]);
    source.stop();
  });
});
