// The analysis of issue 5: per cell and query, within-restart against between-restart spread, the
// minimum detectable effect, and comparisons with a baseline cell. The restart is the unit of
// evidence: 200 executions from 10 server starts are 10 observations, not 200.
// A value that cannot be computed is null with the reason beside it, never NaN.
import { mean as ssMean, sampleVariance } from 'simple-statistics';
import { byCodePoint, firstKept, restartValues, type Series, type TidyData } from './tidy.js';
import { mdePct, restartsForTarget } from './planner.js';
import { tcdf, tq } from './tdist.js';
import { meanGroups, type BimodalOptions, type MeanGroup } from './bimodal.js';
import { seriesWarmup, type WarmupOptions } from './warmup.js';

export interface AnalysisOptions {
  /** Repetitions 1..warmup of every restart are dropped. Default 0. */
  warmup?: number;
  alpha?: number;
  power?: number;
  /** The effect, in percent, `restarts_for_target` is computed for. */
  targetEffectPct?: number;
  /** The cell every other cell is compared with; no comparisons without it. */
  baseline?: string;
  bimodal?: BimodalOptions;
  warmupDetection?: WarmupOptions;
}

export const DEFAULTS = { warmup: 0, alpha: 0.05, power: 0.8, targetEffectPct: 1 } as const;

/** The level of the comparison intervals: the issue asks for 95% whatever α is. */
export const CI_LEVEL = 0.95;

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
  | 'restarts_for_target';

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
  mde_pct: number | null;
  restarts_for_target: number | null;
  /** The unit of the values and of mean and σ (`ms`, `tps`…); null when the input did not say. */
  unit: string | null;
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

export interface Comparison {
  cell: string;
  baseline: string;
  query: string;
  effect_pct: number | null;
  ci_low_pct: number | null;
  ci_high_pct: number | null;
  p_value: number | null;
  null_reasons?: Partial<Record<'effect_pct' | 'ci_low_pct' | 'ci_high_pct' | 'p_value', string>>;
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
}

export interface BimodalFlag {
  cell: string;
  query: string;
  groups: MeanGroup[];
}

export interface WarmupSuggestion {
  /** The warm-up for the design: enough for every query in every cell. */
  suggested: number | null;
  reason?: string;
  queries: { query: string; suggested: number | null; reason?: string; cells: { cell: string; suggested: number | null; reason?: string; perRestart: (number | null)[] }[] }[];
}

export interface Analysis {
  settings: { warmup: number; alpha: number; power: number; targetEffectPct: number; baseline: string | null };
  cells: CellStats[];
  comparisons: Comparison[];
  bimodal: BimodalFlag[];
  warmup: WarmupSuggestion;
  /** Per series (same order as data.series): restart means and counts, for plots and the planner. */
  restarts: RestartSummary[];
  /** Queries in the order tables, views and legends show them (the workload's order); JSON stays sorted. */
  order: string[];
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
    out.counts.push(m);
    out.means.push(mean);
    out.ss.push(ss);
    out.total += sum;
  }
  return out;
}

/** Statistics of one series (the definitions of issue 5). */
export function queryStats(r: RestartSummary, opts: Required<Pick<AnalysisOptions, 'alpha' | 'power' | 'targetEffectPct'>>): QueryStats {
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

  if (n < 2) {
    none(['between_cov_pct', 'sigma_between', 'icc', 'spread_pct', 'mde_pct', 'restarts_for_target'], 'only one restart: between-restart spread needs at least two');
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

  if (positive) {
    q.mde_pct = mdePct(s2, mean, n, opts.alpha, opts.power);
    q.restarts_for_target = restartsForTarget(s2, mean, opts.targetEffectPct, opts.alpha, opts.power);
    if (q.restarts_for_target === null) none(['restarts_for_target'], `more than a million restarts would be needed for ${opts.targetEffectPct}%`);
  } else none(['mde_pct', 'restarts_for_target'], notPositive);

  if (Object.keys(why).length) q.null_reasons = why;
  return q;
}

/** Welch's comparison of two cells' restart means for one query. */
export function compare(cell: RestartSummary | undefined, base: RestartSummary | undefined, cellId: string, baselineId: string, query: string): Comparison {
  const c: Comparison = { cell: cellId, baseline: baselineId, query, effect_pct: null, ci_low_pct: null, ci_high_pct: null, p_value: null };
  const all = ['effect_pct', 'ci_low_pct', 'ci_high_pct', 'p_value'] as const;
  const give = (reason: string, fields: readonly (typeof all)[number][] = all) => {
    c.null_reasons ??= {};
    for (const f of fields) if (c[f] === null) c.null_reasons[f] ??= reason;
    return c;
  };
  if (!base?.means.length) return give(`the baseline has no executions of ${query}`);
  if (!cell?.means.length) return give(`this cell has no executions of ${query}`);
  const bm = ssMean(base.means);
  const cm = ssMean(cell.means);
  if (!(bm > 0)) return give('the baseline mean is not positive, so a percentage of it means nothing');
  const diff = cm - bm;
  c.effect_pct = (100 * diff) / bm;
  const n1 = cell.means.length;
  const n2 = base.means.length;
  if (n1 < 2 || n2 < 2) return give(`an interval needs two restarts in each cell (this cell has ${n1}, the baseline ${n2})`);
  const v1 = sampleVariance(cell.means) / n1;
  const v2 = sampleVariance(base.means) / n2;
  const se = Math.sqrt(v1 + v2);
  if (!(se > 0)) return give('no variation between restarts in either cell: an interval would be a point');
  const nu = (v1 + v2) ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1));
  const half = tq(1 - (1 - CI_LEVEL) / 2, nu) * se;
  c.ci_low_pct = (100 * (diff - half)) / bm;
  c.ci_high_pct = (100 * (diff + half)) / bm;
  c.p_value = Math.min(1, 2 * tcdf(-Math.abs(diff / se), nu));
  return c;
}

