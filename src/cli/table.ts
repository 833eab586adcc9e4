import { printable } from './args.js';

/** Visible width: ANSI colour codes take no room on the terminal. */
function width(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[\d+m/g, '')].length;
}

/**
 * Formats rows as an aligned text table with a header line. Cells are made printable (seller
 * text included) and cut at `maxCell` characters; a cell may carry colour codes added by the CLI
 * itself through `paint`, applied after sanitising.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: {
    maxCell?: number;
    paint?: (row: number, col: number, cell: string) => string;
    headerStyle?: (s: string) => string;
  } = {},
): string {
  const maxCell = options.maxCell ?? 60;
  const cut = (cell: string) => {
    const clean = printable(cell);
    return [...clean].length > maxCell ? `${[...clean].slice(0, maxCell - 1).join('')}…` : clean;
  };
  const body = rows.map((row) => header.map((_, c) => cut(row[c] ?? '')));
  const widths = header.map((h, c) => Math.max(width(h), ...body.map((row) => width(row[c] ?? ''))));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell + ' '.repeat((widths[c] ?? 0) - width(cell))))
      .join('  ')
      .trimEnd();
  const head = options.headerStyle ?? ((s: string) => s);
  const out = [head(line(header)), line(widths.map((w) => '-'.repeat(w)))];
  body.forEach((row, r) => {
    const painted = options.paint ? row.map((cell, c) => options.paint!(r, c, cell)) : row;
    out.push(line(painted));
  });
  return `${out.join('\n')}\n`;
}
