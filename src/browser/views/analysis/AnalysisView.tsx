// The analysis of an experiment's results: is this 1% real? The restart is the unit of evidence.
// Configurations table, bimodal starts, warm-up from the data, one query in detail, stability per cell
// and factor level, comparisons with a baseline, and planning. The numbers come from a Web Worker.
// Mount: <AnalysisView doc={doc} /> with the open experiment (it needs results).
import { useMemo, useRef, useState, type ReactNode } from 'react';
import type { ExperimentDoc } from '../../../common/experiment/types.js';
import { DEFAULTS, ruleBaseline, targetEffectOf, type Adjustment } from '../../../common/stats/index.js';
import { cellsWithResults } from '../../../common/export/context.js';
import { timerLines } from '../../../common/timer-note.js';
import { dataSetLines } from '../../../common/dbt3/words.js';
import { NumberField } from '../../components/NumberField.js';
import { AdjustmentField } from '../../components/AdjustmentField.js';
import { useApp } from '../../store/index.js';
import { BimodalPanel } from './BimodalPanel.js';
import { SequentialPanel } from './SequentialPanel.js';
import { ComparisonsPanel } from './ComparisonsPanel.js';
import { ConfigurationsTable } from './ConfigurationsTable.js';
import { HostsPanel } from './HostsPanel.js';
import { contextFor } from './context.js';
import { PlanningPanel } from './PlanningPanel.js';
import { QueryPanel } from './QueryPanel.js';
import { StabilityPanel } from './StabilityPanel.js';
import { SteadyPanel } from './SteadyPanel.js';
import { hasIntervals, IntervalsPanel } from './IntervalsPanel.js';
import { hasStepTimes, StepsPanel } from './StepsPanel.js';
import { useAnalysis } from './useAnalysis.js';
import { hasNoise, NoisePanel } from './NoisePanel.js';
import { useQuietSteps } from './useQuietSteps.js';
import { ExportBar } from '../export/ExportBar.js';
import { executionWord, measureWord } from '../../../common/experiment/words.js';

function Section({ title, children, testid }: { title: string; children: ReactNode; testid?: string }) {
  return (
    <section className="panel" data-testid={testid} style={{ marginBottom: 16 }}>
      <h3 style={{ marginTop: 0 }}>{title}</h3>
      {children}
    </section>
  );
}

/** Write design changes through the store, so they can be undone and mark the file unsaved. */
function editDesign(fn: (doc: ExperimentDoc) => ExperimentDoc, key: string) {
  useApp.getState().edit(fn, key);
}

/** Warm-up n, keeping the number of measured repetitions as it was. */
function applyWarmup(n: number) {
  editDesign((d) => {
    const w = d.design.workload;
    const measured = Math.max(1, w.repetitions - w.warmup);
    return { ...d, design: { ...d.design, workload: { ...w, warmup: n, repetitions: n + measured } } };
  }, 'analysis-warmup');
}

function applyPlan(restartsPerCell: number, repetitions: number) {
  editDesign((d) => ({ ...d, design: { ...d.design, restartsPerCell, workload: { ...d.design.workload, repetitions } } }), 'analysis-plan');
}

/** Sections rendered after the first paint, one per step: stability, comparisons, planning. */
const BELOW_SECTIONS = 3;

