// One query at a time: a box per restart beside the restart means (the restart is the unit: the
// overview), or every execution of every restart (WebGL dots, one per pixel of a row beyond a few
// thousand, every one in a zoomed range with few enough), its statistics per cell, and the executions
// of one cell in repetition order with the warm-up in use and the warm-up the data suggest.
import { useMemo, useState } from 'react';
import type { ExportContext } from '../../../common/export/context.js';
import { executionsFigure, repetitionsFigure, type ZoomRanges } from '../../../common/figures/build.js';
import { MDE_LABELS, type Analysis } from '../../../common/stats/index.js';
import { Plot } from '../../plot/Plot.js';
import { useRebuiltZoom } from '../../plot/useRebuiltZoom.js';
import { relayoutOf } from '../../plot/zoom.js';
import { FigurePlot } from '../export/FigurePlot.js';
import { fmtNum, fmtPct, NullNotes, Reasons, V, TABLE_STYLE } from './format.js';
import { fmtMdeBasis } from '../../../common/export/format.js';
import { executionsText, executionWord, reasonFor } from '../../../common/experiment/words.js';

interface Props {
  ctx: ExportContext;
  analysis: Analysis;
  query: string;
  cell: string;
  onCell(cell: string): void;
  onApplyWarmup(n: number): void;
  /** The design's warm-up: the one the Steady state section's advice is about, for every query. */
  designWarmup: number;
}

/** Width of the strip plot's value axis in pixels, about: one dot per pixel of a row beyond THIN_ABOVE. */
const STRIP_PIXELS = 760;

type Zoom = { x: [number, number]; y?: [number, number] } | null;

/** A zoom or pan of the value axis (and the rows, for a box zoom) from a Plotly relayout event; null: back to the whole range; undefined: not a zoom. */
function zoomOf(e: Record<string, unknown>): Zoom | undefined {
  const r = relayoutOf(e);
  if (r?.x) return { x: r.x, ...(r.y ? { y: r.y } : {}) };
  return r?.whole ? null : undefined;
}

/** Whether [a, b] lies within the range a figure draws every execution of (null: the whole range). */
function covers(exactFor: Zoom, range: [number, number] | undefined): boolean {
  if (!exactFor) return true;
  return range !== undefined && range[0] >= exactFor.x[0] && range[1] <= exactFor.x[1];
}

/** The restart-level overview (a box per restart) or every execution, drawn for the zoomed range. */
function StripPlot({ ctx, query }: { ctx: ExportContext; query: string }) {
  const [mode, setMode] = useState<'boxes' | 'executions'>('boxes');
  // The range the figure is built for: a zoom redraws the figure only when it leaves the range the
  // figure drew every execution of (a zoom out, or into dots that were thinned).
  const zoom = useRebuiltZoom<NonNullable<Zoom>>(query);
  const z = mode === 'executions' ? zoom.zoom : null;
  const figure = useMemo(() => {
    const f = executionsFigure(ctx, query, mode === 'boxes' ? { boxes: true } : { screen: { pixels: STRIP_PIXELS, range: z?.x } });
    // A box zoom also narrowed the rows: kept when the figure is rebuilt for the new range.
    return z?.y ? { ...f, layout: { ...f.layout, yaxis: { ...(f.layout.yaxis as object), range: z.y } } } : f;
  }, [ctx, query, mode, z]);
  // Before Plotly draws a zoom: when the dots drawn do not hold every execution of the new range, the
  // figure is built again for it, and Plotly leaves it (it would draw the old dots at the new range first).
  const takeRelayout = (e: Record<string, unknown>) => {
    const next = zoomOf(e);
    if (next === undefined || mode !== 'executions' || (figure.exact && covers(z, next?.x))) return false;
    return zoom.rebuild(next);
  };
  // A zoom Plotly drew (every execution in it is among the dots drawn) is final.
  return (
    <div data-testid="query-strip" data-zooms-shown={zoom.zoomsShown}>
      <div className="row" style={{ gap: 12, alignItems: 'center' }} data-testid="query-plot-mode">
        <label>
          <input type="radio" checked={mode === 'boxes'} onChange={() => setMode('boxes')} data-testid="query-plot-boxes" /> a box per restart
        </label>
        <label>
          <input type="radio" checked={mode === 'executions'} onChange={() => setMode('executions')} data-testid="query-plot-executions" /> every {executionWord(ctx.doc.design.workload.kind)}
        </label>
      </div>
      <FigurePlot figure={figure} takeRelayout={takeRelayout} onRelayout={zoom.onRelayout} onDrawn={zoom.onDrawn} />
    </div>
  );
}

