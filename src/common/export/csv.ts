// The three CSVs of an export, ready for R or pandas: one row per execution, one per restart, one per
// cell and query with its statistics. csv-stringify does the quoting (a query name with a comma, a
// quote or a newline survives a round trip); numbers are written by num(), never with locale formatting.
// The browser build carries its own Buffer polyfill, so this module also runs in the UI (lib/ needs Node's Buffer).
import { stringify } from 'csv-stringify/browser/esm/sync';
import type { ExportContext } from './context.js';
import { iso, levelsOf, num } from './context.js';
import { findCell, findComparison } from '../stats/analysis.js';

type Row = (string | number)[];

function table(header: string[], rows: Row[]): string {
  return stringify([header, ...rows], { record_delimiter: '\n', quoted_match: /^\s|\s$/ });
}

/**
 * `executions.csv`: every execution of every restart whose tunables were verified (the ones the
 * analysis uses), warm-up included and flagged, so a reader can drop it their own way.
 */
export function executionsCsv(ctx: ExportContext): string {
  const header = [...ctx.factors, 'cell', 'restart', 'restart_of_cell', 'query', 'rep', 'warmup', 'value', 'unit', 'source', 'client'];
  const rows: Row[] = [];
  for (const r of ctx.restarts) {
    if (r.status !== 'ok') continue;
    const levels = levelsOf(ctx, r.cell);
    for (const q of r.queries) {
      q.values.forEach((v, i) => {
        rows.push([...levels, r.cell, r.seq, r.restartOfCell, q.query, i + 1, i < ctx.warmup ? 'true' : 'false', num(v), q.unit, q.source, num(q.client?.[i])]);
      });
    }
  }
  return table(header, rows);
}

/** The mean of a restart's executions after the warm-up (what the analysis calls a restart mean). */
export function restartMean(values: number[], warmup: number): number | null {
  const kept = values.slice(warmup).filter(Number.isFinite);
  return kept.length ? kept.reduce((a, b) => a + b, 0) / kept.length : null;
}

/**
 * `restarts.csv`: every restart in plan order, failed ones included with their reason, the value each
 * tunable was observed at (what verify read from the live process) and the mean per query.
 */
export function restartsCsv(ctx: ExportContext): string {
  const tunables: string[] = [];
  for (const r of ctx.restarts) for (const c of r.checks) if (!tunables.includes(c.tunable)) tunables.push(c.tunable);
  const header = [
    ...ctx.factors,
    'cell',
    'restart',
    'restart_of_cell',
    'status',
    'reason',
    'started_at',
    'finished_at',
    'verified',
    ...tunables.map((t) => `observed:${t}`),
    ...ctx.queries.map((q) => `mean:${q}`),
  ];
  const rows = ctx.restarts.map((r): Row => {
    const check = (t: string) => r.checks.find((c) => c.tunable === t);
    const mean = (q: string) => {
      const timings = r.queries.find((x) => x.query === q);
      return timings ? num(restartMean(timings.values, ctx.warmup)) : '';
    };
    return [
      ...levelsOf(ctx, r.cell),
      r.cell,
      r.seq,
      r.restartOfCell,
      r.status,
      r.reason ?? '',
      iso(r.startedAt),
      iso(r.finishedAt),
      r.checks.every((c) => c.ok) ? 'true' : 'false',
      ...tunables.map((t) => check(t)?.observed ?? ''),
      ...ctx.queries.map(mean),
    ];
  });
  return table(header, rows);
}

export const SUMMARY_STATS = [
  'n_restarts',
  'reps_per_restart',
  'mean',
  'within_cov_pct',
  'between_cov_pct',
  'sigma_within',
  'sigma_between',
  'icc',
  'spread_pct',
  'mde_pct',
  'restarts_for_target',
] as const;

export const SUMMARY_COMPARISON = ['effect_pct', 'ci_low_pct', 'ci_high_pct', 'p_value', 'p_adjusted', 'detectable_pct'] as const;

/**
 * `summary.csv`: the analysis, one row per cell and query: its statistics, the cell's spread average
 * and largest, and its comparison with the baseline (empty for the baseline itself). An empty field is
 * a value that could not be computed; the reason is in the `notes` column.
 */
export function summaryCsv(ctx: ExportContext): string {
  const a = ctx.analysis;
  const header = [...ctx.factors, 'cell', 'query', 'unit', ...SUMMARY_STATS, 'spread_avg_pct', 'spread_max_pct', 'baseline', ...SUMMARY_COMPARISON, 'adjustment', 'verdict', 'warmup', 'notes'];
  const rows: Row[] = [];
  for (const cell of ctx.cells) {
    const cs = findCell(a, cell);
    if (!cs) continue;
    for (const q of cs.queries) {
      const cmp = findComparison(a, cell, q.query);
      const notes = [
        ...Object.entries(q.null_reasons ?? {}).map(([k, v]) => `${k}: ${v}`),
        ...Object.entries(cmp?.null_reasons ?? {}).map(([k, v]) => `${k}: ${v}`),
      ];
      rows.push([
        ...levelsOf(ctx, cell),
        cell,
        q.query,
        ctx.unit,
        ...SUMMARY_STATS.map((k) => num(q[k])),
        num(cs.spread_avg_pct),
        num(cs.spread_max_pct),
        cmp ? cmp.baseline : '',
        ...SUMMARY_COMPARISON.map((k) => num(cmp?.[k])),
        cmp ? cmp.adjustment : '',
        cmp?.verdict ?? '',
        ctx.warmup,
        [...new Set(notes)].join('; '),
      ]);
    }
  }
  return table(header, rows);
}

export const CSV_FILES = {
  'executions.csv': executionsCsv,
  'restarts.csv': restartsCsv,
  'summary.csv': summaryCsv,
} as const;
