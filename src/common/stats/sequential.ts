// Stop when answered (issue 21): a group-sequential rule over the comparisons of a family, as a pure
// function of restart means in run order, so a finished run can be replayed look by look and a live
// run can call the same function after each complete round.
// At each look (a planned round, complete for every cell), each comparison with the baseline that is not
// yet decided is tested in pairs within rounds (paired.ts):
//   efficacy   |Z| ≥ c_k, Z the paired t statistic carried to the normal scale through its p-value,
//              c_k two-sided Lan–DeMets O'Brien–Fleming-type boundaries (boundaries.ts) at α/m for m
//              comparisons (Bonferroni over the family), information fraction t = round / maximum;
//              the family-wise error stays at α over all looks and comparisons → "differs";
//   equivalence the repeated confidence interval at level 1 − 2α/m (spending 2α/m) lies inside ±E % →
//              "equivalent" (two one-sided tests, each at α/m over all looks);
//   futility   non-binding: the conditional power to show E % by the maximum, under E % in either
//              direction and the current data (B-value form, Lan & Wittes 1988), is below FUTILITY_CP:
//              the comparison stops "inconclusive" (or "equivalent" when its interval says so).
// Non-binding: ignoring the futility stop never raises the error, so a run that goes on stays valid.
// Intervals reported are repeated confidence intervals (Jennison & Turnbull 2000, ch. 9), valid at
// whatever look the run stopped, never the naive fixed-sample ones.
import { spendingBoundaries } from './boundaries.js';
import { pnorm, qnorm } from './normal.js';
import { tcdf, tq } from './tdist.js';
import { MIN_RESTARTS } from './evidence.js';
import { noSpread } from './ratio.js';

export const SEQUENTIAL_RULE = 'group-sequential, Lan–DeMets O’Brien–Fleming-type α spending at α/m per comparison (Bonferroni over the family), repeated confidence intervals, non-binding futility by conditional power';

/** Conditional power below which a comparison stops for futility. */
export const FUTILITY_CP = 0.2;
/** At most this many looks, spread evenly over the maximum rounds. */
export const MAX_LOOKS = 10;

export interface StoppingSettings {
  /** The target effect E, in percent. */
  effectPct: number;
  alpha: number;
  /** The power the maximum was planned for (recorded; the rule itself needs only the maximum). */
  power: number;
  /** The maximum number of rounds (restarts per cell). */
  maxRounds: number;
  /** At most this many looks (default MAX_LOOKS). */
  maxLooks?: number;
  /** Conditional power below which a comparison stops for futility (default FUTILITY_CP). */
  futility?: number;
  /** The queries in the order people expect them (the workload's): the comparisons follow it; others after, in code-point order. */
  queryOrder?: readonly string[];
  /**
   * The variance of the within-round difference of log restart means from an earlier interleaved run,
   * per comparison (cell and query): pooled with the current rounds' (see pairedUpTo). A comparison
   * absent here is tested on the current rounds alone.
   */
  prior?: PriorVariance;
}

/** An earlier run's sd of the within-round log difference, per comparison, and its degrees of freedom. */
export interface PriorVariance {
  /** One entry per comparison: `sd` of log(cell) − log(baseline) within a round, `df` = that run's pairs − 1. */
  comparisons: readonly { cell: string; query: string; sd: number; df: number }[];
}

/** The prior's entry for one comparison, if any (the earliest entry when several name it). */
export function priorFor(prior: PriorVariance | undefined, cell: string, query: string): { sd: number; df: number } | undefined {
  return prior?.comparisons.find((c) => c.cell === cell && c.query === query);
}

/** One cell and query: its restart means by round (index 0 is round 1); null where the round's restart failed. */
export interface RoundSeries {
  cell: string;
  query: string;
  means: readonly (number | null)[];
}

export type SequentialVerdict = 'differs' | 'equivalent' | 'inconclusive';

