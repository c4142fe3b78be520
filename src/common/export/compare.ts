// Comparing experiments: the same design (or at least the same queries) run in two or more files, for
// example on two MySQL versions or two hosts. Each file is analysed on its own; the comparison uses
// restart means across files with the statistics engine's ratio comparison, adjusted as one family
// over every comparison of the call, so the restart stays the unit of evidence and the numbers agree
// with `varlab analyze`.
import type { ExperimentDoc } from '../experiment/types.js';
import { ADJUSTMENT_NAMES, adjustComparisons, analyze, compare, COMPARISON_METHOD, DEFAULTS, findCell, findRestarts, tidyFromExperiment, type Adjustment, type Comparison, type RestartSummary } from '../stats/index.js';
import { byCodePoint } from '../stats/tidy.js';
import { captionLine, hostLine, inPlanOrder, resultsDate } from './context.js';
import { effectConvention, fewRestartsNote, fmtEffect, fmtInterval, fmtP, fmtPctValue, fmtVerdict, levelPct, textTable } from './format.js';

export interface CompareInput {
  /** A short name for the file, unique among the inputs (its base name, usually). */
  label: string;
  doc: ExperimentDoc;
}

export interface CompareOptions {
  /** The label of the file the others are compared with; the first file when absent. */
  baseline?: string;
  /** Executions dropped per restart; each file's own design warm-up when absent. */
  warmup?: number;
  /** Significance level of the tests and 1 − the level of the intervals. Default 0.05. */
  alpha?: number;
  /** How the p-values of all comparisons are adjusted together. Default Holm. */
  adjustment?: Adjustment;
}

export interface CompareFile {
  label: string;
  name: string;
  host: string;
  date: string | null;
  caption: string;
  restarts: number;
  warmup: number;
}

export interface CompareConfiguration {
  file: string;
  cell: string;
  n_restarts: number;
  spread_avg_pct: number | null;
  spread_max_pct: number | null;
  /** Mean over queries of the between-restart coefficient of variation. */
  between_cov_pct: number | null;
}

export interface FileComparison extends Omit<Comparison, 'cell' | 'baseline'> {
  file: string;
  baseline_file: string;
  cell: string;
}

export interface ExperimentsComparison {
  baseline: string;
  alpha: number;
  adjustment: Adjustment;
  /** The comparison method, named. */
  method: string;
  /** `k of m comparisons differ after Holm adjustment (α = 0.05)`. */
  summary: string;
  files: CompareFile[];
  /** Queries every file has: the ones compared. */
  queries: string[];
  /** Queries only some files have, with the files that lack them. */
  skippedQueries: { query: string; missingIn: string[] }[];
  configurations: CompareConfiguration[];
  comparisons: FileComparison[];
  /** The unit of the values when all files share one (`ms`, `tps`), else null. */
  unit: string | null;
  /** How to read an effect's sign: `effect = (cell − baseline) / baseline: positive = slower…`. */
  effect_convention: string;
  /** Warnings a reader must see beside the numbers (too few restarts for the intervals to mean much). */
  notes: string[];
}

export class CompareError extends Error {}

/** File labels from paths: base names without `.varlab.json`, made unique with a number when two clash. */
export function labelsFor(paths: string[]): string[] {
  const base = paths.map((p) => (p.split(/[\\/]/).pop() ?? p).replace(/\.varlab\.json$|\.json$/i, ''));
  return base.map((b, i) => (base.filter((x) => x === b).length > 1 ? `${b} (${i + 1})` : b));
}

