// A custom Plotly bundle: only the traces varlab draws, and the "strict" WebGL scatter whose
// shaders are precompiled, so the app runs under a CSP without 'unsafe-eval'.
import Plotly from 'plotly.js/lib/core';
import scatter from 'plotly.js/lib/scatter';
import bar from 'plotly.js/lib/bar';
import box from 'plotly.js/lib/box';
import violin from 'plotly.js/lib/violin';
import histogram from 'plotly.js/lib/histogram';
import scatterglStrict from 'plotly.js/src/traces/scattergl/strict';
import registry from 'plotly.js/src/registry';

// Plotly asks for a multisampled (antialias) WebGL context on each of its full-figure canvases. In
// software WebGL (SwiftShader, where there is no GPU) a multisampled context the size of a tall figure
// (960 x 3,600 px for 160 restarts) took 3-5 s to create against 0.6-1.4 s without (measured side by
// side in Chromium at a load of 14), and it is resolved on every frame. The dots are drawn by
// regl-scatter2d, whose shader smooths their edges itself, so multisampling adds nothing seen: Plotly's
// canvases (class gl-canvas) get a context without it. Other canvases are left as they ask.
if (typeof HTMLCanvasElement !== 'undefined') {
  const getContext = HTMLCanvasElement.prototype.getContext as (this: HTMLCanvasElement, kind: string, options?: Record<string, unknown>) => RenderingContext | null;
  HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, kind: string, options?: Record<string, unknown>) {
    const gl = kind === 'webgl' || kind === 'experimental-webgl' || kind === 'webgl2';
    return getContext.call(this, kind, gl && this.classList.contains('gl-canvas') ? { ...options, antialias: false } : options);
  } as typeof HTMLCanvasElement.prototype.getContext;
}

/**
 * The resolution of Plotly's WebGL canvases: the screen's (devicePixelRatio). Plotly's default is 2, for
 * its image export, so on a screen of ratio 1 each of its two full-figure canvases had 4x the pixels
 * shown (1920 x 7268 for the query plot of 160 restarts), each cleared, drawn and composited in software.
 */
export function glPixelRatio(): number {
  const dpr = typeof window === 'undefined' ? 1 : window.devicePixelRatio || 1;
  return Math.min(4, Math.max(1, dpr));
}

let webgl: boolean | undefined;
/**
 * Whether this browser gives a page WebGL. Chromium gives none on a machine without a GPU from version
 * 139 on (SwiftShader is no longer its fallback), nor where WebGL is turned off; Plotly's WebGL traces
 * then draw nothing but an error.
 */
export function webglAvailable(): boolean {
  if (webgl === undefined) {
    try {
      const gl = document.createElement('canvas').getContext('webgl');
      webgl = gl !== null;
      gl?.getExtension('WEBGL_lose_context')?.loseContext();
    } catch {
      webgl = false;
    }
  }
  return webgl;
}

/** Traces as this browser can draw them: without WebGL, the WebGL scatter as SVG (the same attributes; what varlab draws is thinned to the pixels, so SVG copes, slower). */
export function drawable(data: unknown[]): unknown[] {
  if (typeof document === 'undefined' || webglAvailable()) return data;
  return data.map((t) => ((t as { type?: string } | null)?.type === 'scattergl' ? { ...(t as object), type: 'scatter' } : t));
}

const api = Plotly as unknown as PlotlyApi & { register(modules: unknown[]): void };
api.register([scatter, bar, box, violin, histogram, scatterglStrict]);
// Every figure goes through react or newPlot: the one place where WebGL traces fall back to SVG.
const react = api.react.bind(api);
const newPlot = api.newPlot.bind(api);
api.react = (el, data, layout, config) => react(el, drawable(data), layout, config);
api.newPlot = (el, data, layout, config) => newPlot(el, drawable(data), layout, config);

/**
 * A reader's zoom, pan, double-click or mode-bar range reaches Plotly's relayout through one internal
 * API method, `_guiRelayout`, which Plotly calls by name from its registry. A plot whose view rebuilds
 * the figure for the new range (the query plot's thinned dots) takes the change there, before Plotly
 * draws the old figure at the new range and the view draws the new one: one draw instead of two (the
 * first one cost a third of such a zoom). A taker returns true when it takes the change.
 */
export type RelayoutTaker = (update: Record<string, unknown>) => boolean;
const takers = new WeakMap<HTMLElement, RelayoutTaker>();
export function takeRelayouts(el: HTMLElement, taker: RelayoutTaker | null): void {
  if (taker) takers.set(el, taker);
  else takers.delete(el);
}
const guiRelayout = (registry as { apiMethodRegistry?: Record<string, unknown> }).apiMethodRegistry?._guiRelayout;
// Should a later Plotly call it otherwise, nothing is taken and Plotly draws every change itself, as before.
if (typeof guiRelayout === 'function') {
  api.register([
    {
      moduleType: 'apiMethod',
      name: '_guiRelayout',
      fn: (gd: HTMLElement, update: unknown, value?: unknown) =>
        takers.get(gd)?.(typeof update === 'string' ? { [update]: value } : (update as Record<string, unknown>)) ? Promise.resolve(gd) : guiRelayout(gd, update, value),
    },
  ]);
}

export default api as PlotlyApi;

/** The part of Plotly's API varlab uses (the @types describe the full bundle, not this one). */
export interface PlotlyApi {
  react(el: HTMLElement, data: unknown[], layout?: unknown, config?: unknown): Promise<HTMLElement>;
  newPlot(el: HTMLElement, data: unknown[], layout?: unknown, config?: unknown): Promise<HTMLElement>;
  purge(el: HTMLElement): void;
  toImage(el: HTMLElement, opts: { format: 'png' | 'svg'; width?: number; height?: number; scale?: number }): Promise<string>;
  Plots: { resize(el: HTMLElement): void };
  /** What toImage is made of: the SVG of a drawn plot, and an SVG rasterised onto a canvas (a data URL). */
  Snapshot: {
    toSVG(el: HTMLElement, format?: string, scale?: number): string;
    svgToImg(opts: { format: 'png'; width: number; height: number; scale: number; canvas: HTMLCanvasElement; svg: string; promise: true }): Promise<string>;
  };
}