export interface LookComparison {
  cell: string;
  query: string;
  /** Rounds holding both cells up to this look. */
  pairs: number;
  effect_pct: number | null;
  z: number | null;
  /** The repeated confidence interval at 1 − α/m, in percent: "differs" exactly when it leaves out 0 (|Z| ≥ the boundary). */
  rci_low_pct: number | null;
  rci_high_pct: number | null;
  /**
   * The repeated interval at 1 − 2α/m, in percent, the equivalence test's (two one-sided tests, each at
   * α/m over all looks): "equivalent" exactly when it lies inside ±E %. Absent in looks journaled before it.
   */
  eq_low_pct?: number | null;
  eq_high_pct?: number | null;
  conditional_power: number | null;
  decision: SequentialVerdict | null;
  because?: string;
}

export interface Look {
  round: number;
  /** Information fraction: round / maximum. */
  fraction: number;
  /** |Z| at or past this says "differs". */
  boundary_z: number;
  /** The levels of the two repeated intervals, in percent (absent in looks journaled before them). */
  levels?: IntervalLevels;
  comparisons: LookComparison[];
}

export interface SequentialComparison {
  cell: string;
  baseline: string;
  query: string;
  verdict: SequentialVerdict;
  /** The look's round at which it was decided; null when never (the data ended first). */
  decided_round: number | null;
  because: string;
  effect_pct: number | null;
  /** The repeated 1 − α/m interval ("differs" when it leaves out 0) at the look it was decided (or the last). */
  rci_low_pct: number | null;
  rci_high_pct: number | null;
  /** The repeated 1 − 2α/m interval ("equivalent" when inside ±E %) at the same look. */
  eq_low_pct?: number | null;
  eq_high_pct?: number | null;
}

/** The levels of a look's two repeated intervals, in percent: 95 and 90 for α = 0.05 and one comparison. */
export interface IntervalLevels {
  /** 100 · (1 − α/m): the interval that says "differs" when it leaves out 0. */
  differs_pct: number;
  /** 100 · (1 − 2α/m): the interval that says "equivalent" when it lies inside ±E %. */
  equivalent_pct: number;
}

export interface SequentialResult {
  rule: string;
  effect_pct: number;
  alpha: number;
  power: number;
  max_rounds: number;
  /** The levels of the two repeated intervals every look and comparison carries. */
  levels: IntervalLevels;
  /** The planned looks (rounds). */
  schedule: number[];
  /** The looks taken, in order, up to the stop. */
  looks: Look[];
  /** The round at which every comparison was decided or the maximum reached; null when the data ended before. */
  stopped_round: number | null;
  stopped_because: string;
  comparisons: SequentialComparison[];
}

/** The planned looks: up to MAX_LOOKS rounds spread evenly, none before MIN_RESTARTS, the last at the maximum. */
export function lookSchedule(maxRounds: number, maxLooks = MAX_LOOKS): number[] {
  const K = Math.max(1, Math.min(maxLooks, maxRounds - MIN_RESTARTS + 1));
  const out = new Set<number>();
  for (let k = 1; k <= K; k++) out.add(Math.max(MIN_RESTARTS, Math.ceil((k * maxRounds) / K)));
  return [...out].filter((r) => r <= Math.max(maxRounds, MIN_RESTARTS)).sort((a, b) => a - b);
}

const boundaryCache = new Map<string, number[]>();
/** Spending boundaries for a schedule, memoized: a replay and a simulation ask for the same few. */
export function scheduleBoundaries(schedule: readonly number[], maxRounds: number, alpha: number): number[] {
  const key = `${schedule.join(',')}/${maxRounds}/${alpha}`;
  let b = boundaryCache.get(key);
  if (!b) {
    b = spendingBoundaries(schedule.map((r) => Math.min(1, r / maxRounds)), alpha);
    if (boundaryCache.size > 200) boundaryCache.clear();
    boundaryCache.set(key, b);
  }
  return b;
}

/**
 * The paired statistics of one comparison over rounds 1..n: estimate, se and df on the log scale.
 * With a prior {sd: s0, df: df0} from an earlier run, the variance of a within-round difference is the
 * pooled s² = (df0 · s0² + SS) / (df0 + n − 1) at df0 + n − 1 (SS the current n pairs' sum of squares
 * about their mean): when both runs share the variance, s² / σ² is χ²(df0 + n − 1)/(df0 + n − 1) and
 * independent of the current mean, so est / se is exactly t at that df and the boundaries keep their α.
 */
