// Planning the next run: the minimum detectable effect against restarts (current design marked),
// restarts needed to see the target effect, the repetitions per restart worth their cost (Kalibera and
// Jones, costs measured from the journal), the total time, and one click to write it into the design.
import { useMemo } from 'react';
import type { ExportContext } from '../../../common/export/context.js';
import { mdeFigure } from '../../../common/figures/build.js';
import { formatDuration } from '../../../common/plan.js';
import { MDE_LABELS, suggestPlan, type Analysis } from '../../../common/stats/index.js';
import { FigurePlot } from '../export/FigurePlot.js';
import { fmtPct, NullNotes, Reasons, V, TABLE_STYLE } from './format.js';

interface Props {
  ctx: ExportContext;
  analysis: Analysis;
  onApply(restartsPerCell: number, repetitions: number): void;
}

export function PlanningPanel({ ctx, analysis, onApply }: Props) {
  const design = ctx.doc.design;
  const target = analysis.settings.targetEffectPct;
  const figure = useMemo(() => mdeFigure(ctx), [ctx]);
  const plan = useMemo(() => suggestPlan(ctx.doc, analysis, target), [ctx.doc, analysis, target]);
  const notes = new Reasons();
  const changed = plan.restartsPerCell !== null && (plan.restartsPerCell !== design.restartsPerCell || plan.repetitions !== design.workload.repetitions);
  return (
    <div data-testid="planning">
      <FigurePlot figure={figure} />
      <table className="plan-table" style={TABLE_STYLE} data-testid="planning-table">
        <thead>
          <tr>
            <th style={{ textAlign: 'left' }}>query</th>
            <th style={{ textAlign: 'right' }}>MDE now ({MDE_LABELS.pooled})</th>
            <th style={{ textAlign: 'right' }}>restarts per cell</th>
            <th style={{ textAlign: 'right' }}>between-restart CoV (pooled)</th>
            <th style={{ textAlign: 'right' }}>restarts needed for {target}%</th>
            <th style={{ textAlign: 'right' }}>optimal repetitions per restart</th>
          </tr>
        </thead>
        <tbody>
          {plan.queries.map((q) => (
            <tr key={q.query}>
              <td>{q.query}</td>
              <td style={{ textAlign: 'right' }} data-testid="planning-mde">
                <V value={q.mde.pct} reason={q.mde.reason} fmt={fmtPct} notes={notes} where={q.query} />
              </td>
              <td style={{ textAlign: 'right' }}>{q.mde.pct === null ? '' : q.mde.restarts}</td>
              <td style={{ textAlign: 'right' }}>
                <V value={q.mde.cov_pct} reason={q.mde.reason} fmt={fmtPct} notes={notes} where={q.query} />
              </td>
              <td style={{ textAlign: 'right' }}>
                <V value={q.restartsNeeded} reason={q.reasons.restartsNeeded} fmt={String} notes={notes} where={q.query} />
              </td>
              <td style={{ textAlign: 'right' }}>
                <V value={q.optimalRepetitions} reason={q.reasons.optimalRepetitions} fmt={String} notes={notes} where={q.query} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <NullNotes notes={notes} />
      <p className="small muted">
        Costs {plan.costs.source === 'journal' ? 'measured from the results' : 'from the design’s estimates'}: a restart {plan.costs.restartSeconds.toFixed(1)} s beyond its
        executions, an execution {(plan.costs.executionSeconds * 1000).toPrecision(3)} ms. Optimal repetitions: ⌈√((restart cost / execution cost) · σ²within / σ²between)⌉
        (Kalibera and Jones), the median over queries is suggested.
      </p>
      {plan.outOfReach ? (
        <div className="notice" data-testid="plan-out-of-reach">
          <p style={{ margin: 0 }}>
            <strong>A {target}% effect is out of reach on this host</strong> at the measured between-restart CoV of{' '}
            <strong>{fmtPct(plan.outOfReach.covPct ?? 0)}</strong> ({plan.outOfReach.queries.join(', ')}).{' '}
            {plan.outOfReach.mdePct !== null
              ? `In a day of running (${plan.outOfReach.restartsPerDay} restarts per cell) the smallest detectable effect is about ${fmtPct(plan.outOfReach.mdePct)}: set the target effect near that.`
              : 'Not even two restarts per cell fit in a day at the measured costs.'}
          </p>
          <p style={{ margin: '6px 0 0' }}>What makes restarts agree better (see the stability section for what your factors did):</p>
          <ul style={{ margin: '2px 0 0', paddingLeft: 18 }} data-testid="plan-reducers">
            {plan.outOfReach.reducers.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="notice" data-testid="plan-suggestion">
        {plan.restartsPerCell === null ? (
          <span>No suggestion: {plan.reasons.join('; ') || 'not enough restarts measured'}.</span>
        ) : (
          <span>
            To see a {target}% change in every query: <strong>{plan.restartsPerCell} restarts per cell</strong> and{' '}
            <strong>{plan.repetitions} repetitions per restart</strong> ({analysis.settings.warmup} warm-up
            {plan.measuredRepetitions !== null ? ` + ${plan.measuredRepetitions} measured` : ', repetitions kept as they are'}), about{' '}
            <strong>{plan.seconds === null ? 'n/a' : formatDuration(plan.seconds)}</strong> in all (the current design: {design.restartsPerCell} × {design.workload.repetitions},
            about {formatDuration(plan.currentSeconds)}).
            {plan.reasons.length ? <span className="muted"> {plan.reasons.join('; ')}.</span> : null}
          </span>
        )}{' '}
        {changed ? (
          <button onClick={() => onApply(plan.restartsPerCell!, plan.repetitions)} data-testid="apply-plan">
            Write into the design
          </button>
        ) : plan.restartsPerCell !== null ? (
          <span className="muted">The design already matches.</span>
        ) : null}
      </div>
    </div>
  );
}
