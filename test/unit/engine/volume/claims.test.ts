// A pod's persistentVolumeClaim volumes on a standalone node: the claim's
// directory from the local apiserver, a wait while the claim is missing, and
// a read-only claim mounted read-only.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalApiserver, ObjectStore } from '../../../../src/controllers/index.js';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { ObjectManager } from '../../../../src/engine/cluster/object-manager.js';
import { makeMounts } from '../../../../src/engine/kuberuntime/mounts.js';
import { VolumeError, VolumeManager } from '../../../../src/engine/volume/volume-manager.js';
import { FakeClock } from '../../../../src/util/clock.js';

const roots: string[] = [];
afterEach(() => roots.splice(0).forEach((r) => rmSync(r, { recursive: true, force: true })));

function setup(local = true) {
  const root = mkdtempSync(join(tmpdir(), 'knode-claims-'));
  roots.push(root);
  const clock = new FakeClock();
  const store = new ObjectStore(clock);
  const api = new LocalApiserver(store, clock, undefined, join(root, 'claims'));
  const objects = new ObjectManager(local ? api : undefined, clock);
  const addresses = { podIP: '', podIPs: [], hostIP: '', nodeName: 'n1' };
  const volumes = new VolumeManager(
    root,
    () => addresses,
    () => {},
    objects,
    () => clock.now(),
  );
  return { root, store, volumes };
}

const pod: Pod = {
  metadata: { name: 'db', namespace: 'shop', uid: 'uid-1' },
  spec: {
    containers: [{ name: 'c', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0', readOnly: true } }],
  },
};

describe('persistentVolumeClaim volumes', () => {
  it('wait for a claim that does not exist, naming it as the kubelet does', async () => {
    const { volumes } = setup();
    const failure = volumes.waitForAttachAndMount(pod);
    await expect(failure).rejects.toThrow(VolumeError);
    await expect(failure).rejects.toThrow(
      'volume "data": error processing PVC shop/data-db-0: failed to fetch PVC from API server: persistentvolumeclaims "data-db-0" not found',
    );
  });

  it("mount the claim's directory under the root dir, which stays after the pod's volumes are torn down", async () => {
    const { root, store, volumes } = setup();
    store.create({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data-db-0', namespace: 'shop' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    });
    const mounted = await volumes.waitForAttachAndMount(pod);
    const dir = join(root, 'claims', 'shop', 'data-db-0');
    expect(mounted.get('data')).toBe(dir);
    expect(existsSync(dir)).toBe(true);
    // A claim deleted under a running pod stays its until the pod goes.
    store.delete('PersistentVolumeClaim', 'shop', 'data-db-0');
    expect((await volumes.waitForAttachAndMount(pod)).get('data')).toBe(dir);
    await volumes.tearDown('uid-1');
    expect(existsSync(dir)).toBe(true);
    await expect(volumes.waitForAttachAndMount(pod)).rejects.toThrow('not found');
  });

  it('are mounted read-only when the claim volume says readOnly', () => {
    const mounts = makeMounts(pod.spec.containers[0], new Map([['data', '/x']]), false, new Map(), new Set(['data']));
    expect(mounts).toEqual([{ containerPath: '/data', hostPath: '/x', readonly: true }]);
  });

  it('cannot be had from a node without a local apiserver', async () => {
    const { volumes } = setup(false);
    await expect(volumes.waitForAttachAndMount(pod)).rejects.toThrow('knode supports claims only on a standalone node');
  });
});
