// The spawner's pool of spare shells (a static busybox's), on a fake clock:
// when it makes spares, around the starts that take them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REFILL_DELAY_MS, SpareShells, type ShellOrder } from '../../../../src/runtime/spawner/spare-shells.js';
import { FakeClock } from '../../../../src/util/clock.js';

// Debian's busybox-static (.ci/run installs it), as the runtime's kit copies it.
const BUSYBOX = '/bin/busybox';
const ORDER: ShellOrder = { file: '/bin/true', args: [], env: {}, output: 'none' };

const pools: SpareShells[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const pool of pools.splice(0)) pool.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pool(size: number, clock: FakeClock): SpareShells {
  const dir = mkdtempSync(join(tmpdir(), 'knode-spare-shells-'));
  dirs.push(dir);
  const made = new SpareShells([BUSYBOX, 'sh'], join(dir, 'orders'), size, clock);
  pools.push(made);
  return made;
}

/** Lets the event loop turn a few times (what an immediate would run, runs). */
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('SpareShells', () => {
  it('makes one spare per REFILL_DELAY_MS in which nothing was asked of it, up to its size, and none in the pauses of a burst', async () => {
    const clock = new FakeClock();
    const spares = pool(3, clock);
    expect(spares.waiting).toBe(1);
    await clock.advance(REFILL_DELAY_MS);
    await turns();
    expect(spares.waiting).toBe(2);
    await clock.advance(REFILL_DELAY_MS);
    expect(spares.waiting).toBe(3);

    // A burst: asks less than REFILL_DELAY_MS apart, one that a spare cannot run (a start that forks) among them.
    for (const order of [ORDER, { ...ORDER, file: 'true' }, ORDER]) {
      spares.take(order);
      await clock.advance(REFILL_DELAY_MS - 1);
      await turns();
    }
    expect(spares.waiting).toBe(1);
    await clock.advance(1);
    await turns();
    expect(spares.waiting).toBe(2);
    await clock.advance(REFILL_DELAY_MS);
    expect(spares.waiting).toBe(3);
    await clock.advance(REFILL_DELAY_MS * 3);
    expect(spares.waiting).toBe(3);
  });
});
