// Statistics of data that arrives one value at a time (the live Run view folds executions as the
// engine sends them): a running mean and variance, and the coefficient of variation of restart means
// as restarts accumulate. The same definitions as the analysis: sample variance (n − 1).

/**
 * Running mean and variance. The mean is Σx / n, summed in arrival order exactly as the analysis sums a
 * restart, so a live restart mean is the analysis's to the last bit; the variance uses Welford's update,
 * stable where Σx² − n·mean² cancels badly.
 */
export class RunningMoments {
  n = 0;
  private sum = 0;
  private running = 0;
  private m2 = 0;

  add(x: number): void {
    this.n++;
    this.sum += x;
    const d = x - this.running;
    this.running += d / this.n;
    this.m2 += d * (x - this.running);
  }

  get mean(): number {
    return this.n ? this.sum / this.n : 0;
  }

  /** Sample variance; 0 for a single value (no spread seen yet). */
  get variance(): number {
    return this.n > 1 ? Math.max(0, this.m2 / (this.n - 1)) : 0;
  }

  get sd(): number {
    return Math.sqrt(this.variance);
  }
}

/** Coefficient of variation in percent (sample sd over the mean); null for fewer than two values or a mean that is not positive. */
export function covPct(values: ArrayLike<number>): number | null {
  const m = new RunningMoments();
  for (let i = 0; i < values.length; i++) m.add(values[i]);
  return m.n >= 2 && m.mean > 0 ? (100 * m.sd) / m.mean : null;
}

/** The CoV of the first 2, 3, … values: how the between-restart spread of a cell settles as its restarts accumulate. */
export function runningCovPct(values: ArrayLike<number>): { count: number; covPct: number }[] {
  const m = new RunningMoments();
  const out: { count: number; covPct: number }[] = [];
  for (let i = 0; i < values.length; i++) {
    m.add(values[i]);
    if (m.n >= 2 && m.mean > 0) out.push({ count: m.n, covPct: (100 * m.sd) / m.mean });
  }
  return out;
}
