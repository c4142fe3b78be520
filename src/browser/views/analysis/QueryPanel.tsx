// One query at a time: every execution of every restart beside the restart means (within-restart and
// between-restart spread side by side), its statistics per cell, and the executions of one cell in
// repetition order with the warm-up in use and the warm-up the data suggest.
import { useMemo } from 'react';
import type { ExportContext } from '../../../common/export/context.js';
import { executionsFigure, repetitionsFigure } from '../../../common/figures/build.js';
import { MDE_LABELS, type Analysis } from '../../../common/stats/index.js';
import { Plot } from '../../plot/Plot.js';
import { FigurePlot } from '../export/FigurePlot.js';
import { fmtNum, fmtPct, NullNotes, Reasons, V, TABLE_STYLE } from './format.js';
import { fmtMdeBasis } from '../../../common/export/format.js';

interface Props {
  ctx: ExportContext;
  analysis: Analysis;
  query: string;
  cell: string;
  onCell(cell: string): void;
  onApplyWarmup(n: number): void;
}

export function QueryPanel({ ctx, analysis, query, cell, onCell, onApplyWarmup }: Props) {
  const strip = useMemo(() => executionsFigure(ctx, query), [ctx, query]);
  const target = analysis.settings.targetEffectPct;
  const pooled = analysis.mde.find((m) => m.query === query)?.mde;
  const notes = new Reasons();
  const unit = analysis.cells.flatMap((c) => c.queries).find((q) => q.query === query)?.unit ?? (ctx.unit || null);
  // Plan order, as in the strip plot above.
  const cellsWithQuery = ctx.cells.map((id) => analysis.cells.find((c) => c.cell === id)!).filter((c) => c && c.queries.some((q) => q.query === query));
  return (
    <div data-testid="query-panel">
      <FigurePlot figure={strip} />
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
      <NullNotes notes={notes} />
      <RepetitionsPlot ctx={ctx} analysis={analysis} query={query} cell={cell} onCell={onCell} onApplyWarmup={onApplyWarmup} />
    </div>
  );
}

/** `mean (ms)`: a column of values says its unit. */
const unitLabel = (label: string, unit: string | null) => (unit ? `${label} (${unit})` : label);

/** The executions of one cell in repetition order, one line per restart, with both warm-ups marked. */
function RepetitionsPlot({ ctx, analysis, query, cell, onCell, onApplyWarmup }: Props) {
  const suggestion = analysis.warmup.queries.find((q) => q.query === query);
  const forCell = suggestion?.cells.find((c) => c.cell === cell);
  const current = analysis.settings.warmup;
  const cells = ctx.cells.filter((c) => analysis.restarts.some((r) => r.cell === c && r.query === query));
  const figure = useMemo(() => repetitionsFigure(ctx, query, cell, current, forCell?.suggested ?? null, forCell), [ctx, query, cell, current, forCell]);
  const q = suggestion?.suggested ?? null;
  return (
    <div style={{ marginTop: 12 }} data-testid="repetitions-plot">
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
          {q === null ? <span className="muted">none found ({suggestion?.reason ?? 'no executions'})</span> : <strong>{fmtNum(q)} executions</strong>}
          {forCell && forCell.suggested !== q ? <span className="muted"> (this cell: {forCell.suggested ?? `none, ${forCell.reason}`})</span> : null}
        </span>
        {q !== null && q !== current ? (
          <button onClick={() => onApplyWarmup(q)} data-testid="apply-query-warmup">
            Use warm-up {q}
          </button>
        ) : null}
      </div>
      <Plot data={figure.data} layout={figure.layout} className="plot" testId="plot-repetitions" />
    </div>
  );
}
