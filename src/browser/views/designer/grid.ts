// How the full factorial expansion is laid out as a grid: rows are the combinations of the first
// half of the factors, columns those of the rest, each header grouping equal levels.
import { cellId, factorKey } from '../../../common/plan.js';
import type { Design, Factor } from '../../../common/experiment/types.js';

export interface HeaderSpan {
  level: string;
  span: number;
}
export interface GridLayout {
  rowFactors: Factor[];
  colFactors: Factor[];
  /** One combination of the row factors per row, first factor varying slowest. */
  rows: Record<string, string>[];
  cols: Record<string, string>[];
  /** One header line per column factor: its levels with how many columns each spans. */
  colHeaders: { key: string; spans: HeaderSpan[] }[];
  /** For each row factor, where a label starts (row index → rows spanned). */
  rowSpans: { key: string; spans: Map<number, number> }[];
  /** The cell id at row r and column c. */
  cell(r: number, c: number): string;
}

function combos(factors: Factor[]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const f of factors) out = out.flatMap((c) => f.levels.map((l) => ({ ...c, [factorKey(f)]: l })));
  return out;
}

/** Runs of equal values: ['on','on','off'] → [{on,2},{off,1}], compared on all keys up to `depth`. */
function runs(list: Record<string, string>[], keys: string[], depth: number): { start: number; span: number; level: string }[] {
  const out: { start: number; span: number; level: string }[] = [];
  const prefix = (c: Record<string, string>) => keys.slice(0, depth + 1).map((k) => c[k]).join('\u0000');
  list.forEach((c, i) => {
    const last = out[out.length - 1];
    if (last && prefix(list[last.start]) === prefix(c)) last.span++;
    else out.push({ start: i, span: 1, level: c[keys[depth]] });
  });
  return out;
}

export function gridLayout(design: Pick<Design, 'factors'>): GridLayout {
  const half = Math.ceil(design.factors.length / 2);
  const rowFactors = design.factors.slice(0, half);
  const colFactors = design.factors.slice(half);
  const rows = combos(rowFactors);
  const cols = combos(colFactors);
  const rowKeys = rowFactors.map(factorKey);
  const colKeys = colFactors.map(factorKey);
  return {
    rowFactors,
    colFactors,
    rows,
    cols,
    colHeaders: colKeys.map((key, d) => ({ key, spans: runs(cols, colKeys, d).map(({ level, span }) => ({ level, span })) })),
    rowSpans: rowKeys.map((key, d) => ({ key, spans: new Map(runs(rows, rowKeys, d).map((r) => [r.start, r.span])) })),
    cell: (r, c) => cellId({ ...rows[r], ...cols[c] }, design.factors),
  };
}

/** `16 cells`, `16 cells, 1 excluded`. */
export function cellCountText(total: number, excluded: number): string {
  const cells = `${total} cell${total === 1 ? '' : 's'}`;
  return excluded ? `${cells}, ${excluded} excluded` : cells;
}
