// The one minimum detectable effect. Every place that shows an MDE (the Run view, the Analysis tables,
// the planning figure, the exports, a comparison's "could have seen") calls minimumDetectableEffect(),
// and says which definition it shows:
//   per-cell  the spread of one cell's restart means;
//   pooled    the relative variance of restart means pooled over the cells with at least MIN_RESTARTS
//             restarts (weighted by their degrees of freedom), for "what can two cells of this design
//             tell apart"; cells with fewer are left out, and counted.
// It is the effect a two-sided test of the ratio of restart means (log scale, as the comparisons use)
// detects at level α with the given power between two cells of n restarts each:
//   δ = (t(1 − α/2, ν) + t(power, ν)) · CoV · √(2 / n),  ν = 2 (n − 1),  MDE = 100 · (e^δ − 1) %
// where CoV is the between-restart coefficient of variation (σ of restart means / their mean). e^δ − 1
// is the larger of the two directions, so any change of at least the MDE, up or down, is detected.
import { tq } from './tdist.js';
import { MIN_RESTARTS, needsMoreText, PLAN_LIMITS } from './evidence.js';

export type MdeDefinition = 'pooled' | 'per-cell';

/** The label beside every MDE number. */
export const MDE_LABELS: Record<MdeDefinition, string> = {
  pooled: 'pooled over cells',
  'per-cell': 'per cell',
};

export interface MdeOptions {
  /** How the between-restart spread is estimated: from one cell, or pooled over the cells given. */
  definition: MdeDefinition;
  alpha: number;
  power: number;
  /** Restarts per cell the MDE is for; the fewest any given cell has when absent (the design as measured). */
  restarts?: number;
  /** For the comparison paired within rounds at this variance ratio (the planner's), not Welch's. */
  paired?: Paired;
}

export interface Mde {
  definition: MdeDefinition;
  /** The MDE in percent, or null with the reason. */
  pct: number | null;
  reason?: string;
  /** Restarts per cell it is computed for. */
  restarts: number;
  /** The between-restart CoV (percent) it rests on: one cell's, or the pooled one. */
  cov_pct: number | null;
  /** Cells it rests on, and cells left out for having fewer than MIN_RESTARTS restarts (pooled only). */
  cells: number;
  left_out: number;
}

/** The formula above, for a CoV in percent and n restarts per cell (n ≥ 2). */
/**
 * A comparison within rounds (paired t, ν = n − 1) whose difference has `varianceRatio` times the variance
 * of the unpaired one's (the variance ratio paired/unpaired a run in rounds measures, paired.ts).
 */
export interface Paired {
  varianceRatio: number;
}

function mdeFromCov(covPct: number, n: number, alpha: number, power: number, paired?: Paired): number {
  const nu = paired ? n - 1 : 2 * (n - 1);
  const delta = (tq(1 - alpha / 2, nu) + tq(power, nu)) * (covPct / 100) * Math.sqrt((2 * (paired?.varianceRatio ?? 1)) / n);
  return 100 * Math.expm1(delta);
}

/** One cell's restart means: their CoV in percent and degrees of freedom, or why there is none. */
function cellCov(means: ArrayLike<number>): { cov: number; df: number } | { why: string } {
  const n = means.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += means[i];
  const mean = sum / n;
  if (!(mean > 0)) return { why: `the mean of restart means (${mean}) is not positive, so a percentage of it means nothing` };
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (means[i] - mean) ** 2;
  return { cov: (100 * Math.sqrt(ss / (n - 1))) / mean, df: n - 1 };
}

/**
 * The minimum detectable effect of the given cells' restart means (one array per cell). `per-cell`
 * takes exactly one cell. Fewer than MIN_RESTARTS restarts in a cell give no number: the reason says
 * how many more are needed.
 */
export function minimumDetectableEffect(cells: readonly ArrayLike<number>[], opts: MdeOptions): Mde {
  if (opts.definition === 'per-cell' && cells.length !== 1) throw new Error(`a per-cell MDE takes one cell, got ${cells.length}`);
  const used = cells.filter((c) => c.length >= MIN_RESTARTS);
  const restarts = opts.restarts ?? (used.length ? Math.min(...used.map((c) => c.length)) : 0);
  const out: Mde = { definition: opts.definition, pct: null, restarts, cov_pct: null, cells: used.length, left_out: cells.length - used.length };
  const most = cells.length ? Math.max(...cells.map((c) => c.length)) : 0;
  if (most === 0) return { ...out, reason: 'no restarts with executions' };
  if (!used.length) return { ...out, reason: needsMoreText(most)! };
  const parts: { cov: number; df: number }[] = [];
  for (const means of used) {
    const c = cellCov(means);
    if ('why' in c) return { ...out, reason: c.why };
    parts.push(c);
  }
  // Summed in a fixed order, so the same cells in any order (the Run view meets them in run order, the
  // analysis in sorted order) give the same number to the last bit.
  parts.sort((x, y) => x.cov - y.cov || x.df - y.df);
  let num = 0;
  let df = 0;
  for (const c of parts) {
    num += c.df * c.cov * c.cov;
    df += c.df;
  }
  const cov = Math.sqrt(num / df);
  out.cov_pct = cov;
  if (restarts < 2) return { ...out, reason: 'an MDE is for two or more restarts per cell' };
  out.pct = mdeFromCov(cov, restarts, opts.alpha, opts.power, opts.paired);
  return out;
}

export interface CurvePoint {
  restarts: number;
  mde_pct: number;
}

/** The MDE against restarts per cell, n = MIN_RESTARTS … maxRestarts, from the same spread; [] when it has no number. */
export function mdeCurve(cells: readonly ArrayLike<number>[], opts: Omit<MdeOptions, 'restarts'>, maxRestarts = 30): CurvePoint[] {
  const now = minimumDetectableEffect(cells, opts);
  if (now.cov_pct === null) return [];
  const out: CurvePoint[] = [];
  for (let n = MIN_RESTARTS; n <= maxRestarts; n++) out.push({ restarts: n, mde_pct: mdeFromCov(now.cov_pct, n, opts.alpha, opts.power) });
  return out;
}

/**
 * The smallest n ≥ MIN_RESTARTS whose MDE (at this between-restart CoV) is at most targetPct, or null
 * beyond `limit` restarts: then the target is out of reach. `paired`: for the comparison within rounds. The MDE falls with n, so a doubling search
 * then bisection needs only a few dozen t quantiles.
 */
export function restartsForTarget(covPct: number, targetPct: number, alpha: number, power: number, limit: number = PLAN_LIMITS.restarts, paired?: Paired): number | null {
  const ok = (n: number) => mdeFromCov(covPct, n, alpha, power, paired) <= targetPct;
  let lo = MIN_RESTARTS;
  if (ok(lo)) return lo;
  let hi = lo * 2;
  while (!ok(hi)) {
    if (hi >= limit) return null;
    lo = hi;
    hi = Math.min(limit, hi * 2);
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}
