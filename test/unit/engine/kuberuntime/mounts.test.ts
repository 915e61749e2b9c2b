// The container's mounts as the kubelet makes them (makeMounts): each
// volumeMount at its path, with its propagation as CRI names it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Container } from '../../../../src/engine/api/v1.js';
import { makeMounts } from '../../../../src/engine/kuberuntime/mounts.js';

describe('makeMounts', () => {
  it("keeps each volumeMount's propagation (translateMountPropagation), None and nothing as private", () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-mounts-'));
    const container: Container = {
      name: 'c',
      image: 'busybox',
      volumeMounts: [
        { name: 'v', mountPath: '/a' },
        { name: 'v', mountPath: '/b', mountPropagation: 'None' },
        { name: 'v', mountPath: '/c', mountPropagation: 'HostToContainer', readOnly: true },
        { name: 'v', mountPath: '/d', mountPropagation: 'Bidirectional' },
      ],
    };
    expect(makeMounts(container, new Map([['v', dir]]))).toEqual([
      { containerPath: '/a', hostPath: dir, readonly: false },
      { containerPath: '/b', hostPath: dir, readonly: false },
      { containerPath: '/c', hostPath: dir, readonly: true, propagation: 'PROPAGATION_HOST_TO_CONTAINER' },
      { containerPath: '/d', hostPath: dir, readonly: false, propagation: 'PROPAGATION_BIDIRECTIONAL' },
    ]);
  });

  it('resolves recursiveReadOnly as the kubelet does: IfPossible where the runtime can, Enabled or a CreateContainerConfigError', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-mounts-'));
    const volumes = new Map([['v', dir]]);
    const withMount = (m: Partial<NonNullable<Container['volumeMounts']>[number]>): Container => ({
      name: 'c',
      image: 'busybox',
      volumeMounts: [{ name: 'v', mountPath: '/v', readOnly: true, ...m }],
    });
    expect(makeMounts(withMount({ recursiveReadOnly: 'IfPossible' }), volumes, true)[0].recursiveReadOnly).toBe(true);
    expect(makeMounts(withMount({ recursiveReadOnly: 'IfPossible' }), volumes, false)[0]).not.toHaveProperty('recursiveReadOnly');
    expect(makeMounts(withMount({ recursiveReadOnly: 'Enabled' }), volumes, true)[0].recursiveReadOnly).toBe(true);
    expect(makeMounts(withMount({ recursiveReadOnly: 'Disabled' }), volumes, true)[0]).not.toHaveProperty('recursiveReadOnly');
    expect(() => makeMounts(withMount({ recursiveReadOnly: 'Enabled' }), volumes, false)).toThrow(
      'volume "v" requested recursive read-only mode, but it is not supported by the runtime',
    );
    expect(() => makeMounts(withMount({ recursiveReadOnly: 'Enabled', readOnly: false }), volumes, true)).toThrow(
      'volume "v" requested recursive read-only mode, but it is not read-only',
    );
    expect(() => makeMounts(withMount({ recursiveReadOnly: 'IfPossible', mountPropagation: 'HostToContainer' }), volumes, true)).toThrow(
      'volume "v" requested recursive read-only mode, but it is not compatible with propagation "HostToContainer"',
    );
  });

  it('makes an image volume the pulled image, read-only whatever the mount says, with no host path and its subPath for the runtime to find', () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-mounts-'));
    const image = { image: 'sha256:abc', userSpecifiedImage: 'tools:1.0' };
    const container: Container = {
      name: 'c',
      image: 'busybox',
      volumeMounts: [
        { name: 'tools', mountPath: '/tools' },
        { name: 'tools', mountPath: '/bin-only', subPath: 'usr/bin' },
        { name: 'v', mountPath: '/v' },
      ],
    };
    expect(
      makeMounts(
        container,
        new Map([
          ['tools', ''],
          ['v', dir],
        ]),
        false,
        new Map([['tools', image]]),
      ),
    ).toEqual([
      { containerPath: '/tools', hostPath: '', image, imageSubPath: '', readonly: true },
      { containerPath: '/bin-only', hostPath: '', image, imageSubPath: 'usr/bin', readonly: true },
      { containerPath: '/v', hostPath: dir, readonly: false },
    ]);
    const escaping: Container = { name: 'c', image: 'busybox', volumeMounts: [{ name: 'tools', mountPath: '/t', subPath: '../etc' }] };
    expect(() => makeMounts(escaping, new Map([['tools', '']]), false, new Map([['tools', image]]))).toThrow(
      'subPath "../etc" of volume "tools" must be a relative path inside the volume',
    );
  });
});
