// Comparisons in pairs, and equivalence. When a design runs in rounds (every round holds each cell
// once, issue 21), a cell's restart and the baseline's restart of the same round share that round's
// drift; the difference of their log means within the round removes it:
//   d_r = log m_cell,r − log m_base,r,  r = 1 … R (rounds holding both),
//   d̄ ± t(1 − α/2, R − 1) · s_d / √R  on the log scale, effect 100 · (e^d̄ − 1) %
// (the paired t interval, df = rounds − 1). The variance ratio paired/unpaired, (s_d² / R) / (v₁ + v₀)
// with v from the Welch comparison (ratio.ts), says how much of the variance pairing removed.
// Equivalence within ±E % is Schuirmann's (1987) two one-sided tests at α against the margins
// log(1 − E/100) and log(1 + E/100): equivalent when both reject, that is when the (1 − 2α) interval
// lies inside (−E %, +E %).
import { tcdf, tq } from './tdist.js';
import { noSpread, type ComparisonEstimate } from './ratio.js';

export const PAIRED_METHOD = 'within-round paired difference of log restart means; paired t interval on the log scale, df = rounds − 1';
export const EQUIVALENCE_METHOD = 'two one-sided tests (Schuirmann 1987) against ±E %, E the design’s target effect';

export interface LogComparison extends ComparisonEstimate {
  /** The estimate on the log scale: log(cell / baseline). */
  log_effect: number | null;
  /** Its standard error on the log scale. */
  se: number | null;
}

/** Pairs (cell, baseline) of restart means of the same round, in round order. */
export function pairedLogRatio(pairs: readonly (readonly [number, number])[], alpha: number): LogComparison & { rounds: number } {
  const out = { log_effect: null, se: null, effect_pct: null, ci_low_pct: null, ci_high_pct: null, p_value: null, df: null, rounds: pairs.length } as LogComparison & { rounds: number };
  if (pairs.some(([c, b]) => !(c > 0 && b > 0))) return { ...out, why: 'a restart mean is not positive: a ratio needs positive means' };
  const d = pairs.map(([c, b]) => Math.log(c) - Math.log(b));
  const n = d.length;
  if (n < 2) return { ...out, why: `a paired interval needs two rounds holding both cells (found ${n})` };
  const mean = d.reduce((a, b) => a + b, 0) / n;
  const ss = d.reduce((a, x) => a + (x - mean) ** 2, 0);
  const se = Math.sqrt(ss / (n - 1) / n);
  out.log_effect = mean;
  out.effect_pct = 100 * Math.expm1(mean);
  if (noSpread(se)) return { ...out, se: 0, why: 'the within-round differences are all equal: an interval would be a point' };
  const df = n - 1;
  const half = tq(1 - alpha / 2, df) * se;
  out.se = se;
  out.df = df;
  out.ci_low_pct = 100 * Math.expm1(mean - half);
  out.ci_high_pct = 100 * Math.expm1(mean + half);
  out.p_value = Math.min(1, 2 * tcdf(-Math.abs(mean / se), df));
  return out;
}

export interface Equivalence {
  margin_pct: number;
  /** max of the two one-sided p-values: equivalent at α when ≤ α. */
  p_value: number;
  /** The (1 − 2α) interval, in percent, the TOST decision can be read from. */
  ci_low_pct: number;
  ci_high_pct: number;
}

/** Schuirmann's two one-sided tests of |effect| ≥ E % for a log-scale estimate with its se and df. */
export function tost(logEffect: number, se: number, df: number, marginPct: number, alpha: number): Equivalence {
  const lower = Math.log1p(-marginPct / 100);
  const upper = Math.log1p(marginPct / 100);
  // H0₁: effect ≤ lower, rejected for large (est − lower)/se; H0₂: effect ≥ upper, for small (est − upper)/se.
  const p1 = tcdf(-(logEffect - lower) / se, df);
  const p2 = tcdf((logEffect - upper) / se, df);
  const half = tq(1 - alpha, df) * se;
  return { margin_pct: marginPct, p_value: Math.max(p1, p2), ci_low_pct: 100 * Math.expm1(logEffect - half), ci_high_pct: 100 * Math.expm1(logEffect + half) };
}
