// The live timeline: every execution of one query in run order, one colour per restart, with a cost per
// frame bounded by what arrived and by the pixels, never by the run.
//
// - What Plotly draws (a WebGL scattergl trace) is decimated: beyond a few executions per pixel column,
//   each column's lowest and highest execution stand for it (decimate.ts); every point drawn is a real
//   execution, so its hover tells the truth.
// - New executions are appended by painting them on a canvas over the plot area. Plotly has no cheaper
//   append: its extendTraces recalculates and redraws the whole figure, axes and all, which is what
//   made frames slow. Plotly draws afresh only when the axes must grow (they are fixed with headroom
//   while the run follows, up to its planned end: timeline-axis.ts), when that planned end becomes
//   known or changes, when the run ends (the x axis then ends with the data), when the user zooms,
//   when the pointer comes onto the plot (so that hover reaches the newest executions) or every
//   REDRAW_MS; then the canvas is cleared.
// - Zoomed, the range is drawn from the executions in it: exactly, when few enough fall in it.
// - Colours and hover labels are made only for the points drawn, one label string per restart.
// - A restart's cold first executions far off the others (300 times slower) would squash every measured
//   execution into a line along the bottom: the y axis is then the measured executions', the warm-ups
//   beyond it drawn at its edge (the rule of the analysis's figures, warmup-clip.ts; timeline-axis.ts),
//   and the note under the plot says how many. A double-click shows the full range, warm-ups and all, and
//   a double-click again (or on a zoom) goes back to the axis of the measured executions.
import { useEffect, useRef } from 'react';
import Plotly, { glPixelRatio } from '../../plot/plotly.js';
import { MODE_BAR_LEFT_OUT } from '../../plot/Plot.js';
import { decimate, PER_COLUMN, StreamDecimator } from '../../plot/decimate.js';
import { restartColour, type LiveRun } from './live.js';
import { executionWord } from '../../../common/experiment/words.js';
import { timelineX, timelineYClipped, xEndNote, xStillShown, type TimelineClip, type XEnd } from './timeline-axis.js';
import { edgeMarkers, placed, type Beyond } from '../../../common/figures/warmup-clip.js';
import { relayoutOf } from '../../plot/zoom.js';

const MARGIN = { l: 60, r: 20, t: 40, b: 50 };
const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: MODE_BAR_LEFT_OUT };
/**
 * While the run is followed, Plotly draws afresh at least this often (the canvas shows what arrives
 * between), and whenever the pointer comes onto the plot, so that hover reaches the newest executions.
 */
const REDRAW_MS = 10_000;
const MARKER = 4;
/** Plotly says a double-click with a relayout at once: the first within this of a double-click is not the reader's zoom. */
const DOUBLE_CLICK_RELAYOUT_MS = 500;

type Range = [number, number];

interface Drawn {
  live: LiveRun;
  query: string;
  dec: StreamDecimator;
  columns: number;
  /** The ranges the user zoomed or panned to, or null: the whole run, followed. */
  zoom: { x: Range; y: Range | null } | null;
  /** The reader double-clicked for the full range: warm-ups far off the measured executions are not clipped. */
  full: boolean;
  /** The warm-ups beyond the y axis as Plotly drew it last (null: none). */
  clip: TimelineClip | null;
  /** Plotly drew warm-ups and no measured execution: drawn again when one arrives, the axis then ranged on it. */
  awaitMeasured: boolean;
  /** When the reader last double-clicked: the relayout Plotly says it with is not a zoom. */
  doubleClickAt: number;
  /** The axes as Plotly drew them last. */
  x: Range;
  y: Range;
  /** Why the x axis ends where it does, and whether the run was followed (more could arrive) when Plotly last drew. */
  end: XEnd;
  following: boolean;
  /** Executions of the query when Plotly last drew, and when. */
  n: number;
  at: number;
  /** Executions already painted on the canvas (up to), and points drawn by Plotly and painted. */
  painted: number;
  shown: number;
  /** Draw afresh on the next step (a new query, a zoom). */
  dirty: boolean;
  /** The zoom listener is on the element (Plotly adds `on` at its first draw). */
  wired: boolean;
}

export interface TimelineNote {
  drawn: number;
  total: number;
  exact: boolean;
  zoomed: boolean;
  /** The warm-ups beyond the y axis, drawn at its edge (null: none), with the unit of the values. */
  offScale: (Beyond & { unit: string }) | null;
  /** The reader asked for the full range: the warm-ups that would be beyond the axis are drawn where they are. */
  full: boolean;
}

