// README.md's table of the workload differential: a row per scenario and kind,
// `same` or `different`, with a note saying why where they differ.

export interface TableRow {
  scenario: string;
  kind: string;
  result: 'same' | 'different';
  note: string;
}

const START = '<!-- workloads table -->';
const END = '<!-- /workloads table -->';

export function parseTable(readme: string): TableRow[] {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return [];
  return readme
    .slice(start + START.length, end)
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| scenario') && !l.startsWith('| ---'))
    .map((l) => {
      const cells = l
        .slice(1, -1)
        .split(' | ')
        .map((c) => c.trim());
      return {
        scenario: cells[0].replace(/`/g, ''),
        kind: cells[1],
        result: cells[2] as TableRow['result'],
        note: cells.slice(3).join(' | '),
      };
    });
}

export function renderTable(rows: TableRow[]): string {
  const lines = ['| scenario | kind | result | note |', '| --- | --- | --- | --- |'];
  for (const r of rows) lines.push(`| \`${r.scenario}\` | ${r.kind} | ${r.result} | ${r.result === 'same' ? '' : r.note} |`);
  return lines.join('\n');
}

export function replaceTable(readme: string, table: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) return `${readme.trimEnd()}\n\n${START}\n${table}\n${END}\n`;
  return `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`;
}
