// README.md's table of the workload differential: a row per scenario and kind,
// `same` or `different`, with a note saying why where they differ.
import { markdownTable, markedTable } from '../readme-table.js';

export interface TableRow {
  scenario: string;
  kind: string;
  result: 'same' | 'different';
  note: string;
}

const table = markedTable('workloads');

export function parseTable(readme: string): TableRow[] {
  return table.rows(readme, 'scenario').map((cells) => ({
    scenario: cells[0].replace(/`/g, ''),
    kind: cells[1],
    result: cells[2] as TableRow['result'],
    note: cells.slice(3).join(' | '),
  }));
}

export function renderTable(rows: TableRow[]): string {
  return markdownTable(
    ['scenario', 'kind', 'result', 'note'],
    rows.map((r) => [`\`${r.scenario}\``, r.kind, r.result, r.result === 'same' ? '' : r.note]),
  );
}

export const replaceTable = (readme: string, text: string): string => table.replace(readme, text);
