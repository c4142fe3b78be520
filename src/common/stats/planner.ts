// Planning: how many restarts a given effect needs, how many repetitions per restart are worth their
// cost, and what the planned design will cost in time. The unit of evidence is the restart.
import type { Design, ExperimentDoc } from '../experiment/types.js';
import { estimatePlan, expandCells } from '../plan.js';
import { tq } from './tdist.js';

/** Restarts beyond this are not a plan anyone will run. */
export const MAX_RESTARTS = 1_000_000;

/**
 * The minimum detectable effect in percent of `mean` for two cells of n restarts each, with s² the
 * variance of restart means: 100 · (t(1 − α/2, ν) + t(power, ν)) · √(2 s² / n) / mean, ν = 2(n − 1).
 */
export function mdePct(s2: number, mean: number, n: number, alpha: number, power: number): number {
  const nu = 2 * (n - 1);
  return (100 * (tq(1 - alpha / 2, nu) + tq(power, nu)) * Math.sqrt((2 * s2) / n)) / mean;
}

/**
 * The smallest n ≥ 2 whose MDE is at most targetPct, or null beyond MAX_RESTARTS. The MDE falls with n,
 * so a doubling search then bisection needs only a few dozen t quantiles.
 */
export function restartsForTarget(s2: number, mean: number, targetPct: number, alpha: number, power: number): number | null {
  const ok = (n: number) => mdePct(s2, mean, n, alpha, power) <= targetPct;
  if (ok(2)) return 2;
  let lo = 2;
  let hi = 4;
  while (!ok(hi)) {
    lo = hi;
    hi *= 2;
    if (lo >= MAX_RESTARTS) return null;
  }
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (ok(mid)) hi = mid;
    else lo = mid;
  }
  return hi <= MAX_RESTARTS ? hi : null;
}

export interface CurvePoint {
  restarts: number;
  mde_pct: number;
}

/** MDE against restarts per cell, n = 2 … maxRestarts. */
export function mdeCurve(s2: number, mean: number, alpha: number, power: number, maxRestarts = 30): CurvePoint[] {
  const out: CurvePoint[] = [];
  for (let n = 2; n <= maxRestarts; n++) out.push({ restarts: n, mde_pct: mdePct(s2, mean, n, alpha, power) });
  return out;
}

/**
 * Kalibera and Jones ("Rigorous benchmarking in reasonable time"): the repetitions per restart that
 * minimise the cost of a given precision, ⌈√((restart cost / execution cost) · σ²within / σ²between)⌉.
 * Null, with why, when there is no between-restart variance to weigh against.
 */
export function optimalRepetitions(restartSeconds: number, executionSeconds: number, varWithin: number, varBetween: number): { value: number | null; reason?: string } {
  if (!(executionSeconds > 0)) return { value: null, reason: 'the cost of an execution is unknown' };
  if (!(restartSeconds >= 0)) return { value: null, reason: 'the cost of a restart is unknown' };
  if (!(varBetween > 0)) return { value: null, reason: 'no between-restart variance was measured: extra repetitions cost less than extra restarts' };
  return { value: Math.max(1, Math.ceil(Math.sqrt((restartSeconds / executionSeconds) * (varWithin / varBetween)))) };
}

export interface Costs {
  /** Seconds for one restart beyond its executions (stop, start, verify, preload). */
  restartSeconds: number;
  /** Seconds for one execution. */
  executionSeconds: number;
  /** Whether the journal measured them or the design's estimates stand in. */
  source: 'journal' | 'estimates';
}

const SECONDS_PER: Record<string, number> = { s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };

/**
 * The costs measured from the results when they allow it: an execution from the timings (when they
 * are durations), a restart from its wall time less its executions. Otherwise the design's estimates.
 */
