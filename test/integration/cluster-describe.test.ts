// knode describe pod beside the real kubectl describe pod, for the same pod
// on a knode node of a real cluster (kube-apiserver, etcd): the same lines,
// apart from ages (and the column widths they move).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../src/engine/api/v1.js';
import { connectCluster, loadKubeConfig } from '../../src/engine/cluster/client.js';
import { describePod } from '../../src/ui/describe-pod.js';
import { startControlPlane, type ControlPlane } from '../helpers/controlplane.js';
import { TEST_IMAGE } from '../helpers/cri.js';
import { startNode, type TestNode } from '../helpers/node.js';
import { eventually, runtimesUnderTest } from '../helpers/runtimes.js';

const NODE = 'knode-describe';

/** Ages (and repeat counts' spans) change between the two reads: replaced, as the column widths they move. */
function normalized(text: string): string[] {
  return text.split('\n').map((line) =>
    line
      .replace(/\b\d+(m\d+)?s\b|\b\d+m\b/g, 'AGE')
      .replace(/\s+/g, ' ')
      .trimEnd(),
  );
}

describe('knode describe pod against kubectl describe pod', () => {
  let cp: ControlPlane;
  let node: TestNode;
  let cleanupRuntime: () => Promise<void>;

  beforeAll(async () => {
    cp = startControlPlane();
    const started = await runtimesUnderTest()[0].start();
    cleanupRuntime = started.cleanup;
    const client = await connectCluster(await loadKubeConfig(cp.nodeKubeconfig(NODE)));
    node = await startNode(started.endpoint, { cluster: client, config: { nodeName: NODE, nodeIP: '127.0.0.1', port: 0 } });
  }, 120_000);

  afterAll(async () => {
    await node?.stop();
    await cleanupRuntime?.();
    cp?.stop();
  });

  it('prints the same fields for a crash-looping pod, events included', async () => {
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'crash', namespace: 'default', labels: { app: 'crash' } },
      spec: {
        nodeName: NODE,
        containers: [
          {
            name: 'main',
            image: TEST_IMAGE,
            command: ['sh', '-c', 'echo dying; exit 3'],
            env: [{ name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            resources: { limits: { memory: '64Mi' } },
          },
        ],
      },
    };
    const file = join(mkdtempSync(join(tmpdir(), 'knode-manifest-')), 'm.json');
    writeFileSync(file, JSON.stringify(pod));
    expect((await cp.kubectl('apply', '-f', file)).code).toBe(0);
    const described = await eventually(
      async () => {
        const kubectl = (await cp.kubectl('describe', 'pod', 'crash')).stdout;
        const local = node.kubelet.podsWithStatus().find((p) => p.metadata.name === 'crash');
        if (!local || !/Restart Count:\s+[1-9]/.test(kubectl) || !/BackOff/.test(kubectl)) return undefined;
        const events = node.kubelet.eventLog.list({ namespace: 'default', name: 'crash', uid: local.metadata.uid });
        const knode = describePod(local, events, Date.now());
        // The two reads must see the same restart; a restart between them is read again.
        return normalized(kubectl).join('\n') === normalized(knode).join('\n') ? { kubectl, knode } : undefined;
      },
      'kubectl describe and knode describe to agree on a restarted pod',
      40_000,
    ).catch(async () => {
      const kubectl = (await cp.kubectl('describe', 'pod', 'crash')).stdout;
      const local = node.kubelet.podsWithStatus().find((p) => p.metadata.name === 'crash')!;
      const knode = describePod(local, node.kubelet.eventLog.list({ name: 'crash', uid: local.metadata.uid }), Date.now());
      return { kubectl, knode };
    });
    expect(normalized(described.knode)).toEqual(normalized(described.kubectl));
  }, 90_000);
});
