// The buttons on each plot: PNG at 1×, 2× or 3× (text and lines scale too) and SVG. The image is made
// from the drawn plot at the figure's own CSS size, so it matches `varlab export` pixel for pixel.
import { useState } from 'react';
import { plotImage } from '../../plot/Plot.js';
import { saveDataUrl, savedWords } from './save.js';

export interface PlotExportButtonsProps {
  /** The element Plotly drew into (from Plot's onReady). */
  getElement: () => HTMLElement | null;
  /** The file name without extension: `01-configurations`. */
  name: string;
  /** The export size in CSS pixels; the element's size when absent. */
  width?: number;
  height?: number;
}

export function PlotExportButtons({ getElement, name, width, height }: PlotExportButtonsProps) {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);

  async function save(format: 'png' | 'svg', scale = 1) {
    const el = getElement();
    if (!el) return;
    setBusy(true);
    setMessage(null);
    try {
      const url = await plotImage(el, format, { width, height, scale });
      const file = `${name}${format === 'png' && scale !== 1 ? `@${scale}x` : ''}.${format}`;
      const where = await saveDataUrl(file, url);
      if (where) setMessage(savedWords(where));
    } catch (e) {
      setMessage(`could not export: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="plot-export" data-testid={`plot-export-${name}`} style={{ display: 'flex', gap: 4, alignItems: 'center', flexWrap: 'wrap' }}>
      <span className="muted small">Export</span>
      {[1, 2, 3].map((s) => (
        <button key={s} className="icon" disabled={busy} onClick={() => void save('png', s)} title={`PNG at ${s}× (${width ? `${width * s}×${(height ?? 0) * s} px` : `${s}× the plot's size`})`}>
          PNG {s}×
        </button>
      ))}
      <button className="icon" disabled={busy} onClick={() => void save('svg')} title="SVG (vector, for print)">
        SVG
      </button>
      {message && <span className="muted small" data-testid="plot-export-message">{message}</span>}
    </div>
  );
}
