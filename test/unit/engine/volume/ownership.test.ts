// Volume ownership by the pod's fsGroup, as the kubelet's SetVolumeOwnership
// (pkg/volume/volume_linux.go) and its volume plugins apply it.
import { chmodSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { ObjectManager } from '../../../../src/engine/cluster/object-manager.js';
import { requiresPermissionChange, setVolumeOwnership } from '../../../../src/engine/volume/ownership.js';
import { VolumeManager } from '../../../../src/engine/volume/volume-manager.js';
import { FakeClock } from '../../../../src/util/clock.js';
import { FakeCluster } from '../../../helpers/fake-cluster.js';

/** A group the test may give files: 2000 as root (the kubelet's case), else the test's own. */
const GROUP = process.getuid?.() === 0 ? 2000 : process.getgid!();
const modeOf = (path: string) => lstatSync(path).mode & 0o7777;
const groupOf = (path: string) => lstatSync(path).gid;

function tree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-own-'));
  chmodSync(dir, 0o777);
  mkdirSync(join(dir, 'sub'), { mode: 0o700 });
  chmodSync(join(dir, 'sub'), 0o700);
  writeFileSync(join(dir, 'sub', 'secret'), 'x');
  chmodSync(join(dir, 'sub', 'secret'), 0o400);
  writeFileSync(join(dir, 'target'), 'y');
  chmodSync(join(dir, 'target'), 0o600);
  symlinkSync('target', join(dir, 'link'));
  return dir;
}

describe('setVolumeOwnership', () => {
  it('gives a writable volume the group, group rw on files, and rwx with setgid on directories', () => {
    const dir = tree();
    setVolumeOwnership(dir, GROUP, false);
    expect([groupOf(dir), modeOf(dir)]).toEqual([GROUP, 0o2777]);
    expect([groupOf(join(dir, 'sub')), modeOf(join(dir, 'sub'))]).toEqual([GROUP, 0o2770]);
    expect([groupOf(join(dir, 'sub', 'secret')), modeOf(join(dir, 'sub', 'secret'))]).toEqual([GROUP, 0o660]);
    expect(modeOf(join(dir, 'target'))).toBe(0o660);
  });

  it('gives a read-only volume group read only, and chowns symlinks without chmodding their targets', () => {
    const dir = tree();
    chmodSync(join(dir, 'target'), 0o400);
    setVolumeOwnership(dir, GROUP, true);
    expect(modeOf(dir)).toBe(0o2777);
    expect(modeOf(join(dir, 'sub'))).toBe(0o2750);
    expect(modeOf(join(dir, 'sub', 'secret'))).toBe(0o440);
    // The link's target was visited as itself (0400 → 0440), not through the link as 0777.
    expect(modeOf(join(dir, 'target'))).toBe(0o440);
    expect(groupOf(join(dir, 'link'))).toBe(GROUP);
    expect(readlinkSync(join(dir, 'link'))).toBe('target');
  });

  it('does nothing without an fsGroup', () => {
    const dir = tree();
    setVolumeOwnership(dir, undefined, false);
    expect(modeOf(dir)).toBe(0o777);
    expect(modeOf(join(dir, 'sub'))).toBe(0o700);
  });

  it('skips the walk under OnRootMismatch when the root has the group, the bits and setgid', () => {
    const dir = tree();
    expect(requiresPermissionChange(dir, GROUP, false)).toBe(true); // no setgid yet
    lchownSync(dir, -1, GROUP);
    chmodSync(dir, 0o2770);
    setVolumeOwnership(dir, GROUP, false, 'OnRootMismatch');
    expect(modeOf(join(dir, 'sub'))).toBe(0o700); // the root matched: nothing below changed
    setVolumeOwnership(dir, GROUP, false, 'Always');
    expect(modeOf(join(dir, 'sub'))).toBe(0o2770);
    chmodSync(dir, 0o2750); // group write missing: a mismatch
    expect(requiresPermissionChange(dir, GROUP, false)).toBe(true);
    expect(requiresPermissionChange(dir, GROUP, true)).toBe(false);
  });
});

describe('volumes of a pod with an fsGroup', () => {
  const addresses = { podIP: '10.0.0.5', podIPs: ['10.0.0.5'], hostIP: '10.0.0.1', nodeName: 'n1' };

  function manager() {
    const cluster = new FakeCluster();
    const clock = new FakeClock();
    cluster.now = () => clock.now();
    cluster.configMaps.set('shop/settings', { mode: 'fast' });
    cluster.secrets.set('shop/creds', { password: 's3cret' });
    const objects = new ObjectManager(cluster, clock);
    const root = mkdtempSync(join(tmpdir(), 'knode-own-vm-'));
    return new VolumeManager(
      root,
      () => addresses,
      () => {},
      objects,
      () => clock.now(),
    );
  }

  function pod(fsGroup: number | undefined): Pod {
    return {
      metadata: { name: 'web', namespace: 'shop', uid: `uid-${fsGroup ?? 'none'}` },
      spec: {
        containers: [{ name: 'c', image: 'busybox:1.36' }],
        securityContext: fsGroup === undefined ? {} : { fsGroup, fsGroupChangePolicy: 'OnRootMismatch' },
        volumes: [
          { name: 'scratch', emptyDir: {} },
          { name: 'cfg', configMap: { name: 'settings' } },
          { name: 'creds', secret: { secretName: 'creds', defaultMode: 0o400 } },
          { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } },
        ],
      },
    };
  }

  it('makes the emptyDir group-owned 2777 and the projected files group-readable, as the kubelet', async () => {
    const dirs = await manager().waitForAttachAndMount(pod(GROUP));
    const scratch = dirs.get('scratch')!;
    expect([groupOf(scratch), modeOf(scratch)]).toEqual([GROUP, 0o2777]);
    const creds = join(dirs.get('creds')!, '..data', 'password');
    expect([groupOf(creds), modeOf(creds)]).toEqual([GROUP, 0o440]);
    const version = join(dirs.get('cfg')!, readlinkSync(join(dirs.get('cfg')!, '..data')));
    expect([groupOf(version), modeOf(version)]).toEqual([GROUP, 0o2755]);
    expect(groupOf(join(dirs.get('info')!, '..data', 'name'))).toBe(GROUP);
  });

  it('leaves the modes alone without one', async () => {
    const dirs = await manager().waitForAttachAndMount(pod(undefined));
    expect(modeOf(dirs.get('scratch')!)).toBe(0o777);
    expect(modeOf(join(dirs.get('creds')!, '..data', 'password'))).toBe(0o400);
  });

  it('does not rewrite a volume on the next sync because the ownership changed its modes', async () => {
    const m = manager();
    const p = pod(GROUP);
    const dir = (await m.waitForAttachAndMount(p)).get('creds')!;
    const first = readlinkSync(join(dir, '..data'));
    await m.waitForAttachAndMount(p);
    expect(readlinkSync(join(dir, '..data'))).toBe(first);
  });
});
