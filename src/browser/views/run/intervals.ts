// What the Run view's interval plots draw of a restart's interval lines. A sysbench run of the second
// field note prints one line a second: 5 runs of 300 s make 1,500 points a restart and 15,000 for ten
// restarts, redrawn live as SVG lines. Beyond a few points per pixel column, each column keeps its
// lowest and its highest interval (decimate.ts): a stall or a spike, what a reader looks for, is
// always drawn, and every point drawn is a real interval, so its hover tells the truth.
import { decimate } from '../../plot/decimate.js';
import type { IntervalTrace } from './live.js';

/** About the plots' width in pixels: the columns every restart's lines share. */
export const INTERVAL_COLUMNS = 700;

/** One restart's line of `y` (its tps or latency per interval), with the columns it gets of `total` intervals drawn. */
export function drawnInterval(t: IntervalTrace, y: number[], total: number, columns = INTERVAL_COLUMNS): { x: number[]; y: number[]; rep: number[] } {
  const share = Math.max(1, Math.round((columns * y.length) / Math.max(1, total)));
  const idx = decimate(y, 0, y.length, share);
  return { x: idx.map((i) => t.x[i]), y: idx.map((i) => y[i]), rep: idx.map((i) => t.rep[i]) };
}
