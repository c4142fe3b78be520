// The render page (public/render.html), driven by headless Chromium from src/node/export: draws a
// figure from src/common/figures with the same Plotly bundle as the app and returns it as images.
// It is a page of its own so the command line needs no backend, no WebSocket and no React.
// Each figure is drawn once: its SVG is serialised from the drawing, and the PNG is that SVG
// rasterised at the scale asked for (what Plotly.toImage does, minus its own second drawing).
import Plotly from './plot/plotly.js';
import type { FigureSpec } from '../common/figures/figure.js';

export interface RenderRequest {
  /** PNG scale (1, 2, 3), or absent for no PNG. */
  png?: number;
  svg?: boolean;
}

export interface RenderResult {
  /** data:image/png;base64,… */
  png?: string;
  /** The SVG document itself. */
  svg?: string;
}

/** Draw a figure at its CSS size off to the side, take the images asked for, and clean up. */
async function renderFigure(figure: FigureSpec, want: RenderRequest): Promise<RenderResult> {
  const el = document.createElement('div');
  el.style.width = `${figure.width}px`;
  el.style.height = `${figure.height}px`;
  document.getElementById('plots')!.appendChild(el);
  try {
    // _exportedPlot: clip paths refer to '#id', not to this page's URL, as in Plotly.toImage.
    await Plotly.newPlot(el, figure.data, { ...figure.layout, width: figure.width, height: figure.height }, { staticPlot: true, displayModeBar: false, _exportedPlot: true });
    // toSVG with format 'svg' gives the drawing a viewBox, so the PNG below is rasterised from vectors at any scale.
    const svg = Plotly.Snapshot.toSVG(el, 'svg', 1);
    const out: RenderResult = {};
    if (want.svg) out.svg = svg;
    if (want.png) {
      const canvas = document.createElement('canvas');
      out.png = await Plotly.Snapshot.svgToImg({ format: 'png', width: figure.width, height: figure.height, scale: want.png, canvas, svg, promise: true });
    }
    return out;
  } finally {
    Plotly.purge(el);
    el.remove();
  }
}

declare global {
  interface Window {
    varlabRender?: (figure: FigureSpec, want: RenderRequest) => Promise<RenderResult>;
  }
}

window.varlabRender = renderFigure;
document.body.dataset.ready = 'true';
