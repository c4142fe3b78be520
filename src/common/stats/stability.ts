// "Most stable" is a claim, so it is a test (issue 25, item 4): the cell with the smallest spread of
// restart means is named only when its restart means are shown to scatter less than every other
// cell's, for every query, by the Brown–Forsythe test adjusted over that family like every comparison.
//
// Brown–Forsythe (1974), Levene's test with the median: each value's absolute deviation from its
// group's median, z = |x − median|, then the one-way ANOVA F of the z's. Robust to the skewed,
// heavy-tailed restart means benchmarks give. Two groups at a time here: F = t² of the pooled t on
// the z's, on 1 and n₁ + n₂ − 2 degrees of freedom. The restart means are taken in logs, so a spread is
// relative (as spread_avg_pct is) and a slower cell is not "less stable" only for being slower.
import { adjustPValues, ADJUSTMENT_NAMES, type Adjustment } from './adjust.js';
import { tcdf } from './tdist.js';

export const STABILITY_METHOD = 'Brown–Forsythe test on the log restart means (Levene with the median), the cell of smallest spread against each other cell for each query';

export interface BrownForsythe {
  F: number;
  df1: number;
  df2: number;
  p: number;
  /** Mean absolute deviation from the median of each group: the smaller, the tighter. */
  spread: [number, number];
}

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The two-group Brown–Forsythe test; null when a group has fewer than 2 values or the deviations do not vary. */
export function brownForsythe(a: readonly number[], b: readonly number[]): BrownForsythe | null {
  if (a.length < 2 || b.length < 2) return null;
  const za = a.map((x) => Math.abs(x - median(a)));
  const zb = b.map((x) => Math.abs(x - median(b)));
  const ma = mean(za);
  const mb = mean(zb);
  const ss = za.reduce((s, z) => s + (z - ma) ** 2, 0) + zb.reduce((s, z) => s + (z - mb) ** 2, 0);
  const df2 = a.length + b.length - 2;
  const pooled = ss / df2;
  if (!(pooled > 0)) return null;
  const t = (ma - mb) / Math.sqrt(pooled * (1 / a.length + 1 / b.length));
  return { F: t * t, df1: 1, df2, p: 2 * (1 - tcdf(Math.abs(t), df2)), spread: [ma, mb] };
}

export interface StabilityVerdict {
  /** The cell shown to be more stable than every other, or null. */
  cell: string | null;
  /** The cell with the smallest spread, tested against the others. */
  candidate: string;
  /** The largest adjusted p of its family (the one that decides), with the cell and query it was against. */
  weakest: { cell: string; query: string; p_adjusted: number | null; F: number | null } | null;
  /** How many tests the family held. */
  tests: number;
  /** In words: what was tested, and (when no cell is named) what would settle it. */
  said: string;
}

/**
 * Is `candidate` more stable than every other cell? `means` gives each cell's restart means by query.
 * Every pair (candidate, other cell) × query both measured is one test of the family, adjusted by
 * `adjustment`; the candidate is named when every adjusted p is at most α and its spread is the smaller.
 */
export function stabilityTest(candidate: string, cells: readonly string[], means: (cell: string) => Map<string, readonly number[]>, alpha: number, adjustment: Adjustment): StabilityVerdict {
  const mine = means(candidate);
  const tests: { cell: string; query: string; r: BrownForsythe | null }[] = [];
  for (const other of cells) {
    if (other === candidate) continue;
    const theirs = means(other);
    for (const [query, xs] of mine) {
      const ys = theirs.get(query);
      if (!ys) continue;
      const logs = (v: readonly number[]) => v.filter((x) => x > 0).map(Math.log);
      tests.push({ cell: other, query, r: brownForsythe(logs(xs), logs(ys)) });
    }
  }
  const adjusted = adjustPValues(
    tests.map((t) => t.r?.p ?? null),
    adjustment,
  );
  let weakest: StabilityVerdict['weakest'] = null;
  let shown = tests.length > 0;
  tests.forEach((t, i) => {
    const p = adjusted[i];
    const tighter = t.r !== null && t.r.spread[0] < t.r.spread[1];
    if (p === null || p > alpha || !tighter) shown = false;
    const rank = (x: number | null, ok: boolean) => (x === null || !ok ? Infinity : x);
    if (!weakest || rank(p, tighter) > rank(weakest.p_adjusted, true)) weakest = { cell: t.cell, query: t.query, p_adjusted: p, F: t.r?.F ?? null };
  });
  const w = weakest as StabilityVerdict['weakest'];
  const how = `${STABILITY_METHOD}, ${tests.length} test${tests.length === 1 ? '' : 's'} adjusted by ${ADJUSTMENT_NAMES[adjustment]} at α = ${alpha}`;
  if (shown) return { cell: candidate, candidate, weakest: w, tests: tests.length, said: `shown more stable than every other cell (${how}; the weakest, against ${w!.cell} on ${w!.query}: adjusted p = ${fmtP(w!.p_adjusted)})` };
  const against = w ? ` against ${w.cell} on ${w.query} (${w.p_adjusted === null ? 'no test: its restart means do not vary' : `F = ${w.F!.toFixed(2)}, adjusted p = ${fmtP(w.p_adjusted)}`})` : '';
  return {
    cell: null,
    candidate,
    weakest: w,
    tests: tests.length,
    said: `no cell is shown to be more stable yet: ${candidate} has the smallest spread, but it is not shown to scatter less than every other cell${against}; more restarts per cell would settle it, each narrows the test (${how})`,
  };
}

const fmtP = (p: number | null) => (p === null ? 'n/a' : p < 0.001 ? p.toExponential(1) : p.toFixed(3));
