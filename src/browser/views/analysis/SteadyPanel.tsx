// Steady state per restart: every restart of every query classified flat, warm-up, slowdown or no steady
// state by its change points (after Barrett et al.), the classes per cell, whether a cell's restarts
// agree, and the warm-up that follows from them, with one click to write it into the design.
import type { Analysis, SeriesSteady } from '../../../common/stats/index.js';
import { steadyText } from '../../../common/stats/index.js';
import { inOrder } from '../../../common/export/format.js';
import { TABLE_STYLE } from './format.js';
import type { Workload } from '../../../common/experiment/types.js';
import { executionsText, executionWord, measureWord, reasonFor } from '../../../common/experiment/words.js';

interface Props {
  analysis: Analysis;
  /** Cells in plan order and queries in the workload's order, as the other tables show them. */
  cells: string[];
  queries: string[];
  designWarmup: number;
  onApply(n: number): void;
  /** The workload's kind: a command's runs are not called executions. */
  kind: Workload['kind'];
}

/** One table cell: the classes of a cell's restarts of a query, flagged when they disagree. */
function Classes({ s }: { s: SeriesSteady | undefined }) {
  if (!s) return <span className="muted">—</span>;
  const classified = s.restarts.length - s.unclassified;
  if (!classified) return <span className="muted" title={s.reason}>not classified</span>;
  const title = s.restarts.map((r) => `restart ${r.restart}: ${r.kind ?? 'not classified'}${r.discard ? ` (discard ${r.discard})` : ''}`).join('\n');
  return (
    <span title={title} data-consistent={String(s.consistent)}>
      {steadyText(s.steady)}
      {s.consistent === false ? <strong style={{ color: '#b35c00' }}> · inconsistent</strong> : null}
      <span className="muted"> · warm-up {s.suggested ?? 'n/a'}</span>
    </span>
  );
}

export function SteadyPanel({ analysis, cells, queries, designWarmup, onApply, kind }: Props) {
  const w = analysis.warmup;
  const series = new Map(w.queries.flatMap((q) => q.cells.map((c) => [`${c.cell}\u0000${c.query}`, c] as const)));
  const inconsistent = w.queries.flatMap((q) => q.cells).filter((c) => c.consistent === false).length;
  const shown = inOrder(w.queries, queries, (q) => q.query).map((q) => q.query);
  return (
    <div data-testid="steady">
      {w.suggested === null ? (
        <p data-testid="warmup-suggestion">No suggestion: {reasonFor(w.reason ?? 'no executions', kind)}.</p>
      ) : (
        <p data-testid="warmup-suggestion">
          Every restart is steady after <strong>{executionsText(w.suggested, kind)}</strong>. The design drops {designWarmup}
          {w.suggested > designWarmup ? `: too few, the first measured ${executionWord(kind, true)} are still warming up.` : w.suggested < designWarmup ? ': more than needed.' : ': just right.'}{' '}
          {w.suggested !== designWarmup ? (
            <button onClick={() => onApply(w.suggested!)} data-testid="apply-warmup">
              Set the design’s warm-up to {w.suggested}
            </button>
          ) : null}
        </p>
      )}
      <p className="small muted" data-testid="steady-method">
        Each restart of each {measureWord(kind)} is classified by its {w.method}. A cell is consistent when all its restarts reach the same class.
        {inconsistent ? ` ${inconsistent} cell and ${measureWord(kind)} pair${inconsistent === 1 ? ' is' : 's are'} inconsistent.` : ' Every cell is consistent.'}
      </p>
      <div style={{ overflowX: 'auto' }}>
        <table className="plan-table" style={TABLE_STYLE} data-testid="steady-table">
          <thead>
            <tr>
              <th style={{ textAlign: 'left' }}>cell</th>
              {shown.map((q) => (
                <th key={q} style={{ textAlign: 'left', whiteSpace: 'nowrap' }}>
                  {q}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {cells.map((cell) => (
              <tr key={cell}>
                <td style={{ whiteSpace: 'nowrap' }}>{cell}</td>
                {shown.map((q) => (
                  <td key={q} className="small" style={{ whiteSpace: 'nowrap' }}>
                    <Classes s={series.get(`${cell}\u0000${q}`)} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <td className="small muted">warm-up per {measureWord(kind)}</td>
              {shown.map((q) => {
                const wq = w.queries.find((x) => x.query === q)!;
                return (
                  <td key={q} className="small">
                    {wq.suggested === null ? <span className="muted" title={wq.reason && reasonFor(wq.reason, kind)}>n/a</span> : wq.suggested}
                  </td>
                );
              })}
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  );
}
