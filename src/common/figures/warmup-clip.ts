// A value axis that warm-ups far off the measured executions do not squash. A cold first execution of
// 35 ms beside measured ones of 0.07 ms put every measured dot of the executions plot in one pixel
// column, and every line of the executions-in-order plot flat along the bottom. When the warm-ups
// would widen the axis more than CLIP_WARMUPS_BEYOND times, the axis is the measured executions' (and
// the warm-ups near them), and each warm-up beyond it is drawn at its edge, a hollow triangle pointing
// the way it is off, its true value in the hover. One rule for both figures (figures/build.ts) and for
// the Run view's live timeline (offAxis: its executions are in run order, not restarts × repetitions).

/** Warm-ups that would widen the axis more than this many times the measured executions' are drawn at its edge. */
export const CLIP_WARMUPS_BEYOND = 10;

/** The warm-ups beyond an axis: the farthest beyond each edge (null: none beyond that one), and how many. */
export interface Beyond {
  below: number | null;
  above: number | null;
  count: number;
}

/** Which warm-ups an axis leaves off: its measured executions and the warm-ups near them, and the others beyond it. */
export interface OffAxis extends Beyond {
  /** Warm-ups between these stay on the axis: within one measured span of the measured executions. */
  near: [number, number];
  /** The lowest and highest value on the axis (the measured executions and the warm-ups near them), unpadded. */
  extent: [number, number];
}

export interface WarmupClip extends OffAxis {
  /** The value axis: the measured executions and the warm-ups near them, padded, with a band at each edge that has warm-ups beyond it. */
  range: [number, number];
  /** Where a warm-up beyond the axis is drawn: the middle of its edge's band (at the very edge, half of each triangle was cut off). */
  edges: [number, number];
}

/** The margin Plotly's autorange gives values from a to b. */
const padOf = (a: number, b: number) => (b - a) * 0.04 || Math.abs(a) * 0.01 || 1;

/** The warm-ups of `warm` beyond `near`, lower and higher. */
export function beyond(near: readonly [number, number], warm: Iterable<number>): Beyond {
  let below: number | null = null;
  let above: number | null = null;
  let count = 0;
  for (const v of warm) {
    if (v < near[0]) {
      below = Math.min(below ?? v, v);
      count++;
    } else if (v > near[1]) {
      above = Math.max(above ?? v, v);
      count++;
    }
  }
  return { below, above, count };
}

/**
 * The rule of every clipped axis, whatever the figure's layout of its values: measured executions from
 * lo to hi beside the warm-ups `warm`. Null when the warm-ups fit within CLIP_WARMUPS_BEYOND times the
 * measured executions' axis, or there is no warm-up or nothing measured. A warm-up within one measured
 * span of the measured executions stays on the axis (a warm-up run of 600.1 tps beside measured ones of
 * 599.6–600.0 is not off the scale), the others are beyond it.
 */
export function offAxis(lo: number, hi: number, warm: readonly number[]): OffAxis | null {
  if (lo > hi || !warm.length) return null;
  let wlo = Infinity;
  let whi = -Infinity;
  for (const v of warm) {
    wlo = Math.min(wlo, v);
    whi = Math.max(whi, v);
  }
  // Padded as Plotly's autorange would pad the measured executions.
  const pad = padOf(lo, hi);
  const span = hi - lo + 2 * pad;
  if (Math.max(hi + pad, whi) - Math.min(lo - pad, wlo) <= CLIP_WARMUPS_BEYOND * span) return null;
  const near: [number, number] = [lo - pad - span, hi + pad + span];
  const extent: [number, number] = [lo, hi];
  for (const v of warm) {
    if (v < near[0] || v > near[1]) continue;
    extent[0] = Math.min(extent[0], v);
    extent[1] = Math.max(extent[1], v);
  }
  return { ...beyond(near, warm), near, extent };
}

/**
 * The clipped axis of one figure's rows (each a restart's values in repetition order, the first
 * `warmup` of each the warm-up): null when nothing is beyond it (offAxis). The axis is padded as
 * Plotly's autorange pads, with a band at each edge that has warm-ups beyond it, for their triangles.
 */
