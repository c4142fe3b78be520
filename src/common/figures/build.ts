// One builder per plot varlab shows. Each takes the export context (experiment + analysis) and
// returns a FigureSpec; buildFigures lists them all in the order they are exported.
import type { ExportContext } from '../export/context.js';
import { conventionOf, fewRestartsOf, levelsOf } from '../export/context.js';
import { fmtP, levelPct } from '../export/format.js';
import { MDE_LABELS, mdeCurve } from '../stats/mde.js';
import { DEFAULTS, findCell, findComparison } from '../stats/analysis.js';
import type { SeriesSteady } from '../stats/steady.js';
import { axis, baseLayout, labelMargin, PALETTE, slug, titleBlock, valueAxisTitle, type FigureSpec } from './figure.js';
import { clip, logRatioAxis, pctLabel, ratioOf } from './log-ratio.js';
import { beyond, edgeMarkers, offScaleNote, placed, warmupClip } from './warmup-clip.js';
import { executionWord } from '../experiment/words.js';

const WIDTH = 960;
const DASHES = ['solid', 'dash', 'dot', 'dashdot', 'longdash', 'longdashdot'];
const SYMBOLS = ['circle', 'square', 'diamond', 'triangle-up', 'x', 'cross', 'star', 'triangle-down'];
const ROW = 30;

const meanOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);
const present = <T>(x: T | null | undefined): x is T => x !== null && x !== undefined && (typeof x !== 'number' || Number.isFinite(x));

/** Cells top to bottom in plan order: Plotly draws the first category at the bottom, so reverse. */
function cellAxis(cells: string[]): Record<string, unknown> {
  return axis('', { type: 'category', categoryorder: 'array', categoryarray: [...cells].reverse(), ticks: '', automargin: true });
}

function heightFor(rows: number): number {
  return Math.max(420, 190 + rows * ROW);
}

/**
 * The seeds' table of configurations as a plot: spread average and largest per cell, the most stable
 * marked only when every cell has restarts enough to be ranked (otherwise the subtitle says why not).
 */
export function configurationsFigure(ctx: ExportContext): FigureSpec {
  const stats = ctx.cells.map((c) => findCell(ctx.analysis, c));
  const avg = stats.map((s) => s?.spread_avg_pct ?? null);
  const max = stats.map((s) => s?.spread_max_pct ?? null);
  const ranking = ctx.analysis.ranking;
  const best = ranking.most_stable === null ? -1 : ctx.cells.indexOf(ranking.most_stable);
  const title = 'Spread between restarts per configuration';
  const unranked = best < 0 && ctx.cells.length > 1 && ranking.reason;
  // A figure has room for one line: the test's short verdict (the report and the views say it in full).
  const unrankedText = ranking.reason?.startsWith('no ranking: ') ? ranking.reason : (ranking.brief ?? ranking.reason ?? '');
  const layout = baseLayout(title, ctx.caption, { l: labelMargin(ctx.cells) }, 'top', undefined, { lines: unranked ? [unrankedText] : [], width: WIDTH });
  if (best >= 0) {
    (layout.annotations as unknown[]).push({
      text: `★ most stable${ranking.brief ? ` (${ranking.brief})` : ''}`,
      x: max[best] ?? avg[best],
      y: ctx.cells[best],
      xanchor: 'left',
      xshift: 6,
      showarrow: false,
      font: { color: PALETTE[2], size: 12 },
    });
  }
  return cellBars(ctx, 'configurations', title, layout, 'Spread between best and worst restart mean (%)', [
    { name: 'average over queries', x: avg, color: ctx.cells.map((_, i) => (i === best ? PALETTE[2] : PALETTE[0])), hover: 'average' },
    { name: 'largest over queries', x: max, color: PALETTE[1], hover: 'largest' },
  ]);
}

/** Grouped horizontal bars, a group per cell: the figures that set a percentage or two beside each configuration. */
function cellBars(ctx: ExportContext, id: string, title: string, layout: Record<string, unknown>, xTitle: string, bars: { name: string; x: (number | null)[]; color: string | string[]; hover: string }[]): FigureSpec {
  layout.barmode = 'group';
  layout.xaxis = axis(xTitle, { rangemode: 'tozero' });
  layout.yaxis = cellAxis(ctx.cells);
  return {
    id,
    title,
    file: id,
    width: WIDTH,
    height: heightFor(ctx.cells.length * 1.4),
    data: bars.map((b) => ({ type: 'bar', orientation: 'h', name: b.name, y: ctx.cells, x: b.x, marker: { color: b.color }, hovertemplate: `%{y}<br>${b.hover} %{x:.2f}%<extra></extra>` })),
    layout,
  };
}

/** How a figure is built: for the screen (every point, hover on each) or for an image file. */
export interface FigureOptions {
  /**
   * For an exported image: per-execution figures are capped in height and draw one dot per pixel of
   * a restart's row (the others would fall on it), saying so under the title.
   */
  image?: boolean;
  /**
   * For the screen: dots in WebGL, and beyond THIN_ABOVE executions (within `range`, a zoom, when
   * given) one dot per pixel of a restart's row, `pixels` wide; every execution when few enough fall
   * in the range.
   */
  screen?: { pixels: number; range?: [number, number] };
  /** One box per restart (quartiles, whiskers to the extremes, warm-ups left out) instead of a dot per execution: the restart-level overview. */
  boxes?: boolean;
}

/**
 * The tallest per-execution figure, on screen and as an image, in CSS pixels (twice that in a PNG at
 * scale 2). Rasterising and encoding the PNG costs in proportion to its pixels: at 2400 it was most of
 * an export's CPU.
 */