/** "execution 3 of Q1", or a command's "run of the command 3" (n left out: the axis's title). */
const numbered = (live: LiveRun, query: string, n?: string) => (live.kind === 'command' ? `${executionWord('command')}${n ? ` ${n}` : ''}` : `execution${n ? ` ${n}` : ''} of ${query}`);

/**
 * The traces for the executions at `idx` (x is the execution number, index + 1): every one where it is,
 * or, under a clip, each warm-up beyond the axis as a triangle at its edge with its value in the hover.
 */
function traces(live: LiveRun, query: string, idx: number[], clip: TimelineClip | null) {
  const s = live.series.get(query);
  const x: number[] = [];
  const y: number[] = [];
  const color: string[] = [];
  const text: string[] = [];
  const off = edgeMarkers('y');
  if (s)
    for (const i of idx) {
      const v = s.y[i];
      // placed() takes repetition 0 for a warm-up: here the flag says which executions are.
      const at = placed(clip, 1, v, s.warmup[i] ? 0 : 1);
      if (at !== v) {
        off.add(v, at, i + 1, `${numbered(live, query, String(i + 1))}<br>${v.toFixed(3)} ${s.unit}<br>${live.labelOf(s.seq[i])}<br>warm-up, beyond the axis`, restartColour(s.seq[i]));
        continue;
      }
      x.push(i + 1);
      y.push(v);
      color.push(restartColour(s.seq[i]));
      text.push(live.labelOf(s.seq[i]));
    }
  const edge = off.trace('scattergl', 10);
  const drawn = {
    type: 'scattergl',
    mode: 'markers',
    x,
    y,
    text,
    marker: { size: MARKER, color },
    hovertemplate: `${numbered(live, query, '%{x}')}<br>%{y:.3f} ${s?.unit ?? ''}<br>%{text}<extra></extra>`,
    showlegend: false,
  };
  return edge ? [drawn, edge] : [drawn];
}

function layoutOf(d: Drawn) {
  const note = d.zoom ? '' : xEndNote(d.end);
  const unit = d.live.series.get(d.query)?.unit ?? '';
  return {
    autosize: true,
    margin: MARGIN,
    font: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 12 },
    paper_bgcolor: 'rgba(0,0,0,0)',
    plot_bgcolor: 'rgba(0,0,0,0)',
    title: { text: `${d.query}: every ${executionWord(d.live.kind)}, one colour per restart` },
    xaxis: { title: { text: `${numbered(d.live, d.query)} (in run order${note})` }, range: d.x, autorange: false, zeroline: false },
    yaxis: { title: { text: unit }, range: d.y, autorange: false },
    hovermode: 'closest',
  };
}

/**
 * What the x axis depends on besides the executions: whether the run is followed, and its planned
 * executions of the query. One place, so that step asks what drawAll drew from.
 */
const xBasis = (d: Drawn) => [d.live.following, d.live.plannedExecutions(d.query)] as const;

/** Plotly draws afresh: the whole run from the decimator (axes with headroom), or the zoomed ranges from the executions in them. */
async function drawAll(el: HTMLElement, d: Drawn, n: number): Promise<TimelineNote> {
  const { live, query } = d;
  const s = live.series.get(query);
  const y = s?.y ?? [];
  let idx: number[];
  let note: Omit<TimelineNote, 'offScale' | 'full'>;
  // The y axis: ranged on the measured executions unless the reader zoomed it or asked for the full range.
  const yOf = (from: number, to: number, headroom: boolean) => {
    const r = timelineYClipped(y, d.full ? [] : (s?.warmup ?? []), idx, headroom, s?.warmAt ?? [], from, to);
    d.clip = r.clip;
    d.awaitMeasured = !d.full && !r.clip && idx.length > 0 && idx.every((i) => s!.warmup[i]);
    return r.range;
  };
  d.clip = null;
  d.awaitMeasured = false;
  if (d.zoom) {
    const from = Math.max(0, Math.floor(d.zoom.x[0] - 1));
    idx = decimate(y, d.zoom.x[0] - 1, d.zoom.x[1], d.columns);
    const inRange = Math.max(0, Math.min(n, Math.ceil(d.zoom.x[1])) - from);
    note = { drawn: idx.length, total: inRange, exact: inRange <= d.columns * PER_COLUMN, zoomed: true };
    d.x = d.zoom.x;
    // The warm-ups beyond the axis counted are those of the executions shown: numbered from x[0] to x[1].
    d.y = d.zoom.y ?? yOf(Math.max(0, Math.ceil(d.zoom.x[0] - 1)), Math.floor(d.zoom.x[1]), false);
  } else {
    const tail = d.dec.update(y, n).tail;
    idx = d.dec.drawn();
    idx.push(...tail);
    note = { drawn: idx.length, total: n, exact: d.dec.bucket <= 2, zoomed: false };
    const x = timelineX(n, ...xBasis(d));
    d.x = x.range;
    d.end = x.end;
    d.y = yOf(0, n, live.following);
  }
  d.following = live.following;
  d.n = d.painted = n;
  d.shown = idx.length;
  d.at = performance.now();
  d.dirty = false;
  await Plotly.react(el, traces(live, query, idx, d.clip), layoutOf(d), { ...CONFIG, plotGlPixelRatio: glPixelRatio() });
  return noteOf(d, note);
}

