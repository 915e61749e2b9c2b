import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readTar } from '../../../../src/runtime/oci/tar.js';
import { composeRootfs } from '../../../../src/runtime/oci/rootfs.js';
import { LayerEntryError, unpackLayer } from '../../../../src/runtime/oci/unpack.js';
import { chunks, makeTar, makeTarGz, type TarSpec } from '../../../helpers/tar.js';

const dirs: string[] = [];
function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-unpack-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function unpack(entries: TarSpec[], gzip = false) {
  const dir = join(scratch(), 'layer');
  const tar = gzip ? makeTarGz(entries) : makeTar(entries);
  return { dir, layer: await unpackLayer(chunks(tar), dir) };
}

describe('readTar', () => {
  it('reads ustar entries, pax long names and content split across chunks', async () => {
    const long = `${'d'.repeat(120)}/file`;
    const tar = makeTar([
      { path: 'a', type: 'dir' },
      { path: 'a/b', content: 'hello' },
      { path: long, content: 'x'.repeat(1000) },
      { path: 'l', type: 'symlink', linkPath: 'a/b' },
    ]);
    const seen: [string, string, string][] = [];
    for await (const { entry, body } of readTar(chunks(tar, 97))) {
      let text = '';
      for await (const c of body) text += c.toString();
      seen.push([entry.path, entry.type, entry.type === 'symlink' ? entry.linkPath : String(text.length)]);
    }
    expect(seen).toEqual([
      ['a/', 'directory', '0'],
      ['a/b', 'file', '5'],
      [long, 'file', '1000'],
      ['l', 'symlink', 'a/b'],
    ]);
  });

  it('joins a POSIX ustar prefix and name', async () => {
    const names: string[] = [];
    for await (const { entry } of readTar(chunks(makeTar([{ path: 'file', prefix: 'usr/share/very/deep', content: 'x' }]))))
      names.push(entry.path);
    expect(names).toEqual(['usr/share/very/deep/file']);
  });

  it('skips the bodies a reader leaves unread', async () => {
    const tar = makeTar([
      { path: 'big', content: 'y'.repeat(5000) },
      { path: 'next', content: 'z' },
    ]);
    const names: string[] = [];
    for await (const { entry } of readTar(chunks(tar))) names.push(entry.path);
    expect(names).toEqual(['big', 'next']);
  });

  it('refuses a corrupt header', async () => {
    const tar = makeTar([{ path: 'a', content: 'x' }]);
    tar[0] ^= 0xff;
    await expect(async () => {
      for await (const _ of readTar(chunks(tar))) void _;
    }).rejects.toThrow(/checksum/);
  });
});

