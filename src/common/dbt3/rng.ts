// Deterministic random numbers for the DBT-3 generator. Every row draws from its own stream, seeded
// from (seed, table, row): any row, and so any chunk, can be made again without making the rows
// before it. That is what lets an interrupted load resume at a chunk, and two runs with one seed
// agree byte for byte.

/** A 32-bit integer hash (a multiply–xorshift finaliser): spreads nearby inputs far apart. */
export function mix32(x: number): number {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d);
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b);
  return (x ^ (x >>> 16)) >>> 0;
}

/** The seed of one row's stream: the run's seed, the table's (or field's) number and the row index. */
export function streamSeed(seed: number, table: number, row: number): number {
  // row may exceed 2^32 at no supported SF (lineitem at SF 10 has 60M rows), but fold its high bits anyway.
  const hi = Math.floor(row / 4294967296);
  return mix32(mix32(mix32(seed ^ 0x9e3779b9) ^ Math.imul(table + 1, 0x85ebca6b)) ^ (row >>> 0) ^ mix32(hi));
}

/** A small, fast generator (a Weyl sequence through an avalanche step); 2^32 period per stream, far more than one row draws. */
export class Rng {
  private s = 0;

  constructor(seed = 0) {
    this.s = seed >>> 0;
  }

  reset(seed: number): this {
    this.s = seed >>> 0;
    return this;
  }

  /** A float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer uniformly in [lo, hi], both included (the specification's random[lo, hi]). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
}