export function compareExperiments(inputs: CompareInput[], opts: CompareOptions = {}): ExperimentsComparison {
  if (inputs.length < 2) throw new CompareError(`comparing needs two or more experiment files, got ${inputs.length}`);
  const labels = inputs.map((i) => i.label);
  if (new Set(labels).size !== labels.length) throw new CompareError(`file labels must be unique: ${labels.join(', ')}`);
  const baseline = opts.baseline ?? labels[0];
  const alpha = opts.alpha ?? DEFAULTS.alpha;
  const adjustment = opts.adjustment ?? DEFAULTS.adjustment;
  if (!labels.includes(baseline)) throw new CompareError(`baseline "${baseline}" is not one of the files: ${labels.join(', ')}`);

  const analysed = inputs.map((input) => {
    if (!input.doc.results?.restarts.length) throw new CompareError(`${input.label} has no results: run it first`);
    const warmup = opts.warmup ?? input.doc.design.workload.warmup;
    const data = tidyFromExperiment(input.doc);
    const analysis = analyze(data, { warmup, alpha });
    const cells = inPlanOrder(input.doc, data.cells);
    return { ...input, warmup, data, analysis, cells };
  });

  // The workload's order of the first file (then any others sorted), as people read the queries.
  const allQueries = [...new Set([...analysed[0].analysis.order, ...analysed.flatMap((a) => a.data.queries).sort(byCodePoint)])];
  const queries = allQueries.filter((q) => analysed.every((a) => a.data.queries.includes(q)));
  const skippedQueries = allQueries.filter((q) => !queries.includes(q)).map((query) => ({ query, missingIn: analysed.filter((a) => !a.data.queries.includes(query)).map((a) => a.label) }));
  if (!queries.length) throw new CompareError(`the files have no query in common (${analysed.map((a) => `${a.label}: ${a.data.queries.join(', ') || 'none'}`).join('; ')})`);

  const configurations: CompareConfiguration[] = analysed.flatMap((a) =>
    a.cells.map((cell) => {
      const cs = findCell(a.analysis, cell)!;
      const covs = cs.queries.map((q) => q.between_cov_pct).filter((x): x is number => x !== null);
      return {
        file: a.label,
        cell,
        n_restarts: Math.max(0, ...cs.queries.map((q) => q.n_restarts)),
        spread_avg_pct: cs.spread_avg_pct,
        spread_max_pct: cs.spread_max_pct,
        between_cov_pct: covs.length ? covs.reduce((s, x) => s + x, 0) / covs.length : null,
      };
    }),
  );

  const base = analysed.find((a) => a.label === baseline)!;
  const summary = (a: (typeof analysed)[number], cell: string, query: string): RestartSummary | undefined => findRestarts(a.analysis, cell, query);
  const comparisons: FileComparison[] = [];
  for (const other of analysed) {
    if (other === base) continue;
    // The same cells are compared with each other; two single-cell files (one configuration on two hosts) pair up.
    const otherCells = new Set(other.cells);
    let pairs = base.cells.filter((c) => otherCells.has(c)).map((c) => [c, c] as const);
    if (!pairs.length && base.cells.length === 1 && other.cells.length === 1) pairs = [[other.cells[0], base.cells[0]]];
    for (const [cell, baseCell] of pairs) {
      for (const query of queries) {
        const c = compare(summary(other, cell, query), summary(base, baseCell, query), other.label, baseline, query, { alpha, power: DEFAULTS.power, adjustment, rounds: { known: false, why: 'two files ran at different times: no round holds restarts of both' } });
        const { cell: _file, baseline: _base, ...rest } = c;
        comparisons.push({ ...rest, file: other.label, baseline_file: baseline, cell: cell === baseCell ? cell : `${cell} vs ${baseCell}` });
      }
    }
  }
  if (!comparisons.length) throw new CompareError(`the files have no cell in common with the baseline ${baseline}: nothing to compare`);
  const summaryLine = adjustComparisons(comparisons, alpha, adjustment);

  const units = [...new Set(analysed.flatMap((a) => Object.values(a.data.units ?? {})))];
  const unit = units.length === 1 ? units[0] : null;
  const declared = analysed.map((a) => (a.doc.design.workload.kind === 'command' ? a.doc.design.workload.command?.higherIsBetter : undefined));
  const notes: string[] = [];
  const counts = configurations.map((c) => c.n_restarts).filter((n) => n > 0);
  const few = fewRestartsNote(Math.min(...counts), Math.max(...counts));
  if (few) notes.push(few);
  return {
    baseline,
    alpha,
    adjustment,
    method: COMPARISON_METHOD,
    summary: summaryLine,
    unit,
    effect_convention: effectConvention(unit, declared.every((d) => d === declared[0]) ? declared[0] : undefined),
    notes,
    files: analysed.map((a) => ({ label: a.label, name: a.doc.name, host: hostLine(a.doc), date: resultsDate(a.doc), caption: captionLine(a.doc), restarts: a.doc.results!.restarts.length, warmup: a.warmup })),
    queries,
    skippedQueries,
    configurations,
    comparisons,
  };
}

/** How the comparisons were made, in one line: method, level and adjustment. */
export function methodLine(r: Pick<ExperimentsComparison, 'alpha' | 'adjustment' | 'method'>): string {
  return `Effect: the ${r.method}, at ${levelPct(r.alpha)}%; p adjusted by ${ADJUSTMENT_NAMES[r.adjustment]} over every comparison below`;
}

