// A figure is plain Plotly JSON ({data, layout}) plus what an export needs to know about it: its id,
// its file name and the CSS size it is drawn at (a PNG at scale 2 is twice that in pixels).
// Built in src/common so the UI, the render page and the command line draw exactly the same plot.

export interface FigureSpec {
  /** Stable and unique within an experiment: `configurations`, `executions-q1-pricing-summary`… */
  id: string;
  title: string;
  /** Base name of the exported file, without extension: `01-configurations`. */
  file: string;
  /** CSS pixels; the exported image is this times the scale. */
  width: number;
  height: number;
  data: Record<string, unknown>[];
  layout: Record<string, unknown>;
  /** A per-execution figure for the screen: true when every execution within its range is drawn (none thinned), so a zoom inside that range needs no new figure. */
  exact?: boolean;
}

export const FONT = { family: 'DejaVu Sans, Arial, Helvetica, sans-serif', size: 13, color: '#222' };

/** Colors that stay apart for the common kinds of color blindness (Okabe–Ito). */
export const PALETTE = ['#0072B2', '#E69F00', '#009E73', '#D55E00', '#CC79A7', '#56B4E9', '#F0E442', '#000000'];

/** `Q1 pricing summary` → `q1-pricing-summary`: safe in any file system. */
export function slug(text: string): string {
  const s = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return s || 'plot';
}

/** The axis title for measured values: `Execution time (ms)`, `Throughput (tps)`. */
export function valueAxisTitle(unit: string): string {
  if (['ns', 'us', 'µs', 'ms', 's'].includes(unit)) return `Execution time (${unit})`;
  if (['tps', 'qps'].includes(unit)) return `Throughput (${unit})`;
  return unit ? `Value (${unit})` : 'Value';
}

const CAPTION_GAP = 24;

/** The height of a second caption line (a note on how the figure was drawn). */
const NOTE_LINE = 15;

/**
 * The layout every figure shares: a title, white background (a transparent PNG looks broken on a
 * dark blog), a legend, and the caption line under the plot naming the experiment, host and date,
 * with an optional note on a line of its own below it.
 */
export function baseLayout(title: string, caption: string, margin: { l: number; r?: number; t?: number; b?: number }, legend: 'top' | 'right' = 'top', note?: string): Record<string, unknown> {
  const captionAt = (margin.b ?? 60) + CAPTION_GAP;
  const b = captionAt + (note ? NOTE_LINE : 0);
  // Many series (one per query) wrap a top legend into the title: those go on the right instead.
  const legendLayout =
    legend === 'top'
      ? { orientation: 'h', x: 0, y: 1.0, xanchor: 'left', yanchor: 'bottom', bgcolor: 'rgba(255,255,255,0)' }
      : { orientation: 'v', x: 1.02, y: 1.0, xanchor: 'left', yanchor: 'top', bgcolor: 'rgba(255,255,255,0)' };
  return {
    title: { text: title, x: 0.01, xanchor: 'left', font: { ...FONT, size: 17 } },
    font: FONT,
    paper_bgcolor: '#ffffff',
    plot_bgcolor: '#ffffff',
    margin: { l: margin.l, r: margin.r ?? (legend === 'right' ? 240 : 30), t: margin.t ?? 70, b },
    showlegend: true,
    legend: legendLayout,
    annotations: [captionAnnotation(caption, captionAt, margin.l, note)],
    autosize: false,
  };
}

/** Left margin that fits category labels of this many characters (Plotly's automargin may still widen it). */
export function labelMargin(labels: string[], min = 60): number {
  return Math.min(460, Math.max(min, Math.ceil(16 + 7.6 * Math.max(0, ...labels.map((l) => l.length)))));
}

/** The caption line, anchored at the left edge of the image (annotations cannot use the container, so shift by the margin). */
export function captionAnnotation(caption: string, bottomMargin: number, leftMargin: number, note?: string): Record<string, unknown> {
  const escape = (text: string) => text.replace(/</g, '&lt;');
  return {
    text: escape(caption) + (note ? `<br>${escape(note)}` : ''),
    showarrow: false,
    xref: 'paper',
    yref: 'paper',
    x: 0,
    y: 0,
    xanchor: 'left',
    yanchor: 'top',
    yshift: -(bottomMargin - 22),
    xshift: -(leftMargin - 10),
    font: { ...FONT, size: 11, color: '#555' },
    align: 'left',
  };
}

export function axis(title: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: { text: title }, gridcolor: '#e5e5e5', zerolinecolor: '#999', linecolor: '#444', showline: true, ticks: 'outside', automargin: true, ...extra };
}
