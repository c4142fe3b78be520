// What every export starts from: an experiment, its analysis with the settings the user chose, and
// the facts the captions and reports name (host, date). Built once, shared by CSV, Markdown and figures
// so the three never disagree about warm-up or baseline.
import type { ExperimentDoc, RestartResult } from '../experiment/types.js';
import { expandCells, factorKey, hostCell, levelsByCell, resultHosts, withHostFactor } from '../plan.js';
import { restartsOfCell } from '../restart-of-cell.js';
import { ADJUSTMENTS, analyze, restartRounds, targetEffectOf, tidyFromExperiment, type Adjustment, type Analysis } from '../stats/index.js';
import { effectConvention, fewRestartsNote } from './format.js';

export interface ExportOptions {
  /** Repetitions dropped per restart; the design's warm-up when absent. */
  warmup?: number;
  /** The cell others are compared with; the first cell of the plan that has results when absent. */
  baseline?: string;
  /** The target effect (percent) planning figures mark. Default: the design's (its rule's ±E, else 1; targetEffectOf). */
  targetEffectPct?: number;
  /** Significance level of the comparisons; their intervals are at 1 − alpha. Default 0.05. */
  alpha?: number;
  /** How the comparisons' p-values are adjusted together. Default Holm. */
  adjustment?: Adjustment;
  /** A grown design: compare cells that no run measured together, unpaired (AnalysisOptions.acrossRuns). */
  acrossRuns?: boolean;
}

export interface ExportContext {
  doc: ExperimentDoc;
  analysis: Analysis;
  warmup: number;
  baseline: string | null;
  /** Factor keys in design order (the columns a level goes in); the host last, when the results come from several. */
  factors: string[];
  /** The levels of each of `factors`, in design order. */
  factorLevels: string[][];
  /** Each cell's levels by factor key, from the design (a cell id is a label, never parsed). */
  cellLevels: Map<string, Record<string, string>>;
  /** Cells with results, in plan order (first factor varying slowest), then any unplanned ones. */
  cells: string[];
  queries: string[];
  /** The unit of the values (`ms`, `tps`…), when one unit holds for all. */
  unit: string;
  /** Restarts sorted by host then seq, each with its position within its cell (from 1); `cell` holds the host when there are several. */
  /** `round`: the restart's round when the design ran in rounds (tidy.ts restartRounds), else absent. */
  restarts: (RestartResult & { restartOfCell: number; round?: number })[];
  /** `Experiment · CPU · mysqld version · date`: the line under every figure. */
  caption: string;
}

/** An ExportOptions problem, named so the CLI and UI can show it as it is. */
export class ExportError extends Error {}

/** `2026-11-21`: the date of the results (finished, else started, else probed), UTC so everyone reads the same. */
export function resultsDate(doc: ExperimentDoc): string | null {
  const r = doc.results;
  const t = r?.finishedAt ?? r?.startedAt ?? r?.restarts.at(-1)?.finishedAt ?? r?.host?.probedAt;
  return t ? new Date(t).toISOString().slice(0, 10) : null;
}

export function hostLine(doc: ExperimentDoc): string {
  const h = doc.results?.host;
  const hosts = resultHosts(doc.design, doc.results?.restarts);
  // Several hosts: each restart names its own; the caption names them all.
  if (hosts.length) return `${hosts.length} hosts: ${hosts.join(', ')}`;
  if (!h) return 'host not recorded';
  const server = h.mysqld ? `${h.mysqld.flavor === 'unknown' ? 'mysqld' : h.mysqld.flavor} ${h.mysqld.version}` : 'mysqld version unknown';
  return `${h.cpuModel || 'CPU unknown'} · ${server}`;
}

export function captionLine(doc: ExperimentDoc): string {
  return [doc.name, hostLine(doc), resultsDate(doc) ?? 'date unknown'].join(' · ');
}

/** The level of each factor in a cell, in design order; '' for a cell or factor the design does not name. */
export function levelsOf(ctx: Pick<ExportContext, 'cellLevels' | 'factors'>, cell: string): string[] {
  const levels = ctx.cellLevels.get(cell) ?? {};
  return ctx.factors.map((f) => levels[f] ?? '');
}

export function exportContext(doc: ExperimentDoc, opts: ExportOptions = {}): ExportContext {
  const warmup = opts.warmup ?? doc.design.workload.warmup;
  if (!Number.isInteger(warmup) || warmup < 0) throw new ExportError(`warm-up must be a whole number of at least 0, got ${warmup}`);
  const data = tidyFromExperiment(doc);
  const cells = inPlanOrder({ ...doc, design: withHostFactor(doc.design, resultHosts(doc.design, doc.results?.restarts)) }, data.cells);
  let baseline: string | null = opts.baseline ?? cells[0] ?? null;
  if (opts.baseline !== undefined && !data.cells.includes(opts.baseline)) {
    throw new ExportError(`baseline cell "${opts.baseline}" has no results; cells with results: ${cells.join(' | ') || 'none'}`);
  }
  if (cells.length < 2) baseline = opts.baseline ?? null;
  if (opts.alpha !== undefined && !(opts.alpha > 0 && opts.alpha < 1)) throw new ExportError(`alpha must be a number between 0 and 1 (exclusive), got ${opts.alpha}`);
  if (opts.adjustment !== undefined && !ADJUSTMENTS.includes(opts.adjustment)) throw new ExportError(`adjustment must be holm or bh, got ${JSON.stringify(opts.adjustment)}`);
  const analysis = analyze(data, { warmup, baseline: baseline ?? undefined, targetEffectPct: opts.targetEffectPct ?? targetEffectOf(doc.design), alpha: opts.alpha, adjustment: opts.adjustment, acrossRuns: opts.acrossRuns });
  return contextAround(doc, analysis, data.unit ?? '');
}

