// ConfigMaps, Secrets and service account tokens reaching a pod: through env
// and envFrom, and as volume files (the real path, against a real apiserver,
// is in test/integration/cluster.test.ts).
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Container, Pod } from '../../../../src/engine/api/v1.js';
import { ClusterError } from '../../../../src/engine/cluster/client.js';
import { ObjectManager } from '../../../../src/engine/cluster/object-manager.js';
import { fetchEnvSources, makeEnvironmentVariables } from '../../../../src/engine/kuberuntime/env.js';
import { SyncError } from '../../../../src/engine/kuberuntime/sync-result.js';
import { writeAtomically } from '../../../../src/engine/volume/atomic-writer.js';
import { VolumeManager } from '../../../../src/engine/volume/volume-manager.js';
import { FakeClock, flushMicrotasks } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

const addresses = { podIP: '10.0.0.5', podIPs: ['10.0.0.5'], hostIP: '10.0.0.1', nodeName: 'n1' };

function pod(spec: Partial<Pod['spec']> = {}): Pod {
  return {
    metadata: { name: 'web', namespace: 'shop', uid: 'uid-1' },
    spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], ...spec },
  };
}

function setup() {
  const cluster = new FakeCluster();
  const clock = new FakeClock();
  cluster.now = () => clock.now();
  cluster.configMaps.set('shop/settings', { mode: 'fast', 'log.level': 'debug', 'bad key': 'x' });
  cluster.secrets.set('shop/creds', { user: 'admin', password: 's3cret' });
  const objects = new ObjectManager(cluster, clock);
  return { cluster, clock, objects };
}

async function envOf(objects: ObjectManager, container: Container) {
  const p = pod({ containers: [container] });
  return makeEnvironmentVariables(p, container, addresses, await fetchEnvSources(p, container, objects));
}

describe('env from ConfigMaps and Secrets', () => {
  it('resolves keys, and envFrom with its prefix before env (skipping keys that are no variable names)', async () => {
    const { objects } = setup();
    const env = await envOf(objects, {
      name: 'c',
      envFrom: [{ configMapRef: { name: 'settings' } }, { secretRef: { name: 'creds' }, prefix: 'DB_' }],
      env: [
        { name: 'MODE', valueFrom: { configMapKeyRef: { name: 'settings', key: 'mode' } } },
        { name: 'PASSWORD', valueFrom: { secretKeyRef: { name: 'creds', key: 'password' } } },
        { name: 'URL', value: 'db://$(DB_user)@host' },
      ],
    });
    expect(env).toEqual([
      { name: 'mode', value: 'fast' },
      { name: 'log.level', value: 'debug' },
      { name: 'DB_user', value: 'admin' },
      { name: 'DB_password', value: 's3cret' },
      { name: 'MODE', value: 'fast' },
      { name: 'PASSWORD', value: 's3cret' },
      { name: 'URL', value: 'db://admin@host' },
    ]);
  });

  it.each([
    ['a missing ConfigMap', { name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'k' } } }, 'configmap "nope" not found'],
    [
      'a missing key',
      { name: 'X', valueFrom: { configMapKeyRef: { name: 'settings', key: 'nope' } } },
      "couldn't find key nope in ConfigMap shop/settings",
    ],
    ['a missing Secret', { name: 'X', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }, 'secret "nope" not found'],
  ])('%s is a CreateContainerConfigError unless optional', async (_name, env, message) => {
    const { objects } = setup();
    const err = await envOf(objects, { name: 'c', env: [env] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SyncError);
    expect(err).toMatchObject({ reason: 'CreateContainerConfigError', message });
    const ref = Object.values(env.valueFrom)[0] as { optional?: boolean };
    ref.optional = true;
    expect(await envOf(objects, { name: 'c', env: [env] })).toEqual([]);
  });

  it('says why when the apiserver fails, without guessing not found', async () => {
    const { cluster, objects } = setup();
    cluster.failNext(
      'getSecret',
      new ClusterError(403, 'Forbidden', 'get secret shop/creds: 403 Forbidden: no relationship found between node and this object'),
    );
    const err = await envOf(objects, {
      name: 'c',
      env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'user', optional: true } } }],
    }).catch((e: unknown) => e);
    expect(err).toMatchObject({
      reason: 'CreateContainerConfigError',
      message: expect.stringMatching(/no relationship found between node and this object/),
    });
  });
});

