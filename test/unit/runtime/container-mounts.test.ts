// What the embedded runtime's CreateContainer keeps of a container's mounts
// (recordMounts), image volumes among them: the checks that need no
// sandbox. Mounting them is in test/integration/image-volumes.test.ts.
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Mount__Output } from '../../../src/cri/gen/runtime/v1/Mount.js';
import { recordMounts, type ImageVolumeRoot } from '../../../src/runtime/container-mounts.js';

/** A mount as the CRI server hands it over, every field at its default. */
const mount = (m: Partial<Mount__Output>): Mount__Output => ({
  containerPath: '/vol',
  hostPath: '',
  readonly: false,
  selinuxRelabel: false,
  propagation: 'PROPAGATION_PRIVATE',
  recursiveReadOnly: false,
  image: null,
  imageSubPath: '',
  ...m,
});

/** An image's files for volumes: a root with /data/file and /link, a symlink to /data (absolute, resolved inside the root). */
function imageRoot(): { root: string; find: ImageVolumeRoot; asked: string[] } {
  const root = mkdtempSync(join(tmpdir(), 'knode-volume-root-'));
  mkdirSync(join(root, 'data'));
  symlinkSync('/data', join(root, 'link'));
  const asked: string[] = [];
  return { root, asked, find: (image) => (asked.push(image), image === 'tools:1.0' ? { id: 'sha256:abc', root } : undefined) };
}

describe('recordMounts: image volumes', () => {
  it("keeps the image asked for, its id and where its files (or the sub path's) are; a symlink in the sub path is followed inside the image", () => {
    const { root, find } = imageRoot();
    const image = { image: 'tools:1.0', userSpecifiedImage: 'tools:1.0', annotations: {}, runtimeHandler: '', imageRef: '' };
    expect(
      recordMounts(
        'c',
        [mount({ image, readonly: true }), mount({ containerPath: '/sub', image, readonly: true, imageSubPath: 'link' })],
        undefined,
        find,
      ),
    ).toEqual([
      {
        containerPath: '/vol',
        hostPath: root,
        readonly: true,
        image: { image: 'tools:1.0', imageId: 'sha256:abc', userSpecifiedImage: 'tools:1.0' },
      },
      {
        containerPath: '/sub',
        hostPath: join(root, 'data'),
        readonly: true,
        image: { image: 'tools:1.0', imageId: 'sha256:abc', userSpecifiedImage: 'tools:1.0' },
        imageSubPath: 'link',
      },
    ]);
  });

  it('refuses one in a container that runs as a host process (UNIMPLEMENTED) before it looks for the image', () => {
    const { find, asked } = imageRoot();
    const image = { image: 'tools:1.0', userSpecifiedImage: '', annotations: {}, runtimeHandler: '', imageRef: '' };
    expect(() => recordMounts('c', [mount({ image, readonly: true })], 'sandboxes are turned off (--sandbox off)', find)).toThrow(
      expect.objectContaining({
        code: 12,
        message:
          'container "c": mount /vol: image volumes need a sandbox, and the container runs as a host process (sandboxes are turned off (--sandbox off))',
      }),
    );
    expect(asked).toEqual([]);
  });

  it('says why when the image cannot be stacked (UNKNOWN), naming the mount', () => {
    const image = { image: 'tools:1.0', userSpecifiedImage: '', annotations: {}, runtimeHandler: '', imageRef: '' };
    const broken: ImageVolumeRoot = () => {
      throw new Error('no space left on device');
    };
    expect(() => recordMounts('c', [mount({ image, readonly: true })], undefined, broken)).toThrow(
      expect.objectContaining({
        code: 2,
        message: 'container "c": mount /vol: the files of image volume "tools:1.0" could not be stacked: no space left on device',
      }),
    );
  });
});
