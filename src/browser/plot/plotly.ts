// A custom Plotly bundle: only the traces varlab draws, and the "strict" WebGL scatter whose
// shaders are precompiled, so the app runs under a CSP without 'unsafe-eval'.
import Plotly from 'plotly.js/lib/core';
import scatter from 'plotly.js/lib/scatter';
import bar from 'plotly.js/lib/bar';
import box from 'plotly.js/lib/box';
import violin from 'plotly.js/lib/violin';
import histogram from 'plotly.js/lib/histogram';
import scatterglStrict from 'plotly.js/src/traces/scattergl/strict';

const api = Plotly as unknown as PlotlyApi & { register(modules: unknown[]): void };
api.register([scatter, bar, box, violin, histogram, scatterglStrict]);

export default api as PlotlyApi;

/** The part of Plotly's API varlab uses (the @types describe the full bundle, not this one). */
export interface PlotlyApi {
  react(el: HTMLElement, data: unknown[], layout?: unknown, config?: unknown): Promise<HTMLElement>;
  newPlot(el: HTMLElement, data: unknown[], layout?: unknown, config?: unknown): Promise<HTMLElement>;
  /** maxPoints: one window for every array, or per array and trace (-1: no window). */
  extendTraces(el: HTMLElement, update: unknown, indices: number[], maxPoints?: number | Record<string, number[]>): Promise<void>;
  purge(el: HTMLElement): void;
  toImage(el: HTMLElement, opts: { format: 'png' | 'svg'; width?: number; height?: number; scale?: number }): Promise<string>;
  Plots: { resize(el: HTMLElement): void };
  /** What toImage is made of: the SVG of a drawn plot, and an SVG rasterised onto a canvas (a data URL). */
  Snapshot: {
    toSVG(el: HTMLElement, format?: string, scale?: number): string;
    svgToImg(opts: { format: 'png'; width: number; height: number; scale: number; canvas: HTMLCanvasElement; svg: string; promise: true }): Promise<string>;
  };
}