export const EXECUTIONS_MAX_HEIGHT = 1600;
/** On screen, up to this many restart rows are labelled one by one. */
export const ROW_LABELS_UP_TO = 40;
/** Above this many dots in one figure, an image draws one dot per pixel of each row. */
export const THIN_ABOVE = 10_000;

/**
 * For one query: every execution of every restart as a dot, and each restart's mean as a diamond,
 * one row of dots per restart grouped by cell, so within-restart and between-restart spread are seen
 * side by side. Warm-up executions are drawn hollow: kept in the file, left out of the analysis.
 */
export function executionsFigure(ctx: ExportContext, query: string, opts: FigureOptions = {}): FigureSpec {
  const perCell = new Map<string, typeof ctx.restarts>();
  for (const r of ctx.restarts) {
    if (r.status !== 'ok' || !r.queries.some((q) => q.query === query)) continue;
    const list = perCell.get(r.cell) ?? [];
    list.push(r);
    perCell.set(r.cell, list);
  }
  const cells = ctx.cells.filter((c) => perCell.has(c));
  const kept = { x: [] as number[], y: [] as number[], text: [] as string[] };
  const warm = { x: [] as number[], y: [] as number[], text: [] as string[] };
  // Warm-ups beyond the axis (clipped): at its edge, a triangle pointing the way they are off.
  const off = edgeMarkers('x');
  const means = { x: [] as number[], y: [] as number[], text: [] as string[] };
  // One row per restart, each labelled with its cell and its number within the cell ("cell · r2"), the
  // cells separated by a gap and a line, first cell on top: a reader never has to guess which rows belong together.
  const GAP = 0.8;
  const rowCount = cells.reduce((n, c) => n + perCell.get(c)!.length, 0);
  const rowUnits = rowCount + GAP * (cells.length - 1);
  // An image and the screen have the same height cap: rows get thinner, and below a readable label
  // height each cell is labelled once. On screen, a plot of 160 restarts at 20 px a row was 3,600 px
  // tall: a reader scrolled through 3 windows to compare the first rows with the last, and every zoom
  // drew (and, without a GPU, read back) the whole canvas, 72% of it out of the window.
  const natural = 210 + rowCount * 20 + cells.length * 14;
  const height = Math.max(420, opts.image || opts.screen || opts.boxes ? Math.min(natural, EXECUTIONS_MAX_HEIGHT) : natural);
  const rowPx = (height - 210) / rowUnits;
  // On screen too, beyond ROW_LABELS_UP_TO rows each cell is labelled once: Plotly measures every tick
  // label it draws, and 160 of them took seconds to lay out; the hover names the restart.
  const perCellLabels = (opts.image && rowPx < 12) || ((opts.screen !== undefined || opts.boxes === true) && rowCount > ROW_LABELS_UP_TO);
  const valuesOf = (r: (typeof ctx.restarts)[number]) => r.queries.find((q) => q.query === query)!.values;
  const allLabels = cells.flatMap((cell) => perCell.get(cell)!.map((r) => `${cell} · r${r.restartOfCell}`));
  const margin = labelMargin(perCellLabels ? cells.map((c) => `${c} · r1–r${perCell.get(c)!.length}`) : allLabels);
  const rowValues = () => cells.flatMap((c) => perCell.get(c)!.map(valuesOf));
  // A zoom on screen: only the executions in its range are drawn (drawing the others, hidden beyond the
  // axis, was what made a zoom into a range of few executions slow).
  const within = opts.boxes ? undefined : opts.screen?.range;
  // Warm-ups far off the measured executions (a first execution of 35 ms beside measured ones of
  // 0.07 ms) would squash the measured dots into one pixel column: the axis is the measured
  // executions', and a warm-up beyond it is drawn at its edge (warmup-clip.ts). A zoom draws values as they are.
  const clip = opts.boxes || within ? null : warmupClip(rowValues(), ctx.warmup);
  const at = (v: number, j: number) => placed(clip, ctx.warmup, v, j);
  const thinRows = () => (clip ? rowValues().map((vs) => vs.map(at)) : rowValues());
  const thin = opts.boxes ? null : opts.image ? rowThinner(thinRows(), WIDTH - margin - 30, clip?.range) : opts.screen ? rowThinner(thinRows(), opts.screen.pixels, opts.screen.range ?? clip?.range) : null;
  const boxes = { y: [] as number[], q1: [] as number[], median: [] as number[], q3: [] as number[], lowerfence: [] as number[], upperfence: [] as number[] };
  const tickvals: number[] = [];
  const ticktext: string[] = [];
  const separators: number[] = [];
  let y = rowUnits - 1;
  cells.forEach((cell, i) => {
    if (i > 0) {
      separators.push(y + 0.5 + GAP / 2);
    }
    const rs = perCell.get(cell)!;
    if (perCellLabels) {
      tickvals.push(y - (rs.length - 1) / 2);
      ticktext.push(`${cell} · r1–r${rs.length}`);
    }
    rs.forEach((r) => {
      if (!perCellLabels) {
        tickvals.push(y);
        ticktext.push(`${cell} · r${r.restartOfCell}`);
      }
      const values = valuesOf(r);
      thin?.nextRow();
      let sum = 0;
      let n = 0;
      if (opts.boxes) addBox(boxes, y, values.slice(ctx.warmup).filter(Number.isFinite));
      values.forEach((v, j) => {
        if (!Number.isFinite(v)) return;
        const isWarm = j < ctx.warmup;
        if (!isWarm) {
          sum += v;
          n++;
        }
        const x = at(v, j);
        if (opts.boxes || (thin ? !thin.keep(x, isWarm) : within && (v < within[0] || v > within[1]))) return;
        const text = `${cell}<br>restart ${r.restartOfCell} of this cell (restart #${r.seq} of the plan), rep ${j + 1}`;
        if (x !== v) {
          off.add(v, x, y, `${text}<br>warm-up, beyond the axis: ${v}${ctx.unit ? ` ${ctx.unit}` : ''}`, '#777');
          return;
        }
        const into = isWarm ? warm : kept;
        into.x.push(v);
        into.y.push(y);
        into.text.push(text);
      });
      if (n > 0) {
        means.x.push(sum / n);
        means.y.push(y);
        means.text.push(`${cell}<br>restart ${r.restartOfCell} of this cell (#${r.seq} of the plan): mean`);
      }
      y -= 1;
    });
    y -= GAP;
  });
  // A command's measurements are runs of the command (words.ts): its figure says so, a query's says executions.
  const runs = executionWord(ctx.doc.design.workload.kind, true);
  const title = `${runs[0].toUpperCase()}${runs.slice(1)} per restart and restart means: ${query}`;
  const rows = perCellLabels ? 'one row per restart, r1 at the top of each cell' : 'one row per restart: "cell · r2" is the cell\'s second restart';
  const drawn = kept.x.length + warm.x.length;
  const zoomHint = opts.screen ? '; zoom in to see every one' : '';
  const capped = opts.image && natural > EXECUTIONS_MAX_HEIGHT ? `Image height capped at ${EXECUTIONS_MAX_HEIGHT.toLocaleString('en-US')} px.` : '';
  const note = opts.boxes
    ? `One box per restart: quartiles of its ${runs} after the warm-up (${ctx.warmup}), whiskers to the lowest and highest; "every ${executionWord(ctx.doc.design.workload.kind)}" shows the dots.`
    : thin && thin.total > drawn
      ? `Drawn: ${drawn.toLocaleString('en-US')} of ${thin.total.toLocaleString('en-US')} executions, one dot per pixel of a restart's row (the others fall on it)${zoomHint}; the means use every execution.${capped ? ` ${capped}` : ''}`
      : capped || undefined;
  const layout = baseLayout(title, ctx.caption, { l: margin }, 'top', note, { lines: clip ? [rows, offScaleNote(clip, ctx.unit, 'x')] : [rows], width: WIDTH });
  const range = thin?.range ?? opts.screen?.range ?? clip?.range;
  layout.xaxis = axis(valueAxisTitle(ctx.unit), range ? { range } : {});
  layout.yaxis = axis('', {
    tickmode: 'array',
    tickvals,
    ticktext,
    range: [-0.7, rowUnits - 0.3],
    zeroline: false,
    showgrid: false,
    ticks: '',
    tickfont: { size: 11 },
  });
  if (opts.screen || opts.boxes) {
    // On screen the lines between cells are the row axis's minor grid: as shapes, each was drawn afresh
    // (with its own event handlers) on every zoom.
    (layout.yaxis as Record<string, unknown>).minor = { tickmode: 'array', tickvals: separators, ticks: '', showgrid: true, gridcolor: '#bbb', gridwidth: 1 };
  } else {
    layout.shapes = separators.map((sy) => ({ type: 'line', xref: 'paper', x0: 0, x1: 1, yref: 'y', y0: sy, y1: sy, line: { color: '#bbb', width: 1 } }));
  }
  layout.hovermode = 'closest';
  if (opts.screen || opts.boxes) {
    // On screen, every tick label of both axes was measured on every redraw (a zoom draws twice) to hide
    // any past the plot's edge, which none of these labels reach: a quarter of a zoom's time. And the
    // margins are fixed: with automargin, a zoom's new tick labels (other widths) moved a margin, which
    // made Plotly draw the whole figure a second time (a quarter of a zoom's time again). The left
    // margin is sized to the row labels (labelMargin), the value axis's numbers fit the bottom one.
    // Labels are level (tickangle 0): with 'auto', Plotly measured each one on each redraw to see whether they overlap.
    for (const a of [layout.xaxis, layout.yaxis] as Record<string, unknown>[]) {
      a.ticklabeloverflow = 'allow';
      a.automargin = false;
      a.tickangle = 0;
    }
  }
  const size = Math.max(3, Math.min(6, rowPx * 0.6));
  const dot = (color: string, open: boolean) => ({ size, color: open ? 'rgba(0,0,0,0)' : color, opacity: 0.75, line: { color, width: 1 } });
  // The restart means go first so the executions are drawn over them: a mean is a tall tick, not a blot.
  // On screen the dots are WebGL (thousands of SVG circles each with its hover are what made it slow); the means stay SVG.
  const dots = opts.screen ? 'scattergl' : 'scatter';
  // On screen beside the dots, the means are WebGL too: as SVG, their 160 markers were a third of a zoom's time.
  const meanTrace = { type: opts.screen ? 'scattergl' : 'scatter', mode: 'markers', name: 'restart mean', ...means, marker: { symbol: 'line-ns-open', size: Math.min(18, Math.max(8, rowPx)), color: PALETTE[3], line: { color: PALETTE[3], width: 3 } }, hovertemplate: '%{text}<br>%{x}<extra></extra>' };
  if (opts.boxes) {
    const box = { type: 'box', orientation: 'h', name: `${runs} of a restart`, ...boxes, boxpoints: false, fillcolor: 'rgba(50,113,212,0.25)', line: { color: PALETTE[0], width: 1 }, width: Math.min(0.8, Math.max(0.3, rowPx / 30)), hoverinfo: 'x' };
    return { id: `restarts-${slug(query)}`, title, file: `restarts-${slug(query)}`, width: WIDTH, height, data: [box, meanTrace], layout };
  }
  const data: Record<string, unknown>[] = [meanTrace, { type: dots, mode: 'markers', name: 'execution', ...kept, marker: dot(PALETTE[0], false), hovertemplate: '%{text}<br>%{x}<extra></extra>' }];
  if (warm.x.length) data.push({ type: dots, mode: 'markers', name: `warm-up (first ${ctx.warmup}, dropped)`, ...warm, marker: dot('#999', true), hovertemplate: '%{text}<br>%{x}<extra></extra>' });
  const edge = off.trace(dots, size + 3);
  if (edge) data.push(edge);
  // On screen, a clipped figure is built again on any zoom (its edge triangles stand for values beyond it).
  return { id: `executions-${slug(query)}`, title, file: `executions-${slug(query)}`, width: WIDTH, height, data, layout, ...(opts.screen ? { exact: thin === null && !edge } : {}) };
}

