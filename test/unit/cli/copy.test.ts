// knode cp's path checks (kubectl's filespec.go and untarAll): which entries of
// a pod's archive land where, which are refused, and the archive cp sends.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { archivePrefix, isRelative, parseFileSpec, placeEntry, stripPathShortcuts } from '../../../src/cli/copy-paths.js';
import { packTree, untarAll, type UntarOptions } from '../../../src/cli/copy-tar.js';
import { chunks, makeTar, type TarSpec } from '../../helpers/tar.js';

describe('parseFileSpec', () => {
  it.each([
    ['/tmp/foo', { file: '/tmp/foo' }],
    ['dir/', { file: 'dir' }],
    ['web:/tmp/foo', { pod: 'web', file: '/tmp/foo' }],
    ['other/web:/tmp/foo/', { namespace: 'other', pod: 'web', file: '/tmp/foo' }],
    ['web:', { pod: 'web', file: '' }],
    ['web:C:\\x\\y', { pod: 'web', file: 'C:/x/y' }],
  ])('%s', (arg, spec) => expect(parseFileSpec(arg)).toEqual(spec));

  it.each([':/tmp', 'a/b/c:/tmp'])("refuses %s in kubectl's words", (arg) =>
    expect(() => parseFileSpec(arg)).toThrow('error: filespec must match the canonical format: [[namespace/]pod:]file/path'),
  );
});

describe('stripPathShortcuts and archivePrefix', () => {
  it.each([
    ['../../a/b', 'a/b'],
    ['..', ''],
    ['.', ''],
    ['/a', 'a'],
    ['a/../b', 'a/../b'],
  ])('stripPathShortcuts(%s) = %s', (path, stripped) => expect(stripPathShortcuts(path)).toBe(stripped));

  it.each([
    ['/tmp/foo', 'tmp/foo'],
    ['/tmp/foo/', 'tmp/foo'],
    ['//tmp/./foo', 'tmp/foo'],
    ['/../../etc', 'etc'],
    ['/', ''],
    ['relative/x', 'relative/x'],
  ])('archivePrefix(%s) = %s', (source, prefix) => expect(archivePrefix(source)).toBe(prefix));
});

describe('placeEntry', () => {
  it.each([
    ['tmp/foo', 'tmp/foo', 'out', { kind: 'inside', path: 'out' }],
    ['tmp/foo/', 'tmp/foo', 'out', { kind: 'inside', path: 'out/' }],
    ['tmp/foo/a/b.txt', 'tmp/foo', 'out', { kind: 'inside', path: 'out/a/b.txt' }],
    ['tmp/foo/../../x', 'tmp/foo', 'out', { kind: 'outside', path: '../x' }],
    ['tmp/foo/a/../../../x', 'tmp/foo', '/dest', { kind: 'outside', path: '/x' }],
    ['tmp/foo/..', 'tmp/foo', '/dest', { kind: 'outside', path: '/' }],
    ['tmp/foo/a/../b', 'tmp/foo', '/dest', { kind: 'inside', path: '/dest/b' }],
    // An absolute name or one without the prefix: the archive was tampered with.
    ['/etc/passwd', 'tmp/foo', 'out', { kind: 'corrupted' }],
    ['etc/passwd', 'tmp/foo', 'out', { kind: 'corrupted' }],
    // With an empty prefix (a copy of /), an absolute name stays under the destination.
    ['/etc/passwd', '', '/dest', { kind: 'inside', path: '/dest/etc/passwd' }],
    ['../etc/passwd', '', '/dest', { kind: 'outside', path: '/etc/passwd' }],
  ])('%s (prefix %s) under %s', (name, prefix, destination, place) => expect(placeEntry(name, prefix, destination)).toEqual(place));

  it('isRelative is lexical', () => {
    expect(isRelative('/a/b', '/a/b')).toBe(true);
    expect(isRelative('/a/b', '/a/b/c')).toBe(true);
    expect(isRelative('/a/b', '/a/bc')).toBe(false);
    expect(isRelative('/a/b', '/a')).toBe(false);
    expect(isRelative('/a/b', '/a/b/..hidden')).toBe(true);
  });
});

async function untar(entries: TarSpec[], prefix: string, options: Partial<UntarOptions> = {}) {
  const destination = join(mkdtempSync(join(tmpdir(), 'knode-cp-')), 'dest');
  const warnings: string[] = [];
  const run = untarAll(chunks(makeTar(entries), 300), {
    prefix,
    destination,
    preserve: true,
    warn: (m) => warnings.push(m),
    symlinkHint: 'knode exec -n "default" "web" -- tar cf - "/tmp/foo" | tar xf -',
    ...options,
  });
  return { destination, warnings, run };
}

