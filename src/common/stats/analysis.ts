// The analysis of issue 5, held to issue 12's standard of evidence: per cell and query, within-restart
// against between-restart spread, the minimum detectable effect, comparisons with a baseline cell as
// ratios adjusted for multiple comparisons, and no ranking, bimodality verdict or MDE from fewer
// restarts than can carry one. The restart is the unit of evidence: 200 executions from 10 server
// starts are 10 observations, not 200.
// A value that cannot be computed is null with the reason beside it, never NaN.
import { mean as ssMean, sampleVariance } from 'simple-statistics';
import { byCodePoint, firstKept, restartValues, type Series, type TidyData } from './tidy.js';
import { meanGroups, type BimodalOptions, type MeanGroup } from './bimodal.js';
import { classifySeries, STEADY_METHOD, type SeriesSteady, type SteadyCounts, type SteadyOptions } from './steady.js';
import { higherIsBetter } from './units.js';
import { ADJUSTMENT_NAMES, adjustPValues, differSummary, type Adjustment } from './adjust.js';
import { BIMODAL_MIN_RESTARTS, MIN_RESTARTS, moreRestartsNeeded, needsMoreText, outOfReachText } from './evidence.js';
import { MDE_LABELS, minimumDetectableEffect, restartsForTarget, type Mde } from './mde.js';
import { COMPARISON_METHOD, ratioOfMeans, type ComparisonEstimate } from './ratio.js';
import { EQUIVALENCE_METHOD, PAIRED_METHOD, pairedLogRatio, tost } from './paired.js';
import { hostAnalysis, HOST_INTERACTION_METHOD, HOST_SPREAD_METHOD, type HostAnalysis } from './hosts.js';
import { stabilityTest } from './stability.js';
import type { Stopping } from '../experiment/types.js';

export interface AnalysisOptions {
  /** Repetitions 1..warmup of every restart are dropped. Default 0. */
  warmup?: number;
  /** The significance level of the tests, and 1 − the level of every interval. Default 0.05. */
  alpha?: number;
  power?: number;
  /** The effect, in percent, `restarts_for_target` is computed for. */
  targetEffectPct?: number;
  /** The cell every other cell is compared with; no comparisons without it. */
  baseline?: string;
  /** How the comparisons' p-values are adjusted as one family. Default Holm. */
  adjustment?: Adjustment;
  /**
   * A grown design (run --missing): compare a cell with a baseline that no run measured with it,
   * unpaired, the drift between the runs counted in the difference. Default false: such a pair is not
   * compared, and says why.
   */
  acrossRuns?: boolean;
  bimodal?: BimodalOptions;
  /** How restarts are classified into flat, warm-up, slowdown and no steady state. */
  steady?: SteadyOptions;
}

export const DEFAULTS = { warmup: 0, alpha: 0.05, power: 0.8, targetEffectPct: 1, adjustment: 'holm', acrossRuns: false } as const satisfies Partial<AnalysisOptions>;

/**
 * The target effect (percent) a design asks about: its stop-when-answered rule's ±E when it has one (what
 * the user said matters and the run decided against), else DEFAULTS.targetEffectPct. The app's Analysis,
 * the exports, `analyze` and `plan` start from it, so the fixed-sample verdicts and the planning table
 * speak of the same E as the rule's verdicts beside them.
 */
export function targetEffectOf(design: { stopping?: Pick<Stopping, 'effect'> } | undefined): number {
  const e = design?.stopping?.effect;
  return e !== undefined && e > 0 ? e : DEFAULTS.targetEffectPct;
}

export type QueryField =
  | 'reps_per_restart'
  | 'mean'
  | 'within_cov_pct'
  | 'between_cov_pct'
  | 'sigma_within'
  | 'sigma_between'
  | 'icc'
  | 'spread_pct'
  | 'mde_pct'
  | 'restarts_for_target'
  | 'suggested_warmup';

export interface QueryStats {
  query: string;
  n_restarts: number;
  reps_per_restart: number | null;
  mean: number | null;
  within_cov_pct: number | null;
  between_cov_pct: number | null;
  sigma_within: number | null;
  sigma_between: number | null;
  icc: number | null;
  spread_pct: number | null;
  /** The MDE of this cell alone (definition `per-cell`); the pooled one is in Analysis.mde. */
  mde_pct: number | null;
  restarts_for_target: number | null;
  /** The unit of the values and of mean and σ (`ms`, `tps`…); null when the input did not say. */
  unit: string | null;
  /** How many of the restarts are flat, warm up, slow down or reach no steady state (warm-up included in the data). */
  steady: SteadyCounts;
  /** Every classified restart reached the same class; null when none could be classified. */
  steady_consistent: boolean | null;
  /** Executions to discard so that every restart of this cell is steady; null with the reason. */
  suggested_warmup: number | null;
  /** Why each null field is null. */
  null_reasons?: Partial<Record<QueryField, string>>;
}

