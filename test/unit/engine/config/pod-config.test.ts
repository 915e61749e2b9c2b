// PodConfig over the apiserver source: the pods bound to the node, marked
// with their source, reach the sync loop as the kubelet's incremental updates.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSourceAnnotation } from '../../../../src/engine/api/pod-util.js';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { defaultKubeletConfiguration } from '../../../../src/engine/config/kubelet-config.js';
import { PodConfig } from '../../../../src/engine/config/pod-config.js';
import type { PodUpdate } from '../../../../src/engine/config/pod-storage.js';
import { EventStream } from '../../../../src/engine/events.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

function pod(name: string, image = 'busybox:1.36'): Pod {
  return { metadata: { name, namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image }] } };
}

describe('PodConfig with the apiserver source', () => {
  it('passes on only what changed, though the source sends every pod on each change of one', async () => {
    const cluster = new FakeCluster();
    const clock = new FakeClock();
    const updates: PodUpdate[] = [];
    const config = defaultKubeletConfiguration(mkdtempSync(join(tmpdir(), 'knode-pod-config-')), { nodeName: 'n1', staticPodPath: '' });
    const podConfig = new PodConfig(config, clock, new EventStream(() => clock.now()), (u) => updates.push(u), {
      client: cluster,
      warn: () => {},
    });
    const seen = () => updates.splice(0).map((u) => [u.op, u.pods.map((p) => `${p.metadata.name} ${p.spec.containers[0].image}`)]);
    cluster.putPod(pod('a'));
    await podConfig.start();
    await flushMicrotasks();
    expect(seen()).toEqual([['ADD', ['a busybox:1.36']]]);

    cluster.putPod(pod('b'));
    const [added] = updates;
    expect(added.pods[0].metadata.annotations?.[ConfigSourceAnnotation]).toBe('api');
    expect(seen()).toEqual([['ADD', ['b busybox:1.36']]]);

    const a = cluster.pods.get('default/a')!;
    cluster.putPod({ ...a, status: { phase: 'Running' } }, 'MODIFIED');
    expect(seen()).toEqual([['RECONCILE', ['a busybox:1.36']]]);

    cluster.putPod({ ...cluster.pods.get('default/b')!, spec: pod('b', 'busybox:1.37').spec }, 'MODIFIED');
    expect(seen()).toEqual([['UPDATE', ['b busybox:1.37']]]);

    // The same pod again as a new object, unchanged: nothing.
    cluster.putPod({ ...cluster.pods.get('default/a')! }, 'MODIFIED');
    expect(seen()).toEqual([]);
    podConfig.stop();
  });
});