export function QueryPanel({ ctx, analysis, query, cell, onCell, onApplyWarmup, designWarmup }: Props) {
  const target = analysis.settings.targetEffectPct;
  const pooled = analysis.mde.find((m) => m.query === query)?.mde;
  const notes = new Reasons();
  const unit = analysis.cells.flatMap((c) => c.queries).find((q) => q.query === query)?.unit ?? (ctx.unit || null);
  // Plan order, as in the strip plot above.
  // A command's measurements are runs of the command (words.ts).
  const runs = executionWord(ctx.doc.design.workload.kind, true);
  const cellsWithQuery = ctx.cells.map((id) => analysis.cells.find((c) => c.cell === id)!).filter((c) => c && c.queries.some((q) => q.query === query));
  return (
    <div data-testid="query-panel">
      <StripPlot ctx={ctx} query={query} />
      {/* Wider than the view at 1000 px: it scrolls in its own box, not the whole view with it. */}
      <div style={{ overflowX: 'auto' }}>
        <table className="plan-table" style={TABLE_STYLE} data-testid="query-table">
          <thead>
            <tr>
              {['cell', 'restarts', 'reps', unitLabel('mean', unit), 'within CoV', 'between CoV', unitLabel('σ within', unit), unitLabel('σ between', unit), 'ICC', 'spread', `MDE (${MDE_LABELS['per-cell']})`, `restarts for ${target}%`].map((h, i) => (
                <th key={h} style={{ textAlign: i ? 'right' : 'left', whiteSpace: 'nowrap' }}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {cellsWithQuery.map((c) => {
              const q = c.queries.find((x) => x.query === query)!;
              const r = q.null_reasons ?? {};
              const w = c.cell;
              return (
                <tr key={c.cell}>
                  <td>{c.cell}</td>
                  <td style={{ textAlign: 'right' }}>{q.n_restarts}</td>
                  <td style={{ textAlign: 'right' }}><V value={q.reps_per_restart} reason={r.reps_per_restart} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.mean} reason={r.mean} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.within_cov_pct} reason={r.within_cov_pct} fmt={fmtPct} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.between_cov_pct} reason={r.between_cov_pct} fmt={fmtPct} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.sigma_within} reason={r.sigma_within} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.sigma_between} reason={r.sigma_between} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.icc} reason={r.icc} fmt={(x) => x.toFixed(2)} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.spread_pct} reason={r.spread_pct} fmt={fmtPct} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.mde_pct} reason={r.mde_pct} fmt={fmtPct} notes={notes} where={w} /></td>
                  <td style={{ textAlign: 'right' }}><V value={q.restarts_for_target} reason={r.restarts_for_target} fmt={String} notes={notes} where={w} /></td>
                </tr>
              );
            })}
          </tbody>
          <tfoot>
            <tr data-testid="query-mde-pooled">
              <td colSpan={10}>
                all cells: MDE {pooled?.pct != null ? fmtMdeBasis(pooled) : MDE_LABELS.pooled}
              </td>
              <td style={{ textAlign: 'right' }}>
                <V value={pooled?.pct} reason={pooled?.reason} fmt={fmtPct} notes={notes} where="all cells" />
              </td>
              <td />
            </tr>
          </tfoot>
        </table>
      </div>
      <p className="muted" data-testid="query-between-note">
        Between CoV is the spread of the restart means, which holds the part of the noise of the {runs} themselves that reaches a mean; σ between is what is left once that part is taken out (a variance component, never below 0), and ICC its
        share. Restart means that vary no more than their {runs} predict show a between CoV with σ between and ICC at 0.
      </p>
      <NullNotes notes={notes} />
      <RepetitionsPlot ctx={ctx} analysis={analysis} query={query} cell={cell} onCell={onCell} onApplyWarmup={onApplyWarmup} designWarmup={designWarmup} />
    </div>
  );
}

