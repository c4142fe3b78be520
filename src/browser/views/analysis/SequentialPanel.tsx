// Stop when answered in the Analysis view (issue 21): for a run with design.stopping, the rule, the look
// at which it stopped and why, and each comparison's verdict with the two repeated intervals it is read
// from (valid at the look it stopped, unlike the fixed-sample interval above), each named with what it
// decides. The rule replayed on the file's results,
// host by host (stats/replay.ts stopsOf), as the Markdown report gives it, against the baseline chosen
// above when the rule can take it (ruleBaseline); where the run stopped stays the run's own.
import { useMemo } from 'react';
import type { ExperimentDoc } from '../../../common/experiment/types.js';
import { fmtEffect, fmtInterval } from '../../../common/export/format.js';
import { ruleBaseline, stopsOf } from '../../../common/stats/replay.js';
import { intervalNames, sequentialVerdictText } from '../../../common/stats/sequential.js';
import { TABLE_STYLE } from './format.js';
import { measureWord } from '../../../common/experiment/words.js';

export function SequentialPanel({ doc, baseline }: { doc: ExperimentDoc; baseline?: string | null }) {
  const rb = useMemo(() => ruleBaseline(doc, baseline), [doc, baseline]);
  const stops = useMemo(() => stopsOf(doc, rb.baseline), [doc, rb.baseline]);
  if (!stops.length) return null;
  return (
    <div data-testid="sequential">
      {!rb.asRun ? (
        <p className="notice" data-testid="sequential-baseline">
          Against <code>{rb.baseline}</code>, the baseline chosen above: the rule replayed on these results. The run took its looks against <code>{rb.runs}</code>, its first cell; where it
          stopped is the run&apos;s.
        </p>
      ) : rb.why ? (
        <p className="small muted" data-testid="sequential-baseline">
          Against <code>{rb.runs}</code>, the cell the run took its looks against: {rb.why}.
        </p>
      ) : null}
      {stops.map(({ host, check, stopped }) => {
        const r = check.result;
        const names = r ? intervalNames(r.levels, r.effect_pct) : null;
        return (
          <div key={host} data-testid="sequential-host">
            {host ? <h4>{host}</h4> : null}
            {!r ? (
              <p className="muted">{check.why}.</p>
            ) : (
              <>
                <p className="small muted">
                  {r.rule}; target ±{r.effect_pct} %, α {r.alpha} over all looks, at most {r.max_rounds} rounds, looks at rounds {r.schedule.join(', ')}.
                </p>
                <p data-testid="sequential-stop">
                  <strong>{stopped ? `The run stopped at round ${stopped.round}: ${stopped.because}.` : `The rule did not stop the run: ${r.stopped_because}.`}</strong>{' '}
                  {!rb.asRun ? `Against ${rb.baseline}: ${r.stopped_round === null ? r.stopped_because : `the rule would have stopped at round ${r.stopped_round}: ${r.stopped_because}`}. ` : ''}A comparison {names!.rule}.
                  Both are repeated confidence intervals, valid at whatever look the run stopped.
                </p>
                <table className="plan-table" style={TABLE_STYLE} data-testid="sequential-table">
                  <thead>
                    <tr>
                      <th style={{ textAlign: 'left' }}>cell</th>
                      <th style={{ textAlign: 'left' }}>{measureWord(doc.design.workload.kind)}</th>
                      <th style={{ textAlign: 'left' }}>verdict</th>
                      <th style={{ textAlign: 'right' }}>decided at round</th>
                      <th style={{ textAlign: 'right' }} title="The effect at the look that decided it (the table above has it over every round)">
                        effect at that round
                      </th>
                      <th style={{ textAlign: 'right' }} title="differs when it leaves out 0">
                        {names!.differs}
                      </th>
                      <th style={{ textAlign: 'right' }} title={`equivalent when it lies inside ±${r.effect_pct} %`}>
                        {names!.equivalent}
                      </th>
                      <th style={{ textAlign: 'left' }}>why</th>
                    </tr>
                  </thead>
                  <tbody>
                    {r.comparisons.map((c) => (
                      <tr key={`${c.cell}/${c.query}`} data-verdict={c.verdict}>
                        <td>{c.cell}</td>
                        <td>{c.query}</td>
                        <td>{c.verdict === 'differs' ? <strong>differs</strong> : sequentialVerdictText(c.verdict, r.effect_pct)}</td>
                        <td style={{ textAlign: 'right' }}>{c.decided_round ?? '—'}</td>
                        <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{fmtEffect(c.effect_pct, '—')}</td>
                        <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{fmtInterval(c.rci_low_pct, c.rci_high_pct, '—')}</td>
                        <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{fmtInterval(c.eq_low_pct, c.eq_high_pct, '—')}</td>
                        <td className="small">{c.because}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </>
            )}
          </div>
        );
      })}
    </div>
  );
}
