import { describe, expect, it } from 'vitest';
import type { Image } from '../../../src/cri/types.js';
import { imageTable } from '../../../src/ui/image-table.js';

const image = (id: string, tags: string[]): Image =>
  ({ id, repoTags: tags, repoDigests: [], size: '4400000', pinned: false }) as unknown as Image;

describe('the image table', () => {
  const images = [image('sha256:aaaa', ['docker.io/library/busybox:1.36']), image('sha256:bbbb', ['registry.k8s.io/pause:3.10'])];

  it('prints crictl images’ columns', () => {
    expect(imageTable(images).split('\n')).toEqual([
      'IMAGE                       TAG    IMAGE ID   SIZE',
      'docker.io/library/busybox   1.36   aaaa       4.40MB',
      'registry.k8s.io/pause       3.10   bbbb       4.40MB',
    ]);
  });

  it('adds LAST USED from a running node: an age, never, or unknown to it', () => {
    const now = Date.UTC(2026, 0, 1, 12);
    const use = { now, lastUsed: new Map([['sha256:aaaa', now - 95_000]]) };
    expect(
      imageTable(images, use)
        .split('\n')
        .map((l) => l.replace(/\s+/g, ' ')),
    ).toEqual([
      'IMAGE TAG IMAGE ID SIZE LAST USED',
      'docker.io/library/busybox 1.36 aaaa 4.40MB 95s ago',
      'registry.k8s.io/pause 3.10 bbbb 4.40MB <unknown>',
    ]);
    use.lastUsed.set('sha256:bbbb', 0);
    expect(imageTable(images, use)).toMatch(/pause\s+3\.10\s+bbbb\s+4\.40MB\s+never$/);
  });
});
