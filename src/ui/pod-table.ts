import { humanDuration, type PodRow } from '../engine/api/printers.js';

/** Rows as kubectl prints them: upper-case headers, columns three spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('   ');
  return [line(header), ...rows.map(line)].join('\n');
}

export const POD_COLUMNS = ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'];
export const WIDE_COLUMNS = [...POD_COLUMNS, 'IP', 'NODE'];

/** One pod's cells for `knode status` (`kubectl get pods`), `now` for the ages. */
export function podCells(row: PodRow, now: number, wide: boolean, withNamespace: boolean): string[] {
  const restarts =
    row.restarts > 0 && row.lastRestart ? `${row.restarts} (${humanDuration(now - row.lastRestart)} ago)` : String(row.restarts);
  const cells = [row.name, row.ready, row.status, restarts, row.createdAt ? humanDuration(now - row.createdAt) : '<unknown>'];
  if (wide) cells.push(row.ip || '<none>', row.node || '<none>');
  return withNamespace ? [row.namespace, ...cells] : cells;
}