/** Everything the CLI and the views show, from tidy data. */
export function analyze(data: TidyData, options: AnalysisOptions = {}): Analysis {
  const warmup = options.warmup ?? DEFAULTS.warmup;
  const alpha = options.alpha ?? DEFAULTS.alpha;
  const power = options.power ?? DEFAULTS.power;
  const targetEffectPct = options.targetEffectPct ?? DEFAULTS.targetEffectPct;
  const baseline = options.baseline ?? null;
  const settings = { warmup, alpha, power, targetEffectPct, baseline };

  const restarts = data.series.map((s) => summarize(data, s, warmup));
  const byCell = new Map<string, RestartSummary[]>();
  for (const r of restarts) {
    let list = byCell.get(r.cell);
    if (!list) byCell.set(r.cell, (list = []));
    list.push(r);
  }

  const cells: CellStats[] = [];
  const bimodal: BimodalFlag[] = [];
  for (const cell of data.cells) {
    const queries = (byCell.get(cell) ?? []).map((r) => ({ ...queryStats(r, { alpha, power, targetEffectPct }), unit: data.units?.[r.query] ?? null }));
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
      const se = q.sigma_within !== null && q.reps_per_restart ? q.sigma_within / Math.sqrt(q.reps_per_restart) : 0;
      const groups = meanGroups(r.labels, r.means, se, options.bimodal);
      if (groups) bimodal.push({ cell, query: r.query, groups });
    });
  }

  const comparisons: Comparison[] = [];
  if (baseline !== null) {
    const find = (cell: string, query: string) => byCell.get(cell)?.find((r) => r.query === query);
    for (const cell of data.cells) {
      if (cell === baseline) continue;
      const queries = new Set([...(byCell.get(cell) ?? []), ...(byCell.get(baseline) ?? [])].map((r) => r.query));
      for (const query of [...queries].sort(byCodePoint)) {
        comparisons.push(compare(find(cell, query), find(baseline, query), cell, baseline, query));
      }
    }
  }

  return { settings, cells, comparisons, bimodal, warmup: suggestWarmup(data, options.warmupDetection), restarts, order: data.order ?? data.queries };
}

/** The warm-up suggestion per series, per query (all cells) and for the design (all queries). */
export function suggestWarmup(data: TidyData, opts?: WarmupOptions): WarmupSuggestion {
  const queries = new Map<string, WarmupSuggestion['queries'][number]>();
  for (const s of data.series) {
    const w = seriesWarmup(s.restarts.map((_, i) => restartValues(data, s, i)), opts);
    let q = queries.get(s.query);
    if (!q) queries.set(s.query, (q = { query: s.query, suggested: 0, cells: [] }));
    q.cells.push({ cell: s.cell, suggested: w.suggested, reason: w.reason, perRestart: w.perRestart });
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
  const out: WarmupSuggestion = { suggested: null, queries: list };
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
  for (const it of items) byReason.set(it.reason, [...(byReason.get(it.reason) ?? []), it.name]);
  if (byReason.size === 1 && items.length === total) return `${items[0].reason} (all ${total} ${noun})`.replace(/ \(all 1 \w+\)$/, '');
  return [...byReason].map(([reason, names]) => `${names.join(', ')}: ${reason}`).join('; ');
}

/** Tidy data's view of a query's statistics for one cell, for callers that hold an Analysis. */
export function findQuery(a: Analysis, cell: string, query: string): QueryStats | undefined {
  return a.cells.find((c) => c.cell === cell)?.queries.find((q) => q.query === query);
}
