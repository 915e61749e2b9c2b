import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/util/clock.js';
import { StartGate, type Release } from '../../../src/util/start-gate.js';

/** Enters the gate for each name, recording who got in, in order. */
function enterAll(gate: StartGate, names: string[], signal?: AbortSignal) {
  const inside: string[] = [];
  const releases = new Map<string, Release>();
  const failed: string[] = [];
  for (const name of names) {
    gate.enter(signal).then(
      (release) => {
        inside.push(name);
        releases.set(name, release);
      },
      () => failed.push(name),
    );
  }
  return { inside, releases, failed };
}

describe('StartGate', () => {
  it('lets LIMIT callers in at once and the next in order as places come back', async () => {
    const clock = new FakeClock();
    const gate = new StartGate(2, 5_000, clock);
    const { inside, releases } = enterAll(gate, ['a', 'b', 'c', 'd']);
    await clock.advance(0);
    expect(inside).toEqual(['a', 'b']);
    expect(gate.queued).toBe(2);
    releases.get('b')!();
    releases.get('b')!(); // a second release gives back nothing more
    await clock.advance(0);
    expect(inside).toEqual(['a', 'b', 'c']);
    releases.get('a')!();
    await clock.advance(0);
    expect(inside).toEqual(['a', 'b', 'c', 'd']);
    expect(gate.queued).toBe(0);
  });

  it('hands a place to the caller waiting, not to one who comes later', async () => {
    const clock = new FakeClock();
    const gate = new StartGate(1, 5_000, clock);
    const first = enterAll(gate, ['a', 'b']);
    await clock.advance(0);
    first.releases.get('a')!();
    const late = enterAll(gate, ['late']);
    await clock.advance(0);
    expect(first.inside).toEqual(['a', 'b']);
    expect(late.inside).toEqual([]);
  });

  it('takes back the place of a caller that holds it longer than HOLD', async () => {
    const clock = new FakeClock();
    const gate = new StartGate(1, 5_000, clock);
    const { inside, releases } = enterAll(gate, ['hung', 'next']);
    await clock.advance(4_999);
    expect(inside).toEqual(['hung']);
    await clock.advance(1);
    expect(inside).toEqual(['hung', 'next']);
    // The hung call's late release must not free a second place.
    releases.get('hung')!();
    const after = enterAll(gate, ['after']);
    await clock.advance(0);
    expect(after.inside).toEqual([]);
    releases.get('next')!();
    await clock.advance(0);
    expect(after.inside).toEqual(['after']);
  });

  it('drops a caller whose signal aborts while it waits, without taking a place', async () => {
    const clock = new FakeClock();
    const gate = new StartGate(1, 5_000, clock);
    const holder = enterAll(gate, ['a']);
    const abort = new AbortController();
    const gone = enterAll(gate, ['gone'], abort.signal);
    const kept = enterAll(gate, ['kept']);
    await clock.advance(0);
    abort.abort(new Error('pod deleted'));
    await clock.advance(0);
    expect(gone.failed).toEqual(['gone']);
    expect(gate.queued).toBe(1);
    holder.releases.get('a')!();
    await clock.advance(0);
    expect(kept.inside).toEqual(['kept']);
    expect(gone.inside).toEqual([]);
  });

  it('bounds nothing with a limit of 0', async () => {
    const clock = new FakeClock();
    const gate = new StartGate(0, 5_000, clock);
    const { inside } = enterAll(gate, ['a', 'b', 'c']);
    await clock.advance(0);
    expect(inside).toEqual(['a', 'b', 'c']);
    expect(clock.pending).toBe(0);
  });
});
