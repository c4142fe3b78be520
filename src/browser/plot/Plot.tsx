// The one Plotly wrapper: a div that Plotly draws into, redrawn with Plotly.react when the
// figure changes, resized with its container, purged on unmount.
import { useEffect, useRef } from 'react';
import Plotly from './plotly.js';

export interface Figure {
  data: unknown[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

export interface PlotProps extends Figure {
  className?: string;
  /** Called with the drawn element, e.g. to export it as PNG or SVG. */
  onReady?: (el: HTMLElement) => void;
  /** Plotly's relayout events (a zoom, a pan), and a double-click back to the whole range as { 'xaxis.autorange': true, 'yaxis.autorange': true }. */
  onRelayout?: (e: Record<string, unknown>) => void;
  testId?: string;
}

const BASE_LAYOUT = {
  autosize: true,
  margin: { l: 60, r: 20, t: 40, b: 50 },
  font: { family: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif', size: 12 },
  paper_bgcolor: 'rgba(0,0,0,0)',
  plot_bgcolor: 'rgba(0,0,0,0)',
};
const BASE_CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['sendDataToCloud'] };

type PlotElement = HTMLDivElement & { on?: (ev: string, f: (e: Record<string, unknown>) => void) => void };

export function Plot({ data, layout, config, className, onReady, onRelayout, testId }: PlotProps) {
  const ref = useRef<PlotElement>(null);
  const relayout = useRef(onRelayout);
  relayout.current = onRelayout;
  const wired = useRef(false);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    Plotly.react(el, data, { ...BASE_LAYOUT, ...layout }, { ...BASE_CONFIG, ...config }).then(() => {
      // How many times it was drawn: a test or a benchmark can tell when a redraw is on screen.
      el.dataset.drawn = String(Number(el.dataset.drawn ?? 0) + 1);
      if (!wired.current && el.on) {
        wired.current = true;
        el.on('plotly_relayout', (e) => relayout.current?.(e));
        // A double-click goes back to the whole range; with a range fixed in the layout, Plotly's own
        // event names that range rather than autorange, so it is said here in one way.
        el.on('plotly_doubleclick', () => relayout.current?.({ 'xaxis.autorange': true, 'yaxis.autorange': true }));
      }
      onReady?.(el);
    });
  }, [data, layout, config, onReady]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver(() => Plotly.Plots.resize(el));
    observer.observe(el);
    return () => {
      observer.disconnect();
      Plotly.purge(el);
    };
  }, []);

  return <div ref={ref} className={className ?? 'plot'} data-testid={testId} />;
}

/** Render a drawn plot to an image: `png` as a data URL at the given scale, or `svg`. */
export function plotImage(el: HTMLElement, format: 'png' | 'svg', opts: { width?: number; height?: number; scale?: number } = {}): Promise<string> {
  return Plotly.toImage(el, { format, width: opts.width ?? el.clientWidth, height: opts.height ?? el.clientHeight, scale: opts.scale ?? 1 });
}
