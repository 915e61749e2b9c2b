import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeInRoot } from '../../../../src/runtime/sandbox/image-process.js';
import { makeInLayers, resolveInLayers, type OverlayLayers } from '../../../../src/runtime/sandbox/overlay-layers.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) {
    spawnSync('umount', [join(dir, 'merged')], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  }
});

/** An image's stacked layers with /etc (0750, owned by 1000 as root), /proc, /run, a file /bin/sh, /var/run -> /run, a dangling /var/lock -> /run/lock and an escaping /up -> ../../.., and an empty upper layer. */
function overlay(): OverlayLayers & { dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'knode-layers-'));
  made.push(dir);
  const lower = join(dir, 'lower');
  for (const sub of ['etc', 'proc', 'run', 'bin', 'var', 'upper', 'work', 'merged'].map((d) =>
    ['upper', 'work', 'merged'].includes(d) ? join(dir, d) : join(lower, d),
  ))
    mkdirSync(sub, { recursive: true });
  chmodSync(join(lower, 'etc'), 0o750);
  if (process.getuid?.() === 0) chownSync(join(lower, 'etc'), 1000, 1000);
  writeFileSync(join(lower, 'bin', 'sh'), '');
  symlinkSync('/run', join(lower, 'var', 'run'));
  symlinkSync('/run/lock', join(lower, 'var', 'lock'));
  symlinkSync('../../..', join(lower, 'up'));
  return { dir, lower, upper: join(dir, 'upper') };
}

const mode = (path: string) => statSync(path).mode & 0o7777;

describe('makeInLayers', () => {
  it('finds what the image has, makes nothing for it, and follows its symlinks inside the root', () => {
    const layers = overlay();
    expect(makeInLayers(layers, '/proc', 'directory', 'the mount point')).toBe('/proc');
    expect(makeInLayers(layers, '/var/run/x', 'directory', 'the mount point')).toBe('/run/x');
    expect(makeInLayers(layers, '/up/etc/hostname', 'file', 'the mount point')).toBe('/etc/hostname');
    expect(resolveInLayers(layers, '/var/run')).toBe('/run');
    expect(resolveInLayers(layers, '/nowhere/x')).toBeUndefined();
    expect(() => lstatSync(join(layers.upper, 'proc'))).toThrow();
  });

  it("makes what is missing in the upper layer, an image's directory on the way first with its mode, and refuses a file on the way", () => {
    const layers = overlay();
    expect(makeInLayers(layers, '/etc/hostname', 'file', 'the mount point')).toBe('/etc/hostname');
    expect(mode(join(layers.upper, 'etc'))).toBe(0o750);
    expect(lstatSync(join(layers.upper, 'etc', 'hostname')).isFile()).toBe(true);
    // Made once: found in the upper layer the next time.
    expect(makeInLayers(layers, '/etc/hostname', 'file', 'the mount point')).toBe('/etc/hostname');
    expect(makeInLayers(layers, '/.knode', 'directory', 'the mount point')).toBe('/.knode');
    expect(() => makeInLayers(layers, '/bin/sh/x', 'directory', 'the mount point')).toThrow(
      'the mount point /bin/sh/x is not a directory: /bin/sh',
    );
    // A dangling symlink is not followed, nor made over.
    expect(() => makeInLayers(layers, '/var/lock/x', 'directory', 'the mount point')).toThrow(
      'cannot make the mount point /var/lock/x: EEXIST at /var/lock',
    );
    expect(() => lstatSync(join(layers.upper, 'var'))).toThrow();
  });

  it.skipIf(process.getuid?.() !== 0)('gives the mounted overlay what makeInRoot makes in it once mounted', () => {
    const paths: [string, 'directory' | 'file'][] = [
      ['/proc', 'directory'],
      ['/.knode', 'directory'],
      ['/etc/hostname', 'file'],
      ['/etc/resolv.conf', 'file'],
      ['/var/run/secrets/token', 'directory'],
      ['/data/deep/dir', 'directory'],
    ];
    const before = overlay();
    const early = paths.map(([path, kind]) => makeInLayers(before, path, kind, 'the mount point'));
    const mount = (o: OverlayLayers & { dir: string }) => {
      const res = spawnSync(
        'mount',
        ['-t', 'overlay', 'overlay', '-o', `lowerdir=${o.lower},upperdir=${o.upper},workdir=${join(o.dir, 'work')}`, join(o.dir, 'merged')],
        { encoding: 'utf8' },
      );
      expect(res.status, res.stderr).toBe(0);
      return join(o.dir, 'merged');
    };
    const mergedEarly = mount(before);
    const after = overlay();
    const mergedAfter = mount(after);
    const late = paths.map(([path, kind]) => makeInRoot(mergedAfter, path, kind, 'the mount point'));
    expect(early).toEqual(late);
    for (const resolved of early) {
      const [a, b] = [lstatSync(join(mergedEarly, resolved)), lstatSync(join(mergedAfter, resolved))];
      expect({ dir: a.isDirectory(), mode: a.mode, uid: a.uid, gid: a.gid }).toEqual({
        dir: b.isDirectory(),
        mode: b.mode,
        uid: b.uid,
        gid: b.gid,
      });
    }
    expect(mode(join(mergedEarly, 'etc'))).toBe(0o750);
    expect(statSync(join(mergedEarly, 'etc')).uid).toBe(1000);
    expect(() => makeInRoot(mergedAfter, '/var/lock/x', 'directory', 'the mount point')).toThrow(
      'cannot make the mount point /var/lock/x: EEXIST at /var/lock',
    );
    // The image's files are still seen through a directory made in the upper layer.
    expect(lstatSync(join(mergedEarly, 'bin', 'sh')).isFile()).toBe(true);
  });
});
