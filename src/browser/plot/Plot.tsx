// The one Plotly wrapper: a div that Plotly draws into once it is scrolled near the window (a long
// page of plots costs only what is looked at), redrawn with Plotly.react when the figure changes,
// resized with its container, purged on unmount.
import { useEffect, useRef, useState, type RefObject } from 'react';
import Plotly, { glPixelRatio, takeRelayouts } from './plotly.js';

export interface Figure {
  data: unknown[];
  layout?: Record<string, unknown>;
  config?: Record<string, unknown>;
}

export interface PlotProps extends Figure {
  className?: string;
  /** Called with the drawn element, e.g. to export it as PNG or SVG. */
  onReady?: (el: HTMLElement) => void;
  /**
   * A reader's zoom, pan or double-click (back to the whole range, said as { 'xaxis.autorange': true,
   * 'yaxis.autorange': true }) before Plotly draws it: true when the view takes it and draws the figure
   * again for it, false to let Plotly draw it.
   */
  takeRelayout?: (e: Record<string, unknown>) => boolean;
  /** Plotly has drawn a reader's zoom or pan, or a double-click, that was not taken. */
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
/**
 * Mode-bar buttons left out: box and lasso select (a selection does nothing in varlab, and its WebGL
 * layer is hidden, styles.css), and Reset axes: the query plot and the live timeline fix their ranges
 * when they draw a zoom, so Plotly's "initial" range was the zoom's and Reset did nothing there.
 * Autoscale and a double-click go back to the whole range.
 */
export const MODE_BAR_LEFT_OUT = ['sendDataToCloud', 'select2d', 'lasso2d', 'resetScale2d'];
const BASE_CONFIG = { displaylogo: false, responsive: true, modeBarButtonsToRemove: MODE_BAR_LEFT_OUT };

/** A double-click back to the whole range, as the view is told of it. */
const WHOLE_RANGE = { 'xaxis.autorange': true, 'yaxis.autorange': true };

type PlotElement = HTMLDivElement & { on?: (ev: string, f: (e: Record<string, unknown>) => void) => void };

/** A plot is drawn once it comes within this of the window (a window's height above and below), and stays drawn. */
const NEAR = '100% 0px';

/** True once the element has come near the window (at once where IntersectionObserver is missing). */
function useNearWindow(ref: RefObject<HTMLElement | null>): boolean {
  const [near, setNear] = useState(typeof IntersectionObserver === 'undefined');
  useEffect(() => {
    const el = ref.current;
    if (near || !el) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        setNear(true);
      }
    }, { rootMargin: NEAR });
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref, near]);
  return near;
}

export function Plot({ data, layout, config, className, onReady, takeRelayout, onRelayout, testId }: PlotProps) {
  const ref = useRef<PlotElement>(null);
  const relayout = useRef(onRelayout);
  relayout.current = onRelayout;
  const take = useRef(takeRelayout);
  take.current = takeRelayout;
  const wired = useRef(false);
  const near = useNearWindow(ref);

  useEffect(() => {
    const el = ref.current;
    if (!el || !near) return;
    Plotly.react(el, data, { ...BASE_LAYOUT, ...layout }, { ...BASE_CONFIG, plotGlPixelRatio: glPixelRatio(), ...config }).then(() => {
      // How many times it was drawn: a test or a benchmark can tell when a redraw is on screen.
      el.dataset.drawn = String(Number(el.dataset.drawn ?? 0) + 1);
      if (!wired.current && el.on) {
        wired.current = true;
        // A double-click goes back to the whole range; with a range fixed in the layout, Plotly's own
        // relayout that follows (at once) names that range rather than autorange, so it is said here in one way.
        let doubleClicked = false;
        let reset = false;
        el.on('plotly_doubleclick', () => {
          doubleClicked = true;
        });
        takeRelayouts(el, (e) => {
          reset = doubleClicked;
          doubleClicked = false;
          const taken = take.current?.(reset ? WHOLE_RANGE : e) ?? false;
          if (taken) reset = false;
          return taken;
        });
        el.on('plotly_relayout', (e) => {
          relayout.current?.(reset ? WHOLE_RANGE : e);
          reset = false;
        });
      }
      onReady?.(el);
    });
  }, [near, data, layout, config, onReady]);

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    // Only a drawn plot is resized (Plotly refuses a div it has not drawn into).
    const observer = new ResizeObserver(() => {
      if ((el as PlotElement & { _fullLayout?: unknown })._fullLayout) Plotly.Plots.resize(el);
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      takeRelayouts(el, null);
      Plotly.purge(el);
    };
  }, []);

  // Until drawn, the div holds the figure's height, so what is below it does not move when it is drawn.
  const height = typeof layout?.height === 'number' ? layout.height : undefined;
  return <div ref={ref} className={className ?? 'plot'} data-testid={testId} style={near || !height ? undefined : { minHeight: height }} />;
}

/** Render a drawn plot to an image: `png` as a data URL at the given scale, or `svg`. */
export function plotImage(el: HTMLElement, format: 'png' | 'svg', opts: { width?: number; height?: number; scale?: number } = {}): Promise<string> {
  const scale = opts.scale ?? 1;
  // The figure as drawn, with WebGL layers at the image's own resolution (on screen they are at the screen's).
  const gd = el as HTMLElement & { data?: unknown[]; layout?: unknown; _context?: Record<string, unknown>; _fullLayout?: { _has?: (what: string) => boolean } };
  const gl = gd.data && gd._context && gd._fullLayout?._has?.('gl');
  let figure: unknown = el;
  try {
    if (gl) figure = { data: structuredClone(gd.data), layout: structuredClone(gd.layout), config: { ...gd._context, plotGlPixelRatio: Math.min(4, Math.max(2, scale)) } };
  } catch {
    // Something in the figure that cannot be copied: export it as drawn.
  }
  return Plotly.toImage(figure as HTMLElement, { format, width: opts.width ?? el.clientWidth, height: opts.height ?? el.clientHeight, scale });
}