export interface CellStats {
  cell: string;
  spread_avg_pct: number | null;
  spread_max_pct: number | null;
  queries: QueryStats[];
  null_reasons?: Partial<Record<'spread_avg_pct' | 'spread_max_pct', string>>;
}

export type ComparisonField = 'effect_pct' | 'ci_low_pct' | 'ci_high_pct' | 'p_value' | 'p_adjusted' | 'detectable_pct';


export type Verdict = 'differs' | 'equivalent' | 'inconclusive';

export interface Comparison {
  cell: string;
  baseline: string;
  query: string;
  /**
   * `paired` when the design ran in rounds and at least two rounds hold both cells: the within-round
   * difference of log restart means (paired.ts); `unpaired` otherwise: Welch on restart means (ratio.ts).
   * The fields below are the used method's; `paired` and `unpaired` hold both.
   */
  pairing: 'paired' | 'unpaired';
  /** Why this pairing is used. */
  pairing_reason: string;
  paired: (ComparisonEstimate & { rounds: number }) | null;
  unpaired: ComparisonEstimate;
  /** Variance of the paired estimate over the unpaired one's (below 1: pairing removed drift); null without both. */
  variance_ratio: number | null;
  /** Two one-sided tests against ±target effect % on the used method, adjusted over the family like p_value. */
  equivalence: { margin_pct: number; p_value: number; p_adjusted: number | null } | null;
  /** 100 · (cell mean / baseline mean − 1), restart means (paired: 100 · (e^mean log difference − 1)). */
  effect_pct: number | null;
  /** The (1 − α) interval of the ratio, in percent: never below −100. */
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  /** Two-sided, this comparison alone. */
  p_value: number | null;
  /** Adjusted over every comparison shown with it (`adjustment`). */
  p_adjusted: number | null;
  adjustment: Adjustment;
  /**
   * `differs` when p_adjusted ≤ α; else `equivalent` when the adjusted TOST p-value is ≤ α (the interval
   * lies inside ±E %); else `inconclusive` (at this design, which could have seen detectable_pct); null
   * without a p-value.
   */
  verdict: Verdict | null;
  /** The change (±%) this design could have seen in these two cells: the MDE pooled over the pair. */
  detectable_pct: number | null;
  /** Degrees of freedom of the interval: Welch–Satterthwaite, or rounds − 1 when paired. */
  df: number | null;
  null_reasons?: Partial<Record<ComparisonField, string>>;
  /** A grown design: no run measured both cells (compared unpaired only when asked: AnalysisOptions.acrossRuns). */
  runs_apart?: true;
}

/** The restarts of one series that kept at least one execution after the warm-up. */
export interface RestartSummary {
  cell: string;
  query: string;
  labels: string[];
  counts: number[];
  means: number[];
  /** Σ (y − restart mean)² per restart. */
  ss: number[];
  /** Σ y over all kept executions (the grand mean needs it). */
  total: number;
  /** The round of each restart (parallel to means), when the design ran in rounds. */
  rounds?: number[];
}

export interface BimodalFlag {
  cell: string;
  query: string;
  groups: MeanGroup[];
}

/** A series too short for a bimodality verdict either way. */
export interface Unjudged {
  cell: string;
  query: string;
  n_restarts: number;
  reason: string;
}

export interface WarmupSuggestion {
  /** The warm-up for the design: enough for every query in every cell. */
  suggested: number | null;
  reason?: string;
  /** How the restarts were classified. */
  method: string;
  /** Per query (sorted), its cells' classes and the warm-up they call for. */
  queries: { query: string; suggested: number | null; reason?: string; cells: SeriesSteady[] }[];
}

/** The MDE of one query pooled over the cells that measured it, at the restarts per cell measured. */
export interface PooledMde {
  query: string;
  mde: Mde;
}

export interface Ranking {
  /**
   * The cell with the smallest average spread, when every cell has restarts enough to rank it and a
   * test says its restart means scatter less than every other cell's (stability.ts).
   */
  most_stable: string | null;
  /** Why no cell is named, and what would settle it. */
  reason?: string;
  /** The test that named it, in words. */
  test?: string;
  /** One short line for a figure or a table's mark: `(Brown–Forsythe, adjusted p = 0.012)`, or why none. */
  brief?: string;
}

export interface Analysis {
  settings: { warmup: number; alpha: number; power: number; targetEffectPct: number; baseline: string | null; adjustment: Adjustment; acrossRuns: boolean };
  /** The methods behind the numbers, named as the output names them. */
  methods: { comparison: string; equivalence: string; adjustment: string; mde: string; steady: string; host_spread?: string; host_interaction?: string };
  cells: CellStats[];
  comparisons: Comparison[];
  /** `k of m comparisons differ after Holm adjustment (α = 0.05)`; null without comparisons. */
  summary: string | null;
  /** Per query (sorted), the MDE pooled over cells. */
  mde: PooledMde[];
  ranking: Ranking;
  bimodal: BimodalFlag[];
  /** Series with too few restarts for a bimodality verdict. */
  bimodal_unjudged: Unjudged[];
  warmup: WarmupSuggestion;
  /** Per series (same order as data.series): restart means and counts, for plots and the planner. */
  restarts: RestartSummary[];
  /** Queries in the order tables, views and legends show them (the workload's order); JSON stays sorted. */
  order: string[];
  /** The host block factor, when the results come from several hosts: spread between hosts, host × factor interactions. */
  hosts?: HostAnalysis;
  /** How comparisons pair restarts: whether the input has rounds, why, and what pairing removed. */
  pairing: PairingSummary;
  /** A grown design (run --missing): which runs measured each cell, the cells measured only later, and how they are compared. */
  grown?: GrownRuns;
}

