// Planning: how many restarts a given effect needs, how many repetitions per restart are worth their
// cost, and what the planned design will cost in time. The unit of evidence is the restart.
import type { Design, ExperimentDoc } from '../experiment/types.js';
import { estimatePlan, expandCells } from '../plan.js';
import { COV_REDUCERS, PLAN_LIMITS, outOfReachText } from './evidence.js';
import { minimumDetectableEffect, restartsForTarget, type Mde } from './mde.js';
import { groupReasons } from './analysis.js';

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
  /** Seconds for one restart beyond its executions and the idle time (stop, start, verify, preload). */
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
    // The wall time holds the idle time the engine waits before measuring (engine/restart.ts), which
    // estimatePlan adds on its own: taken out here, so it is counted once.
    const wall = (r.finishedAt - r.startedAt) / 1000 - doc.design.idleSeconds;
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
  /** The MDE pooled over cells at the restarts per cell measured: the number the Run view and the planning figure show. */
  mde: Mde;
  restartsNeeded: number | null;
  optimalRepetitions: number | null;
  reasons: { restartsNeeded?: string; optimalRepetitions?: string };
}

export interface PlanSuggestion {
  queries: QueryPlan[];
  costs: Costs;
  /** Restarts per cell so that every query can show the target; null when some query cannot (see reasons). */
  restartsPerCell: number | null;
  /** Measured repetitions: the median Kalibera–Jones optimum over queries (warm-up not included). */
  measuredRepetitions: number | null;
  /** Repetitions per restart to write into the design: warm-up plus the measured ones. */
  repetitions: number;
  seconds: number | null;
  currentSeconds: number;
  reasons: string[];
  /**
   * Set when the target is out of this host's reach (more than PLAN_LIMITS.restarts restarts per cell or
   * PLAN_LIMITS.seconds of running): the between-restart CoV that puts it there, what reduces it, and
   * what a day of running can resolve instead.
   */
  outOfReach: { restartsPerDay: number; mdePct: number | null; covPct: number | null; queries: string[]; reducers: readonly string[]; text: string } | null;
}

interface AnalysisLike {
  settings: { warmup: number; alpha: number; power: number; targetEffectPct: number };
  restarts: { query: string; means: number[] }[];
  cells: { queries: { query: string; sigma_within: number | null; sigma_between: number | null }[] }[];
}

const avgOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * The planner's suggestion for the next run of this design: restarts per cell so that every query can
 * show `targetPct`, and the repetitions per restart their measured variances justify. No number past
 * PLAN_LIMITS: the target is then out of reach at the measured between-restart CoV, which it names.
 */
export function suggestPlan(doc: ExperimentDoc, a: AnalysisLike, targetPct: number, costs: Costs = measuredCosts(doc)): PlanSuggestion {
  const { alpha, power, warmup } = a.settings;
  const design = doc.design;
  const queries = [...new Set(a.restarts.map((r) => r.query))].sort();
  const meansOf = (query: string) => a.restarts.filter((r) => r.query === query && r.means.length).map((r) => r.means);
  const plans: QueryPlan[] = queries.map((query) => {
    const mde = minimumDetectableEffect(meansOf(query), { definition: 'pooled', alpha, power });
    const stats = a.cells.flatMap((c) => c.queries.filter((q) => q.query === query));
    const vw = avgOf(stats.map((q) => q.sigma_within).filter((x): x is number => x !== null).map((x) => x * x));
    const vb = avgOf(stats.map((q) => q.sigma_between).filter((x): x is number => x !== null).map((x) => x * x));
    const plan: QueryPlan = { query, mde, restartsNeeded: null, optimalRepetitions: null, reasons: {} };
    if (mde.cov_pct === null) plan.reasons.restartsNeeded = mde.reason ?? 'no between-restart spread';
    else {
      plan.restartsNeeded = restartsForTarget(mde.cov_pct, targetPct, alpha, power);
      if (plan.restartsNeeded === null) plan.reasons.restartsNeeded = outOfReachText(targetPct, mde.cov_pct);
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
  const unknown = plans.filter((p) => p.mde.cov_pct === null);
  const beyond = plans.filter((p) => p.mde.cov_pct !== null && p.restartsNeeded === null);
  let restartsPerCell: number | null = null;
  if (unknown.length) reasons.push(`no number of restarts: ${groupReasons(unknown.map((p) => ({ name: p.query, reason: p.reasons.restartsNeeded! })), plans.length, 'queries')}`);
  else if (beyond.length) reasons.push(`${beyond.map((p) => p.query).join(', ')}: out of reach`);
  else if (plans.length) restartsPerCell = Math.max(...plans.map((p) => p.restartsNeeded!));
  const reps = plans.map((p) => p.optimalRepetitions).filter((n): n is number => n !== null).sort((x, y) => x - y);
  const measuredRepetitions = reps.length ? reps[Math.floor(reps.length / 2)] : null;
  if (measuredRepetitions === null) reasons.push('no optimal repetitions could be computed: the current repetitions are kept');
  const repetitions = measuredRepetitions === null ? design.workload.repetitions : warmup + measuredRepetitions;
  let seconds = restartsPerCell === null ? null : plannedSeconds(design, restartsPerCell, repetitions, costs);
  const tooLong = seconds !== null && seconds > PLAN_LIMITS.seconds;
  let outOfReach: PlanSuggestion['outOfReach'] = null;
  if (beyond.length || tooLong) {
    // The time grows linearly with restarts per cell: solve for a day from two points.
    const one = plannedSeconds(design, 1, repetitions, costs);
    const per = plannedSeconds(design, 2, repetitions, costs) - one;
    const restartsPerDay = per > 0 ? Math.max(0, Math.floor((86400 - (one - per)) / per)) : 0;
    const measurable = plans.filter((p) => p.mde.cov_pct !== null);
    const mdes = restartsPerDay >= 2 ? measurable.map((p) => minimumDetectableEffect(meansOf(p.query), { definition: 'pooled', alpha, power, restarts: restartsPerDay }).pct!) : [];
    const culprits = beyond.length ? beyond : measurable;
    const covPct = Math.max(...culprits.map((p) => p.mde.cov_pct!));
    const limit = tooLong ? `more than ${PLAN_LIMITS.seconds / 86400} days of running` : null;
    const text = limit ? outOfReachText(targetPct, covPct).replace(/\(more than [\d,]+ restarts per cell\)/, `(${limit})`) : outOfReachText(targetPct, covPct);
    outOfReach = { restartsPerDay, mdePct: mdes.length ? Math.max(...mdes) : null, covPct, queries: culprits.map((p) => p.query), reducers: COV_REDUCERS, text };
    if (tooLong) {
      reasons.push(`it would take more than ${PLAN_LIMITS.seconds / 86400} days`);
      restartsPerCell = null;
      seconds = null;
    }
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
