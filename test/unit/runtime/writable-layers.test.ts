import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WritableLayers } from '../../../src/runtime/writable-layers.js';

describe('WritableLayers', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  function layer(): string {
    const dir = mkdtempSync(join(tmpdir(), 'knode-writable-'));
    dirs.push(dir);
    return dir;
  }

  it('counts what was written under the directory, as du does, and keeps the figure for 10 s', () => {
    const dir = layer();
    let now = 1_000;
    const layers = new WritableLayers(
      (id) => (id === 'c1' ? dir : undefined),
      () => now,
    );
    const empty = layers.usage('c1');
    writeFileSync(join(dir, 'fill'), Buffer.alloc(1 << 20, 1));
    now += 9_999;
    expect(layers.usage('c1')).toEqual(empty);
    now += 1;
    const written = layers.usage('c1');
    expect(written.usedBytes - empty.usedBytes).toBeGreaterThanOrEqual(1 << 20);
    expect(written.inodesUsed).toBe(empty.inodesUsed + 1);
  });

  it('gives nothing for a container without a layer of its own, and forgets removed containers', () => {
    const dir = layer();
    let now = 0;
    const layers = new WritableLayers(
      (id) => (id === 'c1' ? dir : undefined),
      () => now,
    );
    expect(layers.usage('host')).toEqual({ usedBytes: 0, inodesUsed: 0 });
    const before = layers.usage('c1');
    writeFileSync(join(dir, 'fill'), Buffer.alloc(1 << 16, 1));
    layers.retain(new Set());
    now += 1;
    // Forgotten: measured again at once, not served from the figure of before.
    expect(layers.usage('c1').usedBytes).toBeGreaterThan(before.usedBytes);
  });
});