export function AnalysisView({ doc }: { doc: ExperimentDoc }) {
  const designWarmup = doc.design.workload.warmup;
  const [warmup, setWarmup] = useState<number | null>(null);
  // The target effect: the run's rule's ±E when the design has one (targetEffectOf), until the reader sets another.
  const [targetChoice, setTarget] = useState<number | null>(null);
  const [alpha, setAlpha] = useState<number>(DEFAULTS.alpha);
  const [power, setPower] = useState<number>(DEFAULTS.power);
  const [adjustment, setAdjustment] = useState<Adjustment>(DEFAULTS.adjustment);
  const [acrossRuns, setAcrossRuns] = useState<boolean>(DEFAULTS.acrossRuns);
  const [baselineChoice, setBaseline] = useState<string | null>(null);
  const [queryChoice, setQuery] = useState<string | null>(null);
  const [cellChoice, setCell] = useState<string | null>(null);

  // Cells with results, in plan order (the first is the default baseline), each with its host when there are several.
  const withResults = useMemo(() => cellsWithResults(doc), [doc]);
  const baseline = baselineChoice !== null && withResults.includes(baselineChoice) ? baselineChoice : withResults[0] ?? null;
  const usedWarmup = warmup ?? designWarmup;
  const designTarget = targetEffectOf(doc.design);
  const target = targetChoice ?? designTarget;
  const options = { warmup: usedWarmup, alpha, power, targetEffectPct: target, baseline: baseline ?? undefined, adjustment, acrossRuns };
  // A grown design (run --missing) has cells of different runs: whether to compare them is the reader's to choose.
  const grown = useMemo(() => doc.results?.restarts.some((r) => (r.part ?? 1) > 1) ?? false, [doc]);
  const { analysis, error, busy, where } = useAnalysis(doc, options);
  const ctx = useMemo(() => (analysis ? contextFor(doc, analysis) : null), [doc, analysis]);
  const timer = useMemo(() => timerLines(doc), [doc]);
  const dataSet = useMemo(() => dataSetLines(doc.design, doc.results), [doc]);
  // A command's figures are its metric's, measured by runs of the command (words.ts), not queries and executions.
  const kind = doc.design.workload.kind;
  // The sections below the query's are rendered after the first paint, one at a time while the reader
  // is not using the page (useQuietSteps.ts): their tables and figures (hundreds of comparison rows at
  // 22 queries) were a third of the first render, for what is out of sight below.
  const more = useRef<HTMLParagraphElement>(null);
  const below = useQuietSteps(BELOW_SECTIONS, analysis !== null, more);

  if (!doc.results?.restarts.some((r) => r.status === 'ok')) {
    return (
      <div className="panel" data-testid="analysis-empty">
        <h3>Analysis</h3>
        <p>
          {doc.name} has no completed restarts yet. Run the experiment, or open a file with results; a tidy CSV from other tools can be analysed with{' '}
          <code>varlab analyze data.csv</code>.
        </p>
      </div>
    );
  }

  const queries = ctx?.queries ?? [];
  const query = queryChoice !== null && queries.includes(queryChoice) ? queryChoice : queries[0];
  const cells = ctx?.cells ?? [];
  const cell = cellChoice !== null && cells.includes(cellChoice) ? cellChoice : cells[0];

  return (
    <div className="analysis-view" data-testid="analysis-view" aria-busy={busy}>
      <div className="panel" style={{ marginBottom: 16 }}>
        <div className="row" style={{ alignItems: 'flex-end', flexWrap: 'wrap', gap: 12 }}>
          <NumberField
            label="warm-up dropped"
            value={usedWarmup}
            min={0}
            integer
            onChange={setWarmup}
            help={`Repetitions 1..W of every restart are left out (the design says ${designWarmup})`}
            testid="analysis-warmup"
          />
          <NumberField
            label="target effect"
            unit="%"
            value={target}
            min={0.001}
            max={1000}
            integer={false}
            onChange={setTarget}
            help={doc.design.stopping ? `The effect that matters: the run's stop-when-answered rule asked about ±${designTarget} %` : undefined}
            testid="analysis-target"
          />
          <NumberField label="α" value={alpha} min={0.0001} max={0.5} integer={false} onChange={setAlpha} help="Significance level of the tests; intervals are at 1 − α" testid="analysis-alpha" />
          <NumberField label="power" value={power} min={0.5} max={0.9999} integer={false} onChange={setPower} testid="analysis-power" />
          <label className="field">
            <span>baseline cell</span>
            <select value={baseline ?? ''} onChange={(e) => setBaseline(e.target.value)} data-testid="analysis-baseline">
              {withResults.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </select>
          </label>
          <AdjustmentField value={adjustment} onChange={setAdjustment} testid="analysis-adjustment" />
          {grown ? (
            <label className="field" title="Cells that no run measured together: compared unpaired, the drift between the runs counted in the difference. Unticked, each cell is compared only with cells of its own run.">
              <span>cells of different runs</span>
              <span>
                <input type="checkbox" checked={acrossRuns} onChange={(e) => setAcrossRuns(e.target.checked)} data-testid="analysis-across-runs" /> compare across runs
              </span>
            </label>
          ) : null}
          <span className="small muted" data-testid="analysis-status">
            {busy ? 'analysing…' : where === 'inline' ? 'analysed (no worker available: on the UI thread)' : 'analysed'}
          </span>
        </div>
        {error ? <p className="problem">The analysis failed: {error}</p> : null}
        {/* The data set measured on (DBT-3): what the data step loaded, as the report's "Data" line says it. */}
        {dataSet.map((line) => (
          <p key={line} className="small" data-testid="analysis-data-set">
            Data: {line}
          </p>
        ))}
        {/* Which timer measured, when it is not the exact one: the report's "Timer" lines. */}
        {timer.map((line) => (
          <p key={line} className="small" role="note" data-testid="analysis-timer-note">
            ⚠ {line}
          </p>
        ))}
      </div>
      {/* The export's figures and tables use the export's defaults for the target effect (the design's, targetEffectOf) and power: the worker's analysis serves it when the view's are the same. */}
      <ExportBar doc={doc} warmup={usedWarmup} baseline={baseline ?? undefined} alpha={alpha} adjustment={adjustment} acrossRuns={acrossRuns} context={target === designTarget && power === DEFAULTS.power ? (busy ? null : ctx) : undefined} />

      {analysis && ctx ? (
        <>
          <Section title="Configurations: spread between the best and the worst restart" testid="section-configurations">
            <ConfigurationsTable analysis={analysis} cells={ctx.cells} kind={kind} />
          </Section>

          {hasNoise(doc.results?.restarts) ? (
            <Section title="The host's noise over each measured window, beside the spread" testid="section-noise">
              <NoisePanel analysis={analysis} restarts={doc.results!.restarts} cells={ctx.cells} />
            </Section>
          ) : null}

          {analysis.hosts ? (
            <Section title="Hosts: spread between hosts, and factors that act differently on them" testid="section-hosts">
              <HostsPanel analysis={analysis} kind={kind} />
            </Section>
          ) : null}

          <Section title="Bimodal starts" testid="section-bimodal">
            <BimodalPanel analysis={analysis} />
          </Section>

          <Section title="Steady state per restart, and the warm-up from the data" testid="section-warmup">
            <SteadyPanel analysis={analysis} cells={ctx.cells} queries={queries} designWarmup={designWarmup} onApply={applyWarmup} kind={kind} />
          </Section>

          {hasIntervals(doc.results?.restarts) ? (
            <Section title="Steady state on the interval lines (throughput over each run)" testid="section-interval-steady">
              <IntervalsPanel restarts={doc.results!.restarts} warmup={usedWarmup} />
            </Section>
          ) : null}

          {hasStepTimes(doc.results?.restarts) ? (
            <Section title="Where a restart's time goes" testid="section-restart-steps">
              <StepsPanel restarts={doc.results!.restarts} />
            </Section>
          ) : null}

          {query !== undefined && cell !== undefined ? (
            <Section title={`One ${measureWord(kind)}: every ${executionWord(kind)} per restart, beside the restart means`} testid="section-query">
              <label className="field">
                <span>{measureWord(kind)}</span>
                <select value={query} onChange={(e) => setQuery(e.target.value)} data-testid="analysis-query">
                  {queries.map((q) => (
                    <option key={q} value={q}>
                      {q}
                    </option>
                  ))}
                </select>
              </label>
              <QueryPanel ctx={ctx} analysis={analysis} query={query} cell={cell} onCell={setCell} onApplyWarmup={applyWarmup} designWarmup={designWarmup} />
            </Section>
          ) : null}

          {below >= 1 ? (
            <Section title="Stability per cell and per factor level" testid="section-stability">
              <StabilityPanel ctx={ctx} />
            </Section>
          ) : null}
          {below >= 2 ? (
            <Section title={`Comparisons with ${baseline ?? 'a baseline'}`} testid="section-comparisons">
              <ComparisonsPanel ctx={ctx} analysis={analysis} />
            </Section>
          ) : null}
          {below >= 2 && ctx.doc.design.stopping && ctx.doc.results ? (
            <Section title={`Stop when answered: the rule's verdicts against ${ruleBaseline(ctx.doc, baseline).baseline || 'the first cell'}`} testid="section-sequential">
              <SequentialPanel doc={ctx.doc} baseline={baseline} />
            </Section>
          ) : null}
          {below >= 3 ? (
            <Section title="Planning the next run" testid="section-planning">
              <PlanningPanel ctx={ctx} analysis={analysis} onApply={applyPlan} />
            </Section>
          ) : (
            <p className="muted" data-testid="analysis-more" ref={more}>
              {['Stability, comparisons and planning…', 'Comparisons and planning…', 'Planning…'][below]}
            </p>
          )}
        </>
      ) : busy ? (
        <p className="muted">Analysing {doc.name}…</p>
      ) : null}
    </div>
  );
}
