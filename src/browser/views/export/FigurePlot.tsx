// A figure from src/common/figures drawn in the UI, with its export buttons. The analysis views can
// use it for any plot they show, so what is on screen, what the buttons save and what `varlab export`
// writes are the same figure.
import { useCallback, useMemo, useRef } from 'react';
import { Plot } from '../../plot/Plot.js';
import type { FigureSpec } from '../../../common/figures/figure.js';
import { PlotExportButtons } from './PlotExportButtons.js';

const STATIC_CONFIG = { responsive: false };

/**
 * takeRelayout: the reader zooms or pans (or double-clicks back); the view may take it and rebuild the
 * figure for the new range. onRelayout: Plotly drew one the view did not take. onDrawn: a figure is on
 * screen (after each draw).
 */
export function FigurePlot({ figure, takeRelayout, onRelayout, onDrawn }: { figure: FigureSpec; takeRelayout?: (e: Record<string, unknown>) => boolean; onRelayout?: (e: Record<string, unknown>) => void; onDrawn?: () => void }) {
  const el = useRef<HTMLElement | null>(null);
  const onReady = useCallback(
    (e: HTMLElement) => {
      el.current = e;
      onDrawn?.();
    },
    [onDrawn],
  );
  const layout = useMemo(() => ({ ...figure.layout, width: figure.width, height: figure.height, autosize: false }), [figure]);
  return (
    <figure className="figure-plot" data-testid={`figure-${figure.id}`} style={{ margin: '0 0 16px', overflowX: 'auto' }}>
      <PlotExportButtons getElement={() => el.current} name={figure.file} width={figure.width} height={figure.height} />
      <div style={{ width: figure.width, height: figure.height }}>
        <Plot data={figure.data} layout={layout} config={STATIC_CONFIG} onReady={onReady} takeRelayout={takeRelayout} onRelayout={onRelayout} className="plot" testId={`plot-${figure.id}`} />
      </div>
    </figure>
  );
}