/** The runs of a grown design, as the analysis reads them. */
export interface GrownRuns {
  /** The runs (1 the first, 2… each run --missing) that measured each cell. */
  parts: Record<string, number[]>;
  /** Cells measured only in a later run. */
  later: string[];
  across_runs: boolean;
  /** How cells of different runs are compared, and why. */
  why: string;
}

/** How a grown design's cells of different runs are compared, and why: the same words everywhere. */
export function grownWhy(acrossRuns: boolean): string {
  return acrossRuns
    ? 'cells that no run measured together are compared across runs, as asked: unpaired, and the drift between the runs (days apart, the host and server restarted) is part of the difference'
    : 'a cell is compared only with cells measured in the same run, whose rounds remove the drift they share; between runs the host and server may have drifted, and no round holds both to remove it (ask to compare across runs to compare them unpaired)';
}

export interface PairingSummary {
  /** The input says which restarts ran together (rounds). */
  rounds: boolean;
  why: string;
  /** Comparisons that used the paired interval, of all comparisons. */
  paired: number;
  comparisons: number;
  /** A grown design: comparisons not made because no run measured both cells (AnalysisOptions.acrossRuns unset). */
  not_compared?: number;
  /** The median over comparisons of variance paired / unpaired (below 1: pairing removed shared drift); null without pairs. */
  variance_ratio_median: number | null;
}

/** Restart means, counts and sums of squares after dropping the warm-up: one pass per restart. */
export function summarize(data: TidyData, s: Series, warmup: number): RestartSummary {
  const out: RestartSummary = { cell: s.cell, query: s.query, labels: [], counts: [], means: [], ss: [], total: 0 };
  for (let i = 0; i < s.restarts.length; i++) {
    const from = firstKept(data, s, i, warmup);
    const to = s.offsets[i + 1];
    const m = to - from;
    if (m <= 0) continue;
    let sum = 0;
    for (let j = from; j < to; j++) sum += data.values[j];
    const mean = sum / m;
    let ss = 0;
    for (let j = from; j < to; j++) {
      const d = data.values[j] - mean;
      ss += d * d;
    }
    out.labels.push(s.restarts[i]);
    if (s.rounds) (out.rounds ??= []).push(s.rounds[i]);
    out.counts.push(m);
    out.means.push(mean);
    out.ss.push(ss);
    out.total += sum;
  }
  return out;
}

type Claims = Required<Pick<AnalysisOptions, 'alpha' | 'power' | 'targetEffectPct'>>;

