// Claims need evidence. Below these numbers varlab shows no ranking, no bimodality verdict, no minimum
// detectable effect and no "restarts needed": it says how many more restarts would allow one instead.
// And a plan past PLAN_LIMITS is no plan: the target is out of reach at the measured spread.

/** A cell needs this many restarts before its spread ranks it, or an MDE or a plan rests on it. */
export const MIN_RESTARTS = 3;

/** Two groups of at least two restarts each: the fewest that can show "good start, bad start". */
export const BIMODAL_MIN_RESTARTS = 4;

/** Beyond these a suggestion is no plan: the target effect is below what the workload can resolve. */
export const PLAN_LIMITS = { restarts: 1000, seconds: 7 * 86400 } as const;

/** What makes restarts agree better (the seeds' findings), listed wherever a target is out of reach. */
export const COV_REDUCERS = ['ASLR off', 'preload (scan every table and index after each start)', 'NUMA binding (numactl)', 'a quieter host'] as const;

/** How many more restarts a cell of n restarts needs to reach `min` (0 when it has enough). */
export function moreRestartsNeeded(n: number, min: number = MIN_RESTARTS): number {
  return Math.max(0, min - n);
}

/** `needs 1 more restart (3 per cell)`; null when n is enough. */
export function needsMoreText(n: number, min: number = MIN_RESTARTS, where = 'per cell'): string | null {
  const k = moreRestartsNeeded(n, min);
  return k ? `needs ${k} more restart${k === 1 ? '' : 's'} (${min} ${where})` : null;
}

/**
 * The target is out of reach: said with the between-restart CoV it follows from (named, so the reader
 * knows what to bring down) and what brings it down.
 */
export function outOfReachText(targetPct: number, covPct: number | null, limit: number = PLAN_LIMITS.restarts): string {
  const cov = covPct === null || !Number.isFinite(covPct) ? 'the measured between-restart CoV' : `the measured between-restart CoV of ${covPct.toFixed(2)}%`;
  return `a ${targetPct}% effect is out of reach on this host at ${cov} (more than ${limit.toLocaleString('en-US')} restarts per cell); what reduces that CoV: ${COV_REDUCERS.join(', ')}`;
}
