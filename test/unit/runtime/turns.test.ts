import { stat } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { Turns } from '../../../src/runtime/turns.js';

const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

it("gives callers one turn each, in order, with the loop's I/O between turns", async () => {
  const turns = new Turns();
  const order: number[] = [];
  let ioDoneAt: number | undefined;
  // I/O asked for before the burst: answered between two turns, not after the last.
  const io = stat(import.meta.filename).then(() => (ioDoneAt = order.length));
  await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      turns.next().then(() => {
        order.push(i);
        busy(2); // a fork's worth of blocked thread
      }),
    ),
  );
  await io;
  expect(order).toEqual(Array.from({ length: 40 }, (_, i) => i));
  expect(ioDoneAt).toBeLessThan(20);
});
