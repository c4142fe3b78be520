// Every cell against the chosen baseline, per query: the ratio of restart means as a change in percent,
// its (1 − α) interval on the log scale, the raw and the adjusted p-value (one family: every comparison
// shown here), and the verdict. An inconclusive comparison says what this design could have seen.
import { useMemo } from 'react';
import type { ExportContext } from '../../../common/export/context.js';
import { comparisonsFigure } from '../../../common/figures/build.js';
import { ADJUSTMENT_NAMES, familySize, ruleVerdictsFor, type Analysis } from '../../../common/stats/index.js';
import { ruleVerdictLabel, type SequentialComparison } from '../../../common/stats/sequential.js';
import { FigurePlot } from '../export/FigurePlot.js';
import { fewRestartsOf } from '../../../common/export/context.js';
import { effectConvention, fmtEffect, fmtInterval, fmtP, fmtVerdict, levelPct } from '../../../common/export/format.js';
import { NullNotes, Reasons, V, TABLE_STYLE } from './format.js';
import { grownText, pairingText } from '../../../common/export/analysis-output.js';
import { measureWord } from '../../../common/experiment/words.js';

export function ComparisonsPanel({ ctx, analysis }: { ctx: ExportContext; analysis: Analysis }) {
  const figure = useMemo(() => comparisonsFigure(ctx), [ctx]);
  // A run that took the rule's looks (stop when answered): the rule's verdict beside each fixed-sample row it also decided.
  const rule = useMemo(() => ruleVerdictsFor(ctx.doc, analysis.settings.baseline), [ctx.doc, analysis.settings.baseline]);
  if (!analysis.settings.baseline) return <p className="muted">Choose a baseline cell above to compare every other cell with it.</p>;
  if (!analysis.comparisons.length) return <p className="muted">Only the baseline has results: nothing to compare.</p>;
  const notes = new Reasons();
  // Cells in plan order, queries in the workload's order: as the plots list them.
  const cellAt = new Map(ctx.cells.map((c, i) => [c, i]));
  const queryAt = new Map(ctx.queries.map((q, i) => [q, i]));
  const rows = [...analysis.comparisons].sort((x, y) => (cellAt.get(x.cell) ?? 0) - (cellAt.get(y.cell) ?? 0) || (queryAt.get(x.query) ?? 0) - (queryAt.get(y.query) ?? 0));
  const few = fewRestartsOf(analysis);
  const { alpha, adjustment } = analysis.settings;
  const level = levelPct(alpha);
  // The paired columns only when some comparison is paired (an unpaired-only table stays as it was).
  const paired = analysis.comparisons.some((c) => c.pairing === 'paired');
  return (
    <div data-testid="comparisons">
      <p className="small" data-testid="effect-convention">
        Baseline: <code>{analysis.settings.baseline}</code>. {effectConvention(ctx.unit, ctx.doc.design.workload.kind === 'command' ? ctx.doc.design.workload.command?.higherIsBetter : undefined)}.
      </p>
      <p className="small muted" data-testid="comparison-method">
        Effect: the {analysis.methods.comparison}, at {level}%. Adjusted p: {ADJUSTMENT_NAMES[adjustment]} over the {familySize(analysis.comparisons)} comparisons in this table with a p-value.
      </p>
      {analysis.summary ? (
        <p data-testid="comparison-summary">
          {rule ? <span className="muted">Fixed-sample, not valid under the rule: {analysis.summary}.</span> : <strong>{analysis.summary}.</strong>}
        </p>
      ) : null}
      <p className="small" data-testid="comparison-pairing">
        {pairingText(analysis)}.
      </p>
      {analysis.grown ? (
        <p className="notice" data-testid="comparison-grown">
          {grownText(analysis.grown)}
        </p>
      ) : null}
      {rule ? (
        <p className="notice" data-testid="comparison-looks">
          <strong>Not valid under the stopping rule:</strong> the run looked at its results as they came (stop when answered{ctx.doc.results?.stopped?.length ? `, and stopped at round ${ctx.doc.results.stopped.map((s) => s.round).join(', ')}` : ''}), and this table&apos;s
          intervals, p-values and verdicts are fixed-sample ones that do not allow for the looks: they overstate the evidence. The rule&apos;s verdict is beside each row it decided; its
          repeated intervals, which allow for the looks, are under <em>Stop when answered</em> below.
        </p>
      ) : null}
      {few ? (
        <p className="notice" data-testid="few-restarts">
          Note: {few}.
        </p>
      ) : null}
      {figure ? <FigurePlot figure={figure} /> : null}
      {/* Wider than the view at 1000 px: it scrolls in its own box, not the whole view with it. */}
      <div style={{ overflowX: 'auto' }}>
        <table className="plan-table" style={TABLE_STYLE} data-testid="comparisons-table">
          <thead>
            <tr>
              <th style={{ textAlign: 'left' }}>cell</th>
              <th style={{ textAlign: 'left' }}>{measureWord(ctx.doc.design.workload.kind)}</th>
              <th style={{ textAlign: 'right' }}>effect</th>
              <th style={{ textAlign: 'right' }}>{level}% interval</th>
              <th style={{ textAlign: 'right' }}>p</th>
              <th style={{ textAlign: 'right' }}>adjusted p</th>
              <th style={{ textAlign: 'left' }}>{rule ? 'fixed-sample verdict (not valid under the rule)' : 'verdict'}</th>
              {rule ? (
                <th style={{ textAlign: 'left' }} title="the group-sequential rule's verdict, valid at the look the run stopped">
                  the rule&apos;s verdict
                </th>
              ) : null}
              {paired ? (
                <>
                  <th style={{ textAlign: 'left' }} title="paired: within-round differences of log restart means (paired t); unpaired: Welch on restart means">
                    pairing
                  </th>
                  <th style={{ textAlign: 'right' }}>unpaired (Welch) {level}% interval</th>
                  <th style={{ textAlign: 'right' }} title="variance of the paired estimate over the unpaired one's: below 1, pairing removed drift both cells shared">
                    variance paired/unpaired
                  </th>
                </>
              ) : null}
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => {
              const where = `${c.cell} / ${c.query}`;
              const r = c.null_reasons ?? {};
              return (
                <tr key={where} data-verdict={c.verdict ?? 'none'}>
                  <td>{c.cell}</td>
                  <td>{c.query}</td>
                  <td style={{ textAlign: 'right' }}><V value={c.effect_pct} reason={r.effect_pct} fmt={(x) => fmtEffect(x)} notes={notes} where={where} /></td>
                  <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>
                    {c.ci_low_pct === null ? <V value={null} reason={r.ci_low_pct} notes={notes} where={where} /> : fmtInterval(c.ci_low_pct, c.ci_high_pct)}
                  </td>
                  <td style={{ textAlign: 'right' }}><V value={c.p_value} reason={r.p_value} fmt={(p) => fmtP(p)} notes={notes} where={where} /></td>
                  <td style={{ textAlign: 'right' }}><V value={c.p_adjusted} reason={r.p_adjusted} fmt={(p) => fmtP(p)} notes={notes} where={where} /></td>
                  <td className="small">
                    {rule ? <span className="muted" data-testid="comparison-fixed-verdict">{c.verdict ? fmtVerdict(c) : ''}</span> : c.verdict === 'differs' ? <strong>differs</strong> : c.verdict ? <span className="muted">{fmtVerdict(c)}</span> : ''}
                  </td>
                  {rule ? <RuleVerdict c={rule.get(`${c.cell}\u0000${c.query}`)} effectPct={ctx.doc.design.stopping!.effect} /> : null}
                  {paired ? (
                    <>
                      <td className="small" title={c.pairing_reason} data-testid="comparison-pairing-cell">
                        {c.pairing}
                      </td>
                      <td style={{ textAlign: 'right', whiteSpace: 'nowrap' }}>{fmtInterval(c.unpaired.ci_low_pct, c.unpaired.ci_high_pct, '—')}</td>
                      <td style={{ textAlign: 'right' }}>{c.variance_ratio === null ? '—' : c.variance_ratio.toFixed(2)}</td>
                    </>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <NullNotes notes={notes} />
    </div>
  );
}

/** The rule's verdict for one row of the fixed-sample table: in bold when it says "differs", with the round it was decided at. */
function RuleVerdict({ c, effectPct }: { c: SequentialComparison | undefined; effectPct: number }) {
  if (!c) {
    return (
      <td className="small muted" title="the rule compares each host's cells with that host's baseline" data-testid="comparison-rule-verdict">
        —
      </td>
    );
  }
  const text = ruleVerdictLabel(c, effectPct);
  return (
    <td className="small" title={c.because} data-testid="comparison-rule-verdict">
      {c.verdict === 'differs' ? <strong>{text}</strong> : text}
    </td>
  );
}
