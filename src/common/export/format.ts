// One way to write an effect, its interval and its p-value, and the notes that must stand beside
// them, for every place a person reads them: `varlab analyze`, `varlab compare`, the UI, the Markdown
// report and the plots. Two tools printing the same comparison two ways made users doubt both.

import { MIN_RESTARTS } from '../stats/evidence.js';
import { higherIsBetter } from '../stats/units.js';

export { higherIsBetter };
import { MDE_LABELS, type Mde } from '../stats/mde.js';

const MINUS = '\u2212';
export const NA = 'n/a';

/** `+14.45`, `−91.56` (a real minus sign, so columns of signed numbers line up and read as numbers). */
export function signed(x: number, digits = 2): string {
  const t = Math.abs(x).toFixed(digits);
  // −0.00 is 0.00: a rounded zero has no sign.
  if (Number(t) === 0) return t;
  return `${x < 0 ? MINUS : '+'}${t}`;
}

/** An effect in percent of the baseline: `+14.45 %`. */
export function fmtEffect(x: number | null | undefined, na = NA): string {
  return x === null || x === undefined || !Number.isFinite(x) ? na : `${signed(x)} %`;
}

/** The confidence level of intervals at this α, in percent as people write it: 95, 99, 99.9. */
export function levelPct(alpha: number): string {
  return String(Number((100 * (1 - alpha)).toPrecision(6)));
}

/** A (1 − α) interval in percent: `[−91.56, +120.45] %`. */
export function fmtInterval(lo: number | null | undefined, hi: number | null | undefined, na = NA): string {
  if (lo === null || lo === undefined || hi === null || hi === undefined || !Number.isFinite(lo) || !Number.isFinite(hi)) return na;
  return `[${signed(lo)}, ${signed(hi)}] %`;
}

/** A p-value: `p = 0.376`, `p < 0.001`. */
export function fmtP(p: number | null | undefined, na = NA): string {
  if (p === null || p === undefined || !Number.isFinite(p)) return na;
  return p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`;
}

/** The parts of a comparison its verdict is read from (the analysis's and the experiments comparison's). */
export interface VerdictLike {
  verdict: 'differs' | 'equivalent' | 'inconclusive' | null;
  detectable_pct: number | null;
  equivalence?: { margin_pct: number; p_value?: number; p_adjusted?: number | null } | null;
  null_reasons?: { detectable_pct?: string; p_value?: string };
}

/**
 * What a comparison says, in words: `differs`, or `inconclusive at this design: could have seen ±4.20 %`
 * (the effect the design could have detected, so "no difference" is never read into noise).
 */
export function fmtVerdict(c: VerdictLike, na = NA): string {
  if (c.verdict === null) return na;
  if (c.verdict === 'differs') return 'differs';
  // Named by its test, with its p-value: the decision is the two one-sided tests (adjusted over the
  // family like p), not the (1 − α) interval shown beside it, which may reach past ±E.
  if (c.verdict === 'equivalent') {
    const p = c.equivalence?.p_adjusted ?? c.equivalence?.p_value;
    return `equivalent within ±${c.equivalence?.margin_pct ?? '?'} % (two one-sided tests${p === undefined || p === null ? '' : `, ${c.equivalence?.p_adjusted !== undefined && c.equivalence?.p_adjusted !== null ? 'adjusted ' : ''}${fmtP(p)}`})`;
  }
  const seen = c.detectable_pct;
  if (seen !== null && Number.isFinite(seen)) return `inconclusive at this design: could have seen ±${seen.toFixed(2)} %`;
  // A colon, not brackets: the reason often has its own ("needs 1 more restart (3 in both cells)").
  return `inconclusive at this design: ${c.null_reasons?.detectable_pct ?? 'no detectable effect computed'} to say what it could have seen`;
}

/** What an MDE rests on: `pooled over 15 cells, 10 restarts per cell; 1 cell with fewer than 3 restarts left out`. */
export function fmtMdeBasis(m: Pick<Mde, 'definition' | 'restarts' | 'cells' | 'left_out'>): string {
  if (m.definition === 'per-cell') return `${MDE_LABELS['per-cell']}, ${m.restarts} restarts`;
  const left = m.left_out ? `; ${m.left_out} cell${m.left_out === 1 ? '' : 's'} with fewer than ${MIN_RESTARTS} restarts left out` : '';
  return `${MDE_LABELS.pooled} (${m.cells}), ${m.restarts} restarts per cell${left}`;
}

/** A spread or coefficient of variation: `0.24%`, always two decimals. */
export function fmtPctValue(x: number | null | undefined, na = NA): string {
  return x === null || x === undefined || !Number.isFinite(x) ? na : `${x.toFixed(2)}%`;
}

/** The sign convention of effects, said wherever effects are shown. */
export function effectConvention(unit: string | null | undefined, declared?: boolean): string {
  const better = higherIsBetter(unit, declared);
  const what =
    better === false ? 'positive = slower (more time), negative = faster' : better === true ? 'positive = faster (more throughput), negative = slower' : 'positive = a larger value than the baseline';
  return `effect = (cell − baseline) / baseline: ${what}`;
}

/** Fewer than this many restarts per cell make an interval too wide to judge a comparison by. */
export const FEW_RESTARTS = 3;

/**
 * The warning for comparisons made from too few restarts, or null when there are enough. `fewest` is
 * the fewest restarts any cell has, `most` the most (when some cells have more, only some are named).
 */
export function fewRestartsNote(fewest: number, most = fewest): string | null {
  if (!Number.isFinite(fewest) || fewest >= FEW_RESTARTS) return null;
  const n = `${fewest} restart${fewest === 1 ? '' : 's'}`;
  const who = most > fewest ? `some cells have only ${n}: their intervals are wide` : `only ${n} per cell: intervals are wide`;
  return `${who}; run at least 5 restarts per cell before trusting a comparison`;
}

/** Aligned text columns for a terminal: `right[i]` pads column i on the left (numbers). */
export function textTable(head: string[], rows: string[][], right: boolean[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c = '', i) => (right[i] ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

/** Sort by a preferred order (the workload's queries); names not in it keep their place after it. */
export function inOrder<T>(items: T[], order: string[], key: (t: T) => string): T[] {
  const at = new Map(order.map((q, i) => [q, i]));
  return items
    .map((t, i) => ({ t, i }))
    .sort((a, b) => (at.get(key(a.t)) ?? order.length + a.i) - (at.get(key(b.t)) ?? order.length + b.i))
    .map((x) => x.t);
}
