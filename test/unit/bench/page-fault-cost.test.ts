// The machine's cost of a fresh page (bench/startup.ts), which the podman and
// start-up sections print beside their figures: a real child Node process
// touches memory it never touched before and counts its page faults.
import { expect, it } from 'vitest';
import { pageFaultCost, reportPageFaultCost } from '../../../bench/startup.js';

it('counts at least a fault for each huge page touched, and says what one costs', () => {
  const cost = pageFaultCost(8);
  expect(cost.mib).toBe(8);
  // 2,048 pages of 4 KiB; with transparent huge pages, as few as 4 of 2 MiB.
  expect(cost.faults).toBeGreaterThanOrEqual(4);
  expect(cost.faults).toBeLessThan(4_000);
  expect(cost.usPerFault).toBeGreaterThan(0);
  expect(Number.isFinite(cost.usPerFault)).toBe(true);
  expect(reportPageFaultCost({ mib: 8, faults: 2048, usPerFault: 11.5 })).toBe(
    "\nThis machine's cost of a fresh page: 11.50 us a page fault (2048 faults for 8 MiB touched once by a fresh Node process)",
  );
});
