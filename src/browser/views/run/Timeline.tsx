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
import { useEffect, useRef } from 'react';
import Plotly, { glPixelRatio } from '../../plot/plotly.js';
import { MODE_BAR_LEFT_OUT } from '../../plot/Plot.js';
import { decimate, PER_COLUMN, StreamDecimator } from '../../plot/decimate.js';
import { restartColour, type LiveRun } from './live.js';
import { executionWord } from '../../../common/experiment/words.js';
import { timelineX, timelineY, xEndNote, xStillShown, type XEnd } from './timeline-axis.js';

const MARGIN = { l: 60, r: 20, t: 40, b: 50 };
const CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: MODE_BAR_LEFT_OUT };
/**
 * While the run is followed, Plotly draws afresh at least this often (the canvas shows what arrives
 * between), and whenever the pointer comes onto the plot, so that hover reaches the newest executions.
 */
const REDRAW_MS = 10_000;
const MARKER = 4;

type Range = [number, number];

interface Drawn {
  live: LiveRun;
  query: string;
  dec: StreamDecimator;
  columns: number;
  /** The ranges the user zoomed or panned to, or null: the whole run, followed. */
  zoom: { x: Range; y: Range | null } | null;
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
}

/** "execution 3 of Q1", or a command's "run of the command 3" (n left out: the axis's title). */
const numbered = (live: LiveRun, query: string, n?: string) => (live.kind === 'command' ? `${executionWord('command')}${n ? ` ${n}` : ''}` : `execution${n ? ` ${n}` : ''} of ${query}`);

/** The arrays of one trace for the executions at `idx` (x is the execution number, index + 1). */
function trace(live: LiveRun, query: string, idx: number[]) {
  const s = live.series.get(query);
  const x = new Array<number>(idx.length);
  const y = new Array<number>(idx.length);
  const color = new Array<string>(idx.length);
  const text = new Array<string>(idx.length);
  if (s)
    idx.forEach((i, k) => {
      x[k] = i + 1;
      y[k] = s.y[i];
      color[k] = restartColour(s.seq[i]);
      text[k] = live.labelOf(s.seq[i]);
    });
  return {
    type: 'scattergl',
    mode: 'markers',
    x,
    y,
    text,
    marker: { size: MARKER, color },
    hovertemplate: `${numbered(live, query, '%{x}')}<br>%{y:.3f} ${s?.unit ?? ''}<br>%{text}<extra></extra>`,
    showlegend: false,
  };
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
  let note: TimelineNote;
  if (d.zoom) {
    idx = decimate(y, d.zoom.x[0] - 1, d.zoom.x[1], d.columns);
    const inRange = Math.max(0, Math.min(n, Math.ceil(d.zoom.x[1])) - Math.max(0, Math.floor(d.zoom.x[0] - 1)));
    note = { drawn: idx.length, total: inRange, exact: inRange <= d.columns * PER_COLUMN, zoomed: true };
    d.x = d.zoom.x;
    d.y = d.zoom.y ?? timelineY(y, idx, false);
  } else {
    const tail = d.dec.update(y, n).tail;
    idx = d.dec.drawn();
    idx.push(...tail);
    note = { drawn: idx.length, total: n, exact: d.dec.bucket <= 2, zoomed: false };
    const x = timelineX(n, ...xBasis(d));
    d.x = x.range;
    d.end = x.end;
    d.y = timelineY(y, idx, live.following);
  }
  d.following = live.following;
  d.n = d.painted = n;
  d.shown = idx.length;
  d.at = performance.now();
  d.dirty = false;
  await Plotly.react(el, [trace(live, query, idx)], layoutOf(d), { ...CONFIG, plotGlPixelRatio: glPixelRatio() });
  return note;
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
  const outside = n + 1 > d.x[1] || fresh.some((i) => s!.y[i] < d.y[0] || s!.y[i] > d.y[1]);
  if (!size || outside || due) {
    clear(canvas);
    return drawAll(el, d, n);
  }
  paint(canvas, el, size, d, fresh);
  d.painted = n;
  d.shown += fresh.length;
  return { drawn: d.shown, total: n, exact: d.shown === n, zoomed: false };
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
        }
      } while (again.current);
    } finally {
      busy.current = false;
    }
  };

  const onRelayout = (e: Record<string, unknown>) => {
    const d = drawn.current;
    if (!d) return;
    const num = (k: string) => (typeof e[k] === 'number' ? (e[k] as number) : undefined);
    const x0 = num('xaxis.range[0]');
    const x1 = num('xaxis.range[1]');
    const y0 = num('yaxis.range[0]');
    const y1 = num('yaxis.range[1]');
    if (x0 !== undefined && x1 !== undefined) d.zoom = { x: [x0, x1], y: y0 !== undefined && y1 !== undefined ? [y0, y1] : null };
    else if (y0 !== undefined && y1 !== undefined) d.zoom = { x: d.x, y: [y0, y1] };
    else if (e['xaxis.autorange'] === true || e['yaxis.autorange'] === true) d.zoom = null;
    else return;
    d.dirty = true;
    // After Plotly has finished its own relayout.
    setTimeout(() => void draw(), 0);
  };

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const d = drawn.current;
    if (!d || d.live !== live || d.query !== query) {
      const columns = Math.max(100, el.clientWidth - MARGIN.l - MARGIN.r);
      drawn.current = { live, query, dec: new StreamDecimator(columns), columns, zoom: null, x: [0, 1], y: [0, 1], end: 'room', following: live.following, n: 0, at: 0, painted: 0, shown: 0, dirty: true, wired: d?.wired ?? false };
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