describe('the object manager', () => {
  it('reads an object again after 10 s, not before', async () => {
    const { cluster, clock, objects } = setup();
    await objects.configMap('shop', 'settings');
    cluster.configMaps.set('shop/settings', { mode: 'slow' });
    expect((await objects.configMap('shop', 'settings')).get('mode')?.toString()).toBe('fast');
    await clock.advance(10_000);
    expect((await objects.configMap('shop', 'settings')).get('mode')?.toString()).toBe('slow');
  });

  it('reads an object once for every pod that asks while the read is under way, and a failure reaches them all', async () => {
    const { cluster, objects } = setup();
    const asked = await Promise.all([1, 2, 3].map(() => objects.configMap('shop', 'settings')));
    expect(asked.map((data) => data.get('mode')?.toString())).toEqual(['fast', 'fast', 'fast']);
    expect(cluster.calls.filter((c) => c.startsWith('getConfigMap'))).toEqual(['getConfigMap shop/settings']);

    cluster.failNext('getSecret', new ClusterError(0, 'Unreachable', 'connection refused'));
    const failed = await Promise.allSettled([1, 2].map(() => objects.secret('shop', 'creds')));
    expect(failed.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'read'))).toEqual([
      'secret "creds": connection refused',
      'secret "creds": connection refused',
    ]);
    // The failure is not kept: the next ask reads again.
    expect((await objects.secret('shop', 'creds')).get('user')?.toString()).toBe('admin');
    expect(cluster.calls.filter((c) => c.startsWith('getSecret'))).toEqual(['getSecret shop/creds', 'getSecret shop/creds']);
  });

  it('renews a token at 80% of its life, and keeps a valid one while the apiserver fails', async () => {
    const { cluster, clock, objects } = setup();
    const p = pod({ serviceAccountName: 'builder' });
    expect(await objects.serviceAccountToken(p, '', 3600)).toBe('token-1');
    await clock.advance(2_879_000);
    expect(await objects.serviceAccountToken(p, '', 3600)).toBe('token-1');
    await clock.advance(1_000);
    expect(await objects.serviceAccountToken(p, '', 3600)).toBe('token-2');
    await clock.advance(2_880_000);
    cluster.failNext('createToken', new ClusterError(0, 'Unreachable', 'connection refused'));
    expect(await objects.serviceAccountToken(p, '', 3600)).toBe('token-2');
    expect(cluster.calls.filter((c) => c.startsWith('createToken'))).toEqual([
      'createToken shop/builder web',
      'createToken shop/builder web',
      'createToken shop/builder web',
    ]);
  });

  it('on a standalone node, says an apiserver is needed', async () => {
    const objects = new ObjectManager(undefined, new FakeClock());
    await expect(objects.secret('shop', 'creds')).rejects.toThrow(
      /secret "creds" not found: knode serves static pods without an apiserver \(give --kubeconfig\)/,
    );
  });
});

