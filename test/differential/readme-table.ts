// A differential suite's results table, kept in its README between two
// markers (`<!-- NAME table -->` … `<!-- /NAME table -->`): read back as rows
// of cells, and written back whole when the suite is asked to update it.

/** The table named NAME in a README: its rows' cells (header and rule left out), and the README with a new table in its place. */
export function markedTable(name: string) {
  const START = `<!-- ${name} table -->`;
  const END = `<!-- /${name} table -->`;
  const bounds = (readme: string) => {
    const start = readme.indexOf(START);
    const end = readme.indexOf(END);
    return start < 0 || end < start ? undefined : { start, end };
  };
  return {
    /** Each row's cells, trimmed; a row whose first cell is FIRST_HEADER is the header. */
    rows(readme: string, firstHeader: string): string[][] {
      const at = bounds(readme);
      if (!at) return [];
      return readme
        .slice(at.start + START.length, at.end)
        .split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith(`| ${firstHeader} `) && !l.startsWith('| ---'))
        .map((l) =>
          l
            .slice(1, -1)
            .split(' | ')
            .map((c) => c.trim()),
        );
    },
    /** README with TABLE between the markers (added at the end when it has none). */
    replace(readme: string, table: string): string {
      const at = bounds(readme);
      if (!at) return `${readme.trimEnd()}\n\n${START}\n${table}\n${END}\n`;
      return `${readme.slice(0, at.start + START.length)}\n${table}\n${readme.slice(at.end)}`;
    },
  };
}

/** A markdown table: the header, its rule, then one line per row. */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
