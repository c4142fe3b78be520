// The expanded run plan: one row per scheduled restart, in the order they will run, with the
// estimated duration of the whole plan: at the costs measured in the file's own run when it has one
// ("from the run of DATE", stats/planner.ts learnedEstimate, as `varlab plan` says), else the design's estimates.
import { useMemo } from 'react';
import { buildPlan, expandCells, formatDuration, formatShortDuration } from '../../../common/plan.js';
import { executionsText } from '../../../common/experiment/words.js';
import { learnedEstimate } from '../../../common/stats/planner.js';
import { useApp } from '../../store/index.js';

/** Enough rows to read the pattern; a plan of thousands of restarts is summarized below. */
const MAX_ROWS = 2000;

const ORDER_TEXT = { random: 'randomized', interleaved: 'interleaved', blocked: 'blocked' } as const;

export function PlanView() {
  const doc = useApp((s) => s.doc!);
  const design = doc.design;
  const setView = useApp((s) => s.setView);
  const plan = useMemo(() => buildPlan(design), [design]);
  const learned = useMemo(() => learnedEstimate(doc, plan.length), [doc, plan]);
  const estimate = learned.estimate;
  // Cells numbered as in the grid (row by row), so the rotation of the order is easy to see.
  const cellNumber = useMemo(() => new Map(expandCells(design).map((c, i) => [c.id, i + 1])), [design]);
  const keys = design.factors.map((f) => (f.tunable === 'variable' && f.name ? f.name : f.tunable));
  return (
    <div className="plan" data-testid="plan">
      <div className="plan-summary">
        <span data-testid="plan-count" title={design.stopping ? 'Stop when answered: the run stops at the look that answers, at most this many' : undefined}>
          {design.stopping ? 'at most ' : ''}
          {plan.length} restarts
        </span>
        <span>
          {ORDER_TEXT[design.order]} order{design.order === 'random' ? `, seed ${design.seed}` : ''}
        </span>
        <span>{executionsText(estimate.executions, design.workload.kind)}</span>
        <span>{formatShortDuration(estimate.perRestartSeconds)} per restart</span>
        <span data-testid="plan-estimate">
          estimated <strong>{formatDuration(estimate.seconds)}</strong> <span className="muted">(costs {learned.basis})</span>
        </span>
        <button className="link" onClick={() => setView('design')}>
          change the design
        </button>
      </div>
      {design.order === 'blocked' && (
        <p className="warning" data-testid="blocked-warning">
          ⚠ Blocked order: drift over time will look like an effect of the cell.
        </p>
      )}
      <div className="table-scroll">
        <table className="data plan-table">
          <thead>
            <tr>
              <th className="num">Restart</th>
              <th className="num">Round</th>
              <th className="num" title="The cell's number in the grid, counted row by row">Cell</th>
              {keys.map((k) => (
                <th key={k}>{k}</th>
              ))}
              <th className="num">Of cell</th>
              <th>Queries</th>
            </tr>
          </thead>
          <tbody>
            {plan.slice(0, MAX_ROWS).map((r) => {
              const levels = r.levels;
              return (
                <tr key={r.seq} data-testid="plan-row" data-cell={r.cell} data-round={r.round} className={r.round % 2 ? 'odd-round' : ''}>
                  <td className="num">{r.seq}</td>
                  <td className="num">{r.round}</td>
                  <td className="num cell-no">{cellNumber.get(r.cell)}</td>
                  {keys.map((k) => (
                    <td key={k} className={`level level-${levels[k]}`}>
                      {levels[k]}
                    </td>
                  ))}
                  <td className="num">{r.restartOfCell}</td>
                  <td className="queries" title={r.queries.join('\n')}>
                    {r.queries.join(', ')}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
        {plan.length > MAX_ROWS && <p className="muted">… and {plan.length - MAX_ROWS} more restarts.</p>}
      </div>
    </div>
  );
}
