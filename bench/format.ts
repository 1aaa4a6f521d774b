/** Prints aligned plain-text tables (Markdown-compatible, so they paste into docs/performance.md). */
export type Cell = string | number | boolean | undefined | null;

function text(cell: Cell): string {
  if (cell === undefined || cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : 'n/a';
  return String(cell);
}

export function formatTable(headers: string[], rows: Cell[][]): string {
  const cells = rows.map((r) => headers.map((_, i) => text(r[i])));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) => `| ${values.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(headers), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export function printTable(title: string, headers: string[], rows: Cell[][]): void {
  console.log(`\n${title}\n${formatTable(headers, rows)}`);
}
