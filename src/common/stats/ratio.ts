// A comparison is the ratio of restart means, contender over baseline: "+4.2 %" means the cell's mean
// is 1.042 times the baseline's. Its interval is computed on the log scale, so it can never leave
// (−100 %, +∞): no time falls below zero, however few and noisy the restarts.
//   R = m₁ / m₀,  v_i = s_i² / (n_i m_i²)   (the delta method: the variance of log m_i)
//   se = √(v₁ + v₀),  ν = (v₁ + v₀)² / (v₁² / (n₁ − 1) + v₀² / (n₀ − 1))   (Welch–Satterthwaite)
//   interval: 100 · (exp(log R ± t(1 − α/2, ν) · se) − 1) %,  p = 2 · P(T_ν > |log R| / se)
// The restart is the unit of evidence: m_i and s_i are over restart means, never over executions.
import { tcdf, tq } from './tdist.js';

/** The method, named wherever a comparison is shown. */
export const COMPARISON_METHOD = 'ratio of restart means (cell / baseline); interval on the log scale with Welch–Satterthwaite degrees of freedom';

/** One method's numbers for a comparison (this Welch one, the paired one of paired.ts). */
export interface ComparisonEstimate {
  effect_pct: number | null;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  p_value: number | null;
  /** Degrees of freedom of the interval (here Welch–Satterthwaite). */
  df: number | null;
  /** Why the fields that are null are null. */
  why?: string;
}

export interface RatioComparison extends ComparisonEstimate {
  /** log(cell mean / baseline mean) and its standard error: what equivalence and the variance ratio use. */
  log_effect?: number;
  se?: number;
}

function meanVar(xs: ArrayLike<number>): { n: number; mean: number; variance: number } {
  const n = xs.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += xs[i];
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (xs[i] - mean) ** 2;
  return { n, mean, variance: n > 1 ? ss / (n - 1) : Number.NaN };
}

/**
 * A standard error on the log scale this small (10⁻¹² of the mean, 10⁻¹⁰ %) is floating-point rounding,
 * not a spread: restart means in an exact ratio give differences equal but for their last bits, and
 * whether those bits are zero depends on the JavaScript engine (the Analysis view in Chromium paired
 * comparisons that Node called equal). Below it, no interval: "an interval would be a point".
 */
export const ROUNDING_SE = 1e-12;

/** No spread to make an interval from: zero, not a number, or rounding alone (ROUNDING_SE). */
export const noSpread = (se: number): boolean => !(se > ROUNDING_SE);

/** The ratio of the cell's restart means to the baseline's, with a (1 − α) interval and a two-sided p-value. */
export function ratioOfMeans(cell: ArrayLike<number>, baseline: ArrayLike<number>, alpha: number): RatioComparison {
  const none: RatioComparison = { effect_pct: null, ci_low_pct: null, ci_high_pct: null, p_value: null, df: null };
  const c = meanVar(cell);
  const b = meanVar(baseline);
  if (!(b.mean > 0)) return { ...none, why: 'the baseline mean is not positive, so a ratio to it means nothing' };
  if (!(c.mean > 0)) return { ...none, effect_pct: (100 * (c.mean - b.mean)) / b.mean, why: "this cell's mean is not positive: a ratio needs positive means" };
  const out: RatioComparison = { ...none, effect_pct: 100 * (c.mean / b.mean - 1) };
  if (c.n < 2 || b.n < 2) return { ...out, why: `an interval needs two restarts in each cell (this cell has ${c.n}, the baseline ${b.n})` };
  const v1 = c.variance / (c.n * c.mean * c.mean);
  const v0 = b.variance / (b.n * b.mean * b.mean);
  const se = Math.sqrt(v1 + v0);
  if (noSpread(se)) return { ...out, why: 'no variation between restarts in either cell: an interval would be a point' };
  const nu = (v1 + v0) ** 2 / (v1 ** 2 / (c.n - 1) + v0 ** 2 / (b.n - 1));
  const logR = Math.log(c.mean / b.mean);
  const half = tq(1 - alpha / 2, nu) * se;
  out.ci_low_pct = 100 * Math.expm1(logR - half);
  out.ci_high_pct = 100 * Math.expm1(logR + half);
  out.p_value = Math.min(1, 2 * tcdf(-Math.abs(logR / se), nu));
  out.df = nu;
  out.log_effect = logR;
  out.se = se;
  return out;
}