/** `mean (ms)`: a column of values says its unit. */
const unitLabel = (label: string, unit: string | null) => (unit ? `${label} (${unit})` : label);

/**
 * The executions of one cell in repetition order, one line per restart, with both warm-ups marked.
 * The design has one warm-up for every query, so the one offered here is the Steady state section's
 * (the largest any query needs), with the same words: this query's own figure is said beside it, never
 * offered as the design's (a query steady at once offered "Use warm-up 0" below "too few: set 6").
 */
function RepetitionsPlot({ ctx, analysis, query, cell, onCell, onApplyWarmup, designWarmup }: Props) {
  const suggestion = analysis.warmup.queries.find((q) => q.query === query);
  const forCell = suggestion?.cells.find((c) => c.cell === cell);
  const current = analysis.settings.warmup;
  const cells = ctx.cells.filter((c) => analysis.restarts.some((r) => r.cell === c && r.query === query));
  // A clipped figure (warm-ups beyond its axis, said under its title) is built again for each zoom and
  // for the double-click back, so its edge and its note are those of the range shown; a zoom of one
  // axis keeps the other as it was zoomed.
  const zoom = useRebuiltZoom<ZoomRanges>(`${query}\n${cell}\n${current}`);
  const z = zoom.zoom;
  const figure = useMemo(() => repetitionsFigure(ctx, query, cell, current, forCell?.suggested ?? null, forCell, z ?? undefined), [ctx, query, cell, current, forCell, z]);
  const takeRelayout = (e: Record<string, unknown>) => {
    const r = relayoutOf(e);
    if (!r || figure.exact) return false;
    const x = r.x ?? z?.x;
    const y = r.y ?? z?.y;
    return zoom.rebuild(r.whole ? null : { ...(x ? { x } : {}), ...(y ? { y } : {}) });
  };
  const q = suggestion?.suggested ?? null;
  const all = analysis.warmup.suggested;
  return (
    <div style={{ marginTop: 12 }} data-testid="repetitions-plot" data-zooms-shown={zoom.zoomsShown}>
      <div className="row" style={{ alignItems: 'center', gap: 8 }}>
        <label>
          cell{' '}
          <select value={cell} onChange={(e) => onCell(e.target.value)} data-testid="repetitions-cell">
            {cells.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <span data-testid="query-warmup">
          Warm-up from the data for {query}:{' '}
          {q === null ? <span className="muted">none found ({reasonFor(suggestion?.reason ?? 'no executions', ctx.doc.design.workload.kind)})</span> : <strong>{executionsText(q, ctx.doc.design.workload.kind)}</strong>}
          {forCell && forCell.suggested !== q ? <span className="muted"> (this cell: {forCell.suggested ?? `none, ${reasonFor(forCell.reason ?? '', ctx.doc.design.workload.kind)}`})</span> : null}
          {all !== null && all !== q ? <span className="muted"> · every query: {fmtNum(all)}, the design's one warm-up is for all of them</span> : null}
        </span>
        {all !== null && all !== designWarmup ? (
          <button onClick={() => onApplyWarmup(all)} data-testid="apply-query-warmup">
            Set the design’s warm-up to {all}
          </button>
        ) : null}
      </div>
      <Plot data={figure.data} layout={figure.layout} className="plot" testId="plot-repetitions" takeRelayout={takeRelayout} onRelayout={zoom.onRelayout} onReady={zoom.onDrawn} />
    </div>
  );
}
