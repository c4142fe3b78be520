// "Good start, bad start": restart means that fall into separated levels (the seeds' 330 against 302
// transactions per second), which an average of all restarts hides. Found by gaps: sort the restart
// means and split at a gap much wider than both the noise a restart mean carries from its own
// executions and the spread of the means inside the groups it would separate.

export interface BimodalOptions {
  /** A gap must be this many times the noise scale. Default 6 (about 1 in 1000 unimodal cells of 10 restarts is flagged). */
  factor?: number;
  /** …and at least this percent of the overall mean, so rounding in noiseless data is no "level". Default 0.5. */
  minGapPct?: number;
  /** Each group needs this many restarts; one stray restart is an outlier, not a level. Default 2. */
  minGroup?: number;
}

export interface MeanGroup {
  /** Restarts in the group. */
  count: number;
  mean: number;
  min: number;
  max: number;
  /** The restart labels, in the order they were given (restart order). */
  restarts: string[];
}

/**
 * Split restart means into separated groups. Returns the groups (ascending by mean) when there are two
 * or more, null otherwise. `seWithin` is the standard error a restart mean has from within-restart noise
 * alone (σ_within / √reps); pass 0 when unknown.
 */
export function meanGroups(labels: string[], means: number[], seWithin: number, opts: BimodalOptions = {}): MeanGroup[] | null {
  const factor = opts.factor ?? 6;
  const minGroup = Math.max(1, opts.minGroup ?? 2);
  const n = means.length;
  if (n < 2 * minGroup) return null;
  const order = means.map((_, i) => i).sort((a, b) => means[a] - means[b]);
  const sorted = order.map((i) => means[i]);
  const overall = sorted.reduce((s, x) => s + x, 0) / n;
  const minGap = (Math.abs(overall) * (opts.minGapPct ?? 0.5)) / 100;
  // Try the k widest gaps as cuts, k = 1, 2, …: a partition counts when every group has minGroup
  // restarts and every cut is wider than factor × the noise left inside the groups. The most groups win
  // (three levels are three groups, which a greedy split at the single widest gap would miss).
  const gapsByWidth = Array.from({ length: n - 1 }, (_, i) => i + 1).sort((a, b) => sorted[b] - sorted[b - 1] - (sorted[a] - sorted[a - 1]));
  let cuts: number[] = [];
  for (let k = 1; k < n; k++) {
    const trial = gapsByWidth.slice(0, k).sort((a, b) => a - b);
    const bounds = [0, ...trial, n];
    if (bounds.some((b, g) => g > 0 && b - bounds[g - 1] < minGroup)) continue;
    const narrowest = Math.min(...trial.map((i) => sorted[i] - sorted[i - 1]));
    // More groups leave fewer degrees of freedom for the noise estimate, and random means always show
    // some tight pairs: demand wider gaps as the partition gets finer.
    const scale = Math.max(pooledSd(sorted, trial), seWithin) * ((n - 1) / (n - 1 - k));
    if (narrowest > factor * scale && narrowest >= minGap && narrowest > 0) cuts = trial;
  }
  if (!cuts.length) return null;
  const bounds = [0, ...cuts, n];
  const groups: MeanGroup[] = [];
  for (let g = 0; g + 1 < bounds.length; g++) {
    const idx = order.slice(bounds[g], bounds[g + 1]);
    const vals = idx.map((i) => means[i]);
    // idx is in ascending order of means here; vals[0] is the group's smallest.
    groups.push({
      count: idx.length,
      mean: vals.reduce((s, x) => s + x, 0) / idx.length,
      min: vals[0],
      max: vals[vals.length - 1],
      restarts: idx.sort((a, b) => a - b).map((i) => labels[i]),
    });
  }
  return groups;
}

/** The standard deviation of the sorted values around their own group's mean, pooled over groups. */
function pooledSd(sorted: number[], cuts: number[]): number {
  const bounds = [0, ...cuts, sorted.length];
  let ss = 0;
  let df = 0;
  for (let g = 0; g + 1 < bounds.length; g++) {
    const a = bounds[g];
    const b = bounds[g + 1];
    let m = 0;
    for (let i = a; i < b; i++) m += sorted[i];
    m /= b - a;
    for (let i = a; i < b; i++) ss += (sorted[i] - m) ** 2;
    df += b - a - 1;
  }
  return df > 0 ? Math.sqrt(ss / df) : 0;
}
