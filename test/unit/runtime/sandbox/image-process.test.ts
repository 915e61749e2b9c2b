import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findInRootfs, imageProcess, mkdirInRoot, resolveInRoot, resolveUser } from '../../../../src/runtime/sandbox/image-process.js';

const none = { command: [], args: [], envs: [], workingDir: '' };

describe('imageProcess: the image config merged with the container config (containerd and Docker rules)', () => {
  const image = {
    Entrypoint: ['/bin/echo', 'entrypoint'],
    Cmd: ['hello'],
    Env: ['PATH=/opt/bin:/bin', 'MODE=image', 'EMPTY='],
    WorkingDir: '/srv',
    User: '1000:1000',
  };

  it('runs Entrypoint with Cmd when the container gives neither command nor args', () => {
    expect(imageProcess(image, none).argv).toEqual(['/bin/echo', 'entrypoint', 'hello']);
  });

  it('keeps the Entrypoint and replaces Cmd with args', () => {
    expect(imageProcess(image, { ...none, args: ['a', 'b'] }).argv).toEqual(['/bin/echo', 'entrypoint', 'a', 'b']);
  });

  it('replaces both with command, and Cmd is not appended to a command', () => {
    expect(imageProcess(image, { ...none, command: ['sh'] }).argv).toEqual(['sh']);
    expect(imageProcess(image, { ...none, command: ['sh'], args: ['-c', 'true'] }).argv).toEqual(['sh', '-c', 'true']);
  });

  it('treats an Entrypoint of [""] as none', () => {
    expect(imageProcess({ Entrypoint: [''], Cmd: ['sleep', '1'] }, none).argv).toEqual(['sleep', '1']);
  });

  it('refuses a container with nothing to run', () => {
    expect(() => imageProcess({ Entrypoint: null, Cmd: null }, none)).toThrow(/no command specified/);
    expect(() => imageProcess(undefined, none)).toThrow(/no command specified/);
  });

  it("layers the container's env over the image's, and gives PATH a default", () => {
    const env = imageProcess(image, {
      ...none,
      envs: [
        { key: 'MODE', value: 'pod' },
        { key: 'X', value: '1' },
      ],
    }).env;
    expect(env).toEqual({ PATH: '/opt/bin:/bin', MODE: 'pod', EMPTY: '', X: '1' });
    expect(imageProcess({ Cmd: ['x'] }, none).env.PATH).toBe('/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  });

  it("takes the container's workingDir, else the image's, else /", () => {
    expect(imageProcess(image, none).cwd).toBe('/srv');
    expect(imageProcess(image, { ...none, workingDir: '/tmp/x/../y' }).cwd).toBe('/tmp/y');
    expect(imageProcess({ Cmd: ['x'] }, none).cwd).toBe('/');
  });

  it("takes the image's User unless the pod asks for runAsUser, runAsUsername or runAsGroup", () => {
    expect(imageProcess(image, none).user).toBe('1000:1000');
    expect(imageProcess(image, { ...none, runAsUser: 0 }).user).toBe('0');
    expect(imageProcess(image, { ...none, runAsUsername: 'app' }).user).toBe('app');
    expect(imageProcess(image, { ...none, runAsUser: 5, runAsGroup: 6 }).user).toBe('5:6');
    expect(imageProcess({ Cmd: ['x'] }, { ...none, runAsGroup: 6 }).user).toBe('0:6');
  });
});

describe('users, groups and programs inside a root file system', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  function rootfs(): string {
    root = mkdtempSync(join(tmpdir(), 'knode-rootfs-'));
    mkdirSync(join(root, 'etc'));
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'usr/bin'), { recursive: true });
    writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n# comment\napp:x:1001:1002::/home/app:/bin/sh\n');
    writeFileSync(join(root, 'etc/group'), 'root:x:0:\nstaff:x:50:\n');
    writeFileSync(join(root, 'bin/busybox'), '', { mode: 0o755 });
    writeFileSync(join(root, 'bin/data'), '', { mode: 0o644 });
    symlinkSync('busybox', join(root, 'bin/sh'));
    symlinkSync('/bin/busybox', join(root, 'usr/bin/env'));
    // Absolute and climbing links resolve inside the root, never to the host's files.
    symlinkSync('/../../../../../../etc/passwd', join(root, 'bin/escape'));
    symlinkSync('loop', join(root, 'bin/loop'));
    return root;
  }

  it('resolves names from /etc/passwd and /etc/group, numbers as they are', () => {
    const r = rootfs();
    expect(resolveUser(r, '')).toEqual({ uid: 0, gid: 0 });
    expect(resolveUser(r, 'app')).toEqual({ uid: 1001, gid: 1002 });
    expect(resolveUser(r, '1001')).toEqual({ uid: 1001, gid: 1002 });
    expect(resolveUser(r, '4242')).toEqual({ uid: 4242, gid: 0 });
    expect(resolveUser(r, 'app:staff')).toEqual({ uid: 1001, gid: 50 });
    expect(resolveUser(r, '7:8')).toEqual({ uid: 7, gid: 8 });
    expect(() => resolveUser(r, 'nobody-here')).toThrow('unable to find user nobody-here: no matching entries in passwd file');
    expect(() => resolveUser(r, 'app:nogroup')).toThrow('unable to find group nogroup: no matching entries in group file');
  });

  it('finds executables through PATH and symlinks inside the root only', () => {
    const r = rootfs();
    expect(findInRootfs(r, 'sh', '/usr/bin:/bin', '/')).toBe('/bin/sh');
    expect(findInRootfs(r, 'env', '/usr/bin:/bin', '/')).toBe('/usr/bin/env');
    expect(findInRootfs(r, './busybox', '', '/bin')).toBe('/bin/busybox');
    expect(findInRootfs(r, 'data', '/bin', '/')).toBeUndefined();
    // A program in a volume is found in the volume's directory, through PATH too.
    const volume = mkdtempSync(join(tmpdir(), 'knode-volume-'));
    writeFileSync(join(volume, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    const mounts = [{ hostPath: volume, containerPath: '/scripts' }];
    expect(findInRootfs(r, '/scripts/run.sh', '', '/', mounts)).toBe('/scripts/run.sh');
    expect(findInRootfs(r, 'run.sh', '/bin:/scripts', '/', mounts)).toBe('/scripts/run.sh');
    expect(findInRootfs(r, '/scripts/run.sh', '', '/')).toBeUndefined();
    rmSync(volume, { recursive: true });
    expect(findInRootfs(r, 'node', '/usr/bin:/bin', '/')).toBeUndefined();
    expect(findInRootfs(r, 'loop', '/bin', '/')).toBeUndefined();
    expect(resolveInRoot(r, '/bin/escape')).toBe(join(r, 'etc/passwd'));
  });

  it('makes a missing working directory inside the root, through its symlinks, and refuses a file on the way', () => {
    const r = rootfs();
    symlinkSync('/srv', join(r, 'bin/to-srv'));
    mkdirSync(join(r, 'srv'));
    mkdirInRoot(r, '/bin/to-srv/app/data');
    expect(existsSync(join(r, 'srv/app/data'))).toBe(true);
    mkdirInRoot(r, '/srv/app');
    expect(() => mkdirInRoot(r, '/bin/busybox/x')).toThrow('the working directory /bin/busybox/x is not a directory: /bin/busybox');
  });
});
