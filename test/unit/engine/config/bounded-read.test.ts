// Manifest reads bounded before they allocate: what is not a regular file is
// skipped without being read (a FIFO must not block, a device must not be
// drained), a file over the limit is refused from its fstat, and the good
// manifests beside them are read.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Pod } from '../../../../src/engine/api/v1.js';
import { readCapped, readManifestFile } from '../../../../src/engine/config/bounded-read.js';
import { FileSource } from '../../../../src/engine/config/file-source.js';
import { MAX_MANIFEST_BYTES, type ManifestError } from '../../../../src/engine/config/manifest.js';
import { readManifests } from '../../../../src/engine/config/read-manifests.js';
import { FakeClock } from '../../../../src/util/clock.js';

function podYaml(name: string): string {
  return `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\nspec:\n  containers:\n  - name: main\n    image: busybox:1.36\n`;
}

let dir: string;
let server: Server | undefined;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'knode-bounded-read-'));
});

afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A directory with two good manifests and one of each hostile kind; returns the hostile files with the reason each must give. */
async function hostileDir(): Promise<Record<string, RegExp>> {
  writeFileSync(join(dir, 'a-good.yaml'), podYaml('good-a'));
  writeFileSync(join(dir, 'z-good.yaml'), podYaml('good-z'));
  execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
  symlinkSync('/dev/zero', join(dir, 'zero.yaml'));
  writeFileSync(join(dir, 'sparse.yaml'), '');
  truncateSync(join(dir, 'sparse.yaml'), 1.5 * 1024 ** 3);
  mkdirSync(join(dir, 'x.yaml'));
  server = createServer();
  await new Promise<void>((resolve) => server!.listen(join(dir, 'sock.yaml'), resolve));
  return {
    'fifo.yaml': /skipped: a FIFO, not a regular file/,
    'zero.yaml': /skipped: a character device, not a regular file/,
    'sparse.yaml': new RegExp(`larger than ${MAX_MANIFEST_BYTES} bytes \\(1610612736 bytes\\); not read`),
    'x.yaml': /skipped: a directory \(not read recursively, as in the kubelet\), not a regular file/,
    'sock.yaml': /skipped: a socket, not a regular file/,
  };
}

describe('readManifestFile', () => {
  it('reads a regular file, and skips or refuses each hostile kind by its type and size', async () => {
    const bad = await hostileDir();
    expect(await readManifestFile(join(dir, 'a-good.yaml'))).toMatchObject({ text: podYaml('good-a') });
    for (const [name, reason] of Object.entries(bad)) {
      const read = await readManifestFile(join(dir, name));
      expect('text' in read, name).toBe(false);
      expect(Object.values(read)[0], name).toMatch(reason);
    }
  });

  it('refuses a file one byte over the limit and reads one at the limit', async () => {
    writeFileSync(join(dir, 'at.yaml'), 'x'.repeat(1000));
    writeFileSync(join(dir, 'over.yaml'), 'x'.repeat(1001));
    expect(await readManifestFile(join(dir, 'at.yaml'), 1000)).toMatchObject({ text: 'x'.repeat(1000) });
    expect(await readManifestFile(join(dir, 'over.yaml'), 1000)).toEqual({
      refused: 'manifest is larger than 1000 bytes (1001 bytes); not read',
    });
  });

  it('reads whole a file past one read, and a /proc file whose size says 0', async () => {
    const big = 'y'.repeat(200 * 1024 + 7);
    writeFileSync(join(dir, 'big.yaml'), big);
    expect(await readManifestFile(join(dir, 'big.yaml'))).toMatchObject({ text: big });
    writeFileSync(join(dir, 'empty.yaml'), '');
    expect(await readManifestFile(join(dir, 'empty.yaml'))).toMatchObject({ text: '' });
    // procfs gives a size of 0 and a page a read: a short read there is not the end.
    const maps = readFileSync('/proc/self/maps', 'utf8');
    expect(maps.length).toBeGreaterThan(4096);
    const read = await readManifestFile('/proc/self/maps');
    expect('text' in read && read.text.split('\n').length).toBeGreaterThan(maps.split('\n').length / 2);
    expect('text' in read && read.text.length).toBeGreaterThan(4096);
  });

  it('says why a file it cannot open is not read', async () => {
    expect(await readManifestFile(join(dir, 'missing.yaml'))).toMatchObject({ refused: expect.stringMatching(/^cannot read: ENOENT/) });
  });
});

describe('readCapped', () => {
  it('reads a stream up to the limit and stops past it', async () => {
    expect(await readCapped(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 4)).toBe('abcd');
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled++;
        yield new Uint8Array(1024);
      }
    }
    await expect(readCapped(endless(), 4096, 'stdin')).rejects.toThrow('stdin is larger than 4096 bytes; not read');
    expect(pulled).toBe(5);
  });
});

describe('a hostile manifest directory', () => {
  it('readManifests (knode delete) gives the good pods and names each bad file with its reason', async () => {
    const bad = await hostileDir();
    const { pods, errors } = await readManifests(dir, 'n1');
    expect(pods.map((p) => p.metadata.name)).toEqual(['good-a-n1', 'good-z-n1']);
    expect(errors).toHaveLength(Object.keys(bad).length);
    for (const [name, reason] of Object.entries(bad)) {
      const line = errors.find((e) => e.startsWith(`${join(dir, name)}, document 0: `));
      expect(line, name).toMatch(reason);
    }
  });

  it('the file source runs the good pods, reports each bad file once, and drops a pod whose file turns into a FIFO', async () => {
    const bad = await hostileDir();
    const snapshots: Pod[][] = [];
    const errors: ManifestError[] = [];
    const source = new FileSource(
      dir,
      'n1',
      new FakeClock(),
      20_000,
      { snapshot: (p) => snapshots.push(p), error: (e) => errors.push(e) },
      false,
    );
    await source.start();
    expect(snapshots.at(-1)!.map((p) => p.metadata.name)).toEqual(['good-a-n1', 'good-z-n1']);
    for (const [name, reason] of Object.entries(bad)) {
      const found = errors.filter((e) => e.source === join(dir, name));
      expect(found, name).toHaveLength(1);
      expect(found[0].message, name).toMatch(reason);
    }
    await source.pollRead();
    expect(errors).toHaveLength(Object.keys(bad).length); // not reported again

    rmSync(join(dir, 'z-good.yaml'));
    execFileSync('mkfifo', [join(dir, 'z-good.yaml')]);
    await source.read();
    expect(snapshots.at(-1)!.map((p) => p.metadata.name)).toEqual(['good-a-n1']);
    expect(errors.at(-1)).toMatchObject({ source: join(dir, 'z-good.yaml'), message: 'skipped: a FIFO, not a regular file' });
    source.stop();
  });
});
