import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { devTemplate, fillDev } from '../../../../src/runtime/sandbox/dev-dir.js';

const root = mkdtempSync(join(tmpdir(), 'knode-dev-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const listing = (dir: string) =>
  readdirSync(dir)
    .sort()
    .map((name) => {
      const st = lstatSync(join(dir, name));
      return `${name} ${st.isSymbolicLink() ? `-> ${readlinkSync(join(dir, name))}` : `${st.isDirectory() ? 'dir' : 'file'} ${(st.mode & 0o777).toString(8)}`}`;
    });

describe("a container's /dev before its mounts", () => {
  it('holds a file for each device to bind over, pts and shm, and the usual links, made at once or as a spare', async () => {
    const made = join(root, 'made');
    devTemplate(made);
    expect(listing(made)).toEqual([
      'core -> /proc/kcore',
      'fd -> /proc/self/fd',
      'full file 644',
      'null file 644',
      'ptmx -> pts/ptmx',
      'pts dir 755',
      'random file 644',
      'shm dir 755',
      'stderr -> /proc/self/fd/2',
      'stdin -> /proc/self/fd/0',
      'stdout -> /proc/self/fd/1',
      'tty file 644',
      'urandom file 644',
      'zero file 644',
    ]);
    expect((lstatSync(made).mode & 0o777).toString(8)).toBe('755');
    const spare = join(root, 'spare');
    mkdirSync(spare, { mode: 0o700 });
    await fillDev(spare);
    expect(listing(spare)).toEqual(listing(made));
    expect((lstatSync(spare).mode & 0o777).toString(8)).toBe('755');
    // One that is there is left as it is (a set-up made again).
    devTemplate(made);
    expect(listing(made)).toHaveLength(14);
  });
});
