import { describe, expect, it } from 'vitest';
import { KeyedRuns } from '../../../../src/runtime/spawner/keyed-runs.js';

/** A run whose end the test gives. */
function run(): { ok: Promise<boolean>; end: (ok: boolean) => void } {
  let end!: (ok: boolean) => void;
  return { ok: new Promise<boolean>((resolve) => (end = resolve)), end };
}

describe('KeyedRuns', () => {
  it('keeps a run while it runs, forgets it once it ended well, and keeps it after it failed', async () => {
    const runs = new KeyedRuns();
    const good = run();
    const bad = run();
    runs.add('good', good);
    runs.add('bad', bad);
    expect(runs.get('good')).toBe(good);
    good.end(true);
    bad.end(false);
    await Promise.all([good.ok, bad.ok]);
    await Promise.resolve();
    expect(runs.get('good')).toBeUndefined();
    expect(runs.get('bad')).toBe(bad);
    expect(runs.get('never')).toBeUndefined();
  });

  it('keeps the last failures it is told to, never a run still running, and a newer run under the same key', async () => {
    const runs = new KeyedRuns(2);
    const running = run();
    runs.add('running', running);
    const failures = ['a', 'b', 'c'].map((key) => [key, run()] as const);
    for (const [key, r] of failures) runs.add(key, r);
    const again = run();
    runs.add('a', again); // a's failure comes after a newer run took its key
    for (const [, r] of failures) r.end(false);
    await Promise.all(failures.map(([, r]) => r.ok));
    await Promise.resolve();
    expect(runs.get('running')).toBe(running);
    expect(runs.get('a')).toBe(again);
    expect([runs.get('b'), runs.get('c')]).toEqual([failures[1][1], failures[2][1]]);
    const d = run();
    runs.add('d', d);
    d.end(false);
    await d.ok;
    await Promise.resolve();
    expect([runs.get('b'), runs.get('c'), runs.get('d')]).toEqual([undefined, failures[2][1], d]);
    expect(runs.get('running')).toBe(running);
  });
});
