// Steady state on a benchmark command's interval lines (sysbench --report-interval), beside the steady
// state of its runs (SteadyPanel): each restart's interval tps, its runs end to end, classified flat,
// warm-up, slowdown or no steady state; per cell, the intervals to skip; each restart's steady tps
// beside its run tps (what the comparisons use). The same words as `varlab analyze` and the report.
import { useMemo } from 'react';
import type { RestartResult } from '../../../common/experiment/types.js';
import { INTERVAL_COLUMNS, intervalCellText, intervalRestartRow, intervalsHeading } from '../../../common/export/analysis-output.js';
import { intervalSteady } from '../../../common/stats/intervals.js';
import { STEADY_METHOD } from '../../../common/stats/steady.js';
import { TABLE_STYLE } from './format.js';
import { executionWord } from '../../../common/experiment/words.js';

/** Restarts listed; the rest are counted (the CSV export has every interval). */
const ROWS = 100;

/** Whether any restart of these has interval lines (the section is shown only then). */
export function hasIntervals(restarts: readonly RestartResult[] | undefined): boolean {
  return !!restarts?.some((r) => r.intervals?.length);
}

export function IntervalsPanel({ restarts, warmup }: { restarts: readonly RestartResult[]; warmup: number }) {
  const s = useMemo(() => intervalSteady(restarts, warmup), [restarts, warmup]);
  if (!s) return null;
  const shown = s.restarts.slice(0, ROWS);
  return (
    <div data-testid="interval-steady">
      <p data-testid="interval-steady-heading">{intervalsHeading(s)}.</p>
      <ul data-testid="interval-steady-cells">
        {s.cells.map((c) => (
          <li key={c.cell} data-consistent={String(c.consistent)}>
            <code>{c.cell}</code>: {intervalCellText(c)}
          </li>
        ))}
      </ul>
      <p className="small muted" data-testid="interval-steady-method">
        Each restart&apos;s interval tps, its runs end to end in the order printed, is classified as the {executionWord('command', true)} are: {STEADY_METHOD}. The steady tps is the mean of the intervals from the steady state on; the run tps, the
        mean of the runs&apos; own figures after the {warmup} warm-up run{warmup === 1 ? '' : 's'}, is what the comparisons use.
      </p>
      <div style={{ overflowX: 'auto' }}>
        <table className="plan-table" style={TABLE_STYLE} data-testid="interval-steady-table">
          <thead>
            <tr>
              {INTERVAL_COLUMNS.map((h, i) => (
                <th key={h} style={{ textAlign: i === 1 || i === 3 ? 'left' : 'right', whiteSpace: 'nowrap' }}>
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr key={r.seq}>
                {intervalRestartRow(r).map((v, i) => (
                  <td key={i} style={{ textAlign: i === 1 || i === 3 ? 'left' : 'right', whiteSpace: 'nowrap' }}>
                    {v}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {s.restarts.length > shown.length ? (
        <p className="small muted">
          … and {s.restarts.length - shown.length} more restarts (<code>varlab analyze --json</code> and the CSV export&apos;s intervals.csv have every one).
        </p>
      ) : null}
    </div>
  );
}