/**
 * The context around an analysis already made (the UI's worker makes it off the main thread), so the
 * plots on screen are the very figures `varlab export` writes. Warm-up and baseline are the analysis's own.
 */
export function contextAround(doc: ExperimentDoc, analysis: Analysis, unitFallback = ''): ExportContext {
  // Results from several hosts: the host is a block factor (a column, and part of every cell id).
  const hosts = resultHosts(doc.design, doc.results?.restarts);
  const design = withHostFactor(doc.design, hosts);
  const hostAt = (r: RestartResult) => (r.host === undefined ? -1 : hosts.indexOf(r.host));
  const restarts = [...(doc.results?.restarts ?? [])].sort((a, b) => hostAt(a) - hostAt(b) || a.seq - b.seq);
  // Numbered by the one rule the report's and analyze's busy restarts follow too (restart-of-cell.ts).
  const ofCell = restartsOfCell(restarts);
  const rounds = restartRounds(doc);
  const numbered = restarts.map((r) => {
    const cell = hostCell(r.cell, hosts.length ? r.host : undefined);
    const n = ofCell.get(r)!;
    const round = rounds?.get(`${hosts.length ? (r.host ?? '') : ''}\u0000${r.seq}`);
    return { ...r, cell, restartOfCell: n, ...(round !== undefined ? { round } : {}) };
  });
  const units = new Set(restarts.flatMap((r) => r.queries.map((q) => q.unit)));
  return {
    doc,
    analysis,
    warmup: analysis.settings.warmup,
    baseline: analysis.settings.baseline,
    factors: design.factors.map(factorKey),
    factorLevels: design.factors.map((f) => f.levels),
    cellLevels: levelsByCell(design),
    cells: inPlanOrder({ ...doc, design }, analysis.cells.map((c) => c.cell)),
    // The workload's order, as the tables and the exported plots list them.
    queries: analysis.order,
    unit: units.size === 1 ? [...units][0] : unitFallback,
    restarts: numbered,
    caption: captionLine(doc),
  };
}

/** Cells with results in plan order (first factor varying slowest), then any the design does not name. */
/**
 * The cells with completed restarts, in plan order (the first is the default baseline): with the host
 * in each when the results come from several hosts, as the analysis names its cells.
 */
export function cellsWithResults(doc: ExperimentDoc): string[] {
  const restarts = doc.results?.restarts ?? [];
  const hosts = resultHosts(doc.design, restarts);
  const ok = [...new Set(restarts.filter((r) => r.status === 'ok').map((r) => hostCell(r.cell, hosts.length ? r.host : undefined)))].sort();
  return inPlanOrder({ ...doc, design: withHostFactor(doc.design, hosts) }, ok);
}

export function inPlanOrder(doc: ExperimentDoc, withData: string[]): string[] {
  const planned = expandCells(doc.design).map((c) => c.id);
  const has = new Set(withData);
  const inDesign = new Set(planned);
  return [...planned.filter((c) => has.has(c)), ...withData.filter((c) => !inDesign.has(c))];
}

/** Numbers as JavaScript prints them: shortest round-trip form, '.' decimal point, no grouping, never locale. */
export function num(x: number | null | undefined): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '' : String(x);
}

/** A number for people: fixed decimals, no locale; '—' for a value that could not be computed. */
export function fixed(x: number | null | undefined, digits = 2): string {
  return x === null || x === undefined || !Number.isFinite(x) ? '—' : x.toFixed(digits);
}

export const iso = (t: number | undefined) => (t === undefined || !Number.isFinite(t) ? '' : new Date(t).toISOString());

/** The sign convention of this experiment's effects (from the unit, or the command workload's higherIsBetter). */
export function conventionOf(ctx: Pick<ExportContext, 'doc' | 'unit'>): string {
  const w = ctx.doc.design.workload;
  return effectConvention(ctx.unit, w.kind === 'command' ? w.command?.higherIsBetter : undefined);
}

/** The few-restarts warning for this analysis (the fewest restarts any cell has), or null. */
export function fewRestartsOf(analysis: Analysis): string | null {
  const ns = analysis.cells.flatMap((c) => c.queries.map((q) => q.n_restarts)).filter((n) => n > 0);
  return ns.length ? fewRestartsNote(Math.min(...ns), Math.max(...ns)) : null;
}