/**
 * Thinning for an image or the screen: the x axis is fixed to the data's range (as Plotly's autorange
 * would pad it), or to `within` (a zoom: only the executions in it count and are drawn), and cut into
 * one bin per pixel; in each row, the first execution in a bin is drawn and the others, which a 6-pixel
 * dot would cover anyway, are not. Warm-up (hollow) and kept dots are thinned apart. Returns null when
 * the figure (or the range) holds few enough dots to draw them all.
 */
function rowThinner(rows: number[][], pixels: number, within?: [number, number]) {
  let lo = Infinity;
  let hi = -Infinity;
  let total = 0;
  const inside = (v: number) => Number.isFinite(v) && (!within || (v >= within[0] && v <= within[1]));
  for (const values of rows) {
    for (const v of values) {
      if (!inside(v)) continue;
      total++;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (total <= THIN_ABOVE) return null;
  const pad = (hi - lo) * 0.04 || Math.abs(lo) * 0.01 || 1;
  const range: [number, number] = within ?? [lo - pad, hi + pad];
  const bins = Math.max(100, Math.round(pixels));
  const scale = bins / (range[1] - range[0]);
  const taken = new Uint8Array(bins * 2);
  return {
    total,
    range,
    nextRow: () => taken.fill(0),
    keep(v: number, warmup: boolean): boolean {
      if (!inside(v)) return false;
      const at = Math.min(bins - 1, Math.floor((v - range[0]) * scale)) * 2 + (warmup ? 1 : 0);
      if (taken[at]) return false;
      taken[at] = 1;
      return true;
    },
  };
}

/** The box of one restart's row: quartiles and the extremes of its executions (none: no box). */
function addBox(b: { y: number[]; q1: number[]; median: number[]; q3: number[]; lowerfence: number[]; upperfence: number[] }, row: number, values: number[]): void {
  if (!values.length) return;
  const s = Float64Array.from(values).sort();
  const q = (p: number) => {
    const at = (s.length - 1) * p;
    const i = Math.floor(at);
    return s[i] + (s[Math.min(s.length - 1, i + 1)] - s[i]) * (at - i);
  };
  b.y.push(row);
  b.q1.push(q(0.25));
  b.median.push(q(0.5));
  b.q3.push(q(0.75));
  b.lowerfence.push(s[0]);
  b.upperfence.push(s[s.length - 1]);
}

/** The executions-in-order figure draws a dot on each execution up to this many repetitions a restart, and only the line beyond. */
export const MARKERS_UP_TO = 500;
/** The height of the warm-up marks' labels above the executions-in-order plot (11 px text). */
const MARK_LABELS = 14;

/** Integer tick spacing for a repetition axis of n repetitions: 1, 2, 5, 10, 20… so no tick falls between two repetitions. */
export function repetitionDtick(n: number): number {
  const rough = Math.max(1, n / 10);
  const p = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= rough) ?? 10 * p;
  return Math.max(1, Math.round(step));
}

/** The ranges a reader zoomed a figure to, each axis that was zoomed (repetitionsFigure). */
export interface ZoomRanges {
  x?: [number, number];
  y?: [number, number];
}

/**
 * The executions of one cell in repetition order, one line per restart of that cell (named by its
 * position in the cell, the plan's restart number in the hover), with the warm-up in use and the one
 * the data suggest marked between repetitions. `zoom`: on screen, the ranges a reader zoomed to, the
 * figure built for them (a clipped figure is `exact: false`: what it says depends on the range).
 */
export function repetitionsFigure(ctx: ExportContext, query: string, cell: string, current: number, suggested: number | null, steady?: SeriesSteady, zoom?: ZoomRanges): FigureSpec {
  const KIND: Record<string, string> = { flat: 'flat', warmup: 'warm-up', slowdown: 'slowdown', none: 'no steady state' };
  const classOf = (seq: number) => {
    const r = steady?.restarts.find((x) => x.restart === String(seq));
    return r?.kind ? `<br>${KIND[r.kind]}${r.discard ? `, steady after ${r.discard}` : ''}` : '';
  };
  const restarts = ctx.restarts.filter((r) => r.status === 'ok' && r.cell === cell);
  const valuesOf = (r: (typeof restarts)[number]) => r.queries.find((q) => q.query === query)?.values ?? [];
  const most = restarts.reduce((n, r) => Math.max(n, valuesOf(r).length), 0);
  // Beyond MARKERS_UP_TO repetitions the dots would touch, and each is an SVG element of its own: at
  // 10,000 repetitions a restart, 6,300 of them made every frame of the page (a zoom in the query plot
  // above, a hover) 30-40 ms slower to paint. The line alone shows the order, and its hover names each execution.
  const mode = most > MARKERS_UP_TO ? 'lines' : 'lines+markers';
  // A cold first execution far off the rest would flatten every line along one edge: the value axis is
  // the measured executions', as in the executions plot (warmup-clip.ts). A line goes to its warm-up's
  // triangle at the edge, and says the true value in its hover. A zoom of the value axis draws the
  // values as they are, as the executions plot's zoom does: no edge, nothing said of it. A zoom of the
  // repetitions alone keeps the axis, and the note counts the warm-ups beyond it in the repetitions shown.
  const whole = warmupClip(restarts.map(valuesOf), current);
  const clip = zoom?.y ? null : whole;
  const reps = zoom?.x;
  const shownReps = (values: number[]) => (reps ? values.filter((_, j) => j + 1 >= reps[0] && j + 1 <= reps[1]) : values);
  const offShown = clip && reps ? beyond(clip.near, restarts.flatMap((r) => shownReps(valuesOf(r).slice(0, current)))) : clip;
  const off = edgeMarkers('y');
  const data: Record<string, unknown>[] = restarts.flatMap((r, i) => {
    const values = valuesOf(r);
    if (!values.length) return [];
    const color = PALETTE[i % PALETTE.length];
    const name = `restart ${r.restartOfCell} of this cell (restart #${r.seq} of the plan)`;
    const y = clip ? values.map((v, j) => placed(clip, current, v, j)) : values;
    y.forEach((at, j) => {
      if (at !== values[j]) off.add(values[j], at, j + 1, `${name}, rep ${j + 1}: ${values[j]}<br>warm-up, beyond the axis${classOf(r.seq)}`, color);
    });
    return [
      {
        type: 'scatter',
        mode,
        name: `restart ${r.restartOfCell} of cell`,
        x: values.map((_, j) => j + 1),
        y,
        line: { width: 1, color },
        // No dot under a warm-up's triangle at the edge.
        marker: { size: clip ? y.map((at, j) => (at === values[j] ? 4 : 0)) : 4 },
        // Clipped: the hover reads the true values, not the edge a warm-up is drawn at.
        ...(clip ? { customdata: values } : {}),
        hovertemplate: `${name}, rep %{x}: %{${clip ? 'customdata' : 'y'}}${classOf(r.seq)}<extra></extra>`,
      },
    ];
  });
  const edge = off.trace('scatter', 10);
  if (edge) data.push(edge);
  const shapes: Record<string, unknown>[] = [];
  const annotations: Record<string, unknown>[] = [];
  // The marks' labels sit above the plot, each kept inside the figure: anchored at its left end in the
  // axis's first third, at its right end in the last. Two marks close together (at hundreds of
  // repetitions, a repetition or two apart is a pixel apart) share one label: centred on each, the
  // two were written over each other.
  const where = (n: number) => (reps ? (n + 0.5 - reps[0]) / (reps[1] - reps[0]) : (n + 0.5) / Math.max(1, most));
  const xanchor = (n: number) => (where(n) < 1 / 3 ? 'left' : where(n) > 2 / 3 ? 'right' : 'center');
  const line = (n: number, color: string, dash: string) => shapes.push({ type: 'line', xref: 'x', yref: 'paper', x0: n + 0.5, x1: n + 0.5, y0: 0, y1: 1, line: { color, width: 2, dash } });
  const label = (n: number, color: string, text: string) => annotations.push({ xref: 'x', yref: 'paper', x: n + 0.5, y: 1, yanchor: 'bottom', xanchor: xanchor(n), text, showarrow: false, font: { color, size: 11 } });
  const inUse = `warm-up in use: ${current}`;
  line(current, '#666', 'dot');
  if (suggested === null || suggested === current) label(current, '#666', inUse);
  else {
    line(suggested, PALETTE[3], 'dash');
    const suggestion = `suggested: ${suggested}`;
    if (Math.abs(where(suggested) - where(current)) < 0.15) {
      label(Math.min(current, suggested), '#666', `${inUse}, <span style="color:${PALETTE[3]}">${suggestion}</span>`);
    } else {
      label(current, '#666', inUse);
      label(suggested, PALETTE[3], suggestion);
    }
  }
  const title = `${query}: ${executionWord(ctx.doc.design.workload.kind, true)} in order, ${cell}`;
  // The title block of the other figures, so a clipped axis is said under the title with room made for
  // it (as a second line of a plain title it ran into the marks' labels above the plot).
  const head = titleBlock(title, offShown?.count ? [offScaleNote(offShown, ctx.unit, 'y')] : [], WIDTH, false);
  return {
    id: `repetitions-${slug(query)}`,
    title,
    file: `repetitions-${slug(query)}`,
    width: WIDTH,
    height: 380,
    data,
    layout: {
      title: head.title,
      // The screen's margins (plot/Plot.tsx), the top one holding the title block and the marks' labels above the plot.
      margin: { l: 60, r: 20, t: head.top + MARK_LABELS, b: 50 },
      // Repetitions are whole numbers: linear integer ticks from 1 (Plotly's auto ticks fall on 0.5, 1.5…).
      xaxis: { title: { text: 'repetition' }, automargin: true, rangemode: 'tozero', tickmode: 'linear', tick0: 1, dtick: repetitionDtick(reps ? reps[1] - reps[0] : most), tickformat: 'd', ...(reps ? { range: reps } : {}) },
      // Clipped or not, Plotly's autorange: the warm-ups beyond the axis are at its edge (clip.edges), inside it.
      yaxis: { title: { text: valueAxisTitle(ctx.unit) }, ...(zoom?.y ? { range: zoom.y } : {}) },
      shapes,
      annotations,
      height: 380,
      // At the figure's foot, below the axis title, the plot made shorter for its rows: 0.2 of the plot below
      // it, a second row of restarts ran into the axis title.
      legend: { orientation: 'h', yref: 'container', y: 0, yanchor: 'bottom' },
    },
    exact: whole === null,
  };
}

function cellCov(ctx: ExportContext, cell: string, field: 'between_cov_pct' | 'within_cov_pct'): number | null {
  const cs = findCell(ctx.analysis, cell);
  return meanOf((cs?.queries ?? []).map((q) => q[field]).filter(present));
}

/** Between-restart against within-restart coefficient of variation per cell, averaged over queries. */
export function covCellsFigure(ctx: ExportContext): FigureSpec {
  const title = 'Coefficient of variation per configuration (mean over queries)';
  const layout = baseLayout(title, ctx.caption, { l: labelMargin(ctx.cells) });
  return cellBars(ctx, 'cov-cells', title, layout, 'Coefficient of variation (%)', [
    { name: 'between restarts', x: ctx.cells.map((c) => cellCov(ctx, c, 'between_cov_pct')), color: PALETTE[3], hover: 'between' },
    { name: 'within a restart', x: ctx.cells.map((c) => cellCov(ctx, c, 'within_cov_pct')), color: PALETTE[0], hover: 'within' },
  ]);
}

/** The main effect of each factor on stability: between-restart CoV averaged over the cells at each level. */
export function covLevelsFigure(ctx: ExportContext): FigureSpec {
  const title = 'Between-restart coefficient of variation per factor level';
  const layout = baseLayout(title, ctx.caption, { l: 70, b: 80 }, 'right');
  layout.yaxis = axis('Between-restart CoV (%)', { rangemode: 'tozero' });
  layout.xaxis = axis('Factor = level', { type: 'category' });
  const data = ctx.factors.map((f, fi) => {
    const levels = ctx.factorLevels[fi];
    const y = levels.map((level) => meanOf(ctx.cells.filter((c) => levelsOf(ctx, c)[fi] === level).map((c) => cellCov(ctx, c, 'between_cov_pct')).filter(present)));
    return { type: 'bar', name: f, x: levels.map((l) => `${f}=${l}`), y, marker: { color: PALETTE[fi % PALETTE.length] }, hovertemplate: '%{x}<br>%{y:.2f}%<extra></extra>' };
  });
  return { id: 'cov-levels', title, file: 'cov-levels', width: WIDTH, height: 480, data, layout };
}

/**
 * The minimum detectable effect against restarts per cell, one curve per query, from the between-restart
 * CoV pooled over cells (the MDE the Run view and the Analysis view show); the results as measured are
 * marked on each curve, the target as a line.
 */
export function mdeFigure(ctx: ExportContext): FigureSpec {
  const a = ctx.analysis;
  const { alpha, power } = a.settings;
  const target = a.settings.targetEffectPct ?? DEFAULTS.targetEffectPct;
  const current = ctx.doc.design.restartsPerCell;
  const maxN = Math.max(30, current * 2);
  const data: Record<string, unknown>[] = [];
  const marks = { x: [] as number[], y: [] as number[], text: [] as string[] };
  const missing: string[] = [];
  ctx.queries.forEach((query, qi) => {
    const cells = a.restarts.filter((r) => r.query === query && r.means.length).map((r) => r.means);
    const curve = mdeCurve(cells, { definition: 'pooled', alpha, power }, maxN);
    const now = a.mde.find((m) => m.query === query)?.mde;
    if (!curve.length) {
      missing.push(`${query}: ${now?.reason ?? 'no MDE'}`);
      return;
    }
    data.push({
      type: 'scatter',
      mode: 'lines+markers',
      name: query,
      x: curve.map((p) => p.restarts),
      y: curve.map((p) => p.mde_pct),
      // Queries with the same relative noise give the same curve: dashes and marker shapes keep them apart.
      line: { color: PALETTE[qi % PALETTE.length], width: 2, dash: DASHES[qi % DASHES.length] },
      marker: { symbol: SYMBOLS[qi % SYMBOLS.length], size: 6, maxdisplayed: 12 },
      hovertemplate: `${query.replace(/%/g, '%%')}<br>%{x} restarts: %{y:.2f}%<extra></extra>`,
    });
    if (now?.pct !== null && now?.pct !== undefined) {
      marks.x.push(now.restarts);
      marks.y.push(now.pct);
      marks.text.push(`${query}: ${now.restarts} restarts per cell`);
    }
  });
  data.push({ type: 'scatter', mode: 'markers', name: 'these results (restarts per cell as run)', ...marks, marker: { symbol: 'circle-open', size: 13, color: '#000', line: { width: 2 } }, hovertemplate: '%{text}<br>MDE %{y:.2f}%<extra></extra>' });
  data.push({ type: 'scatter', mode: 'lines', name: `target ${target}%`, x: [2, maxN], y: [target, target], line: { color: '#888', dash: 'dash', width: 1.5 }, hoverinfo: 'skip' });
  const title = `Minimum detectable effect (${MDE_LABELS.pooled}) against restarts per cell (α = ${alpha}, power ${power})`;
  const sub = ['per query, from the between-restart CoV pooled over all cells', ...(missing.length ? [`no curve for ${missing.join('; ')}`] : [])];
  const layout = baseLayout(title, ctx.caption, { l: 70 }, 'right', undefined, { lines: sub, width: WIDTH });
  layout.xaxis = axis('Restarts per cell', { range: [1.5, maxN + 0.5], dtick: maxN > 40 ? 10 : 2 });
  // Log axis labelled 1-2-5 in full (Plotly's default minor digits read "2" for 20).
  const ticks = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
  layout.yaxis = axis('Minimum detectable effect (% of mean)', { type: 'log', tickmode: 'array', tickvals: ticks, ticktext: ticks.map(String) });
  return { id: 'mde', title, file: 'mde', width: WIDTH, height: 520, data, layout };
}

/** An interval (or an estimate) beyond the comparisons axis: where it is drawn to, and how far it goes. */
interface Edge {
  cell: string;
  right: boolean;
  /** The interval end (or the estimate, when only it is beyond), in percent. */
  pct: number;
  /** The estimate, when it is beyond the axis too. */
  estimate: number | null;
}

/**
 * One label per cell and edge, inside the plot beside the arrows: how far the intervals drawn to that
 * edge go (the range over the queries when they differ), on a white ground so it reads over the lines.
 */
function edgeLabels(edges: Edge[], scale: { lo: number; hi: number }): Record<string, unknown>[] {
  const groups = new Map<string, Edge[]>();
  for (const e of edges) groups.set(JSON.stringify([e.cell, e.right]), [...(groups.get(JSON.stringify([e.cell, e.right])) ?? []), e]);
  return [...groups.values()].map((list) => {
    const { cell, right } = list[0];
    const labels = [...new Set([...list.map((e) => e.pct)].sort((x, y) => x - y).map(pctLabel))];
    const reach = labels.length === 1 ? labels[0] : `${labels[0]} … ${labels[labels.length - 1]}`;
    const estimates = [...new Set(list.flatMap((e) => (e.estimate === null ? [] : [e.estimate])).sort((x, y) => x - y).map(pctLabel))];
    const text = estimates.length && list.every((e) => e.estimate === e.pct) ? `estimate ${reach}` : `${estimates.length ? `estimate ${estimates.join(', ')}, ` : ''}to ${reach}`;
    return {
      text: right ? `${text} ▸` : `◂ ${text}`,
      showarrow: false,
      xref: 'x',
      yref: 'y',
      // Annotations on a log axis take log10 of the value.
      x: Math.log10(right ? scale.hi : scale.lo),
      y: cell,
      xanchor: right ? 'right' : 'left',
      xshift: right ? -12 : 12,
      yanchor: 'middle',
      bgcolor: 'rgba(255,255,255,0.9)',
      borderpad: 1,
      font: { size: 11, color: '#333' },
    };
  });
}

/**
 * Each cell against the baseline, per query: the ratio of restart means on a true log-ratio axis
 * labelled in percent, symmetric about 0 % (−50 % as far left as +100 % right), with its (1 − α)
 * interval; filled markers for comparisons that differ after the adjustment. Cells with the biggest
 * effect are on top. The axis holds changes up to ten times either way (log-ratio.ts): an interval
 * beyond it is drawn to the edge, where an arrow and its value say how far it goes.
 */
export function comparisonsFigure(ctx: ExportContext): FigureSpec | null {
  const a = ctx.analysis;
  if (!ctx.baseline || !a.comparisons.length) return null;
  const level = levelPct(a.settings.alpha);
  const rowsOf = (cell: string) => ctx.queries.map((q) => findComparison(a, cell, q));
  const changes = ctx.cells.flatMap((c) => (c === ctx.baseline ? [] : rowsOf(c).flatMap((r) => (r ? [r.effect_pct, r.ci_low_pct, r.ci_high_pct].filter(present) : []))));
  const scale = logRatioAxis(changes);
  // The biggest effect (either way, over the queries) on top; cells alike keep the plan order.
  const size = (cell: string) => Math.max(0, ...rowsOf(cell).flatMap((r) => (r && present(r.effect_pct) && ratioOf(r.effect_pct) > 0 ? [Math.abs(Math.log(ratioOf(r.effect_pct)))] : r && present(r.effect_pct) ? [Infinity] : [])));
  const cells = ctx.cells.filter((c) => c !== ctx.baseline).map((c, i) => ({ c, i, s: size(c) })).sort((x, y) => y.s - x.s || x.i - y.i).map((x) => x.c);
  const data: Record<string, unknown>[] = [];
  const beyondAxis: Edge[] = [];
  ctx.queries.forEach((query, qi) => {
    const rows = cells.map((cell) => findComparison(a, cell, query));
    const color = PALETTE[qi % PALETTE.length];
    const at = rows.map((c) => (c && present(c.effect_pct) ? clip(ratioOf(c.effect_pct), scale) : null));
    const low = rows.map((c) => (c && present(c.ci_low_pct) && present(c.effect_pct) ? clip(ratioOf(c.ci_low_pct), scale) : null));
    const high = rows.map((c) => (c && present(c.ci_high_pct) && present(c.effect_pct) ? clip(ratioOf(c.ci_high_pct), scale) : null));
    const group = `q${qi}`;
    data.push({
      type: 'scatter',
      mode: 'markers',
      orientation: 'h',
      name: query,
      offsetgroup: group,
      alignmentgroup: 'comparisons',
      y: cells,
      x: at.map((p) => p?.ratio ?? null),
      error_x: {
        type: 'data',
        symmetric: false,
        array: high.map((h, i) => (h && at[i] ? Math.max(0, h.ratio - at[i]!.ratio) : null)),
        arrayminus: low.map((l, i) => (l && at[i] ? Math.max(0, at[i]!.ratio - l.ratio) : null)),
        thickness: 1.5,
        width: 4,
        color,
      },
      customdata: rows.map((c) => [
        present(c?.effect_pct) ? pctLabel(c.effect_pct) : 'n/a',
        present(c?.ci_low_pct) && present(c?.ci_high_pct) ? `${pctLabel(c.ci_low_pct)} to ${pctLabel(c.ci_high_pct)}` : 'n/a',
        fmtP(c?.p_value),
        fmtP(c?.p_adjusted),
        c?.verdict === 'differs' ? 'differs' : c?.verdict === 'inconclusive' ? 'inconclusive at this design' : 'n/a',
      ]),
      marker: { size: 8, color: rows.map((c) => (c?.verdict === 'differs' ? color : '#ffffff')), line: { color, width: 1.5 } },
      hovertemplate: `%{y}<br>${query.replace(/%/g, '%%')}: %{customdata[0]} (${level}% interval %{customdata[1]})<br>%{customdata[2]}, adjusted %{customdata[3]}: %{customdata[4]}<extra></extra>`,
    });
    // What goes beyond the axis: an arrow at the edge it is drawn to (how far it goes is written once per cell and edge, below).
    const edges = rows.flatMap((c, i) => {
      if (!c || !present(c.effect_pct)) return [];
      const out: Edge[] = [];
      const reach = (end: { ratio: number; clipped: boolean } | null, pct: number | null, right: boolean) => {
        const estBeyond = at[i]!.clipped && at[i]!.ratio === (right ? scale.hi : scale.lo);
        if (end?.clipped && present(pct)) out.push({ cell: cells[i], right, pct, estimate: estBeyond ? c.effect_pct! : null });
        else if (estBeyond) out.push({ cell: cells[i], right, pct: c.effect_pct!, estimate: c.effect_pct! });
      };
      reach(high[i], c.ci_high_pct, true);
      reach(low[i], c.ci_low_pct, false);
      return out;
    });
    beyondAxis.push(...edges);
    if (edges.length) {
      data.push({
        type: 'scatter',
        mode: 'markers',
        orientation: 'h',
        name: `${query}: beyond the axis`,
        showlegend: false,
        offsetgroup: group,
        alignmentgroup: 'comparisons',
        y: edges.map((e) => e.cell),
        x: edges.map((e) => (e.right ? scale.hi : scale.lo)),
        cliponaxis: false,
        marker: { size: 9, symbol: edges.map((e) => (e.right ? 'triangle-right' : 'triangle-left')), color },
        hoverinfo: 'skip',
      });
    }
  });
  const title = `Effect against the baseline ${ctx.baseline}`;
  const few = fewRestartsOf(a);
  const sub = [
    // Under a stopping rule the fixed-sample verdicts overstate the evidence: said where they are drawn, as the table says it.
    `baseline: ${ctx.baseline} (the 0% line); ${ctx.doc.design.stopping ? 'fixed-sample, not valid under the stopping rule: ' : ''}${a.summary ?? ''}: filled markers`,
    conventionOf(ctx),
    ...(few ? [`note: ${few}`] : []),
  ];
  const layout = baseLayout('Effect against the baseline', ctx.caption, { l: labelMargin(cells) }, 'right', undefined, { lines: sub, width: WIDTH });
  layout.scattermode = 'group';
  layout.scattergap = 0.3;
  const beyond = changes.some((p) => { const r = ratioOf(p); return !(r >= scale.lo && r <= scale.hi); });
  // The interval each comparison uses (analysis.ts compare): paired within rounds when the restarts ran in rounds, else Welch.
  // Short enough to fit the image's width with the longest interval name and the arrow's note (the label check).
  const df = !a.pairing.paired ? 'Welch' : a.pairing.paired === a.pairing.comparisons ? 'paired t within rounds' : 'paired t within rounds, else Welch';
  layout.xaxis = axis(`Change vs. baseline (%, log scale; ${level}% CI, ${df})${beyond ? '; ▸ beyond the axis' : ''}`, {
    type: 'log',
    range: [Math.log10(scale.lo), Math.log10(scale.hi)],
    tickvals: scale.tickvals,
    ticktext: scale.ticktext,
    tickangle: 0,
    zeroline: false,
  });
  layout.yaxis = cellAxis(cells);
  (layout.annotations as unknown[]).push(...edgeLabels(beyondAxis, scale));
  // 0 %: the baseline, a line across every row.
  layout.shapes = [{ type: 'line', xref: 'x', yref: 'paper', x0: 1, x1: 1, y0: 0, y1: 1, line: { color: '#777', width: 1.5 }, layer: 'below' }];
  return { id: 'comparisons', title, file: 'comparisons', width: WIDTH, height: heightFor(cells.length * Math.max(1.2, ctx.queries.length * 0.5)), data, layout };
}

/** Every plot of an experiment, in export order, with numbered file names so a folder lists them in order. */
export function buildFigures(ctx: ExportContext, opts: FigureOptions = {}): FigureSpec[] {
  if (!ctx.cells.length) return [];
  const figures = [
    configurationsFigure(ctx),
    ...ctx.queries.map((q) => executionsFigure(ctx, q, opts)),
    covCellsFigure(ctx),
    ...(ctx.factors.length ? [covLevelsFigure(ctx)] : []),
    mdeFigure(ctx),
    comparisonsFigure(ctx),
  ].filter((f): f is FigureSpec => f !== null);
  const used = new Set<string>();
  return figures.map((f, i) => {
    let file = `${String(i + 1).padStart(2, '0')}-${f.file}`;
    while (used.has(file)) file += '-x';
    used.add(file);
    return { ...f, file };
  });
}
