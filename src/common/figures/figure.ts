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

/** The title's font size; its lines (subtitle ones too) are this × Plotly's 1.3 line spacing apart. */
const TITLE_SIZE = 17;
const TITLE_LINE = Math.ceil(TITLE_SIZE * 1.3);
/** Above the title, and between the title block and a legend on top of the plot. */
const TITLE_PAD = 12;
/** A one-row legend on top of the plot. */
const TOP_LEGEND = 28;
/** The average width of a subtitle character (`<sub>`, 0.7 of the title's size in DejaVu Sans), in px: where a line is wrapped. */
const SUB_CHAR = 0.56 * 0.7 * TITLE_SIZE;
/** Plotly puts a multi-line title's first baseline (not its top) at the top padding: one font size more keeps it inside the image. */
const FIRST_BASELINE = TITLE_PAD + TITLE_SIZE;

/**
 * Words wrapped into lines that fit `width` px at `charPx` a character (a word longer than a line is
 * cut at the line's end): a subtitle that ran off the image's right edge is wrapped instead.
 */
export function wrapWords(text: string, width: number, charPx: number): string[] {
  const max = Math.max(10, Math.floor(width / charPx));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= max) line = next;
    else {
      if (line) lines.push(line);
      line = word.length > max ? `${word.slice(0, max - 1)}…` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/**
 * A title with its subtitle lines (each wrapped to the figure's width), placed from the top of the
 * image, and the top margin that holds them and a legend on top of the plot: a fixed margin let a
 * long subtitle run into the legend or off the image.
 */
export function titleBlock(title: string, sub: string[], width: number, legendTop: boolean): { title: Record<string, unknown>; top: number } {
  const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const lines = sub.flatMap((s) => wrapWords(s, width - 30, SUB_CHAR)).map(escape);
  const text = lines.length ? `${escape(title)}<br><sub>${lines.join('<br>')}</sub>` : escape(title);
  // The last line's baseline, its descent and a gap (half a tick label at the plot's top edge reaches
  // above it), then the legend when it is on top of the plot.
  const top = FIRST_BASELINE + TITLE_LINE * lines.length + 18 + (legendTop ? TOP_LEGEND : 0);
  return { title: { text, x: 0.01, xanchor: 'left', y: 1, yref: 'container', yanchor: 'top', pad: { t: FIRST_BASELINE }, font: { ...FONT, size: TITLE_SIZE } }, top };
}

/** The height of a second caption line (a note on how the figure was drawn). */
const NOTE_LINE = 15;

/**
 * The layout every figure shares: a title, white background (a transparent PNG looks broken on a
 * dark blog), a legend, and the caption line under the plot naming the experiment, host and date,
 * with an optional note on a line of its own below it.
 */
export function baseLayout(
  title: string,
  caption: string,
  margin: { l: number; r?: number; t?: number; b?: number },
  legend: 'top' | 'right' = 'top',
  note?: string,
  /** Subtitle lines under the title (wrapped to the width), and the figure's width in CSS px. */
  sub: { lines: string[]; width: number } = { lines: [], width: 960 },
): Record<string, unknown> {
  const head = titleBlock(title, sub.lines, sub.width, legend === 'top');
  const captionAt = (margin.b ?? 60) + CAPTION_GAP;
  const b = captionAt + (note ? NOTE_LINE : 0);
  // Many series (one per query) wrap a top legend into the title: those go on the right instead.
  const legendLayout =
    legend === 'top'
      ? { orientation: 'h', x: 0, y: 1.0, xanchor: 'left', yanchor: 'bottom', bgcolor: 'rgba(255,255,255,0)' }
      : { orientation: 'v', x: 1.02, y: 1.0, xanchor: 'left', yanchor: 'top', bgcolor: 'rgba(255,255,255,0)' };
  return {
    title: head.title,
    font: FONT,
    paper_bgcolor: '#ffffff',
    plot_bgcolor: '#ffffff',
    margin: { l: margin.l, r: margin.r ?? (legend === 'right' ? 240 : 30), t: Math.max(margin.t ?? 70, head.top), b },
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