/** The comparison as Markdown tables: what `varlab compare` prints, pasteable into a bug report. */
export function compareMarkdown(r: ExperimentsComparison): string {
  const f = (x: number | null, d = 2) => (x === null ? '—' : x.toFixed(d));
  const row = (cells: string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  const out = ['## Files', '', row(['file', 'experiment', 'host', 'date', 'restarts', 'warm-up']), '| --- | --- | --- | --- | ---: | ---: |'];
  for (const file of r.files) out.push(row([file.label + (file.label === r.baseline ? ' (baseline)' : ''), file.name, file.host, file.date ?? '—', String(file.restarts), String(file.warmup)]));
  out.push('', '## Configurations', '', row(['file', 'cell', 'restarts', 'spread avg %', 'spread max %', 'between-restart CoV %']), '| --- | --- | ---: | ---: | ---: | ---: |');
  for (const c of r.configurations) out.push(row([c.file, c.cell, String(c.n_restarts), f(c.spread_avg_pct), f(c.spread_max_pct), f(c.between_cov_pct)]));
  const level = levelPct(r.alpha);
  out.push('', `## Comparisons with ${r.baseline}`, '', `${methodLine(r)}; ${r.effect_convention}.`, '', `**${r.summary}.**`, '');
  for (const n of r.notes) out.push(`> **Note:** ${n}.`, '');
  out.push(row(['file', 'cell', 'query', 'effect', `${level}% interval`, 'p', 'adjusted p', 'verdict']), '| --- | --- | --- | ---: | ---: | ---: | ---: | --- |');
  for (const c of r.comparisons) out.push(row([c.file, c.cell, c.query, fmtEffect(c.effect_pct, '—'), fmtInterval(c.ci_low_pct, c.ci_high_pct, '—'), fmtP(c.p_value, '—'), fmtP(c.p_adjusted, '—'), fmtVerdict(c, '—')]));
  if (r.skippedQueries.length) out.push('', `Not compared (missing in some files): ${r.skippedQueries.map((s) => `${s.query} (missing in ${s.missingIn.join(', ')})`).join('; ')}`);
  return out.join('\n') + '\n';
}

/** The comparison as aligned text tables for a terminal: what `varlab compare` prints (Markdown is `--markdown`). */
export function compareText(r: ExperimentsComparison): string {
  const out: string[] = ['Files'];
  const indent = (lines: string[]) => lines.map((l) => '  ' + l);
  out.push(
    ...indent(
      textTable(
        ['file', 'experiment', 'host', 'date', 'restarts', 'warm-up'],
        r.files.map((f) => [f.label + (f.label === r.baseline ? ' (baseline)' : ''), f.name, f.host, f.date ?? 'n/a', String(f.restarts), String(f.warmup)]),
        [false, false, false, false, true, true],
      ),
    ),
  );
  out.push('', 'Configurations: difference between the best and the worst restart mean, and the between-restart CoV (mean over queries)');
  out.push(
    ...indent(
      textTable(
        ['file', 'cell', 'restarts', 'spread avg', 'spread max', 'between CoV'],
        r.configurations.map((c) => [c.file, c.cell, String(c.n_restarts), fmtPctValue(c.spread_avg_pct), fmtPctValue(c.spread_max_pct), fmtPctValue(c.between_cov_pct)]),
        [false, false, true, true, true, true],
      ),
    ),
  );
  out.push('', `Comparisons with ${r.baseline}`, `  ${methodLine(r)}`, `  ${r.effect_convention}`, `  ${r.summary}.`);
  for (const n of r.notes) out.push(`  Note: ${n}.`);
  out.push(
    ...indent(
      textTable(
        ['file', 'cell', 'query', 'effect', `${levelPct(r.alpha)}% interval`, 'p', 'adjusted p', 'verdict'],
        r.comparisons.map((c) => [c.file, c.cell, c.query, fmtEffect(c.effect_pct), fmtInterval(c.ci_low_pct, c.ci_high_pct), fmtP(c.p_value), fmtP(c.p_adjusted), fmtVerdict(c)]),
        [false, false, false, true, true, true, true, false],
      ),
    ),
  );
  const reasons = [...new Set(r.comparisons.flatMap((c) => Object.values(c.null_reasons ?? {})).filter((x): x is string => !!x))];
  if (reasons.length) out.push('', 'n/a means:', ...reasons.map((x) => `  ${x}`));
  if (r.skippedQueries.length) out.push('', `Not compared (missing in some files): ${r.skippedQueries.map((s) => `${s.query} (missing in ${s.missingIn.join(', ')})`).join('; ')}`);
  return out.join('\n') + '\n';
}