export function pairedUpTo(cell: readonly (number | null)[], base: readonly (number | null)[], n: number, prior?: { sd: number; df: number }): { pairs: number; est: number; se: number; df: number } | null {
  const d: number[] = [];
  for (let r = 0; r < n; r++) {
    const c = cell[r];
    const b = base[r];
    if (c !== null && b !== null && c > 0 && b > 0) d.push(Math.log(c) - Math.log(b));
  }
  if (d.length < 2) return null;
  const est = d.reduce((a, x) => a + x, 0) / d.length;
  const ss = d.reduce((a, x) => a + (x - est) ** 2, 0);
  const df = (prior?.df ?? 0) + d.length - 1;
  const variance = ((prior ? prior.df * prior.sd ** 2 : 0) + ss) / df;
  return { pairs: d.length, est, se: Math.sqrt(variance / d.length), df };
}

const pct = (x: number) => 100 * Math.expm1(x);

/** The levels of the two repeated intervals for α over m comparisons. */
export function intervalLevels(alpha: number, m: number): IntervalLevels {
  return { differs_pct: 100 * (1 - alpha / m), equivalent_pct: 100 * (1 - Math.min(0.999, (2 * alpha) / m)) };
}

/** What one look knows to decide a comparison: its round, boundaries and levels. */
export interface LookFrame {
  round: number;
  fraction: number;
  atMax: boolean;
  /** |Z| at or past this: "differs" (two-sided, α/m spent so far). */
  efficacyZ: number;
  /** The boundary of the equivalence test's repeated interval (2α/m spent so far, two-sided: α/m a side). */
  equivalenceZ: number;
  /** The efficacy boundary of the last look (for the conditional power). */
  finalZ: number;
  levels: IntervalLevels;
}

/**
 * The one place a comparison is decided at a look (issue 21): it fills the two repeated intervals the
 * verdicts are read from and the decision, so the words, the intervals shown and the verdict cannot
 * part. "differs" when |Z| ≥ the boundary, which is when the repeated (1 − α/m) interval leaves out 0;
 * else "equivalent" when the repeated (1 − 2α/m) interval (two one-sided tests) lies inside ±E %; else
 * "inconclusive" at the maximum or by futility. Returns why, or null while undecided.
 * `st`: the paired estimate on the log scale with its se (> 0) and df.
 */
export function decideAtLook(lc: LookComparison, st: { pairs: number; est: number; se: number; df: number }, f: LookFrame, s: StoppingSettings): string | null {
  const lower = Math.log1p(-s.effectPct / 100);
  const upper = Math.log1p(s.effectPct / 100);
  const T = st.est / st.se;
  // |T| with df carried to |Z| with the same two-sided p-value.
  const z = -qnorm(tcdf(-Math.abs(T), st.df));
  lc.z = Math.sign(T) * z;
  const half = tq(pnorm(f.efficacyZ), st.df) * st.se;
  lc.rci_low_pct = pct(st.est - half);
  lc.rci_high_pct = pct(st.est + half);
  const halfEq = tq(pnorm(f.equivalenceZ), st.df) * st.se;
  lc.eq_low_pct = pct(st.est - halfEq);
  lc.eq_high_pct = pct(st.est + halfEq);
  const inside = st.est - halfEq > lower && st.est + halfEq < upper;
  const eqName = `repeated ${fmtLevel(f.levels.equivalent_pct)} % interval`;
  const interval = (lo: number, hi: number) => `[${signedPct(lo)}, ${signedPct(hi)}] %`;
  if (z >= f.efficacyZ) {
    lc.decision = 'differs';
    return `|Z| = ${z.toFixed(2)} crossed the boundary ${f.efficacyZ.toFixed(2)} at round ${f.round}: the repeated ${fmtLevel(f.levels.differs_pct)} % interval ${interval(lc.rci_low_pct, lc.rci_high_pct)} leaves out 0`;
  }
  if (inside) {
    lc.decision = 'equivalent';
    return `the ${eqName} ${interval(lc.eq_low_pct, lc.eq_high_pct)} lies inside ±${s.effectPct} % at round ${f.round} (two one-sided tests)`;
  }
  if (f.atMax) {
    lc.decision = 'inconclusive';
    return `the maximum of ${s.maxRounds} rounds was reached without crossing a boundary`;
  }
  // Conditional power under ±E % from here to the maximum, with the se the maximum would have.
  const theta = upper / (st.se * Math.sqrt(st.pairs / s.maxRounds));
  const B = lc.z * Math.sqrt(f.fraction);
  const rest = Math.sqrt(1 - f.fraction);
  const up = 1 - pnorm((f.finalZ - B - theta * (1 - f.fraction)) / rest);
  const down = pnorm((-f.finalZ - B + theta * (1 - f.fraction)) / rest);
  lc.conditional_power = Math.max(up, down);
  if (lc.conditional_power < (s.futility ?? FUTILITY_CP)) {
    lc.decision = 'inconclusive';
    return `futility at round ${f.round}: ${(100 * lc.conditional_power).toFixed(0)}% chance to show ${s.effectPct}% by round ${s.maxRounds}`;
  }
  return null;
}