/** The note with what the y axis leaves off. */
function noteOf(d: Drawn, note: Omit<TimelineNote, 'offScale' | 'full'>): TimelineNote {
  const unit = d.live.series.get(d.query)?.unit ?? '';
  return { ...note, offScale: d.clip?.count ? { below: d.clip.below, above: d.clip.above, count: d.clip.count, unit } : null, full: d.full };
}

type Area = { l: number; t: number; w: number; h: number };

/** Where Plotly put the plot area in the element (its private layout: null before the first draw). */
function plotArea(el: HTMLElement): Area | null {
  return (el as HTMLElement & { _fullLayout?: { _size?: Area } })._fullLayout?._size ?? null;
}

/** Paint the executions at idx onto the canvas over the plot area, as the plot's markers. */
function paint(canvas: HTMLCanvasElement, el: HTMLElement, size: Area, d: Drawn, idx: number[]): void {
  const s = d.live.series.get(d.query);
  const ctx = canvas.getContext('2d');
  if (!s || !ctx) return;
  const dpr = window.devicePixelRatio || 1;
  const w = el.clientWidth;
  const h = el.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const sx = size.w / (d.x[1] - d.x[0]);
  const sy = size.h / (d.y[1] - d.y[0]);
  const r = MARKER / 2;
  for (const i of idx) {
    ctx.fillStyle = restartColour(s.seq[i]);
    ctx.beginPath();
    ctx.arc(size.l + (i + 1 - d.x[0]) * sx, size.t + size.h - (s.y[i] - d.y[0]) * sy, r, 0, 2 * Math.PI);
    ctx.fill();
  }
}

function clear(canvas: HTMLCanvasElement): void {
  canvas.getContext('2d')?.clearRect(0, 0, canvas.width, canvas.height);
}

/** One step: paint what arrived, or let Plotly draw afresh when the axes must grow, the view changed or it is time. */
async function step(el: HTMLElement, canvas: HTMLCanvasElement, d: Drawn): Promise<TimelineNote | null> {
  const s = d.live.series.get(d.query);
  const n = s?.y.length ?? 0;
  const due = performance.now() - d.at >= REDRAW_MS;
  if (d.zoom) {
    // Zoomed: drawn again when executions arrived inside the range (at most every REDRAW_MS), or the series shrank.
    const inRange = n > d.n && d.n < d.zoom.x[1];
    if (d.dirty || n < d.n || (inRange && due)) {
      clear(canvas);
      return drawAll(el, d, n);
    }
    return null;
  }
  // The run ended (or went on again): the x axis fits the data, or has room again. Or the x axis drawn
  // is no longer the one for the executions it was drawn with: the run's planned end became known or
  // changed (a restart finished, a follower attached again learnt of more restarts), which may happen
  // while no execution of this query arrives, and the axis and its title would keep the old range.
  if (d.dirty || n < d.painted || d.following !== d.live.following || !xStillShown({ range: d.x, end: d.end }, d.n, ...xBasis(d))) {
    clear(canvas);
    return drawAll(el, d, n);
  }
  if (n === d.painted) return null;
  // What arrived, decimated over the pixel columns it spans (so its lowest and highest are there).
  const size = plotArea(el);
  const columns = size ? Math.ceil(((n - d.painted) * size.w) / (d.x[1] - d.x[0])) + 1 : 1;
  const fresh = decimate(s!.y, d.painted, n, columns);
  // Also when the axis was drawn for warm-ups alone and a measured execution arrives: ranged on it now.
  const outside = n + 1 > d.x[1] || fresh.some((i) => s!.y[i] < d.y[0] || s!.y[i] > d.y[1] || (d.awaitMeasured && !s!.warmup[i]));
  if (!size || outside || due) {
    clear(canvas);
    return drawAll(el, d, n);
  }
  paint(canvas, el, size, d, fresh);
  d.painted = n;
  d.shown += fresh.length;
  return noteOf(d, { drawn: d.shown, total: n, exact: d.shown === n, zoomed: false });
}

