// Student's t distribution from @stdlib (well kept, accurate in the tails), memoized: the analysis asks
// for the same few (p, ν) pairs for hundreds of series.
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';

const quantiles = new Map<string, number>();

/** The p-quantile of t with ν degrees of freedom (ν may be fractional, as Welch's is). */
export function tq(p: number, nu: number): number {
  const key = `${p}:${nu}`;
  let q = quantiles.get(key);
  if (q === undefined) {
    q = tQuantile(p, nu);
    if (quantiles.size > 10000) quantiles.clear();
    quantiles.set(key, q);
  }
  return q;
}

/** P(T ≤ x) for t with ν degrees of freedom. */
export function tcdf(x: number, nu: number): number {
  return tCdf(x, nu);
}
