import { describe, expect, it } from 'vitest';
import type { Event } from '../../../src/engine/api/cluster.js';
import { EventTable, eventInterval, sortEvents } from '../../../src/ui/event-table.js';
import { TabWriter } from '../../../src/util/tabwriter.js';

const now = Date.parse('2026-12-01T12:00:00Z');
const ago = (s: number) => new Date(now - s * 1000).toISOString().replace('.000Z', 'Z');

function event(reason: string, firstAgo: number, lastAgo = firstAgo, count = 1, name = 'web'): Event {
  return {
    metadata: { name: `${name}.1`, namespace: 'default' },
    involvedObject: { kind: 'Pod', name, namespace: 'default', fieldPath: 'spec.containers{app}' },
    reason,
    message: `${reason} container app `,
    type: reason === 'BackOff' ? 'Warning' : 'Normal',
    source: { component: 'kubelet', host: 'n1' },
    firstTimestamp: ago(firstAgo),
    lastTimestamp: ago(lastAgo),
    count,
  };
}

describe("Go's tabwriter", () => {
  it('aligns each block of lines that have a cell in a column, and leaves the last cell alone', () => {
    const w = new TabWriter({ minWidth: 0, padding: 2 });
    expect(w.format('Name:\tweb\nNamespace:\tdefault\nContainers:\n  app:\n    Image:\tbusybox\n    Container ID:\tc1\n')).toBe(
      'Name:       web\nNamespace:  default\nContainers:\n  app:\n    Image:         busybox\n    Container ID:  c1\n',
    );
  });

  it('keeps a nested column within its block, and a column at least minWidth wide', () => {
    const w = new TabWriter({ minWidth: 6, padding: 3 });
    expect(w.format('A\tB\tC\nlonger\tx\ty\n')).toBe('A        B     C\nlonger   x     y\n');
  });

  it('remembers widths across calls when asked, so later rows stay aligned', () => {
    const w = new TabWriter({ minWidth: 6, padding: 3, rememberWidths: true });
    expect(w.format('a-long-cell\tb\n')).toBe('a-long-cell   b\n');
    expect(w.format('x\ty\n')).toBe('x             y\n');
  });
});

describe('the events table', () => {
  it("prints kubectl events' columns, ages and repeat counts", () => {
    const table = new EventTable(false);
    const out = table.format(sortEvents([event('BackOff', 200, 5, 7), event('Pulled', 130)]), now, true);
    expect(out).toBe(
      [
        'LAST SEEN            TYPE      REASON    OBJECT    MESSAGE',
        '2m10s                Normal    Pulled    Pod/web   Pulled container app',
        '5s (x7 over 3m20s)   Warning   BackOff   Pod/web   BackOff container app',
        '',
      ].join('\n'),
    );
  });

  it('adds the NAMESPACE column for all namespaces, and prints a watched row without a header', () => {
    const table = new EventTable(true);
    expect(table.format([event('Started', 3)], now, true).split('\n')[0]).toMatch(/^NAMESPACE +LAST SEEN +TYPE/);
    expect(table.format([event('Killing', 1)], now, false)).toMatch(/^default +1s +Normal +Killing +Pod\/web +Killing container app\n$/);
  });

  it('ages as kubectl prints them', () => {
    expect(eventInterval(event('x', 45), now)).toBe('45s');
    expect(eventInterval(event('x', 123), now)).toBe('2m3s');
    expect(eventInterval(event('x', 3 * 3600 + 120), now)).toBe('3h2m');
    expect(eventInterval(event('x', 600, 60, 2), now)).toBe('60s (x2 over 10m)');
    expect(eventInterval({ ...event('x', 1), firstTimestamp: undefined }, now)).toBe('<unknown>');
  });
});