export function measuredCosts(doc: ExperimentDoc): Costs {
  const est: Costs = {
    restartSeconds: doc.design.estimates.restartSeconds,
    executionSeconds: doc.design.estimates.executionMs / 1000,
    source: 'estimates',
  };
  const restarts = (doc.results?.restarts ?? []).filter((r) => r.status === 'ok' && r.finishedAt > r.startedAt);
  if (!restarts.length) return est;
  let execTotal = 0;
  let execCount = 0;
  const overheads: number[] = [];
  for (const r of restarts) {
    let restartExec = 0;
    let countInRestart = 0;
    for (const q of r.queries) {
      const per = SECONDS_PER[q.unit];
      countInRestart += q.values.length;
      if (per === undefined) continue;
      for (const v of q.values) restartExec += v * per;
    }
    const wall = (r.finishedAt - r.startedAt) / 1000;
    execTotal += restartExec;
    execCount += countInRestart;
    // When timings are not durations (tps), execution time is unknown: spread the wall time evenly later.
    overheads.push(restartExec > 0 ? Math.max(0, wall - restartExec) : Number.NaN);
  }
  if (!(execTotal > 0) || !execCount) return est;
  const known = overheads.filter(Number.isFinite).sort((a, b) => a - b);
  return {
    restartSeconds: known.length ? known[Math.floor(known.length / 2)] : est.restartSeconds,
    executionSeconds: execTotal / execCount,
    source: 'journal',
  };
}

/** Seconds the design will take with the given restarts per cell and repetitions, at the given costs. */
export function plannedSeconds(design: Design, restartsPerCell: number, repetitions: number, costs: Costs): number {
  const planned: Design = {
    ...design,
    restartsPerCell,
    workload: { ...design.workload, repetitions },
    estimates: { restartSeconds: costs.restartSeconds, executionMs: costs.executionSeconds * 1000 },
  };
  const cells = expandCells(design).filter((c) => !c.excluded).length;
  return estimatePlan(planned, cells * restartsPerCell).seconds;
}

export interface QueryPlan {
  query: string;
  /** Variance of restart means and the mean, pooled over the cells with two or more restarts. */
  s2: number | null;
  mean: number | null;
  /** The MDE of the current design (its restarts per cell). */
  mdeNowPct: number | null;
  restartsNeeded: number | null;
  optimalRepetitions: number | null;
  reasons: { restartsNeeded?: string; optimalRepetitions?: string };
}

export interface PlanSuggestion {
  queries: QueryPlan[];
  costs: Costs;
  /** The largest restarts needed over queries: every query must see the target effect. */
  restartsPerCell: number | null;
  /** Measured repetitions: the median Kalibera–Jones optimum over queries (warm-up not included). */
  measuredRepetitions: number | null;
  /** Repetitions per restart to write into the design: warm-up plus the measured ones. */
  repetitions: number;
  seconds: number | null;
  currentSeconds: number;
  reasons: string[];
  /**
   * Set when the target is out of this workload's reach (more than PLAN_LIMITS.restarts restarts per
   * cell or PLAN_LIMITS.seconds of running, or no number at all): what a day of running can resolve instead.
   */
  outOfReach: { restartsPerDay: number; mdePct: number | null } | null;
}

/** Beyond these a suggestion is no plan: the target effect is below what the workload can resolve. */
export const PLAN_LIMITS = { restarts: 1000, seconds: 7 * 86400 } as const;

interface AnalysisLike {
  settings: { warmup: number; alpha: number; power: number; targetEffectPct: number };
  restarts: { query: string; means: number[] }[];
  cells: { queries: { query: string; sigma_within: number | null; sigma_between: number | null }[] }[];
}

const avgOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * The planner's suggestion for the next run of this design: restarts per cell so that every query can
 * show `targetPct`, and the repetitions per restart their measured variances justify.
 */
