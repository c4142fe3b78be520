// How many executions to discard, read from the data rather than guessed. After Georges, Buytaert and
// Eeckhout ("Statistically rigorous Java performance evaluation"): a restart is in its steady state
// once the coefficient of variation of a sliding window of k executions stays under a threshold.
// With the adaptive hash index on, InnoDB needs several executions before timings settle, so a
// fixed warm-up is often too short; this says how long it really was.

export interface WarmupOptions {
  /** Window length; shortened to half the restart for short restarts. Default 10. */
  window?: number;
  /** A window is steady when its CoV is at most this many times the restart's steady-state CoV. Default 2. */
  factor?: number;
  /** …or at most this CoV in percent, whichever is larger (so noiseless data is not judged by rounding). Default 0.1. */
  floorPct?: number;
}

export interface RestartWarmup {
  /** Executions to discard in this restart, or null when it never settled. */
  discard: number | null;
  /** The window CoV (percent) a window had to stay under. */
  thresholdPct: number;
}

/**
 * The executions to discard in one restart (warm-up included in `values`): the start of the first
 * window after which every window is steady. The steady-state noise is estimated from the second half of
 * the restart (past any warm-up worth the name) by successive differences, which a slow trend does not
 * inflate: a restart still drifting at its end is then never steady.
 */
export function restartWarmup(values: ArrayLike<number>, opts: WarmupOptions = {}, steadyCovPct?: number): RestartWarmup | null {
  const n = values.length;
  if (n < 4) return null;
  const k = Math.max(2, Math.min(opts.window ?? 10, Math.floor(n / 2)));
  const factor = opts.factor ?? 2;
  const floorPct = opts.floorPct ?? 0.1;
  // The restart's own noise, but never below the series' typical noise: one restart's second half is
  // a small sample that can look quieter than it is, and a noisier restart must not be held to a
  // quieter one's standard.
  const own = steadyNoisePct(values);
  const steady = steadyCovPct === undefined ? own : Number.isFinite(own) ? Math.max(own, steadyCovPct) : steadyCovPct;
  // A short window's CoV is itself noisy: never judge it stricter than what pure noise exceeds once
  // in a thousand windows.
  const thresholdPct = Math.max(floorPct, Math.max(factor, noiseBound(k)) * (Number.isFinite(steady) ? steady : 0));
  // Walk windows from the last to the first: the answer is just past the last unsteady window.
  for (let start = n - k; start >= 0; start--) {
    if (!(covPct(values, start, start + k) <= thresholdPct)) {
      const discard = start + 1;
      return { discard: discard > n - k ? null : discard, thresholdPct };
    }
  }
  return { discard: 0, thresholdPct };
}

/**
 * c such that the sample sd of k normal values exceeds c·σ with probability 0.001:
 * √(χ²(0.999, k − 1) / (k − 1)), the χ² quantile by Wilson and Hilferty's approximation.
 */
function noiseBound(k: number): number {
  const nu = k - 1;
  const z = 3.090232;
  const chi2 = nu * (1 - 2 / (9 * nu) + z * Math.sqrt(2 / (9 * nu))) ** 3;
  return Math.sqrt(chi2 / nu);
}

/** CoV in percent of values[from, to): sample sd (n − 1) over the mean. */
function covPct(values: ArrayLike<number>, from: number, to: number): number {
  const m = to - from;
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i];
  const mean = sum / m;
  let ss = 0;
  for (let i = from; i < to; i++) ss += (values[i] - mean) ** 2;
  return (100 * Math.sqrt(ss / (m - 1))) / Math.abs(mean);
}

/** The steady-state noise of one restart (CoV %), from its second half. NaN when too short. */
export function steadyNoisePct(values: ArrayLike<number>): number {
  return values.length < 4 ? Number.NaN : successiveCovPct(values, Math.floor(values.length / 2), values.length);
}

/** Von Neumann's estimate: σ² ≈ Σ (x[i+1] − x[i])² / (2 (m − 1)), as a CoV in percent. */
function successiveCovPct(values: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  let d2 = 0;
  for (let i = from; i < to; i++) {
    sum += values[i];
    if (i > from) d2 += (values[i] - values[i - 1]) ** 2;
  }
  const m = to - from;
  return (100 * Math.sqrt(d2 / (2 * (m - 1)))) / Math.abs(sum / m);
}

export interface SeriesWarmup {
  /** The largest discard over the restarts: every restart must be steady after it. */
  suggested: number | null;
  reason?: string;
  perRestart: (number | null)[];
}

/** Combine a series' restarts: the warm-up is over when it is over in every restart. */
export function seriesWarmup(restarts: ArrayLike<number>[], opts: WarmupOptions = {}): SeriesWarmup {
  const perRestart: (number | null)[] = [];
  let suggested = 0;
  let unsettled = 0;
  let short = 0;
  // One restart's second half is a small sample: the median noise of all restarts is a floor for each.
  const noise = restarts.map(steadyNoisePct).filter(Number.isFinite).sort((a, b) => a - b);
  const pooled = noise.length ? noise[Math.floor(noise.length / 2)] : undefined;
  for (const values of restarts) {
    const r = restartWarmup(values, opts, pooled);
    if (!r) short++;
    else if (r.discard === null) unsettled++;
    else suggested = Math.max(suggested, r.discard);
    perRestart.push(r ? r.discard : null);
  }
  if (short === restarts.length) return { suggested: null, reason: 'fewer than 4 executions per restart', perRestart };
  if (unsettled) return { suggested: null, reason: `${unsettled} of ${restarts.length} restarts never settled into a steady state`, perRestart };
  return { suggested, perRestart };
}
