// The TUI keeps up with a thousand pods: events arrive far faster than it
// draws, and it draws at most once per refresh interval, a window of rows.
import { cleanup, render } from 'ink-testing-library';
import { afterEach, expect, it } from 'vitest';
import type { LifecycleEvent } from '../../../../src/engine/events.js';
import { NodeTui } from '../../../../src/ui/tui/app.js';

afterEach(() => cleanup());

it('redraws at most once per refresh while a thousand pods change, and shows a window of them', async () => {
  let push: (e: LifecycleEvent) => void = () => {};
  const { frames, lastFrame } = render(<NodeTui subscribe={(l) => ((push = l), () => {})} onQuit={() => {}} refreshMs={100} />);
  const start = performance.now();
  let events = 0;
  // 1,000 pods, each through five status changes, delivered over about 600 ms.
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 1000; i++) {
      const phase = round < 2 ? 'Pending' : 'Running';
      push({
        type: 'StatusChanged',
        pod: `default/pod-${String(i).padStart(4, '0')}`,
        uid: `uid-${i}`,
        at: Date.now(),
        detail: {
          phase,
          version: round + 1,
          status: phase,
          ready: round < 2 ? '0/1' : '1/1',
          restarts: 0,
          ip: '',
          containers: [
            round < 2
              ? { name: 'main', state: 'waiting', reason: 'ContainerCreating', restartCount: 0 }
              : { name: 'main', state: 'running', reason: '', restartCount: 0 },
          ],
        },
      });
      events++;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 250));
  const elapsed = performance.now() - start;
  expect(events).toBe(6000);
  // One frame per 100 ms at most (plus the first and one for a key-less final state).
  expect(frames.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2);
  const frame = lastFrame()!;
  expect(frame).toContain('pods 1000 (1000 running)');
  expect(frame).toMatch(/rows 1-\d+ of 1000/);
  expect(frame.split('\n').filter((l) => l.includes('default/pod-')).length).toBeLessThanOrEqual(40);
});
