// The axis of a comparisons plot (issue 25, item 4): a true log-ratio axis labelled in percent, so
// −50 % and +100 % (halved, doubled) are as far from 0 % on either side, and one wide interval does not
// squash every other to a dot: the axis holds the estimates and the intervals up to ten times either
// way, symmetric about 0 %; an interval beyond it is drawn to the edge and its value written there.

/** The ratio of a change in percent: +100 % → 2. */
export const ratioOf = (pct: number): number => 1 + pct / 100;

/** Tick pairs in percent, one the mirror of the other in the log (+100 % ↔ −50 %, +900 % ↔ −90 %). */
const TICK_PAIRS: [number, number][] = [
  [0.5, -0.5],
  [1, -1],
  [2, -2],
  [5, -5],
  [10, -10],
  [25, -20],
  [50, -33],
  [100, -50],
  [200, -67],
  [400, -80],
  [900, -90],
];

/** The widest the axis goes: ten times either way (−90 % to +900 %). */
export const MAX_RATIO = 10;

export interface LogRatioAxis {
  /** The axis range in ratios (Plotly's log axis takes log10 of them in `range`). */
  lo: number;
  hi: number;
  tickvals: number[];
  ticktext: string[];
}

/** `+25%`, `−50%`, `−99.7%`, `0%`, `+2,900%` (a real minus sign, as the report writes it). */
export function pctLabel(pct: number): string {
  if (pct === 0) return '0%';
  const a = Math.abs(pct);
  const text = a >= 100 ? Math.round(a).toLocaleString('en') : String(Number(a.toPrecision(3)));
  return `${pct > 0 ? '+' : '−'}${text}%`;
}

/**
 * The axis for these changes (estimates and interval ends, in percent): symmetric about 0 % in the log,
 * holding every estimate and interval end up to ten times either way, with a little room beyond. Ticks
 * in mirrored pairs, at least an eighth of the axis apart, so their labels never crowd.
 */
export function logRatioAxis(changesPct: readonly number[]): LogRatioAxis {
  const ratios = changesPct.map(ratioOf).filter((r) => r > 0 && Number.isFinite(r));
  // A change of −100 % or less (ratio ≤ 0) is beyond any log axis: it counts as the widest.
  const beyond = changesPct.some((p) => Number.isFinite(p) && ratioOf(p) <= 0);
  const far = beyond ? MAX_RATIO : Math.max(1.02, ...ratios.map((r) => Math.max(r, 1 / r)));
  const hi = Math.min(MAX_RATIO, far * 1.08);
  const lo = 1 / hi;
  const gap = Math.log10(hi) / 4;
  const kept: [number, number][] = [];
  let last = 0;
  for (const pair of TICK_PAIRS) {
    const at = Math.log10(ratioOf(pair[0]));
    if (ratioOf(pair[0]) > hi * (1 + 1e-9) || ratioOf(pair[1]) < lo * (1 - 1e-9)) break;
    if (at - last >= gap) {
      kept.push(pair);
      last = at;
    }
  }
  const ticks = [...kept.map((p) => p[1]).reverse(), 0, ...kept.map((p) => p[0])];
  return { lo, hi, tickvals: ticks.map(ratioOf), ticktext: ticks.map(pctLabel) };
}

/** An interval end (a ratio, or ≤ 0 for a change of −100 % or less) clipped to the axis, and whether it was. */
export function clip(ratio: number, axis: Pick<LogRatioAxis, 'lo' | 'hi'>): { ratio: number; clipped: boolean } {
  if (ratio > axis.hi) return { ratio: axis.hi, clipped: true };
  if (!(ratio >= axis.lo)) return { ratio: axis.lo, clipped: true };
  return { ratio, clipped: false };
}