describe('untarAll', () => {
  it('writes files and directories under the destination with their modes, the prefix stripped', async () => {
    const { destination, warnings, run } = await untar(
      [
        { path: 'tmp/foo', type: 'dir', mode: 0o750 },
        { path: 'tmp/foo/run.sh', content: '#!/bin/sh\n', mode: 0o755 },
        { path: 'tmp/foo/sub', type: 'dir', mode: 0o500 },
        { path: 'tmp/foo/sub/data', content: 'x'.repeat(5000), mode: 0o600 },
      ],
      'tmp/foo',
    );
    await run;
    expect(warnings).toEqual([]);
    expect(readFileSync(join(destination, 'run.sh'), 'utf8')).toBe('#!/bin/sh\n');
    expect(lstatSync(join(destination, 'run.sh')).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(destination, 'sub/data'), 'utf8')).toBe('x'.repeat(5000));
    expect(lstatSync(join(destination, 'sub/data')).mode & 0o777).toBe(0o600);
    expect(lstatSync(join(destination, 'sub')).mode & 0o777).toBe(0o500);
    expect(lstatSync(destination).mode & 0o777).toBe(0o750);
    chmodSync(join(destination, 'sub'), 0o700);
  });

  it('writes a single file as the destination itself', async () => {
    const { destination, run } = await untar([{ path: 'tmp/one.txt', content: 'one' }], 'tmp/one.txt');
    await run;
    expect(readFileSync(destination, 'utf8')).toBe('one');
  });

  it("skips entries that climb out and every symlink, with kubectl's warnings; the first symlink gets the hint", async () => {
    const parent = mkdtempSync(join(tmpdir(), 'knode-cp-'));
    const destination = join(parent, 'dest');
    const warnings: string[] = [];
    await untarAll(
      chunks(
        makeTar([
          { path: 'tmp/foo/ok', content: 'fine' },
          { path: 'tmp/foo/../escaped', content: 'bad' },
          { path: 'tmp/foo/a/../../../../escaped-far', content: 'bad' },
          { path: 'tmp/foo/out', type: 'symlink', linkPath: '/etc' },
          { path: 'tmp/foo/up', type: 'symlink', linkPath: '../../..' },
          { path: 'tmp/foo/in', type: 'symlink', linkPath: 'ok' },
        ]),
      ),
      {
        prefix: 'tmp/foo',
        destination,
        preserve: true,
        warn: (m) => warnings.push(m),
        symlinkHint: 'knode exec -n "default" "web" -- tar cf - "/tmp/foo" | tar xf -',
      },
    );
    expect(readdirSync(destination)).toEqual(['ok']);
    expect(readdirSync(parent)).toEqual(['dest']);
    expect(warnings).toEqual([
      `warning: file "${parent}/escaped" is outside target destination, skipping`,
      `warning: file "${join(parent, '../../escaped-far')}" is outside target destination, skipping`,
      `warning: skipping symlink: "${destination}/out" -> "/etc" (consider using "knode exec -n "default" "web" -- tar cf - "/tmp/foo" | tar xf -")`,
      `warning: skipping symlink: "${destination}/up" -> "../../.."`,
      `warning: skipping symlink: "${destination}/in" -> "ok"`,
    ]);
    expect(existsSync(join(parent, '../../escaped-far'))).toBe(false);
  });

  it('fails on an entry outside the prefix (an absolute name, another directory): tar contents corrupted', async () => {
    for (const path of ['/etc/cron.d/evil', 'etc/passwd']) {
      const { destination, run } = await untar(
        [
          { path: 'tmp/foo/ok', content: 'fine' },
          { path, content: 'bad' },
        ],
        'tmp/foo',
      );
      await expect(run).rejects.toThrow('error: tar contents corrupted');
      expect(readdirSync(destination)).toEqual(['ok']);
    }
  });

  it('makes a hard link or a device a plain file, never a link', async () => {
    const { destination, run } = await untar(
      [
        { path: 'tmp/foo/ok', content: 'fine' },
        { path: 'tmp/foo/hard', type: 'hardlink', linkPath: 'etc/passwd' },
      ],
      'tmp/foo',
    );
    await run;
    expect(lstatSync(join(destination, 'hard')).isFile()).toBe(true);
    expect(readFileSync(join(destination, 'hard'), 'utf8')).toBe('');
  });

  it('--no-preserve leaves the modes to the umask', async () => {
    const { destination, run } = await untar([{ path: 'tmp/x', content: 'x', mode: 0o700 }], 'tmp/x', { preserve: false });
    await run;
    expect(lstatSync(destination).mode & 0o777).toBe(0o666 & ~process.umask());
  });
});

describe('packTree', () => {
  it('names the entries from the destination and keeps modes, symlinks and empty directories', async () => {
    const source = join(mkdtempSync(join(tmpdir(), 'knode-cp-')), 'src');
    mkdirSync(join(source, 'empty'), { recursive: true });
    writeFileSync(join(source, 'run.sh'), 'echo hi\n', { mode: 0o751 });
    symlinkSync('run.sh', join(source, 'link'));
    const names: string[] = [];
    const destination = join(mkdtempSync(join(tmpdir(), 'knode-cp-')), 'back');
    const warnings: string[] = [];
    const archive = packTree(source, 'bar');
    const tee = (async function* () {
      for await (const chunk of archive) yield chunk as Buffer;
    })();
    await untarAll(tee, { prefix: 'bar', destination, preserve: true, warn: (m) => warnings.push(m), symlinkHint: '' });
    names.push(...readdirSync(destination).sort());
    expect(names).toEqual(['empty', 'run.sh']);
    expect(lstatSync(join(destination, 'run.sh')).mode & 0o777).toBe(0o751);
    expect(warnings).toEqual([`warning: skipping symlink: "${destination}/link" -> "run.sh" (consider using "")`]);
  });
});
