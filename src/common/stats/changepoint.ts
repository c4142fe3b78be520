// Change points in the mean of one restart's executions, by binary segmentation (Scott and Knott 1974;
// Vostrikova 1981): split a segment where a change in mean explains the most, if the gain beats a
// penalty, and split the two halves the same way.
//   gain of splitting [a, b) at k = m₁ m₂ / m · (mean₁ − mean₂)² / σ²    (m₁ = k − a, m₂ = b − k, m = b − a)
// that is the drop in the normal cost Σ (x − segment mean)² / σ² when one segment becomes two; a split
// is kept when gain > penalty = PENALTY_PER_LOG_N · log n. σ is the restart's noise, estimated from
// successive differences by their median absolute value, which a few level shifts do not move.
// Barrett et al. ("Virtual machine warmup blows hot and cold", 2017) use PELT, which finds the optimal
// segmentation exactly but, with few change points (a flat restart, the common case), prunes little
// and takes quadratic time; binary segmentation takes O(n log n) and finds the same clear changes
// (a warm-up, a slowdown), which is what the classification needs on a million executions.

/** Penalty per log n for one change point: strict enough that flat noise stays flat (see the tests). */
export const PENALTY_PER_LOG_N = 4;

let scratch = new Float64Array(1024);
let prefixBuffer = new Float64Array(1024);

/**
 * The k-th smallest of xs[0, n) (k from 0), reordering xs in place: Hoare's selection, expected O(n)
 * (a sort per restart dominated the analysis of a million executions).
 */
function select(xs: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i] < pivot) i++;
      while (xs[j] > pivot) j--;
      if (i <= j) {
        const t = xs[i];
        xs[i] = xs[j];
        xs[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return xs[k];
  }
  return xs[k];
}

/** σ of the noise: median |xᵢ₊₁ − xᵢ| / (√2 · 0.6745), never below `floor`. */
export function noiseSigma(values: ArrayLike<number>, floor = 0): number {
  const n = values.length;
  if (n < 2) return floor;
  if (scratch.length < n) scratch = new Float64Array(2 * n);
  const d = scratch;
  const m = n - 1;
  for (let i = 1; i < n; i++) d[i - 1] = Math.abs(values[i] - values[i - 1]);
  const mid = m >> 1;
  let median = select(d, m, mid);
  // Even count: the mean of the two middle values; the lower one is the largest left of the upper.
  if (m % 2 === 0) {
    let below = -Infinity;
    for (let i = 0; i < mid; i++) if (d[i] > below) below = d[i];
    median = (below + median) / 2;
  }
  return Math.max(floor, median / (Math.SQRT2 * 0.6744897501960817));
}

/** The best single split of [a, b) by the gain above, from prefix sums of centered values: [k, gain]. */
export function bestSplit(prefix: Float64Array, a: number, b: number): [number, number] {
  const m = b - a;
  const base = prefix[a];
  const total = prefix[b] - base;
  let best = -1;
  let bestQ = 0;
  // m₁ m₂ / m · (s₁/m₁ − s₂/m₂)² = (s₁ m − T m₁)² / (m₁ m₂ m): one division per position, m applied once at the end.
  for (let k = a + 1; k < b; k++) {
    const m1 = k - a;
    const e = (prefix[k] - base) * m - total * m1;
    const q = (e * e) / (m1 * (m - m1));
    if (q > bestQ) {
      bestQ = q;
      best = k;
    }
  }
  return [best, bestQ / m];
}

/**
 * The change points of `values` (indices where a new segment starts), ascending. `sigma` is the noise;
 * `penalty` the gain (in σ² units) a split must exceed.
 */
export function changePoints(values: ArrayLike<number>, sigma: number, penalty: number = PENALTY_PER_LOG_N * Math.log(Math.max(2, values.length))): number[] {
  const n = values.length;
  if (n < 2 || !(sigma > 0)) return [];
  // Centered prefix sums: the means of a restart in the thousands lose no digits to cancellation.
  let mean = 0;
  for (let i = 0; i < n; i++) mean += values[i];
  mean /= n;
  // One buffer for every restart: a million executions would otherwise allocate their size again in garbage.
  if (prefixBuffer.length < n + 1) prefixBuffer = new Float64Array(2 * (n + 1));
  const prefix = prefixBuffer;
  prefix[0] = 0;
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + (values[i] - mean);
  const threshold = penalty * sigma * sigma;
  const out: number[] = [];
  const stack: [number, number][] = [[0, n]];
  while (stack.length) {
    const [a, b] = stack.pop()!;
    if (b - a < 2) continue;
    const [k, gain] = bestSplit(prefix, a, b);
    if (k < 0 || !(gain > threshold)) continue;
    out.push(k);
    stack.push([a, k], [k, b]);
  }
  return out.sort((x, y) => x - y);
}