/** A level in percent as people write it: 95, 97.5, 98.33. */
export function fmtLevel(levelPct: number): string {
  return String(Number(levelPct.toFixed(2)));
}

const signedPct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

/** A verdict of the rule in words, the same everywhere it is shown. */
export function sequentialVerdictText(v: SequentialVerdict | null, effectPct: number): string {
  return v === null ? 'undecided' : v === 'equivalent' ? `equivalent within ±${effectPct} %` : v;
}

/** The rule's verdict beside a fixed-sample row, as the Analysis view and the report show it: "differs (round 5)". */
export function ruleVerdictLabel(c: Pick<SequentialComparison, 'verdict' | 'decided_round'>, effectPct: number): string {
  return `${sequentialVerdictText(c.verdict, effectPct)}${c.decided_round !== null ? ` (round ${c.decided_round})` : ''}`;
}

/**
 * The names of the two repeated intervals and what each decides, for headings and legends:
 * `{ differs: 'repeated 95 % interval', equivalent: 'repeated 90 % interval', rule: '…' }`.
 */
export function intervalNames(levels: IntervalLevels, effectPct: number): { differs: string; equivalent: string; rule: string } {
  const differs = `repeated ${fmtLevel(levels.differs_pct)} % interval`;
  const equivalent = `repeated ${fmtLevel(levels.equivalent_pct)} % interval`;
  return {
    differs,
    equivalent,
    rule: `differs when the ${differs} leaves out 0 (|Z| at or past the boundary); equivalent within ±${effectPct} % when the ${equivalent} lies inside ±${effectPct} % (two one-sided tests, the equivalence test's interval)`,
  };
}

/**
 * The rule replayed over the rounds the data hold: at each planned look whose round every series has
 * reached, decide what can be decided; stop when everything is, or at the maximum.
 */