/** Statistics of one series (the definitions of issue 5). */
export function queryStats(r: RestartSummary, opts: Claims): QueryStats {
  const n = r.means.length;
  const why: Partial<Record<QueryField, string>> = {};
  const q: QueryStats = {
    query: r.query,
    n_restarts: n,
    reps_per_restart: null,
    mean: null,
    within_cov_pct: null,
    between_cov_pct: null,
    sigma_within: null,
    sigma_between: null,
    icc: null,
    spread_pct: null,
    mde_pct: null,
    restarts_for_target: null,
    unit: null,
    steady: { flat: 0, warmup: 0, slowdown: 0, none: 0 },
    steady_consistent: null,
    suggested_warmup: null,
  };
  const none = (fields: QueryField[], reason: string) => {
    for (const f of fields) if (q[f] === null && !why[f]) why[f] = reason;
  };
  if (n === 0) {
    none(['reps_per_restart', 'mean', 'within_cov_pct', 'between_cov_pct', 'sigma_within', 'sigma_between', 'icc', 'spread_pct', 'mde_pct', 'restarts_for_target'], 'no executions left after the warm-up');
    q.null_reasons = why;
    return q;
  }
  let N = 0;
  let sumM2 = 0;
  let ssw = 0;
  for (let i = 0; i < n; i++) {
    N += r.counts[i];
    sumM2 += r.counts[i] * r.counts[i];
    ssw += r.ss[i];
  }
  q.reps_per_restart = N / n;
  const mean = ssMean(r.means);
  q.mean = mean;
  const positive = mean > 0;
  const notPositive = `the mean (${mean}) is not positive, so a percentage of it means nothing`;

  // Within: pooled over restarts, N − n degrees of freedom.
  const msw = N > n ? ssw / (N - n) : null;
  if (msw === null) none(['sigma_within', 'within_cov_pct', 'sigma_between', 'icc'], 'every restart kept a single execution: no within-restart spread');
  else {
    q.sigma_within = Math.sqrt(msw);
    if (positive) q.within_cov_pct = (100 * q.sigma_within) / mean;
    else none(['within_cov_pct'], notPositive);
  }

  // The MDE and the restarts for the target make claims: the MDE module holds them to MIN_RESTARTS.
  const mde = minimumDetectableEffect([r.means], { definition: 'per-cell', alpha: opts.alpha, power: opts.power });
  q.mde_pct = mde.pct;
  if (mde.reason) none(['mde_pct', 'restarts_for_target'], mde.reason);
  else if (mde.cov_pct !== null) {
    q.restarts_for_target = restartsForTarget(mde.cov_pct, opts.targetEffectPct, opts.alpha, opts.power);
    if (q.restarts_for_target === null) none(['restarts_for_target'], outOfReachText(opts.targetEffectPct, mde.cov_pct));
  }

  if (n < 2) {
    none(['between_cov_pct', 'sigma_between', 'icc', 'spread_pct'], 'only one restart: between-restart spread needs at least two');
    q.null_reasons = why;
    return q;
  }
  const s2 = sampleVariance(r.means);
  if (positive) q.between_cov_pct = (100 * Math.sqrt(s2)) / mean;
  else none(['between_cov_pct'], notPositive);

  if (msw !== null) {
    const grand = r.total / N;
    let msb = 0;
    for (let i = 0; i < n; i++) msb += r.counts[i] * (r.means[i] - grand) ** 2;
    msb /= n - 1;
    const n0 = (N - sumM2 / N) / (n - 1);
    const varBetween = Math.max(0, (msb - msw) / n0);
    q.sigma_between = Math.sqrt(varBetween);
    if (varBetween + msw > 0) q.icc = varBetween / (varBetween + msw);
    else none(['icc'], 'every execution has the same value: no variance to divide');
  }

  let lo = Infinity;
  let hi = -Infinity;
  for (const m of r.means) {
    if (m < lo) lo = m;
    if (m > hi) hi = m;
  }
  if (lo > 0) q.spread_pct = (100 * (hi - lo)) / lo;
  else none(['spread_pct'], `the smallest restart mean (${lo}) is not positive`);

  if (Object.keys(why).length) q.null_reasons = why;
  return q;
}

/**
 * One cell against the baseline for one query: the ratio of restart means with its (1 − α) interval,
 * and the effect this design could have seen. p_adjusted and the verdict come from adjustComparisons(),
 * which needs the whole family.
 */
