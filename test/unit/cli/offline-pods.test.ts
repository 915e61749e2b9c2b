import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { offlinePods, savedObjects } from '../../../src/cli/offline-pods.js';
import { KubeletLabels } from '../../../src/cri/types.js';
import type { Pod } from '../../../src/engine/api/v1.js';
import { FakeRuntimeService, podLabels } from '../../helpers/fake-runtime-service.js';

/** A pod of the ReplicaSet web-abc as the local controllers saved it, its status as of the save. */
const saved: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-abc-x1',
    namespace: 'default',
    uid: 'u1',
    labels: { app: 'web' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs', controller: true }],
  },
  spec: {
    containers: [
      { name: 'httpd', image: 'busybox:1.36', ports: [{ containerPort: 8080 }], volumeMounts: [{ name: 'www', mountPath: '/www' }] },
    ],
    volumes: [{ name: 'www', configMap: { name: 'web-config' } }],
  },
  status: { phase: 'Pending', hostIP: '192.0.2.2', qosClass: 'BestEffort', podIP: '192.0.2.2', podIPs: [{ ip: '192.0.2.2' }] },
};

/** A root dir whose saved objects are SAVED, and a runtime holding the pods of UIDS, each with a running container. */
function rootAndRuntime(uids: string[], network = { ip: '', additionalIps: [] as { ip: string }[] }) {
  const root = mkdtempSync(join(tmpdir(), 'knode-offline-'));
  writeFileSync(join(root, 'objects.json'), JSON.stringify({ resourceVersion: '7', objects: [saved], applied: {} }));
  const runtime = new FakeRuntimeService();
  for (const uid of uids) {
    const labels = podLabels({ uid, name: `pod-${uid}`, namespace: 'default' }, 'node-1');
    runtime.addSandbox({ id: `s-${uid}`, metadata: { name: `pod-${uid}`, uid, namespace: 'default', attempt: 0 }, labels, network });
    runtime.addContainer(`s-${uid}`, {
      id: `c-${uid}`,
      metadata: { name: 'httpd', attempt: 0 },
      state: 'CONTAINER_RUNNING',
      labels: { ...labels, [KubeletLabels.containerName]: 'httpd' },
    });
  }
  return { root, runtime };
}

describe('the pods of a root dir where no node runs', () => {
  it("take a saved pod's spec and metadata, and keep the runtime's state", async () => {
    const { root, runtime } = rootAndRuntime(['u1', 'u2']);
    const { pods, specified } = await offlinePods(runtime, 'knode', savedObjects(root));
    expect([...specified]).toEqual(['u1']);
    const [web, other] = pods.sort((a, b) => a.metadata.uid!.localeCompare(b.metadata.uid!));
    expect(web.metadata).toEqual({ ...saved.metadata, creationTimestamp: expect.any(String) });
    expect(web.spec.volumes).toEqual(saved.spec.volumes);
    expect(web.spec.containers[0].ports).toEqual([{ containerPort: 8080 }]);
    expect(web.spec.nodeName).toBe('node-1');
    // Running now, as the runtime says, not Pending as saved; the node's IP for a sandbox on the host's network.
    expect(web.status).toMatchObject({ phase: 'Running', hostIP: '192.0.2.2', qosClass: 'BestEffort', podIP: '192.0.2.2' });
    expect(web.status?.containerStatuses?.map((s) => [s.name, Object.keys(s.state!)])).toEqual([['httpd', ['running']]]);
    // A pod nothing saved (a static pod) is what the runtime holds.
    expect(other.metadata.name).toBe('pod-u2');
    expect(other.spec.containers).toEqual([{ name: 'httpd', image: '' }]);
    expect(other.status?.qosClass).toBeUndefined();
  });

  it("take the sandbox's IP over the saved one", async () => {
    const { root, runtime } = rootAndRuntime(['u1'], { ip: '10.88.0.9', additionalIps: [] });
    const { pods } = await offlinePods(runtime, 'knode', savedObjects(root));
    expect(pods[0].status).toMatchObject({ podIP: '10.88.0.9', podIPs: [{ ip: '10.88.0.9' }] });
  });

  it('are the runtime view alone when nothing was saved', async () => {
    const { runtime } = rootAndRuntime(['u1']);
    const { pods, specified } = await offlinePods(runtime, 'knode', savedObjects(mkdtempSync(join(tmpdir(), 'knode-offline-'))));
    expect(specified.size).toBe(0);
    expect(pods[0].metadata.ownerReferences).toBeUndefined();
  });
});