export function suggestPlan(doc: ExperimentDoc, a: AnalysisLike, targetPct: number, costs: Costs = measuredCosts(doc)): PlanSuggestion {
  const { alpha, power, warmup } = a.settings;
  const design = doc.design;
  const queries = [...new Set(a.restarts.map((r) => r.query))].sort();
  const plans: QueryPlan[] = queries.map((query) => {
    const series = a.restarts.filter((r) => r.query === query && r.means.length >= 2);
    const variances = series.map((r) => {
      const m = avgOf(r.means)!;
      return r.means.reduce((s, x) => s + (x - m) ** 2, 0) / (r.means.length - 1);
    });
    const s2 = avgOf(variances);
    const mean = avgOf(series.map((r) => avgOf(r.means)!));
    const stats = a.cells.flatMap((c) => c.queries.filter((q) => q.query === query));
    const vw = avgOf(stats.map((q) => q.sigma_within).filter((x): x is number => x !== null).map((x) => x * x));
    const vb = avgOf(stats.map((q) => q.sigma_between).filter((x): x is number => x !== null).map((x) => x * x));
    const plan: QueryPlan = { query, s2, mean, mdeNowPct: null, restartsNeeded: null, optimalRepetitions: null, reasons: {} };
    if (s2 === null || mean === null) plan.reasons.restartsNeeded = 'no cell has two restarts of this query';
    else if (!(mean > 0)) plan.reasons.restartsNeeded = 'the mean is not positive';
    else {
      if (design.restartsPerCell >= 2) plan.mdeNowPct = mdePct(s2, mean, design.restartsPerCell, alpha, power);
      plan.restartsNeeded = restartsForTarget(s2, mean, targetPct, alpha, power);
      if (plan.restartsNeeded === null) plan.reasons.restartsNeeded = `more than ${MAX_RESTARTS.toLocaleString('en-US')} restarts`;
    }
    if (vw === null || vb === null) plan.reasons.optimalRepetitions = 'needs two restarts with two executions each';
    else {
      const o = optimalRepetitions(costs.restartSeconds, costs.executionSeconds, vw, vb);
      plan.optimalRepetitions = o.value;
      if (o.reason) plan.reasons.optimalRepetitions = o.reason;
    }
    return plan;
  });
  const reasons: string[] = [];
  const needed = plans.map((p) => p.restartsNeeded);
  let restartsPerCell: number | null = null;
  if (needed.some((n) => n === null)) reasons.push(`no number of restarts for ${plans.filter((p) => p.restartsNeeded === null).map((p) => p.query).join(', ')}`);
  const known = needed.filter((n): n is number => n !== null);
  if (known.length) restartsPerCell = Math.max(...known);
  const reps = plans.map((p) => p.optimalRepetitions).filter((n): n is number => n !== null).sort((x, y) => x - y);
  const measuredRepetitions = reps.length ? reps[Math.floor(reps.length / 2)] : null;
  if (measuredRepetitions === null) reasons.push('no optimal repetitions could be computed: the current repetitions are kept');
  const repetitions = measuredRepetitions === null ? design.workload.repetitions : warmup + measuredRepetitions;
  const seconds = restartsPerCell === null ? null : plannedSeconds(design, restartsPerCell, repetitions, costs);
  let outOfReach: PlanSuggestion['outOfReach'] = null;
  const measurable = plans.filter((p) => p.s2 !== null && p.mean !== null && p.mean > 0);
  if (measurable.length && (restartsPerCell === null || restartsPerCell > PLAN_LIMITS.restarts || (seconds !== null && seconds > PLAN_LIMITS.seconds))) {
    // The time grows linearly with restarts per cell: solve for a day from two points.
    const one = plannedSeconds(design, 1, repetitions, costs);
    const per = plannedSeconds(design, 2, repetitions, costs) - one;
    const restartsPerDay = per > 0 ? Math.max(0, Math.floor((86400 - (one - per)) / per)) : 0;
    const mdes = restartsPerDay >= 2 ? measurable.map((p) => mdePct(p.s2!, p.mean!, restartsPerDay, alpha, power)) : [];
    outOfReach = { restartsPerDay, mdePct: mdes.length ? Math.max(...mdes) : null };
  }
  return {
    queries: plans,
    costs,
    restartsPerCell,
    measuredRepetitions,
    repetitions,
    seconds,
    currentSeconds: plannedSeconds(design, design.restartsPerCell, design.workload.repetitions, costs),
    reasons,
    outOfReach,
  };
}