describe('configMap, secret and projected volumes', () => {
  function volumes() {
    const { cluster, clock, objects } = setup();
    const root = mkdtempSync(join(tmpdir(), 'knode-vol-'));
    const manager = new VolumeManager(
      root,
      () => addresses,
      () => {},
      objects,
      () => clock.now(),
    );
    return { cluster, clock, manager };
  }

  const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
  const mode = (dir: string, file: string) => statSync(join(dir, file)).mode & 0o777;

  it('write every key, or the listed items with their modes, through the ..data symlink', async () => {
    const { manager } = volumes();
    const p = pod({
      volumes: [
        { name: 'all', configMap: { name: 'settings' } },
        { name: 'some', configMap: { name: 'settings', items: [{ key: 'mode', path: 'conf/mode.txt', mode: 0o600 }], defaultMode: 0o640 } },
        { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } },
      ],
    });
    const dirs = await manager.waitForAttachAndMount(p);
    const all = dirs.get('all')!;
    expect(readdirSync(all).sort()).toEqual(['..data', readlinkSync(join(all, '..data')), 'bad key', 'log.level', 'mode'].sort());
    expect(lstatSync(join(all, 'mode')).isSymbolicLink()).toBe(true);
    expect([read(all, 'mode'), mode(all, 'mode')]).toEqual(['fast', 0o644]);
    expect([read(dirs.get('some')!, 'conf/mode.txt'), mode(dirs.get('some')!, 'conf/mode.txt')]).toEqual(['fast', 0o600]);
    expect([read(dirs.get('creds')!, 'password'), mode(dirs.get('creds')!, 'password')]).toEqual(['s3cret', 0o400]);
  });

  it('swap in new content at once when the object changes, and leave no old version behind', async () => {
    const { cluster, clock, manager } = volumes();
    const p = pod({ volumes: [{ name: 'all', configMap: { name: 'settings' } }] });
    const dir = (await manager.waitForAttachAndMount(p)).get('all')!;
    const first = readlinkSync(join(dir, '..data'));
    cluster.configMaps.set('shop/settings', { mode: 'slow' });
    await clock.advance(10_000);
    await manager.waitForAttachAndMount(p);
    expect(read(dir, 'mode')).toBe('slow');
    expect(readdirSync(dir).sort()).toEqual(['..data', readlinkSync(join(dir, '..data')), 'mode'].sort());
    expect(readlinkSync(join(dir, '..data'))).not.toBe(first);
  });

  it('fail with the reason when an object is missing, unless optional', async () => {
    const { manager } = volumes();
    await expect(manager.waitForAttachAndMount(pod({ volumes: [{ name: 'cfg', configMap: { name: 'nope' } }] }))).rejects.toThrow(
      'volume "cfg": configmap "nope" not found',
    );
    await expect(
      manager.waitForAttachAndMount(
        pod({ volumes: [{ name: 'cfg', configMap: { name: 'settings', items: [{ key: 'nope', path: 'x' }] } }] }),
      ),
    ).rejects.toThrow('volume "cfg": configmap "settings" has no key "nope"');
    const dirs = await manager.waitForAttachAndMount(pod({ volumes: [{ name: 'cfg', secret: { secretName: 'nope', optional: true } }] }));
    expect(readdirSync(dirs.get('cfg')!).filter((f) => !f.startsWith('..'))).toEqual([]);
  });

  it('project a service account token, the root CA and the namespace, as the kube-api-access volume does', async () => {
    const { cluster, manager } = volumes();
    cluster.configMaps.set('shop/kube-root-ca.crt', { 'ca.crt': '-----BEGIN CERTIFICATE-----' });
    const p = pod({
      volumes: [
        {
          name: 'kube-api-access-x1',
          projected: {
            defaultMode: 0o644,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
      ],
    });
    const dir = (await manager.waitForAttachAndMount(p)).get('kube-api-access-x1')!;
    expect([read(dir, 'token'), read(dir, 'ca.crt'), read(dir, 'namespace')]).toEqual(['token-1', '-----BEGIN CERTIFICATE-----', 'shop']);
    expect(cluster.calls).toContain('createToken shop/default web');
  });
});

describe('the volumes of one pod', () => {
  it('are set up at once, the token and the root CA asked for together, the first failure in the pod’s order', async () => {
    const { cluster, clock, objects } = setup();
    cluster.configMaps.set('shop/kube-root-ca.crt', { 'ca.crt': 'CA' });
    const manager = new VolumeManager(
      mkdtempSync(join(tmpdir(), 'knode-vol-')),
      () => addresses,
      () => {},
      objects,
      () => clock.now(),
    );
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const createToken = cluster.createToken.bind(cluster);
    cluster.createToken = async (...args) => {
      await gate;
      return createToken(...args);
    };
    const p = pod({
      volumes: [
        {
          name: 'api',
          projected: {
            sources: [
              { serviceAccountToken: { path: 'token' } },
              { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            ],
          },
        },
        { name: 'missing', configMap: { name: 'nope' } },
        { name: 'also-missing', secret: { secretName: 'nope' } },
      ],
    });
    const mounting = manager.waitForAttachAndMount(p);
    await flushMicrotasks();
    // The token is still on its way, and every other call has been made.
    expect(cluster.calls.filter((c) => !c.startsWith('createToken'))).toEqual([
      'getConfigMap shop/kube-root-ca.crt',
      'getConfigMap shop/nope',
      'getSecret shop/nope',
    ]);
    release();
    await expect(mounting).rejects.toThrow('volume "missing": configmap "nope" not found');
  });
});

describe('writeAtomically', () => {
  it('refuses paths that leave the volume or look like its own bookkeeping', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-aw-'));
    for (const path of ['/etc/passwd', '../x', 'a/../../x', '..data', '..2026']) {
      expect(() => writeAtomically(dir, new Map([[path, { data: Buffer.from('x'), mode: 0o644 }]]), 0)).toThrow(/invalid path/);
    }
  });
});
