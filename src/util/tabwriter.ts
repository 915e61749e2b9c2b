/** How a TabWriter aligns: Go's text/tabwriter parameters (the padding character is a space). */
export interface TabWriterOptions {
  /** The least width of a column, padding included. */
  minWidth: number;
  /** Spaces added to the widest cell of a column. */
  padding: number;
  /** Keep each column's widest width across calls (kubectl's tabwriter, for rows printed as they come). */
  rememberWidths?: boolean;
}

/**
 * Go's text/tabwriter, as kubectl prints with it: a cell ends with a tab, and
 * consecutive lines that have a cell in a column form a block aligned to its
 * widest cell plus the padding. The text after a line's last tab is no
 * column's. kubectl describe uses (0, 2); kubectl's tables (get, events)
 * use (6, 3) with remembered widths.
 */
export class TabWriter {
  private readonly maxWidths: number[] = [];

  constructor(private readonly options: TabWriterOptions) {}

  /** Aligns `text` (lines ending in newlines) as one flush of the Go writer. */
  format(text: string): string {
    const lines = text.split('\n');
    const trailingNewline = lines.at(-1) === '';
    if (trailingNewline) lines.pop();
    const cells = lines.map((l) => l.split('\t'));
    const out: string[] = [];
    this.block(cells, 0, cells.length, [], out);
    return out.join('\n') + (trailingNewline ? '\n' : '');
  }

  private block(lines: string[][], from: number, to: number, widths: number[], out: string[]): void {
    const column = widths.length;
    let start = from;
    for (let at = from; at < to; at++) {
      if (column >= lines[at].length - 1) continue;
      this.write(lines, start, at, widths, out);
      start = at;
      let width = this.options.minWidth;
      for (; at < to && column < lines[at].length - 1; at++) width = Math.max(width, runes(lines[at][column]) + this.options.padding);
      if (this.options.rememberWidths) {
        width = Math.max(width, this.maxWidths[column] ?? 0);
        this.maxWidths[column] = width;
      }
      this.block(lines, start, at, [...widths, width], out);
      start = at;
      at--;
    }
    this.write(lines, start, to, widths, out);
  }

  private write(lines: string[][], from: number, to: number, widths: number[], out: string[]): void {
    for (let i = from; i < to; i++)
      out.push(lines[i].map((cell, j) => (j < widths.length ? cell + ' '.repeat(Math.max(0, widths[j] - runes(cell))) : cell)).join(''));
  }
}

function runes(s: string): number {
  return [...s].length;
}
