// The axis of a comparisons plot (issue 25, item 5): a true log-ratio axis labelled in percent, so
// −50 % and +100 % (halved, doubled) are as far from 0 % on either side, and one wide interval does not
// squash every other to a dot: the axis holds the estimates and the intervals up to ten times either
// way, symmetric about 0 %; an interval beyond it is drawn to the edge and its value written there.

/** The ratio of a change in percent: +100 % → 2. */
export const ratioOf = (pct: number): number => 1 + pct / 100;

/** Ticks in percent, symmetric in the log (−50 % ↔ +100 %, −90 % ↔ +900 %), finest first used when the range is small. */
const TICKS_PCT = [-90, -80, -67, -50, -33, -20, -10, -5, -2, -1, -0.5, 0, 0.5, 1, 2, 5, 10, 25, 50, 100, 200, 400, 900];

/** The widest the axis goes: ten times either way (−90 % to +900 %). */
const MAX_RATIO = 10;

export interface LogRatioAxis {
  /** The axis range in ratios (Plotly's log axis takes log10 of them in `range`). */
  lo: number;
  hi: number;
  tickvals: number[];
  ticktext: string[];
}

/** `+25%`, `−50%`, `0%` (a real minus sign, as the report writes it). */
export function pctLabel(pct: number): string {
  if (pct === 0) return '0%';
  const text = Math.abs(pct) >= 1000 ? Math.round(Math.abs(pct)).toLocaleString('en') : String(Math.abs(Number(pct.toPrecision(3))));
  return `${pct > 0 ? '+' : '−'}${text}%`;
}

/**
 * The axis for these changes (estimates and interval ends, in percent): symmetric about 0 % in the log,
 * holding every estimate and interval end up to ten times either way, with a little room beyond.
 */
export function logRatioAxis(changesPct: readonly number[]): LogRatioAxis {
  const ratios = changesPct.map(ratioOf).filter((r) => r > 0 && Number.isFinite(r));
  const far = Math.max(1.02, ...ratios.map((r) => Math.max(r, 1 / r)));
  const hi = Math.min(MAX_RATIO, far * 1.08);
  const lo = 1 / hi;
  const inside = TICKS_PCT.filter((p) => ratioOf(p) >= lo && ratioOf(p) <= hi);
  // Not crowded: at most 9 ticks, keeping 0 % and the ends of the list.
  let ticks = inside;
  while (ticks.length > 9) ticks = ticks.filter((p, i) => p === 0 || i % 2 === (ticks.indexOf(0) % 2));
  return { lo, hi, tickvals: ticks.map(ratioOf), ticktext: ticks.map(pctLabel) };
}

/** An interval end clipped to the axis, and whether it was. */
export function clip(ratio: number, axis: Pick<LogRatioAxis, 'lo' | 'hi'>): { ratio: number; clipped: boolean } {
  if (ratio > axis.hi) return { ratio: axis.hi, clipped: true };
  if (ratio < axis.lo) return { ratio: axis.lo, clipped: true };
  return { ratio, clipped: false };
}