type PlotElement = HTMLDivElement & { on?: (ev: string, f: (e: Record<string, unknown>) => void) => void };

export function Timeline({ live, query, frame, onNote }: { live: LiveRun; query: string; frame: number; onNote: (n: TimelineNote) => void }) {
  const ref = useRef<PlotElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const drawn = useRef<Drawn | null>(null);
  // One Plotly call at a time: a frame that arrives meanwhile is drawn when it ends.
  const busy = useRef(false);
  const again = useRef(false);
  const note = useRef(onNote);
  note.current = onNote;

  const draw = async (): Promise<void> => {
    const el = ref.current;
    const c = canvas.current;
    if (!el || !c) return;
    if (busy.current) {
      again.current = true;
      return;
    }
    busy.current = true;
    try {
      do {
        again.current = false;
        const d = drawn.current;
        if (!d) return;
        const n = await step(el, c, d);
        if (n) note.current(n);
        if (!d.wired && el.on) {
          d.wired = true;
          el.on('plotly_relayout', (e) => onRelayout(e));
          el.on('plotly_doubleclick', () => onDoubleClick());
        }
      } while (again.current);
    } finally {
      busy.current = false;
    }
  };

  const redraw = (d: Drawn) => {
    d.dirty = true;
    // After Plotly has finished its own relayout.
    setTimeout(() => void draw(), 0);
  };

  const onRelayout = (e: Record<string, unknown>) => {
    const d = drawn.current;
    if (!d) return;
    // The relayout Plotly says a double-click with (autorange, or a reset named as 'xaxis.range': [a, b])
    // is onDoubleClick's: the first one at once after it, and only that one (a zoom made right after a
    // double-click is the reader's).
    if (performance.now() - d.doubleClickAt < DOUBLE_CLICK_RELAYOUT_MS) {
      d.doubleClickAt = 0;
      return;
    }
    const r = relayoutOf(e);
    if (!r) return;
    if (r.x) d.zoom = { x: r.x, y: r.y ?? null };
    else if (r.y) d.zoom = { x: d.x, y: r.y };
    else {
      // Autoscale: the whole run, the axis ranged on the measured executions.
      d.zoom = null;
      d.full = false;
    }
    redraw(d);
  };

  // From the axis ranged on the measured executions to the full range, warm-ups and all; from there or a zoom, back.
  const onDoubleClick = () => {
    const d = drawn.current;
    if (!d) return;
    d.doubleClickAt = performance.now();
    if (d.zoom || d.full) {
      d.zoom = null;
      d.full = false;
    } else if (d.clip) d.full = true;
    redraw(d);
  };

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const d = drawn.current;
    if (!d || d.live !== live || d.query !== query) {
      const columns = Math.max(100, el.clientWidth - MARGIN.l - MARGIN.r);
      drawn.current = { live, query, dec: new StreamDecimator(columns), columns, zoom: null, full: false, clip: null, awaitMeasured: false, doubleClickAt: 0, x: [0, 1], y: [0, 1], end: 'room', following: live.following, n: 0, at: 0, painted: 0, shown: 0, dirty: true, wired: d?.wired ?? false };
    }
    void draw();
  }, [live, query, frame]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => {
      if (!el.querySelector('.main-svg')) return;
      Plotly.Plots.resize(el);
      // The canvas maps onto the plot area as it was: Plotly draws afresh at the new size.
      if (drawn.current) drawn.current.dirty = true;
      void draw();
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      Plotly.purge(el);
      drawn.current = null;
    };
  }, []);

  // The pointer comes onto the plot: what the canvas shows becomes Plotly's, with its hover.
  const onEnter = () => {
    const d = drawn.current;
    if (!d || d.painted === d.n) return;
    d.dirty = true;
    void draw();
  };

  return (
    <div className="run-plot" style={{ position: 'relative' }} onMouseEnter={onEnter}>
      <div ref={ref} className="run-plot" data-testid="run-timeline" />
      <canvas ref={canvas} style={{ position: 'absolute', left: 0, top: 0, width: '100%', height: '100%', pointerEvents: 'none' }} />
    </div>
  );
}