export function compare(
  cell: RestartSummary | undefined,
  base: RestartSummary | undefined,
  cellId: string,
  baselineId: string,
  query: string,
  opts: { alpha: number; power: number; adjustment?: Adjustment; targetEffectPct?: number; rounds?: TidyData['rounds']; acrossRuns?: boolean },
): Comparison {
  const c: Comparison = {
    cell: cellId,
    baseline: baselineId,
    query,
    pairing: 'unpaired',
    pairing_reason: opts.rounds?.why ?? 'the input does not say which restarts ran together',
    paired: null,
    unpaired: { effect_pct: null, ci_low_pct: null, ci_high_pct: null, p_value: null, df: null },
    variance_ratio: null,
    equivalence: null,
    effect_pct: null,
    ci_low_pct: null,
    ci_high_pct: null,
    p_value: null,
    p_adjusted: null,
    adjustment: opts.adjustment ?? DEFAULTS.adjustment,
    verdict: null,
    detectable_pct: null,
    df: null,
  };
  const all: ComparisonField[] = ['effect_pct', 'ci_low_pct', 'ci_high_pct', 'p_value', 'p_adjusted', 'detectable_pct'];
  const give = (reason: string) => {
    c.null_reasons ??= {};
    for (const f of all) if (c[f] === null) c.null_reasons[f] ??= reason;
    return c;
  };
  if (!base?.means.length) return give(`the baseline has no executions of ${query}`);
  if (!cell?.means.length) return give(`this cell has no executions of ${query}`);
  const apart = runsApart(cellId, baselineId, opts.rounds);
  if (apart) c.runs_apart = true;
  if (apart && !opts.acrossRuns) {
    c.pairing_reason = `${apart}: compared only with cells measured in the same run, whose rounds remove the drift they share`;
    return give(`not compared: ${apart}, so the drift between the runs would be part of the difference (to compare them anyway, unpaired: "compare across runs" in Analysis, or analyze --across-runs)`);
  }
  // What this pair could have seen: both cells need the restarts an MDE rests on.
  const short = needsMoreText(Math.min(cell.means.length, base.means.length), MIN_RESTARTS, 'in both cells');
  const mde = short ? null : minimumDetectableEffect([cell.means, base.means], { definition: 'pooled', alpha: opts.alpha, power: opts.power });
  c.detectable_pct = mde?.pct ?? null;
  if (short || mde?.reason) {
    c.null_reasons ??= {};
    c.null_reasons.detectable_pct = short ?? mde?.reason;
  }
  const r = ratioOfMeans(cell.means, base.means, opts.alpha);
  c.unpaired = { effect_pct: r.effect_pct, ci_low_pct: r.ci_low_pct, ci_high_pct: r.ci_high_pct, p_value: r.p_value, df: r.df, ...(r.why ? { why: r.why } : {}) };
  let used: { log: number; se: number; df: number } | null = r.log_effect !== undefined && r.se !== undefined && r.df !== null ? { log: r.log_effect, se: r.se, df: r.df } : null;
  let why = r.why;
  const blocks = opts.rounds?.blocks;
  const otherHost = blocks !== undefined && blocks[cellId] !== blocks[baselineId];
  let pairs = opts.rounds?.known && cell.rounds && base.rounds && !otherHost ? roundPairs(cell, base) : null;
  if (otherHost) c.pairing_reason = `the cell and the baseline ran on different hosts (${blocks[cellId]}, ${blocks[baselineId]}): their rounds are not the same time`;
  if (apart) {
    // Asked for (acrossRuns): no round holds both.
    pairs = null;
    c.pairing_reason = `${apart}: compared across runs as asked, unpaired, and the drift between the runs is part of the difference`;
  }
  if (pairs) {
    const p = pairedLogRatio(pairs, opts.alpha);
    c.paired = { effect_pct: p.effect_pct, ci_low_pct: p.ci_low_pct, ci_high_pct: p.ci_high_pct, p_value: p.p_value, df: p.df, rounds: p.rounds, ...(p.why ? { why: p.why } : {}) };
    if (p.p_value !== null && p.se !== null && p.log_effect !== null) {
      c.pairing = 'paired';
      const dropped = Math.max(cell.means.length, base.means.length) - p.rounds;
      c.pairing_reason = `${opts.rounds!.why}: ${p.rounds} rounds hold both cells${dropped ? ` (${dropped} restart${dropped === 1 ? '' : 's'} without a partner left out)` : ''}, and the within-round difference removes the drift they share`;
      if (used) c.variance_ratio = (p.se * p.se) / (used.se * used.se);
      used = { log: p.log_effect, se: p.se, df: p.df! };
      why = undefined;
    } else c.pairing_reason = `${opts.rounds!.why}, but ${p.why ?? 'no paired interval'}: unpaired`;
  }
  const shown = c.pairing === 'paired' ? c.paired! : c.unpaired;
  c.effect_pct = shown.effect_pct;
  c.ci_low_pct = shown.ci_low_pct;
  c.ci_high_pct = shown.ci_high_pct;
  c.p_value = shown.p_value;
  c.df = shown.df;
  const margin = opts.targetEffectPct ?? DEFAULTS.targetEffectPct;
  if (used && used.se > 0 && margin < 100) c.equivalence = { margin_pct: margin, p_value: tost(used.log, used.se, used.df, margin, opts.alpha).p_value, p_adjusted: null };
  return why ? give(why) : c;
}

/**
 * A grown design (run --missing): why the cell and the baseline cannot be compared within one run
 * (no run measured both: `A was measured in run 2, B in run 1`); null when some run measured both.
 */
export function runsApart(cellId: string, baselineId: string, rounds: TidyData['rounds'] | undefined): string | null {
  const a = rounds?.parts?.[cellId];
  const b = rounds?.parts?.[baselineId];
  if (!a || !b || a.some((p) => b.includes(p))) return null;
  const runs = (p: number[]) => `run${p.length > 1 ? 's' : ''} ${p.join(', ')}`;
  return `${cellId} was measured in ${runs(a)} and ${baselineId} in ${runs(b)} of this grown design (run --missing)`;
}

/** A cell's and the baseline's restart means of the same rounds, in round order. */
export function roundPairs(cell: Pick<RestartSummary, 'means' | 'rounds'>, base: Pick<RestartSummary, 'means' | 'rounds'>): [number, number][] {
  const b = new Map<number, number>();
  base.rounds!.forEach((r, i) => {
    if (r > 0) b.set(r, base.means[i]);
  });
  const out: [number, number, number][] = [];
  cell.rounds!.forEach((r, i) => {
    const m = b.get(r);
    if (r > 0 && m !== undefined) out.push([r, cell.means[i], m]);
  });
  return out.sort((x, y) => x[0] - y[0]).map(([, x, y]) => [x, y]);
}

/**
 * Adjust the p-values of comparisons shown together as one family, and give each its verdict. Works on
 * anything shaped like a Comparison (the experiments comparison too). Returns the summary line.
 */
