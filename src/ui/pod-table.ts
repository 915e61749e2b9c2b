import { humanDuration, podRow, type PodRow } from '../engine/api/printers.js';
import type { Pod } from '../engine/api/v1.js';
import { formatCpu, formatMemory, type PodUsage } from './top-table.js';

/** Rows as kubectl prints them: upper-case headers, columns three spaces apart. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('   ');
  return [line(header), ...rows.map(line)].join('\n');
}

export const POD_COLUMNS = ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'];
export const WIDE_COLUMNS = [...POD_COLUMNS, 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'];

/** One pod's cells for `knode status` (`kubectl get pods`), `now` for the ages. */
export function podCells(row: PodRow, now: number, wide: boolean, withNamespace: boolean): string[] {
  const restarts =
    row.restarts > 0 && row.lastRestart ? `${row.restarts} (${humanDuration(now - row.lastRestart)} ago)` : String(row.restarts);
  const cells = [row.name, row.ready, row.status, restarts, row.createdAt ? humanDuration(now - row.createdAt) : '<unknown>'];
  if (wide) cells.push(row.ip || '<none>', row.node || '<none>', row.nominatedNode || '<none>', row.readinessGates);
  return withNamespace ? [row.namespace, ...cells] : cells;
}

/** How podTable prints: -o wide, a NAMESPACE column, `pod/NAME` (several types asked for), each pod's usage by namespace/name. */
export interface PodTableOptions {
  wide?: boolean;
  withNamespace?: boolean;
  prefixed?: boolean;
  usage?: Map<string, PodUsage>;
}

/** `kubectl get pods` of PODS at NOW; with a usage, what kubectl top would say of each pod in two more columns. */
export function podTable(pods: Pod[], now: number, options: PodTableOptions = {}): string {
  const { wide = false, withNamespace = false, prefixed = false, usage } = options;
  const header = [...(withNamespace ? ['NAMESPACE'] : []), ...(wide ? WIDE_COLUMNS : POD_COLUMNS), ...(usage ? ['CPU', 'MEMORY'] : [])];
  const cells = (p: Pod) => {
    const row = podCells(podRow(p), now, wide, withNamespace);
    if (prefixed) row[withNamespace ? 1 : 0] = `pod/${row[withNamespace ? 1 : 0]}`;
    if (!usage) return row;
    const u = usage.get(`${p.metadata.namespace}/${p.metadata.name}`);
    return [...row, u ? formatCpu(u.nanoCores) : '<none>', u ? formatMemory(u.workingSetBytes) : '<none>'];
  };
  return formatTable(header, pods.map(cells));
}
