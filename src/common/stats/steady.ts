// Steady state per restart, after Barrett et al. ("Virtual machine warmup blows hot and cold", OOPSLA
// 2017), where a restart is their process execution: each restart of each query is
//   flat      no change in mean worth the name from the first execution on;
//   warm-up   it settles into a steady state better than what came before (discard the executions before it);
//   slowdown  it settles into a steady state worse than something before it;
//   none      it keeps changing to the end: no steady state (a change in the last quarter of the restart).
// Change points come from binary segmentation (changepoint.ts). Walking back from the last segment,
// segments whose mean is within `tolerancePct` of the last one's are the same steady state; the first
// that is not decides the class. A cell (per query) is consistent when all its restarts reach the same
// class. The warm-up suggestion is the largest number of executions any restart needs to discard.
// The noise σ is a restart's own, but never below the median of its series' restarts.
import { changePoints, noiseSigma } from './changepoint.js';

export type SteadyKind = 'flat' | 'warmup' | 'slowdown' | 'none';

/** The method, named wherever the classes are shown. */
export const STEADY_METHOD =
  'change points by binary segmentation (normal mean-change cost, σ from successive differences, penalty 4·log n); classes after Barrett et al. (2017): flat, warm-up, slowdown, no steady state';

export interface SteadyOptions {
  /** Segments whose means differ by at most this percent of the last one are one steady state. Default 1. */
  tolerancePct?: number;
  /** A change in this last fraction of the restart means no steady state was reached. Default 0.25. */
  steadyFraction?: number;
  /** Larger values are better (throughput); default: smaller are (times). */
  higherIsBetter?: boolean;
}

/** Restarts shorter than this are not classified: too few executions to see a change in. */
export const MIN_CLASSIFIED = 5;

/** A segment this short between two equal ones is an outlier burst, not a state. */
const MAX_OUTLIER_RUN = 2;

export interface RestartSteady {
  /** The restart's label (its seq in an experiment file). */
  restart: string;
  /** Null when the restart is too short to classify. */
  kind: SteadyKind | null;
  /** Executions to discard to reach the steady state (0 when flat); null without one. */
  discard: number | null;
  /** Where new segments start (execution indices from 0). */
  changepoints: number[];
}

export interface SteadyCounts {
  flat: number;
  warmup: number;
  slowdown: number;
  none: number;
}

/**
 * Classify one restart's executions (warm-up included, in repetition order). `typicalSigma` is the
 * noise of the series' restarts (their median): a restart's own estimate from a dozen executions can
 * come out low by chance, and would then see changes in plain noise.
 */
export function classifyRestart(values: ArrayLike<number>, opts: SteadyOptions = {}, typicalSigma = 0, ownSigma?: number): Omit<RestartSteady, 'restart'> {
  const n = values.length;
  if (n < MIN_CLASSIFIED) return { kind: null, discard: null, changepoints: [] };
  const tolerance = (opts.tolerancePct ?? 1) / 100;
  const steadyFrom = n - Math.max(1, Math.ceil((opts.steadyFraction ?? 0.25) * n));
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i];
  // A floor on σ so that timings quantized to a clock tick (identical values) still have a scale.
  const sigma = Math.max(typicalSigma, ownSigma ?? noiseSigma(values), 1e-6 * Math.abs(sum / n) || 1e-12);
  const cps = changePoints(values, sigma);
  if (!cps.length) return { kind: 'flat', discard: 0, changepoints: cps };
  const bounds = [0, ...cps, n];
  const means: number[] = [];
  for (let s = 0; s + 1 < bounds.length; s++) {
    let t = 0;
    for (let i = bounds[s]; i < bounds[s + 1]; i++) t += values[i];
    means.push(t / (bounds[s + 1] - bounds[s]));
  }
  // A burst of one or two executions that returns to where it came from is an outlier (a hiccup of the
  // host), not a change of state: it is left out. The first segment is never one (a slow first
  // execution is the commonest warm-up), and a burst at the very end has nothing after it to return to.
  const same = (x: number, y: number) => Math.abs(x - y) <= tolerance * Math.abs(y);
  const keep: number[] = [];
  const len = (seg: number) => bounds[seg + 1] - bounds[seg];
  for (let seg = 0; seg < means.length; ) {
    // A run of short segments starting here (not the first segment), at most MAX_OUTLIER_RUN executions long.
    let end = seg;
    let run = 0;
    while (seg > 0 && end < means.length && run + len(end) <= MAX_OUTLIER_RUN) run += len(end++);
    const returns = end < means.length ? same(means[seg - 1], means[end]) : true;
    if (end > seg && returns) {
      seg = end;
      continue;
    }
    keep.push(seg++);
  }
  const lastSeg = keep[keep.length - 1];
  const last = means[lastSeg];
  for (let j = keep.length - 2; j >= 0; j--) {
    const s = keep[j];
    if (same(means[s], last)) continue;
    const end = bounds[s + 1];
    if (end > steadyFrom) return { kind: 'none', discard: null, changepoints: cps };
    const earlierWasWorse = opts.higherIsBetter ? means[s] < last : means[s] > last;
    return { kind: earlierWasWorse ? 'warmup' : 'slowdown', discard: end, changepoints: cps };
  }
  return { kind: 'flat', discard: 0, changepoints: cps };
}

export interface SeriesSteady {
  cell: string;
  query: string;
  steady: SteadyCounts;
  /** Restarts too short to classify. */
  unclassified: number;
  /** Every classified restart reached the same class; null when none was classified. */
  consistent: boolean | null;
  /** Executions to discard so that every restart is in its steady state; null with the reason. */
  suggested: number | null;
  reason?: string;
  restarts: RestartSteady[];
}

/** The classes of one cell's restarts of one query, and the warm-up they call for. */
export function classifySeries(cell: string, query: string, labels: string[], restarts: ArrayLike<number>[], opts: SteadyOptions = {}): SeriesSteady {
  const steady: SteadyCounts = { flat: 0, warmup: 0, slowdown: 0, none: 0 };
  const out: SeriesSteady = { cell, query, steady, unclassified: 0, consistent: null, suggested: null, restarts: [] };
  let suggested = 0;
  const own = restarts.map((v) => (v.length >= MIN_CLASSIFIED ? noiseSigma(v) : Number.NaN));
  const sigmas = own.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  const typical = sigmas.length ? sigmas[sigmas.length >> 1] : 0;
  restarts.forEach((values, i) => {
    const r = classifyRestart(values, opts, typical, own[i]);
    out.restarts.push({ restart: labels[i], ...r });
    if (r.kind === null) out.unclassified++;
    else {
      steady[r.kind]++;
      if (r.discard !== null) suggested = Math.max(suggested, r.discard);
    }
  });
  const classified = restarts.length - out.unclassified;
  if (classified) out.consistent = Object.values(steady).some((k) => k === classified);
  if (!classified) out.reason = `fewer than ${MIN_CLASSIFIED} executions per restart`;
  else if (steady.none) out.reason = `${steady.none} of ${classified} restarts reach no steady state`;
  else out.suggested = suggested;
  return out;
}

/** `3 warm-up, 1 flat` (in a fixed order, zero counts left out). */
export function steadyText(c: SteadyCounts): string {
  const names: [keyof SteadyCounts, string][] = [['flat', 'flat'], ['warmup', 'warm-up'], ['slowdown', 'slowdown'], ['none', 'no steady state']];
  return names.filter(([k]) => c[k]).map(([k, name]) => `${c[k]} ${name}`).join(', ') || 'none classified';
}