describe('unpackLayer', () => {
  it('writes files, directories, symlinks and hard links with their modes, and computes the diff_id over the whole tar', async () => {
    const entries: TarSpec[] = [
      { path: './bin', type: 'dir', mode: 0o755 },
      { path: './bin/tool', content: '#!/bin/sh\n', mode: 0o755 },
      { path: './bin/sh', type: 'symlink', linkPath: '/bin/tool' },
      { path: './bin/hard', type: 'hardlink', linkPath: './bin/tool' },
      { path: './etc/conf', content: 'a=1', mode: 0o600 },
      { path: './dev/null', type: 'char' },
      // Setuid and setgid bits survive the owner being set (a chown after the chmod would clear them).
      { path: './bin/su', content: 'x', mode: 0o4755, uid: 0, gid: 0 },
      { path: './srv', type: 'dir', mode: 0o2775, uid: 1000, gid: 1000 },
    ];
    const { dir, layer } = await unpack(entries, true);
    expect(readFileSync(join(dir, 'bin/tool'), 'utf8')).toBe('#!/bin/sh\n');
    expect(statSync(join(dir, 'bin/tool')).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, 'etc/conf')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'bin/su')).mode & 0o7777).toBe(0o4755);
    expect(statSync(join(dir, 'srv')).mode & 0o7777).toBe(0o2775);
    // Absolute symlink targets are kept as they are: only following them while unpacking is refused.
    expect(readlinkSync(join(dir, 'bin/sh'))).toBe('/bin/tool');
    expect(statSync(join(dir, 'bin/hard')).ino).toBe(statSync(join(dir, 'bin/tool')).ino);
    expect(layer.skipped).toEqual(['dev/null']);
    expect(layer.diffId).toBe(`sha256:${createHash('sha256').update(makeTar(entries)).digest('hex')}`);
  });

  it('records whiteouts and opaque directories instead of writing them', async () => {
    const { dir, layer } = await unpack([
      { path: 'data', type: 'dir' },
      { path: 'data/.wh.removed' },
      { path: 'data/opaque/.wh..wh..opq' },
      { path: 'data/opaque/new', content: 'n' },
      { path: '.wh.top' },
      { path: 'data/.wh..wh.plnk' },
    ]);
    expect(layer.whiteouts.sort()).toEqual(['data/removed', 'top']);
    expect(layer.opaque).toEqual(['data/opaque']);
    expect(existsSync(join(dir, 'data/.wh.removed'))).toBe(false);
    expect(existsSync(join(dir, 'data/opaque/.wh..wh..opq'))).toBe(false);
    expect(readFileSync(join(dir, 'data/opaque/new'), 'utf8')).toBe('n');
  });

  it('follows a relative symlink that stays inside the layer', async () => {
    const { dir } = await unpack([
      { path: 'usr/lib', type: 'dir' },
      { path: 'lib', type: 'symlink', linkPath: 'usr/lib' },
      { path: 'lib/x.so', content: 'so' },
    ]);
    expect(readFileSync(join(dir, 'usr/lib/x.so'), 'utf8')).toBe('so');
    expect(lstatSync(join(dir, 'lib')).isSymbolicLink()).toBe(true);
  });

  it('replaces a symlink by a file instead of writing through it', async () => {
    const outside = join(scratch(), 'victim');
    const { dir } = await unpack([
      { path: 'f', type: 'symlink', linkPath: outside },
      { path: 'f', content: 'mine' },
    ]);
    expect(readFileSync(join(dir, 'f'), 'utf8')).toBe('mine');
    expect(existsSync(outside)).toBe(false);
  });

  it.each<[string, TarSpec[], string]>([
    ['a ../ entry', [{ path: '../escape', content: 'x' }], '../escape'],
    ['a ../ in the middle', [{ path: 'a/../../escape', content: 'x' }], 'a/../../escape'],
    ['an absolute path', [{ path: '/etc/passwd', content: 'x' }], '/etc/passwd'],
    [
      'a write through an absolute symlink',
      [
        { path: 'etc', type: 'symlink', linkPath: '/etc' },
        { path: 'etc/evil', content: 'x' },
      ],
      'etc/evil',
    ],
    [
      'a write through a relative symlink out',
      [
        { path: 'up', type: 'symlink', linkPath: '../..' },
        { path: 'up/evil', content: 'x' },
      ],
      'up/evil',
    ],
    [
      'a symlink chain leading out',
      [
        { path: 'a', type: 'symlink', linkPath: 'b' },
        { path: 'b', type: 'symlink', linkPath: 'c/..' },
        { path: 'c', type: 'symlink', linkPath: '..' },
        { path: 'a/evil', content: 'x' },
      ],
      'a/evil',
    ],
    [
      'a symlink loop',
      [
        { path: 'a', type: 'symlink', linkPath: 'b' },
        { path: 'b', type: 'symlink', linkPath: 'a' },
        { path: 'a/x', content: 'x' },
      ],
      'a/x',
    ],
    ['a hard link to ../', [{ path: 'h', type: 'hardlink', linkPath: '../../etc/passwd' }], 'h'],
    ['a hard link to an absolute path', [{ path: 'h', type: 'hardlink', linkPath: '/etc/passwd' }], 'h'],
    [
      'a hard link through a symlink out',
      [
        { path: 'etc', type: 'symlink', linkPath: '/etc' },
        { path: 'h', type: 'hardlink', linkPath: 'etc/passwd' },
      ],
      'h',
    ],
    [
      'a whiteout through a symlink out',
      [{ path: 'etc', type: 'symlink', linkPath: '/etc' }, { path: 'etc/.wh.passwd' }],
      'etc/.wh.passwd',
    ],
  ])('refuses %s, naming the entry', async (_, entries, entry) => {
    const dir = join(scratch(), 'layer');
    const error = await unpackLayer(chunks(makeTar(entries)), dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LayerEntryError);
    expect((error as LayerEntryError).entry).toBe(entry);
    expect((error as Error).message).toContain(`"${entry}"`);
    expect(existsSync(join(dir, '..', 'escape'))).toBe(false);
  });
});

describe('composeRootfs', () => {
  it('stacks layers: whiteouts delete, opaque directories hide what is below, upper files win', async () => {
    const lower = await unpack([
      { path: 'data/kept', content: 'kept' },
      { path: 'data/removed', content: 'removed' },
      { path: 'data/opaque/old', content: 'old' },
      { path: 'data/replaced', content: 'lower' },
      { path: 'link', type: 'symlink', linkPath: '/' },
    ]);
    const upper = await unpack([
      { path: 'data/.wh.removed' },
      { path: 'data/opaque/.wh..wh..opq' },
      { path: 'data/opaque/new', content: 'new' },
      { path: 'data/replaced', content: 'upper' },
      // A whiteout below a lower layer's symlink must not delete through it.
      { path: 'link/.wh.etc' },
      { path: 'link', type: 'dir' },
      { path: 'link/own', content: 'own' },
    ]);
    const target = join(scratch(), 'rootfs');
    const stack = [lower, upper].map(({ dir, layer }) => ({ fs: dir, whiteouts: layer.whiteouts, opaque: layer.opaque }));
    composeRootfs(stack, target);
    expect(readFileSync(join(target, 'data/kept'), 'utf8')).toBe('kept');
    expect(existsSync(join(target, 'data/removed'))).toBe(false);
    expect(existsSync(join(target, 'data/opaque/old'))).toBe(false);
    expect(readFileSync(join(target, 'data/opaque/new'), 'utf8')).toBe('new');
    expect(readFileSync(join(target, 'data/replaced'), 'utf8')).toBe('upper');
    expect(lstatSync(join(target, 'link')).isDirectory()).toBe(true);
    expect(readFileSync(join(target, 'link/own'), 'utf8')).toBe('own');
    expect(existsSync('/etc')).toBe(true);
  });
});
