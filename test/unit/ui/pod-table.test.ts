import { describe, expect, it } from 'vitest';
import type { PodRow } from '../../../src/engine/api/printers.js';
import { POD_COLUMNS, WIDE_COLUMNS, formatTable, podCells } from '../../../src/ui/pod-table.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');

function row(over: Partial<PodRow> = {}): PodRow {
  return {
    name: 'web',
    namespace: 'default',
    ready: '1/1',
    status: 'Running',
    restarts: 0,
    createdAt: NOW - 5 * 60_000,
    ip: '10.0.0.7',
    node: 'node-a',
    nominatedNode: '',
    readinessGates: '<none>',
    ...over,
  };
}

describe('formatTable', () => {
  it('pads every column but the last to its widest cell, three spaces apart', () => {
    const out = formatTable(
      ['NAME', 'READY', 'STATUS'],
      [
        ['web', '1/1', 'Running'],
        ['database-0', '0/2', 'CrashLoopBackOff'],
      ],
    );
    expect(out.split('\n')).toEqual([
      'NAME         READY   STATUS',
      'web          1/1     Running',
      'database-0   0/2     CrashLoopBackOff',
    ]);
  });

  it('lets a header wider than every cell set the width, and never pads the last column', () => {
    const out = formatTable(['NAME', 'RESTARTS', 'AGE'], [['a', '0', '5s']]);
    expect(out.split('\n')).toEqual(['NAME   RESTARTS   AGE', 'a      0          5s']);
  });

  it('prints only the header when there are no rows', () => {
    expect(formatTable(POD_COLUMNS, [])).toBe('NAME   READY   STATUS   RESTARTS   AGE');
  });
});

interface CellRow {
  name: string;
  row: PodRow;
  wide?: boolean;
  withNamespace?: boolean;
  want: string[];
}

const cellRows: CellRow[] = [
  { name: 'a running pod', row: row(), want: ['web', '1/1', 'Running', '0', '5m'] },
  {
    name: 'restarts with a last restart time: "3 (12s ago)"',
    row: row({ restarts: 3, lastRestart: NOW - 12_000 }),
    want: ['web', '1/1', 'Running', '3 (12s ago)', '5m'],
  },
  { name: 'restarts without a last restart time: the count alone', row: row({ restarts: 3 }), want: ['web', '1/1', 'Running', '3', '5m'] },
  {
    name: 'no restarts: no time even if one is known',
    row: row({ restarts: 0, lastRestart: NOW - 12_000 }),
    want: ['web', '1/1', 'Running', '0', '5m'],
  },
  { name: 'an age in kubectl format', row: row({ createdAt: NOW - (2 * 60 + 5) * 1000 }), want: ['web', '1/1', 'Running', '0', '2m5s'] },
  { name: 'no creation time: <unknown>', row: row({ createdAt: 0 }), want: ['web', '1/1', 'Running', '0', '<unknown>'] },
  {
    name: 'namespace first with all namespaces',
    row: row({ namespace: 'kube-system' }),
    withNamespace: true,
    want: ['kube-system', 'web', '1/1', 'Running', '0', '5m'],
  },
  {
    name: 'wide adds IP, NODE, NOMINATED NODE and READINESS GATES',
    row: row({ readinessGates: '1/2' }),
    wide: true,
    want: ['web', '1/1', 'Running', '0', '5m', '10.0.0.7', 'node-a', '<none>', '1/2'],
  },
  {
    name: 'wide with no IP or node: <none>',
    row: row({ ip: '', node: '' }),
    wide: true,
    want: ['web', '1/1', 'Running', '0', '5m', '<none>', '<none>', '<none>', '<none>'],
  },
  {
    name: 'wide and all namespaces together',
    row: row(),
    wide: true,
    withNamespace: true,
    want: ['default', 'web', '1/1', 'Running', '0', '5m', '10.0.0.7', 'node-a', '<none>', '<none>'],
  },
];

describe('podCells', () => {
  it.each(cellRows)('$name', ({ row: r, wide = false, withNamespace = false, want }) => {
    expect(podCells(r, NOW, wide, withNamespace)).toEqual(want);
  });

  it('lines up with the kubectl headers', () => {
    const rows = [
      podCells(row(), NOW, true, false),
      podCells(
        row({ name: 'db', ready: '0/1', status: 'CrashLoopBackOff', restarts: 3, lastRestart: NOW - 12_000, ip: '' }),
        NOW,
        true,
        false,
      ),
    ];
    expect(formatTable(WIDE_COLUMNS, rows).split('\n')).toEqual([
      'NAME   READY   STATUS             RESTARTS      AGE   IP         NODE     NOMINATED NODE   READINESS GATES',
      'web    1/1     Running            0             5m    10.0.0.7   node-a   <none>           <none>',
      'db     0/1     CrashLoopBackOff   3 (12s ago)   5m    <none>     node-a   <none>           <none>',
    ]);
  });

  it('puts NAMESPACE first in the header layout', () => {
    const out = formatTable(['NAMESPACE', ...POD_COLUMNS], [podCells(row(), NOW, false, true)]);
    expect(out.split('\n')).toEqual([
      'NAMESPACE   NAME   READY   STATUS    RESTARTS   AGE',
      'default     web    1/1     Running   0          5m',
    ]);
  });
});
