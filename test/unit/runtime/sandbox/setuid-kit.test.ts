import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  prepareSetuidKit,
  seccompPrefix,
  setuidPrefix,
  STATIC_APPLETS,
  STATIC_INIT,
  staticApplet,
} from '../../../../src/runtime/sandbox/setuid-kit.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the setuid kit', () => {
  it("copies the host's setpriv with the loader and libraries ldd names, and runs it through that loader inside the sandbox", () => {
    dir = mkdtempSync(join(tmpdir(), 'knode-kit-'));
    const kit = prepareSetuidKit(join(dir, 'kit'), '/usr/bin/setpriv');
    expect(kit).toMatchObject({
      ok: true,
      dir: join(dir, 'kit'),
      loader: expect.stringMatching(/^ld-linux.*\.so\.\d+$/),
      programs: [],
      applets: false,
    });
    if (!kit.ok) throw new Error(kit.reason);
    const files = readdirSync(kit.dir);
    expect(files).toEqual(expect.arrayContaining(['setpriv', kit.loader, 'libc.so.6']));
    expect(files.some((f) => f.includes('.partial-'))).toBe(false);
    expect(setuidPrefix(kit, 1000, 2000)).toEqual([
      `/.knode/${kit.loader}`,
      '--library-path',
      '/.knode',
      '/.knode/setpriv',
      '--reuid=1000',
      '--regid=2000',
      '--clear-groups',
      '--',
    ]);
  });

  it('holds bwrap, mount and umount too when asked, with their libraries (bwrap loads a seccomp filter for an exec)', () => {
    dir = mkdtempSync(join(tmpdir(), 'knode-kit-'));
    const kit = prepareSetuidKit(join(dir, 'kit'), '/usr/bin/setpriv', [
      '/usr/bin/bwrap',
      undefined,
      '/usr/bin/umount',
      join(dir, 'missing'),
    ]);
    if (!kit.ok) throw new Error(kit.reason);
    expect(kit.programs).toEqual(['bwrap', 'umount']);
    expect(readdirSync(kit.dir)).toEqual(expect.arrayContaining(['setpriv', 'bwrap', 'libcap.so.2', 'umount', 'libmount.so.1']));
    expect(seccompPrefix(kit, 3)).toEqual([
      `/.knode/${kit.loader}`,
      '--library-path',
      '/.knode',
      '/.knode/bwrap',
      '--dev-bind',
      '/',
      '/',
      '--seccomp',
      '3',
      '--',
    ]);
  });

  it('holds a static busybox when given one, run as mount, umount, nsenter and unshare by links of those names, and as the set-up shell; never a dynamic one', () => {
    dir = mkdtempSync(join(tmpdir(), 'knode-kit-'));
    // Debian's busybox-static, which .ci/run installs.
    const kit = prepareSetuidKit(join(dir, 'kit'), '/usr/bin/setpriv', [], '/bin/busybox');
    if (!kit.ok) throw new Error(kit.reason);
    expect(kit.applets).toBe(true);
    for (const applet of STATIC_APPLETS) {
      expect(readlinkSync(join(kit.dir, 'static', applet))).toBe('busybox');
      expect(staticApplet(kit, applet)).toBe(join(kit.dir, 'static', applet));
    }
    // Run by its link's name, it is that applet.
    const res = spawnSync(staticApplet(kit, 'umount')!, ['--help'], { encoding: 'utf8' });
    expect(res.stderr).toMatch(/Usage: umount/);
    // The set-up shell, by a name of its own that is busybox's: its first argument names the applet, here its shell.
    const init = staticApplet(kit, STATIC_INIT)!;
    expect(readlinkSync(init)).toBe('busybox');
    expect(spawnSync(init, ['sh', '-c', 'echo "$0 $1";', 'zero', 'one'], { encoding: 'utf8' }).stdout).toBe('zero one\n');
    // setpriv links against the loader: not static, so no applets (a dynamic one would need its libraries after pivot_root).
    const dynamic = prepareSetuidKit(join(dir, 'kit2'), '/usr/bin/setpriv', [], '/usr/bin/setpriv');
    expect(dynamic).toMatchObject({ ok: true, applets: false });
    expect(dynamic.ok && staticApplet(dynamic, 'mount')).toBeUndefined();
    expect(existsSync(join(dir, 'kit2', 'static'))).toBe(false);
  });

  it('keeps the kit a runtime made before while its programs are the same files, and makes it again when one changed', () => {
    dir = mkdtempSync(join(tmpdir(), 'knode-kit-'));
    // A setpriv of the test's own, so that it can change.
    const setpriv = join(dir, 'setpriv');
    copyFileSync('/usr/bin/setpriv', setpriv);
    const kitDir = join(dir, 'kit');
    const first = prepareSetuidKit(kitDir, setpriv, ['/usr/bin/umount'], '/bin/busybox');
    if (!first.ok) throw new Error(first.reason);
    const made = statSync(kitDir).ino;
    expect(prepareSetuidKit(kitDir, setpriv, ['/usr/bin/umount'], '/bin/busybox')).toEqual(first);
    expect(statSync(kitDir).ino).toBe(made);
    // Another set of programs, a changed program, or a kit missing a file it held: made again.
    expect(prepareSetuidKit(kitDir, setpriv, [], '/bin/busybox')).toEqual({ ...first, programs: [] });
    expect(statSync(kitDir).ino).not.toBe(made);
    const again = statSync(kitDir).ino;
    expect(prepareSetuidKit(kitDir, setpriv, [], '/bin/busybox').ok).toBe(true);
    expect(statSync(kitDir).ino).toBe(again);
    utimesSync(setpriv, new Date(), new Date(Date.now() - 60_000));
    expect(prepareSetuidKit(kitDir, setpriv, [], '/bin/busybox').ok).toBe(true);
    expect(statSync(kitDir).ino).not.toBe(again);
    const touched = statSync(kitDir).ino;
    rmSync(join(kitDir, first.loader));
    expect(prepareSetuidKit(kitDir, setpriv, [], '/bin/busybox')).toEqual({ ...first, programs: [] });
    expect(statSync(kitDir).ino).not.toBe(touched);
    expect(existsSync(join(kitDir, first.loader))).toBe(true);
  });

  it('says why there is none without setpriv, or when ldd cannot read it', () => {
    dir = mkdtempSync(join(tmpdir(), 'knode-kit-'));
    expect(prepareSetuidKit(join(dir, 'kit'), undefined)).toEqual({ ok: false, reason: 'setpriv (util-linux) is not installed' });
    expect(prepareSetuidKit(join(dir, 'kit'), join(dir, 'missing'))).toMatchObject({ ok: false, reason: expect.stringContaining('ldd') });
    expect(existsSync(join(dir, 'kit'))).toBe(false);
  });
});