export function adjustComparisons<T extends Pick<Comparison, 'p_value' | 'p_adjusted' | 'adjustment' | 'verdict' | 'null_reasons'> & { equivalence?: Comparison['equivalence'] }>(list: T[], alpha: number, method: Adjustment): string {
  const adjusted = adjustPValues(list.map((c) => c.p_value), method);
  // Equivalence is a second family of tests over the same comparisons, adjusted the same way.
  const eqAdjusted = adjustPValues(list.map((c) => c.equivalence?.p_value ?? null), method);
  list.forEach((c, i) => {
    c.adjustment = method;
    c.p_adjusted = adjusted[i];
    if (c.equivalence) c.equivalence.p_adjusted = eqAdjusted[i];
    const eq = eqAdjusted[i];
    c.verdict = adjusted[i] === null ? null : (adjusted[i] as number) <= alpha ? 'differs' : eq !== null && eq <= alpha ? 'equivalent' : 'inconclusive';
    if (adjusted[i] === null && c.null_reasons?.p_value) c.null_reasons.p_adjusted ??= c.null_reasons.p_value;
  });
  return differSummary(adjusted, alpha, method);
}

/** Add to a map of lists in place (copying the list on each add is quadratic in its length). */
function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** The fewest restarts any query of a cell has. */
function fewestRestarts(c: CellStats): number {
  return c.queries.length ? Math.min(...c.queries.map((q) => q.n_restarts)) : 0;
}

/** "Most stable" only when every cell has restarts enough to be ranked; otherwise why not. */
export function rankCells(cells: CellStats[], restarts: readonly RestartSummary[] = [], alpha: number = DEFAULTS.alpha, adjustment: Adjustment = DEFAULTS.adjustment): Ranking {
  if (cells.length < 2) return { most_stable: null, reason: 'a single cell: nothing to rank' };
  const byMore = new Map<number, string[]>();
  for (const c of cells) {
    const k = moreRestartsNeeded(fewestRestarts(c));
    if (k) append(byMore, k, c.cell);
  }
  if (byMore.size) {
    const plural = (k: number) => `${k} more restart${k === 1 ? '' : 's'}`;
    const [[k, names]] = byMore;
    if (byMore.size === 1 && names.length === cells.length) return { most_stable: null, reason: `no ranking: every cell needs ${plural(k)} (${MIN_RESTARTS} per cell)` };
    const parts = [...byMore].map(([more, list]) => `${list.join(', ')} need${list.length === 1 ? 's' : ''} ${plural(more)}`);
    return { most_stable: null, reason: `no ranking: ${parts.join('; ')} (${MIN_RESTARTS} per cell)` };
  }
  let best: CellStats | null = null;
  for (const c of cells) if (c.spread_avg_pct !== null && (best === null || c.spread_avg_pct < best.spread_avg_pct!)) best = c;
  if (!best) return { most_stable: null, reason: 'no cell has a spread' };
  // The smallest spread is only a candidate: named when the test says it scatters less than every other cell.
  const byCell = new Map<string, Map<string, number[]>>();
  for (const r of restarts) {
    if (!byCell.has(r.cell)) byCell.set(r.cell, new Map());
    byCell.get(r.cell)!.set(r.query, r.means);
  }
  const v = stabilityTest(best.cell, cells.map((c) => c.cell), (c) => byCell.get(c) ?? new Map(), alpha, adjustment);
  const p = v.weakest?.p_adjusted;
  const pText = p === null || p === undefined ? '' : `, adjusted p ${p < 0.001 ? '< 0.001' : `= ${p.toFixed(3)}`}`;
  if (v.cell) return { most_stable: v.cell, test: v.said, brief: `Brown–Forsythe${pText}` };
  return { most_stable: null, reason: v.said, brief: `no cell shown more stable yet (Brown–Forsythe${pText})` };
}

