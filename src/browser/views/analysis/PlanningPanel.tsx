// Planning the next run: the minimum detectable effect against restarts (current design marked),
// restarts needed to see the target effect, the repetitions per restart worth their cost (Kalibera and
// Jones, costs measured from the journal), the total time, and one click to write it into the design.
// The table, the costs and the suggestion are stats/planner.ts planningTable, as `varlab plan` and the
// Markdown report give them.
import { useMemo } from 'react';
import type { ExportContext } from '../../../common/export/context.js';
import { mdeFigure } from '../../../common/figures/build.js';
import { PLAN_LIMITS } from '../../../common/stats/evidence.js';
import { planningTable, type Analysis } from '../../../common/stats/index.js';
import { FigurePlot } from '../export/FigurePlot.js';
import { fmtPct, NullNotes, Reasons, TABLE_STYLE } from './format.js';

interface Props {
  ctx: ExportContext;
  analysis: Analysis;
  onApply(restartsPerCell: number, repetitions: number): void;
}

export function PlanningPanel({ ctx, analysis, onApply }: Props) {
  const design = ctx.doc.design;
  const target = analysis.settings.targetEffectPct;
  const figure = useMemo(() => mdeFigure(ctx), [ctx]);
  const table = useMemo(() => planningTable(ctx.doc, analysis, target), [ctx.doc, analysis, target]);
  const plan = table.plan;
  const notes = new Reasons();
  const changed = plan.restartsPerCell !== null && (plan.restartsPerCell !== design.restartsPerCell || plan.repetitions !== design.workload.repetitions);
  return (
    <div data-testid="planning">
      <FigurePlot figure={figure} />
      <table className="plan-table" style={TABLE_STYLE} data-testid="planning-table">
        <thead>
          <tr>
            {table.columns.map((c) => (
              <th key={c.label} style={{ textAlign: c.align === 'l' ? 'left' : 'right' }}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r) => (
            <tr key={r.query}>
              {r.cells.map((c, i) => (
                <td key={table.columns[i].label} style={{ textAlign: table.columns[i].align === 'l' ? 'left' : 'right' }} data-testid={i === 1 ? 'planning-mde' : undefined}>
                  {c.value ?? <NotComputed reason={c.reason} notes={notes} where={r.query} />}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <NullNotes notes={notes} />
      <p className="small muted" data-testid="planning-pairing">
        {table.pairing}.
      </p>
      <p className="small muted" data-testid="planning-costs">
        {table.costs}
      </p>
      {plan.outOfReach ? (
        <div className="notice" data-testid="plan-out-of-reach">
          {plan.outOfReach.mdePct !== null && plan.outOfReach.mdePct <= target ? (
            // Past the restarts the planner plans for, yet within a day of cheap restarts: not "out of reach" and then resolvable.
            <p style={{ margin: 0 }}>
              <strong>
                A {target}% effect takes more than {PLAN_LIMITS.restarts.toLocaleString('en-US')} restarts per cell on this host
              </strong>{' '}
              at the measured between-restart CoV of <strong>{fmtPct(plan.outOfReach.covPct ?? 0)}</strong> ({plan.outOfReach.queries.join(', ')}), more than varlab plans for. A day of
              running ({plan.outOfReach.restartsPerDay} restarts per cell) would resolve about {fmtPct(plan.outOfReach.mdePct)}: bringing the between-restart CoV down is the cheaper way.
            </p>
          ) : (
            <p style={{ margin: 0 }}>
              <strong>A {target}% effect is out of reach on this host</strong> at the measured between-restart CoV of{' '}
              <strong>{fmtPct(plan.outOfReach.covPct ?? 0)}</strong> ({plan.outOfReach.queries.join(', ')}).{' '}
              {plan.outOfReach.mdePct !== null
                ? `In a day of running (${plan.outOfReach.restartsPerDay} restarts per cell) the smallest detectable effect is about ${fmtPct(plan.outOfReach.mdePct)}: set the target effect near that.`
                : 'Not even two restarts per cell fit in a day at the measured costs.'}
            </p>
          )}
          <p style={{ margin: '6px 0 0' }}>What makes restarts agree better (see the stability section for what your factors did):</p>
          <ul style={{ margin: '2px 0 0', paddingLeft: 18 }} data-testid="plan-reducers">
            {plan.outOfReach.reducers.map((r) => (
              <li key={r}>{r}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="notice" data-testid="plan-suggestion">
        <span>{table.suggestion}</span>{' '}
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

/** n/a with why, the reason gathered for the table's footnote (as format.tsx V does for numbers). */
function NotComputed({ reason, notes, where }: { reason?: string; notes: Reasons; where: string }) {
  const why = reason ?? 'not computed';
  notes.add(why, where);
  return (
    <span className="muted" title={why} data-null-reason={why}>
      n/a
    </span>
  );
}