export function warmupClip(rows: number[][], warmup: number): WarmupClip | null {
  if (warmup <= 0) return null;
  let lo = Infinity;
  let hi = -Infinity;
  const warm: number[] = [];
  for (const values of rows) {
    values.forEach((v, j) => {
      if (!Number.isFinite(v)) return;
      if (j < warmup) warm.push(v);
      else {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    });
  }
  const off = offAxis(lo, hi, warm);
  if (!off) return null;
  const [axisLo, axisHi] = off.extent;
  const p = padOf(axisLo, axisHi);
  const range: [number, number] = [axisLo - p * (off.below === null ? 1 : 4), axisHi + p * (off.above === null ? 1 : 4)];
  return { ...off, range, edges: [axisLo - p * 2.5, axisHi + p * 2.5] };
}

/** Where a value is drawn under a clip: a warm-up (repetition j below `warmup`) beyond the axis at its edge, anything else where it is. */
export function placed(clip: Pick<WarmupClip, 'near' | 'edges'> | null, warmup: number, v: number, j: number): number {
  if (!clip || j >= warmup) return v;
  return v > clip.near[1] ? clip.edges[1] : v < clip.near[0] ? clip.edges[0] : v;
}

/**
 * The warm-ups a figure draws at an edge, gathered as it draws its values: one trace of hollow
 * triangles, each pointing the way its value is off along the value axis (horizontal 'x' or vertical
 * 'y'), its true value in its hover text. No legend entry: the figure says them under its title
 * (offScaleNote); as a legend entry on top of the executions plot the line made the legend one entry a
 * row, into the title.
 */
export function edgeMarkers(axis: 'x' | 'y') {
  const points = { x: [] as number[], y: [] as number[], text: [] as string[], symbol: [] as string[], color: [] as string[] };
  return {
    /** A warm-up of value `value` drawn at `at` on the value axis, in the row or at the repetition `other`. */
    add(value: number, at: number, other: number, text: string, color: string): void {
      points.x.push(axis === 'x' ? at : other);
      points.y.push(axis === 'x' ? other : at);
      points.text.push(text);
      points.symbol.push(`triangle-${axis === 'x' ? (value > at ? 'right' : 'left') : value > at ? 'up' : 'down'}-open`);
      points.color.push(color);
    },
    /** The trace, or null when no warm-up is beyond the axis. */
    trace(type: string, size: number): Record<string, unknown> | null {
      if (!points.x.length) return null;
      const { symbol, color, ...xy } = points;
      return { type, mode: 'markers', name: 'warm-up beyond the axis', showlegend: false, ...xy, marker: { symbol, size, color, line: { color, width: 1.5 } }, hovertemplate: '%{text}<extra></extra>' };
    },
  };
}

/**
 * The line a clipped figure says it with, its triangles drawn as text (DejaVu Sans has them):
 * "▷ 32 warm-ups beyond the axis, up to 44,500 ms: drawn at its right edge".
 */
export function offScaleNote(clip: Beyond, unit: string, axis: 'x' | 'y'): string {
  const v = (x: number) => `${Number(x.toPrecision(3)).toLocaleString('en-US')}${unit ? ` ${unit}` : ''}`;
  const [low, high] = axis === 'x' ? ['◁', '▷'] : ['▽', '△'];
  const [lowEdge, highEdge] = axis === 'x' ? ['left', 'right'] : ['bottom', 'top'];
  const glyphs = [clip.below !== null ? low : '', clip.above !== null ? high : ''].filter(Boolean).join(' ');
  const span = [clip.below !== null ? `down to ${v(clip.below)}` : '', clip.above !== null ? `up to ${v(clip.above)}` : ''].filter(Boolean).join(' and ');
  const edge = clip.below !== null && clip.above !== null ? 'edges' : `${clip.above !== null ? highEdge : lowEdge} edge`;
  return `${glyphs} ${clip.count.toLocaleString('en-US')} warm-up${clip.count === 1 ? '' : 's'} beyond the axis, ${span}: drawn at its ${edge}`;
}
