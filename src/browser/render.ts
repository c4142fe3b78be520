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

/**
 * The SVG rasterised at `scale` as a PNG data URL, as Plotly.Snapshot.svgToImg does, but encoded
 * with toBlob: about half the CPU of svgToImg's toDataURL for the same bytes (0.08 against 0.18 s for
 * a 1920x3200 PNG here).
 */
async function rasterise(svg: string, width: number, height: number, scale: number): Promise<string> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml;charset=utf-8' }));
  try {
    const img = new Image();
    img.src = url;
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = width * scale;
    canvas.height = height * scale;
    canvas.getContext('2d')!.drawImage(img, 0, 0, canvas.width, canvas.height);
    const blob = await new Promise<Blob>((ok, fail) => canvas.toBlob((b) => (b ? ok(b) : fail(new Error('the PNG could not be encoded'))), 'image/png'));
    return await new Promise<string>((ok, fail) => {
      const reader = new FileReader();
      reader.onload = () => ok(reader.result as string);
      reader.onerror = () => fail(reader.error ?? new Error('the PNG could not be read'));
      reader.readAsDataURL(blob);
    });
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Draw a figure at its CSS size off to the side, take the images asked for, and clean up. */
async function renderFigure(figure: FigureSpec, want: RenderRequest): Promise<RenderResult> {
  const el = document.createElement('div');
  el.style.width = `${figure.width}px`;
  el.style.height = `${figure.height}px`;
  // Laid out (Plotly measures its text) but never painted: the page's own raster and compositing of
  // each drawing cost 0.1-0.2 s of CPU per per-execution figure here, for pixels no one looks at.
  el.style.visibility = 'hidden';
  document.getElementById('plots')!.appendChild(el);
  try {
    // _exportedPlot: clip paths refer to '#id', not to this page's URL, as in Plotly.toImage.
    await Plotly.newPlot(el, figure.data, { ...figure.layout, width: figure.width, height: figure.height }, { staticPlot: true, displayModeBar: false, _exportedPlot: true });
    // toSVG with format 'svg' gives the drawing a viewBox, so the PNG below is rasterised from vectors at any scale.
    const svg = Plotly.Snapshot.toSVG(el, 'svg', 1);
    const out: RenderResult = {};
    if (want.svg) out.svg = svg;
    if (want.png) out.png = await rasterise(svg, figure.width, figure.height, want.png);
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
