import { describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { hasLocalStorageLimits, localStorageViolation } from '../../../../src/engine/eviction/local-storage.js';
import type { PodStats } from '../../../../src/engine/stats/types.js';

const Mi = 1024 * 1024;

function pod(spec: Partial<Pod['spec']>): Pod {
  return { metadata: { name: 'p', uid: 'u' }, spec: { containers: [{ name: 'app', image: 'busybox' }], ...spec } } as Pod;
}

function stats(opts: { volume?: number; total?: number; rootfs?: number; logs?: number }): PodStats {
  return {
    podRef: { name: 'p', namespace: 'default', uid: 'u' },
    startTime: '',
    containers: [
      { name: 'app', startTime: '', rootfs: { time: '', usedBytes: opts.rootfs ?? 0 }, logs: { time: '', usedBytes: opts.logs ?? 0 } },
    ],
    volume: [{ name: 'scratch', time: '', usedBytes: opts.volume ?? 0 }],
    'ephemeral-storage': { time: '', usedBytes: opts.total ?? 0 },
  };
}

describe('local storage eviction', () => {
  const sized = pod({ volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '10Mi' } }] });
  const limited = pod({ containers: [{ name: 'app', image: 'busybox', resources: { limits: { 'ephemeral-storage': '5Mi' } } }] });

  it('looks only at pods with a sizeLimit or an ephemeral-storage limit', () => {
    expect(hasLocalStorageLimits(pod({}))).toBe(false);
    expect(hasLocalStorageLimits(pod({ volumes: [{ name: 'm', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } }] }))).toBe(false);
    expect(hasLocalStorageLimits(sized)).toBe(true);
    expect(hasLocalStorageLimits(limited)).toBe(true);
  });

  it('names an emptyDir over its sizeLimit as the kubelet does', () => {
    expect(localStorageViolation(sized, stats({ volume: 9 * Mi }))).toBeUndefined();
    expect(localStorageViolation(sized, stats({ volume: 11 * Mi }))).toBe('Usage of EmptyDir volume "scratch" exceeds the limit "10Mi". ');
  });

  it('checks the pod’s total against the sum of its limits before each container’s own', () => {
    expect(localStorageViolation(limited, stats({ total: 4 * Mi, rootfs: 2 * Mi, logs: Mi }))).toBeUndefined();
    expect(localStorageViolation(limited, stats({ total: 6 * Mi }))).toBe(
      'Pod ephemeral local storage usage exceeds the total limit of containers 5Mi. ',
    );
    const two = pod({
      containers: [
        { name: 'app', image: 'busybox', resources: { limits: { 'ephemeral-storage': '5Mi' } } },
        { name: 'side', image: 'busybox', resources: { limits: { 'ephemeral-storage': '5Mi' } } },
      ],
    });
    expect(localStorageViolation(two, stats({ total: 7 * Mi, rootfs: 4 * Mi, logs: 2 * Mi }))).toBe(
      'Container app exceeded its local ephemeral storage limit "5Mi". ',
    );
  });
});
