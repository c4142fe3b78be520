// The render page (public/render.html), driven by headless Chromium from src/node/export: draws a
// figure from src/common/figures with the same Plotly bundle as the app and returns it as an image.
// It is a page of its own so the command line needs no backend, no WebSocket and no React.
import Plotly from './plot/plotly.js';
import type { FigureSpec } from '../common/figures/figure.js';

export type RenderFormat = 'png' | 'svg';

/** Draw a figure at its CSS size off to the side, export it at `scale`, and clean up. */
async function renderFigure(figure: FigureSpec, format: RenderFormat, scale: number): Promise<string> {
  const el = document.createElement('div');
  el.style.width = `${figure.width}px`;
  el.style.height = `${figure.height}px`;
  document.getElementById('plots')!.appendChild(el);
  try {
    await Plotly.react(el, figure.data, { ...figure.layout, width: figure.width, height: figure.height }, { staticPlot: true, displayModeBar: false });
    return await Plotly.toImage(el, { format, width: figure.width, height: figure.height, scale });
  } finally {
    Plotly.purge(el);
    el.remove();
  }
}

declare global {
  interface Window {
    varlabRender?: (figure: FigureSpec, format: RenderFormat, scale: number) => Promise<string>;
  }
}

window.varlabRender = renderFigure;
document.body.dataset.ready = 'true';
