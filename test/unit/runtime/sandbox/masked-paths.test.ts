// Masked and read-only paths of a sandboxed container as bwrap arguments:
// where each one is found (the kernel's /proc and /sys, a volume, the root
// file system), and what covers it.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPathList, pathMaskArgs } from '../../../../src/runtime/sandbox/masked-paths.js';

let base: string;
let rootfs: string;
let volume: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'knode-masked-'));
  rootfs = join(base, 'rootfs');
  volume = join(base, 'volume');
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  mkdirSync(join(rootfs, 'tmp'));
  mkdirSync(join(rootfs, 'usr/lib'), { recursive: true });
  writeFileSync(join(rootfs, 'bin/busybox'), '');
  symlinkSync('/bin/busybox', join(rootfs, 'bin/ls'));
  // An absolute link that would leave the root on the host: it resolves inside.
  symlinkSync('/usr/lib', join(rootfs, 'lib'));
  symlinkSync('/etc/passwd', join(rootfs, 'bin/passwd-link'));
  mkdirSync(join(volume, 'cache'), { recursive: true });
  writeFileSync(join(volume, 'secret'), 'x');
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const mounts = () => [{ hostPath: volume, containerPath: '/data' }];

describe('pathMaskArgs', () => {
  it('covers a masked file with /dev/null (a device bind) and a masked directory with an empty read-only tmpfs', () => {
    expect(pathMaskArgs(['/bin/busybox', '/tmp'], [], rootfs, [])).toEqual([
      '--dev-bind',
      '/dev/null',
      '/bin/busybox',
      '--tmpfs',
      '/tmp',
      '--remount-ro',
      '/tmp',
    ]);
  });

  it('binds a read-only path onto itself from where it is, before the masks', () => {
    expect(pathMaskArgs(['/proc/keys'], ['/tmp', '/proc/sys'], rootfs, [])).toEqual([
      '--ro-bind',
      join(rootfs, 'tmp'),
      '/tmp',
      '--ro-bind',
      '/proc/sys',
      '/proc/sys',
      '--dev-bind',
      '/dev/null',
      '/proc/keys',
    ]);
  });

  it('follows symlinks inside the root, never out of it', () => {
    expect(pathMaskArgs(['/bin/ls', '/lib'], [], rootfs, [])).toEqual([
      '--dev-bind',
      '/dev/null',
      '/bin/busybox',
      '--tmpfs',
      '/usr/lib',
      '--remount-ro',
      '/usr/lib',
    ]);
    // /etc/passwd is the host's, not the root's: there is nothing to mask.
    expect(pathMaskArgs(['/bin/passwd-link'], ['/bin/passwd-link'], rootfs, [])).toEqual([]);
  });

  it('finds a path inside a volume in its directory, and the volume itself', () => {
    expect(pathMaskArgs(['/data/secret'], ['/data/cache', '/data'], rootfs, mounts())).toEqual([
      '--ro-bind',
      join(volume, 'cache'),
      '/data/cache',
      '--ro-bind',
      volume,
      '/data',
      '--dev-bind',
      '/dev/null',
      '/data/secret',
    ]);
  });

  it('passes over what is not there, as runc does', () => {
    expect(pathMaskArgs(['/proc/no-such-entry', '/nothing', '/data/nothing'], ['/sys/no-such-dir', '/opt'], rootfs, mounts())).toEqual([]);
  });
});

describe('checkPathList', () => {
  it('takes absolute paths without ".." and names the field of any other', () => {
    expect(() => checkPathList('maskedPaths', ['/proc/kcore', '/a/./b'])).not.toThrow();
    expect(() => checkPathList('maskedPaths', ['proc/kcore'])).toThrow('maskedPaths: "proc/kcore" is not an absolute path');
    expect(() => checkPathList('readonlyPaths', ['/a/../etc'])).toThrow('readonlyPaths: "/a/../etc" has a ".." component');
  });
});
