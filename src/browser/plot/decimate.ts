// What a plot draws is bounded by its pixels, not by the data: beyond a few points per pixel column,
// each column keeps only its lowest and its highest point (the envelope a reader sees; the points in
// between would be drawn over by them anyway). Every point kept is a real one, so its hover tells the
// truth, and a range few enough points fall in is drawn exactly. Plain data, no DOM: tested under Node.
//
// Points are addressed by index: the live timeline's x is the execution number (index + 1).

/** Above this many points per pixel column, a range is decimated. */
export const PER_COLUMN = 4;

/**
 * The indices of y[from, to) to draw across `columns` pixel columns: all of them (exact) when there are
 * at most `perColumn` per column, otherwise the minimum and the maximum of each column, in index order.
 * Values that are not finite are never drawn.
 */
export function decimate(y: ArrayLike<number>, from: number, to: number, columns: number, perColumn = PER_COLUMN): number[] {
  from = Math.max(0, Math.floor(from));
  to = Math.min(y.length, Math.ceil(to));
  const out: number[] = [];
  if (to <= from) return out;
  columns = Math.max(1, Math.floor(columns));
  if (to - from <= columns * perColumn) {
    for (let i = from; i < to; i++) if (Number.isFinite(y[i])) out.push(i);
    return out;
  }
  const width = (to - from) / columns;
  for (let c = 0; c < columns; c++) {
    const a = from + Math.floor(c * width);
    const b = c === columns - 1 ? to : from + Math.floor((c + 1) * width);
    pushMinMax(y, a, b, out);
  }
  return out;
}

/** The index of the smallest and of the largest finite value of y[a, b), in index order (once if the same). */
function pushMinMax(y: ArrayLike<number>, a: number, b: number, out: number[]): void {
  let lo = -1;
  let hi = -1;
  for (let i = a; i < b; i++) {
    const v = y[i];
    if (!Number.isFinite(v)) continue;
    if (lo < 0 || v < y[lo]) lo = i;
    if (hi < 0 || v > y[hi]) hi = i;
  }
  if (lo < 0) return;
  if (lo === hi) out.push(lo);
  else out.push(Math.min(lo, hi), Math.max(lo, hi));
}

/** What changed in a growing series' drawn points since the last update. */
export interface StreamUpdate {
  /** The bucket size changed (or the series shrank): draw `drawn()` afresh. */
  rebuilt: boolean;
  /** Indices of the buckets completed since the last update, to append to what is drawn. */
  added: number[];
  /** The incomplete last bucket's minimum and maximum: replaces the previous tail. */
  tail: number[];
}

/**
 * Decimation of a series that only grows at its end (the live timeline), kept up to date in time
 * proportional to what arrived, not to the series. The points are cut into buckets of `bucket`
 * consecutive points (a power of two); each complete bucket is drawn as its minimum and maximum. When
 * there would be more than columns × perColumn / 2 buckets, neighbouring buckets merge (bucket doubles):
 * so at most about columns × perColumn points are drawn, a bucket never spans more than a pixel column,
 * and while bucket ≤ 2 every point is drawn.
 */
export class StreamDecimator {
  bucket = 1;
  private lo: number[] = [];
  private hi: number[] = [];
  private readonly maxBuckets: number;
  /** The series being decimated (merging compares its values through the kept indices). */
  private values: ArrayLike<number> = [];

  constructor(columns: number, perColumn = PER_COLUMN) {
    this.maxBuckets = Math.max(2, Math.floor((Math.max(1, columns) * perColumn) / 2));
  }

  /** Points covered by complete buckets. */
  get covered(): number {
    return this.lo.length * this.bucket;
  }

  /** Take y[0, n): y's first `covered` values must be the ones seen before (a series that shrank starts over). */
  update(y: ArrayLike<number>, n = y.length): StreamUpdate {
    this.values = y;
    let rebuilt = false;
    if (n < this.covered) {
      this.bucket = 1;
      this.lo = [];
      this.hi = [];
      rebuilt = true;
    }
    // Start with the bucket size n needs, so a series seen for the first time at 1M points is cut once.
    while (Math.floor(n / this.bucket) > this.maxBuckets) {
      this.merge();
      rebuilt = true;
    }
    const first = this.lo.length;
    for (let start = this.covered; start + this.bucket <= n; start += this.bucket) this.addBucket(y, start, start + this.bucket);
    const added: number[] = [];
    if (!rebuilt) for (let k = first; k < this.lo.length; k++) this.pushBucket(k, added);
    const tail: number[] = [];
    pushMinMax(y, this.covered, n, tail);
    return { rebuilt, added, tail };
  }

  /** Every drawn index of the complete buckets, in index order. */
  drawn(): number[] {
    const out: number[] = [];
    for (let k = 0; k < this.lo.length; k++) this.pushBucket(k, out);
    return out;
  }

  private pushBucket(k: number, out: number[]): void {
    const a = this.lo[k];
    const b = this.hi[k];
    if (a < 0) return;
    if (a === b) out.push(a);
    else out.push(Math.min(a, b), Math.max(a, b));
  }

  private addBucket(y: ArrayLike<number>, a: number, b: number): void {
    const found: number[] = [];
    pushMinMax(y, a, b, found);
    if (!found.length) {
      this.lo.push(-1);
      this.hi.push(-1);
      return;
    }
    const [i, j = i] = found;
    const minFirst = y[i] <= y[j];
    this.lo.push(minFirst ? i : j);
    this.hi.push(minFirst ? j : i);
  }

  /** Bucket size doubles: each pair of buckets becomes one, with the smaller minimum and the larger maximum. */
  private merge(): void {
    const lo: number[] = [];
    const hi: number[] = [];
    for (let k = 0; k + 1 < this.lo.length; k += 2) {
      lo.push(pick(this.lo[k], this.lo[k + 1], (a, b) => this.valueOf(a) <= this.valueOf(b)));
      hi.push(pick(this.hi[k], this.hi[k + 1], (a, b) => this.valueOf(a) >= this.valueOf(b)));
    }
    this.lo = lo;
    this.hi = hi;
    this.bucket *= 2;
  }

  private valueOf(i: number): number {
    return this.values[i];
  }
}

/** Of two bucket indices (-1: an empty bucket), the one `better` prefers. */
function pick(a: number, b: number, better: (a: number, b: number) => boolean): number {
  if (a < 0) return b;
  if (b < 0) return a;
  return better(a, b) ? a : b;
}
