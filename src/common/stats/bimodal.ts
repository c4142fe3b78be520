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
  const k = mostGroups(sorted, gapsByWidth, (k, narrowest, pooledSd) => {
    // More groups leave fewer degrees of freedom for the noise estimate, and random means always show
    // some tight pairs: demand wider gaps as the partition gets finer.
    const scale = Math.max(pooledSd, seWithin) * ((n - 1) / (n - 1 - k));
    return narrowest > factor * scale && narrowest >= minGap && narrowest > 0;
  }, minGroup);
  const cuts = gapsByWidth.slice(0, k).sort((a, b) => a - b);
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

/**
 * The largest k for which cutting `sorted` at its k widest gaps (`gapsByWidth[0..k)`) leaves every group
 * with at least minGroup values and `accepts(k, width of the k-th widest gap, pooled SD within the
 * groups)`; 0 when none does. In O(n): it starts from every gap cut (each value its own group) and removes
 * the narrowest cut one at a time, merging two neighbouring groups, so each k's groups and their sum of
 * squares come from the previous one's (Chan's pairwise update: it only adds, so nothing cancels). Trying
 * each k afresh, as this once did, was quadratic: 20,000 restarts in one cell took most of a minute.
 */
function mostGroups(sorted: number[], gapsByWidth: number[], accepts: (k: number, narrowest: number, pooledSd: number) => boolean, minGroup: number): number {
  const n = sorted.length;
  // A group is known by its first index (its size and mean); groups are linked by their bounds.
  const size = new Float64Array(n).fill(1);
  const mean = Float64Array.from(sorted);
  const prev = Int32Array.from({ length: n + 1 }, (_, i) => i - 1);
  const next = Int32Array.from({ length: n + 1 }, (_, i) => i + 1);
  let totalSs = 0;
  let small = minGroup > 1 ? n : 0;
  for (let k = n - 1; k >= 1; k--) {
    const cut = gapsByWidth[k - 1];
    const narrowest = sorted[cut] - sorted[cut - 1];
    const df = n - (k + 1);
    if (small === 0 && accepts(k, narrowest, df > 0 ? Math.sqrt(totalSs / df) : 0)) return k;
    // Remove this cut: the group before it absorbs the group after it.
    const a = prev[cut];
    const b = next[cut];
    const na = size[a];
    const nb = size[cut];
    const delta = mean[cut] - mean[a];
    const cross = (delta * delta * na * nb) / (na + nb);
    small -= Number(na < minGroup) + Number(nb < minGroup) - Number(na + nb < minGroup);
    size[a] = na + nb;
    mean[a] += (delta * nb) / (na + nb);
    totalSs += cross;
    next[a] = b;
    prev[b] = a;
  }
  return 0;
}