export function replaySequential(series: readonly RoundSeries[], baseline: string, s: StoppingSettings): SequentialResult {
  const rank = (q: string) => (s.queryOrder?.includes(q) ? s.queryOrder.indexOf(q) : Infinity);
  const queries = [...new Set(series.map((x) => x.query))].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const byKey = new Map(series.map((x) => [`${x.cell}\u0000${x.query}`, x]));
  const pairs: { cell: string; query: string; c: RoundSeries; b: RoundSeries }[] = [];
  for (const query of queries) {
    const b = byKey.get(`${baseline}\u0000${query}`);
    if (!b) continue;
    for (const c of series) if (c.query === query && c.cell !== baseline) pairs.push({ cell: c.cell, query, c, b });
  }
  const m = Math.max(1, pairs.length);
  const schedule = lookSchedule(s.maxRounds, s.maxLooks);
  const efficacy = scheduleBoundaries(schedule, s.maxRounds, s.alpha / m);
  const equivalence = scheduleBoundaries(schedule, s.maxRounds, Math.min(0.999, (2 * s.alpha) / m));
  const final = efficacy[efficacy.length - 1];
  const levels = intervalLevels(s.alpha, m);
  const available = series.length ? Math.min(...series.map((x) => x.means.length)) : 0;
  const decided = new Map<number, SequentialComparison>();
  const last = new Map<number, LookComparison>();
  const looks: Look[] = [];
  let stopped: number | null = null;
  for (let k = 0; k < schedule.length && stopped === null; k++) {
    const round = schedule[k];
    if (round > available) break;
    const t = Math.min(1, round / s.maxRounds);
    const atMax = round >= s.maxRounds;
    const look: Look = { round, fraction: t, boundary_z: efficacy[k], levels, comparisons: [] };
    pairs.forEach((p, i) => {
      if (decided.has(i)) return;
      const st = pairedUpTo(p.c.means, p.b.means, round, priorFor(s.prior, p.cell, p.query));
      const lc: LookComparison = { cell: p.cell, query: p.query, pairs: st?.pairs ?? 0, effect_pct: null, z: null, rci_low_pct: null, rci_high_pct: null, eq_low_pct: null, eq_high_pct: null, conditional_power: null, decision: null };
      last.set(i, lc);
      look.comparisons.push(lc);
      if (!st) {
        lc.because = 'fewer than two rounds hold both cells';
        return;
      }
      lc.effect_pct = pct(st.est);
      if (noSpread(st.se)) {
        lc.because = 'the within-round differences are all equal';
        return;
      }
      const because = decideAtLook(lc, st, { round, fraction: t, atMax, efficacyZ: efficacy[k], equivalenceZ: equivalence[k], finalZ: final, levels }, s);
      if (lc.decision && because) {
        lc.because = because;
        decided.set(i, { cell: p.cell, baseline, query: p.query, verdict: lc.decision, decided_round: round, because, effect_pct: lc.effect_pct, rci_low_pct: lc.rci_low_pct, rci_high_pct: lc.rci_high_pct, eq_low_pct: lc.eq_low_pct, eq_high_pct: lc.eq_high_pct });
      }
    });
    looks.push(look);
    if (decided.size === pairs.length || atMax) stopped = round;
  }
  const comparisons = pairs.map((p, i) => {
    const d = decided.get(i);
    if (d) return d;
    const l = last.get(i);
    return {
      cell: p.cell,
      baseline,
      query: p.query,
      verdict: 'inconclusive' as const,
      decided_round: null,
      because: l ? `undecided at round ${looks[looks.length - 1].round}: the data end before the next look` : 'no look: the data end before the first',
      effect_pct: l?.effect_pct ?? null,
      rci_low_pct: l?.rci_low_pct ?? null,
      rci_high_pct: l?.rci_high_pct ?? null,
      eq_low_pct: l?.eq_low_pct ?? null,
      eq_high_pct: l?.eq_high_pct ?? null,
    };
  });
  let stoppedBecause: string;
  if (!pairs.length) stoppedBecause = `no comparison: the baseline ${baseline} has no series beside other cells`;
  else if (stopped === null) stoppedBecause = looks.length ? `not stopped: the data end at round ${available}, before the next look at round ${schedule[looks.length] ?? s.maxRounds}` : `not stopped: the data end at round ${available}, before the first look at round ${schedule[0]}`;
  else if (decided.size === pairs.length && !looks[looks.length - 1].comparisons.every((c) => c.because?.startsWith('the maximum'))) {
    // What was decided, so "decided" is not read as "shown": a comparison stopped for futility is decided inconclusive.
    const count = (v: string) => comparisons.filter((c) => c.verdict === v).length;
    const tally = [['differs', 'differs', 'differ'], ['equivalent', 'equivalent', 'equivalent'], ['inconclusive', 'inconclusive (futility: too unlikely to show the effect by the maximum)', 'inconclusive (futility: too unlikely to show the effect by the maximum)']]
      .filter(([v]) => count(v) > 0)
      .map(([v, one, many]) => `${count(v)} ${count(v) === 1 ? one : many}`);
    stoppedBecause = `every comparison decided at round ${stopped}: ${tally.join(', ')}`;
  }
  else stoppedBecause = `the maximum of ${s.maxRounds} rounds was reached`;
  return { rule: SEQUENTIAL_RULE, effect_pct: s.effectPct, alpha: s.alpha, power: s.power, max_rounds: s.maxRounds, levels, schedule, looks, stopped_round: stopped, stopped_because: stoppedBecause, comparisons };
}
