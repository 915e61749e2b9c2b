import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SpareDirs } from '../../../../src/runtime/sandbox/spare-dirs.js';

const made: string[] = [];
const pools: SpareDirs[] = [];
afterEach(async () => {
  // Not while a spare is being made in it.
  for (const pool of pools.splice(0)) await pool.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function parent(): string {
  const dir = mkdtempSync(join(tmpdir(), 'knode-spares-'));
  made.push(dir);
  return dir;
}

const track = (pool: SpareDirs) => (pools.push(pool), pool);

const spares = (dir: string) =>
  readdirSync(dir)
    .filter((n) => n.startsWith('.spare-'))
    .sort();

describe('SpareDirs', () => {
  it('deletes what a runtime before left, keeps as many spares as asked, and renames one into place with its directories', async () => {
    const dir = parent();
    mkdirSync(join(dir, '.spare-1-0', 'upper'), { recursive: true });
    mkdirSync(join(dir, 'c0'));
    const pool = track(new SpareDirs(dir, SpareDirs.subdirs(['upper', 'work', 'rootfs']), 2));
    await vi.waitFor(() => expect(pool.readyCount === 2 && spares(dir).length === 2 && !spares(dir).includes('.spare-1-0')).toBe(true), {
      timeout: 10_000,
      interval: 5,
    });
    expect(existsSync(join(dir, 'c0'))).toBe(true);

    expect(pool.take(join(dir, 'c1'))).toBe(true);
    expect(readdirSync(join(dir, 'c1')).sort()).toEqual(['rootfs', 'upper', 'work']);
    // It makes another to keep two.
    await vi.waitFor(() => expect(spares(dir)).toHaveLength(2), { timeout: 10_000, interval: 5 });
  });

  it('keeps its spare when the target is there already with something in it (a container made before a restart)', async () => {
    const dir = parent();
    const pool = track(new SpareDirs(dir, SpareDirs.subdirs(['upper']), 1));
    await vi.waitFor(() => expect([pool.readyCount, spares(dir).length]).toEqual([1, 1]), { timeout: 10_000, interval: 5 });
    mkdirSync(join(dir, 'c1', 'upper'), { recursive: true });
    writeFileSync(join(dir, 'c1', 'upper', 'written'), 'x');
    expect(pool.take(join(dir, 'c1'))).toBe(false);
    expect(readdirSync(join(dir, 'c1', 'upper'))).toEqual(['written']);
    expect(pool.take(join(dir, 'c2'))).toBe(true);
  });

  it('has none to give before it has made one: the create makes its own directories then', () => {
    const dir = parent();
    const pool = track(new SpareDirs(dir, SpareDirs.subdirs(['upper']), 1));
    expect(pool.take(join(dir, 'c1'))).toBe(false);
    expect(existsSync(join(dir, 'c1'))).toBe(false);
  });
});