/** Everything the CLI and the views show, from tidy data. */
export function analyze(data: TidyData, options: AnalysisOptions = {}): Analysis {
  const warmup = options.warmup ?? DEFAULTS.warmup;
  const alpha = options.alpha ?? DEFAULTS.alpha;
  const power = options.power ?? DEFAULTS.power;
  const targetEffectPct = options.targetEffectPct ?? DEFAULTS.targetEffectPct;
  const baseline = options.baseline ?? null;
  const adjustment = options.adjustment ?? DEFAULTS.adjustment;
  const acrossRuns = options.acrossRuns ?? DEFAULTS.acrossRuns;
  const settings = { warmup, alpha, power, targetEffectPct, baseline, adjustment, acrossRuns };

  const restarts = data.series.map((s) => summarize(data, s, warmup));
  const byCell = new Map<string, RestartSummary[]>();
  for (const r of restarts) {
    let list = byCell.get(r.cell);
    if (!list) byCell.set(r.cell, (list = []));
    list.push(r);
  }

  const warmupSuggestion = suggestWarmup(data, options.steady);
  const steadyOf = new Map(warmupSuggestion.queries.flatMap((q) => q.cells.map((c) => [`${c.cell}\u0000${c.query}`, c] as const)));
  const withSteady = (q: QueryStats, cell: string): QueryStats => {
    const st = steadyOf.get(`${cell}\u0000${q.query}`);
    if (!st) return q;
    const out = { ...q, steady: st.steady, steady_consistent: st.consistent, suggested_warmup: st.suggested };
    if (st.suggested === null) out.null_reasons = { ...out.null_reasons, suggested_warmup: st.reason };
    return out;
  };

  const cells: CellStats[] = [];
  const bimodal: BimodalFlag[] = [];
  const bimodalUnjudged: Unjudged[] = [];
  for (const cell of data.cells) {
    const queries = (byCell.get(cell) ?? []).map((r) => withSteady({ ...queryStats(r, { alpha, power, targetEffectPct }), unit: data.units?.[r.query] ?? null }, cell));
    const spreads = queries.map((q) => q.spread_pct).filter((x): x is number => x !== null);
    const cs: CellStats = {
      cell,
      spread_avg_pct: spreads.length ? spreads.reduce((a, b) => a + b, 0) / spreads.length : null,
      spread_max_pct: spreads.length ? Math.max(...spreads) : null,
      queries,
    };
    if (!spreads.length) {
      const reason = 'no query has two restarts with executions';
      cs.null_reasons = { spread_avg_pct: reason, spread_max_pct: reason };
    }
    cells.push(cs);
    (byCell.get(cell) ?? []).forEach((r, i) => {
      const q = queries[i];
      const short = needsMoreText(r.means.length, BIMODAL_MIN_RESTARTS, 'per cell, two per level');
      if (short) {
        bimodalUnjudged.push({ cell, query: r.query, n_restarts: r.means.length, reason: short });
        return;
      }
      const se = q.sigma_within !== null && q.reps_per_restart ? q.sigma_within / Math.sqrt(q.reps_per_restart) : 0;
      const groups = meanGroups(r.labels, r.means, se, options.bimodal);
      if (groups) bimodal.push({ cell, query: r.query, groups });
    });
  }

  const comparisons: Comparison[] = [];
  let summary: string | null = null;
  if (baseline !== null) {
    const find = (cell: string, query: string) => byCell.get(cell)?.find((r) => r.query === query);
    for (const cell of data.cells) {
      if (cell === baseline) continue;
      const queries = new Set([...(byCell.get(cell) ?? []), ...(byCell.get(baseline) ?? [])].map((r) => r.query));
      for (const query of [...queries].sort(byCodePoint)) {
        comparisons.push(compare(find(cell, query), find(baseline, query), cell, baseline, query, { alpha, power, adjustment, targetEffectPct, rounds: data.rounds, acrossRuns }));
      }
    }
    if (comparisons.length) summary = adjustComparisons(comparisons, alpha, adjustment);
  }
  const ratios = comparisons.map((c) => c.variance_ratio).filter((x): x is number => x !== null).sort((x, y) => x - y);
  const pairing: PairingSummary = {
    rounds: data.rounds?.known ?? false,
    why: data.rounds?.why ?? 'the input does not say which restarts ran together',
    paired: comparisons.filter((c) => c.pairing === 'paired').length,
    comparisons: comparisons.length,
    ...(data.rounds?.parts && !acrossRuns ? { not_compared: comparisons.filter((c) => c.runs_apart).length } : {}),
    variance_ratio_median: ratios.length ? (ratios.length % 2 ? ratios[(ratios.length - 1) / 2] : (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2) : null,
  };

  const mde: PooledMde[] = data.queries.map((query) => ({
    query,
    mde: minimumDetectableEffect(
      restarts.filter((r) => r.query === query && r.means.length).map((r) => r.means),
      { definition: 'pooled', alpha, power },
    ),
  }));

  const hosts = hostAnalysis(restarts, data.factors, data.cellLevels, { alpha, adjustment });
  return {
    settings,
    methods: {
      comparison: pairing.paired ? `${PAIRED_METHOD} when the restarts ran in rounds; else the ${COMPARISON_METHOD}` : COMPARISON_METHOD,
      equivalence: EQUIVALENCE_METHOD,
      adjustment: `${ADJUSTMENT_NAMES[adjustment]} over every comparison shown together`,
      mde: `per cell in cells[].queries[].mde_pct, ${MDE_LABELS.pooled} in mde[]; two-sided log-ratio test at α with the given power, two cells of n restarts`,
      steady: STEADY_METHOD,
      ...(hosts ? { host_spread: HOST_SPREAD_METHOD, host_interaction: `${HOST_INTERACTION_METHOD} (${ADJUSTMENT_NAMES[adjustment]})` } : {}),
    },
    cells,
    comparisons,
    summary,
    mde,
    ranking: rankCells(cells, restarts, alpha, adjustment),
    bimodal,
    bimodal_unjudged: bimodalUnjudged,
    warmup: warmupSuggestion,
    restarts,
    order: data.order ?? data.queries,
    ...(hosts ? { hosts } : {}),
    pairing,
    ...(data.rounds?.parts ? { grown: { parts: data.rounds.parts, later: data.rounds.later ?? [], across_runs: acrossRuns, why: grownWhy(acrossRuns) } } : {}),
  };
}

/**
 * Every restart of every series classified (flat, warm-up, slowdown, no steady state), and the warm-up
 * that follows: per series, per query (all cells) and for the design (all queries).
 */
export function suggestWarmup(data: TidyData, opts: SteadyOptions = {}): WarmupSuggestion {
  const queries = new Map<string, WarmupSuggestion['queries'][number]>();
  for (const s of data.series) {
    const better = opts.higherIsBetter ?? higherIsBetter(data.units?.[s.query] ?? data.unit) ?? false;
    const w = classifySeries(s.cell, s.query, s.restarts, s.restarts.map((_, i) => restartValues(data, s, i)), { ...opts, higherIsBetter: better });
    let q = queries.get(s.query);
    if (!q) queries.set(s.query, (q = { query: s.query, suggested: 0, cells: [] }));
    q.cells.push(w);
  }
  const list = [...queries.values()].sort((a, b) => byCodePoint(a.query, b.query));
  for (const q of list) {
    const bad = q.cells.filter((c) => c.suggested === null);
    if (bad.length) {
      q.suggested = null;
      q.reason = groupReasons(bad.map((c) => ({ name: c.cell, reason: c.reason ?? 'no steady state' })), q.cells.length, 'cells');
    } else q.suggested = Math.max(0, ...q.cells.map((c) => c.suggested ?? 0));
  }
  const badQ = list.filter((q) => q.suggested === null);
  const out: WarmupSuggestion = { suggested: null, method: STEADY_METHOD, queries: list };
  if (!list.length) out.reason = 'no executions';
  // The design's reason is the queries' reasons, said once each: the JSON and every view show this same text.
  else if (badQ.length) {
    const cells = list.flatMap((q) => q.cells);
    const reasons = new Set(cells.map((c) => c.reason));
    out.reason =
      reasons.size === 1 && cells.every((c) => c.suggested === null)
        ? `${cells[0].reason ?? 'no steady state'} (every cell and query)`
        : groupReasons(badQ.map((q) => ({ name: q.query, reason: q.reason ?? 'no steady state' })), list.length, 'queries');
  }
  else out.suggested = Math.max(...list.map((q) => q.suggested ?? 0));
  return out;
}

/**
 * One line for many things that failed: each distinct reason once, naming the things only when they do
 * not all share it (`fewer than 4 executions per restart` rather than sixteen cell names before it).
 */
export function groupReasons(items: { name: string; reason: string }[], total: number, noun: string): string {
  const byReason = new Map<string, string[]>();
  for (const it of items) append(byReason, it.reason, it.name);
  if (byReason.size === 1 && items.length === total) return `${items[0].reason} (all ${total} ${noun})`.replace(/ \(all 1 \w+\)$/, '');
  return [...byReason].map(([reason, names]) => `${names.join(', ')}: ${reason}`).join('; ');
}

/**
 * An analysis indexed by cell and by (cell, query), made once per Analysis object: the exports and
 * figures ask about every cell and pair, and a search per question is quadratic in the cells (10,000
 * cells took seconds). An Analysis is not changed after analyze() returns it, so the index stays true.
 */
interface AnalysisIndex {
  cells: Map<string, CellStats>;
  comparisons: Map<string, Comparison>;
  restarts: Map<string, RestartSummary>;
}
const indexes = new WeakMap<Analysis, AnalysisIndex>();
const pairKey = (cell: string, query: string) => `${cell}\u0000${query}`;

function indexOf(a: Analysis): AnalysisIndex {
  let index = indexes.get(a);
  if (!index) {
    // The first of duplicates wins, as a search would find it.
    const byKey = <T>(items: T[], key: (t: T) => string) => {
      const map = new Map<string, T>();
      for (const item of items) if (!map.has(key(item))) map.set(key(item), item);
      return map;
    };
    index = {
      cells: byKey(a.cells, (c) => c.cell),
      comparisons: byKey(a.comparisons, (c) => pairKey(c.cell, c.query)),
      restarts: byKey(a.restarts, (r) => pairKey(r.cell, r.query)),
    };
    indexes.set(a, index);
  }
  return index;
}

/** A cell's statistics. */
export function findCell(a: Analysis, cell: string): CellStats | undefined {
  return indexOf(a).cells.get(cell);
}

/** Tidy data's view of a query's statistics for one cell, for callers that hold an Analysis. */
export function findQuery(a: Analysis, cell: string, query: string): QueryStats | undefined {
  return findCell(a, cell)?.queries.find((q) => q.query === query);
}

/** A cell's comparison with the baseline for one query. */
export function findComparison(a: Analysis, cell: string, query: string): Comparison | undefined {
  return indexOf(a).comparisons.get(pairKey(cell, query));
}

/** A cell's restart means for one query. */
export function findRestarts(a: Analysis, cell: string, query: string): RestartSummary | undefined {
  return indexOf(a).restarts.get(pairKey(cell, query));
}
