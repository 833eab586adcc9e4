import { printable } from './args.js';

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The user-perceived characters of `text` (an emoji with modifiers is one). */
function characters(text: string): string[] {
  const out: string[] = [];
  for (const { segment } of graphemes.segment(text)) out.push(segment);
  return out;
}

/** Visible width: ANSI colour codes take no room on the terminal. */
function width(text: string): number {
  // oxlint-disable-next-line no-control-regex -- matches the ESC of the CLI's own colour codes
  return characters(text.replace(/\u001b\[\d+m/g, '')).length;
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
    const chars = characters(clean);
    return chars.length > maxCell ? `${chars.slice(0, maxCell - 1).join('')}…` : clean;
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
