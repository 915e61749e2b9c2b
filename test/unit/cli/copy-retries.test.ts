// kubectl cp --retries' pieces: the resumable command, and telling an archive
// that reached its end from one cut short (where a copy is resumed).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveEnd, resumableTar } from '../../../src/cli/copy-retries.js';
import { makeTar } from '../../helpers/tar.js';

function endOf(data: Buffer, size: number): boolean {
  const end = new ArchiveEnd();
  for (let at = 0; at < data.length; at += size) end.push(data.subarray(at, at + size));
  return end.reached;
}

describe('resumableTar', () => {
  it("is kubectl's sh -c, the path quoted for the shell", () => {
    expect(resumableTar('/data', 0)).toEqual(['sh', '-c', "tar cf - '/data' | tail -c+0"]);
    expect(resumableTar("/it's", 1025)).toEqual(['sh', '-c', "tar cf - '/it'\\''s' | tail -c+1025"]);
  });
});

describe('ArchiveEnd', () => {
  const archive = makeTar([
    { path: 'data/', type: 'dir' },
    { path: 'data/a', content: 'x'.repeat(1500) },
    { path: 'data/' + 'long/'.repeat(30) + 'b', content: 'y' },
    { path: 'data/empty', content: '' },
    { path: 'data/zeros', content: '\0'.repeat(2048) },
  ]);

  it.each([1, 7, 512, 700, 100_000])('sees the end of a whole archive read in chunks of %i bytes', (size) =>
    expect(endOf(archive, size)).toBe(true),
  );

  it('does not see it in an archive cut anywhere before its marker, even inside a file of zeros', () => {
    for (let cut = 0; cut < archive.length - 1024; cut += 97) expect(endOf(archive.subarray(0, cut), 512)).toBe(false);
  });

  it("sees the end of GNU tar's own archive (its record padding after the marker)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'knode-archive-end-'));
    mkdirSync(join(dir, 'tree', 'sub'), { recursive: true });
    writeFileSync(join(dir, 'tree', 'sub', 'big'), Buffer.alloc(300_000, 1));
    writeFileSync(join(dir, 'tree', 'small'), 'small\n');
    const tar = execFileSync('tar', ['cf', '-', '-C', dir, 'tree']);
    expect(endOf(tar, 4096)).toBe(true);
    expect(endOf(tar.subarray(0, 100_000), 4096)).toBe(false);
  });
});
