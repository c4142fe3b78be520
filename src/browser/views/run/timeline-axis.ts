// How far the live timeline's axes run: the x axis (the execution number), and the y axis (the time).
// Plain data, no DOM: tested under Node.
import { beyond, offAxis, type Beyond } from '../../../common/figures/warmup-clip.js';
//
// While the run is followed the axis is fixed with headroom, so that executions arriving are painted
// onto a plot whose axes stay put (Plotly draws its axes afresh only when the run outgrows them): room
// for 4 times what is there, but never past the run's planned end when that is known, so the axis then
// spans the planned run and the reader sees how far it has come. Once nothing more arrives (the run has
// ended, or saved results are shown), the axis ends with the data.

/** Why the axis ends where it does: with the data, at the planned run's end, or with room for what comes. */
export type XEnd = 'data' | 'planned' | 'room';

/**
 * A round number well above n: the x axis is fixed until the run passes it. Room for 4 times what is
 * there: from 100 to 100,000 executions Plotly draws the axes afresh 5 times, not on every frame.
 */
export function roomFor(n: number): number {
  const want = Math.max(100, n * 4);
  const step = 10 ** Math.floor(Math.log10(want));
  return Math.ceil(want / step) * step;
}

/**
 * The x range for n executions of a query (numbered 1 to n). following: more may arrive (the run is
 * running or paused); planned: the query's executions in the whole run, if known (0: not known).
 */
export function timelineX(n: number, following: boolean, planned = 0): { range: [number, number]; end: XEnd } {
  if (!following) return { range: [0, Math.max(1, n) + 1], end: 'data' };
  const room = roomFor(n);
  if (planned > 0 && planned >= n && planned + 1 < room) return { range: [0, planned + 1], end: 'planned' };
  return { range: [0, room], end: 'room' };
}

/**
 * Is the x axis drawn for n executions still the one timelineX gives for them? n: the executions when it
 * was drawn. The axis also depends on what the run is known to plan, which can change with no execution
 * of the query arriving (a restart finishes and tells how many executions one has, or a follower that
 * attaches again learns of more restarts): the axis must then be drawn again, or its range and its
 * title ("leaves room for the executions to come") stay those of before until something else redraws.
 * Executions that arrived since are left out on purpose: they are painted onto the axis drawn, which is
 * drawn again only when they fall outside it (room for them was made so), not each time roomFor grows.
 */
export function xStillShown(drawn: { range: readonly [number, number]; end: XEnd }, n: number, following: boolean, planned = 0): boolean {
  const now = timelineX(n, following, planned);
  return now.end === drawn.end && now.range[0] === drawn.range[0] && now.range[1] === drawn.range[1];
}

/** What the x axis's title adds, so that an axis longer than the data says why. */
export function xEndNote(end: XEnd): string {
  return end === 'planned' ? '; the axis spans the planned run' : end === 'room' ? '; the axis leaves room for the executions to come' : '';
}

/**
 * The y range for the executions drawn (idx into y). While the run is followed and not zoomed
 * (`headroom`), a quarter of the spread above and below: a restart a little faster or slower than the
 * ones so far is painted onto the axes drawn, without Plotly drawing them afresh. Otherwise (the run has
 * ended, saved results, a zoom) the data's range with a margin as Plotly's autorange would give, so that
 * the spread between restarts fills the plot.
 */
export function timelineY(y: readonly number[], idx: readonly number[], headroom: boolean): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const i of idx) {
    if (y[i] < lo) lo = y[i];
    if (y[i] > hi) hi = y[i];
  }
  if (!Number.isFinite(lo)) return [0, 1];
  const pad = (hi - lo) * (headroom ? 0.25 : 0.05) || Math.abs(lo) * 0.05 || 1;
  return [lo - pad, hi + pad];
}

/** Of the y range, the band at a clipped edge in which the warm-ups beyond the axis are drawn. */
const EDGE_BAND = 0.08;

/** The warm-ups beyond the timeline's y axis: how many and how far, which stay on it (near), and where the others are drawn (edges). */
export interface TimelineClip extends Beyond {
  near: [number, number];
  edges: [number, number];
}

/**
 * The y range for the executions drawn (idx into y), as timelineY gives it, but ranged on the measured
 * executions when warm-ups far off them (each restart's cold first execution, 300 times the others)
 * would squash them into a line along the bottom: the rule of the analysis's figures (warmup-clip.ts).
 * The warm-ups beyond it are drawn at its edge, in a band added for them. `warm` flags the warm-ups;
 * the note's count is of every warm-up with an index in [from, to) (warmAt: their indices, ascending),
 * not only of those drawn, which the decimation thins.
 */
export function timelineYClipped(y: readonly number[], warm: readonly boolean[], idx: readonly number[], headroom: boolean, warmAt: readonly number[], from: number, to: number): { range: [number, number]; clip: TimelineClip | null } {
  let lo = Infinity;
  let hi = -Infinity;
  const cold: number[] = [];
  for (const i of idx) {
    if (warm[i]) cold.push(y[i]);
    else {
      if (y[i] < lo) lo = y[i];
      if (y[i] > hi) hi = y[i];
    }
  }
  const off = offAxis(lo, hi, cold);
  if (!off) return { range: timelineY(y, idx, headroom), clip: null };
  const [a, b] = timelineY(y, idx.filter((i) => !warm[i] || (y[i] >= off.near[0] && y[i] <= off.near[1])), headroom);
  const band = (b - a) * EDGE_BAND;
  const counted = beyond(off.near, warmAt.filter((i) => i >= from && i < to).map((i) => y[i]));
  return {
    range: [a - (counted.below !== null ? band : 0), b + (counted.above !== null ? band : 0)],
    clip: { ...counted, near: off.near, edges: [a - band / 2, b + band / 2] },
  };
}
