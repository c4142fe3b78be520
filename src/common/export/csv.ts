// The three CSVs of an export, ready for R or pandas: one row per execution, one per restart, one per
// cell and query with its statistics. Quoting is RFC 4180 (a query name with a comma, a quote or a
// newline survives a round trip, and so does a label with spaces at its ends); numbers are written by
// num(), never with locale formatting. executions.csv comes in pieces, so a million rows are never one
// string: the file is streamed out (src/node/export/files.ts).
import type { HostNoise, RestartResult, TimerVsClient } from '../experiment/types.js';
import { busyReasons } from '../noise.js';
import type { ExportContext } from './context.js';
import { iso, levelsOf, num } from './context.js';
import { resultHosts } from '../plan.js';
import { timerFoundOf } from '../timer-note.js';
import { findCell, findComparison } from '../stats/analysis.js';
import { ruleVerdictsFor, type RuleVerdict } from '../stats/replay.js';

type Row = (string | number)[];

/** One field: quoted when it holds a comma, a quote or a line break, or begins or ends with white space. */
export function csvField(x: string | number): string {
  if (typeof x === 'number') return String(x);
  return /[",\n\r]|^\s|\s$/.test(x) ? `"${x.replace(/"/g, '""')}"` : x;
}

const line = (fields: Row) => fields.map(csvField).join(',') + '\n';

function table(header: string[], rows: Row[]): string {
  return line(header) + rows.map(line).join('');
}

/** Pieces of about this many characters: few writes, no string of the whole file. */
const PIECE = 1 << 20;

/**
 * `executions.csv` in pieces: every execution of every restart whose tunables were verified (the ones
 * the analysis uses), warm-up included and flagged, so a reader can drop it their own way.
 * What repeats on every row of a restart and query (levels, cell, query) is quoted once.
 */
export function* executionsCsvPieces(ctx: ExportContext): Generator<string> {
  let text = line([...ctx.factors, 'cell', 'restart', 'restart_of_cell', 'query', 'rep', 'warmup', 'value', 'unit', 'source', 'client', 'round']);
  for (const r of ctx.restarts) {
    if (r.status !== 'ok') continue;
    const levels = levelsOf(ctx, r.cell);
    for (const q of r.queries) {
      const head = line([...levels, r.cell, r.seq, r.restartOfCell, q.query]).slice(0, -1);
      const tail = `,${csvField(q.unit)},${csvField(q.source)},`;
      const round = r.round ?? '';
      for (let i = 0; i < q.values.length; i++) {
        text += `${head},${i + 1},${i < ctx.warmup ? 'true' : 'false'},${num(q.values[i])}${tail}${num(q.client?.[i])},${round}\n`;
        if (text.length >= PIECE) {
          yield text;
          text = '';
        }
      }
    }
  }
  yield text;
}

/** `executions.csv` as one string (small experiments, tests). */
export function executionsCsv(ctx: ExportContext): string {
  return [...executionsCsvPieces(ctx)].join('');
}

/** The mean of a restart's executions after the warm-up (what the analysis calls a restart mean). */
export function restartMean(values: number[], warmup: number): number | null {
  const kept = values.slice(warmup).filter(Number.isFinite);
  return kept.length ? kept.reduce((a, b) => a + b, 0) / kept.length : null;
}

/** A restart's `verified`: every check and option read back as asked (true), one not in effect (false), or all in effect that could be read but some set, not verifiable. */
function verifiedWord(r: RestartResult): string {
  const all = [...r.checks, ...(r.options ?? [])];
  if (!all.every((c) => c.ok)) return 'false';
  return all.some((c) => c.verifiable === false) ? 'set, not verifiable' : 'true';
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
    'round',
    ...NOISE_COLUMNS,
    // A timer other than performance_schema's, against the client's round trip at the run's start.
    'timer_offset_ms',
    'timer_spread_ms',
  ];
  // Each restart's host's timer against the client (on several hosts, and in each run of a grown design, each measured its own).
  const hosts = resultHosts(ctx.doc.design, ctx.doc.results?.restarts);
  const vsOf = (r: RestartResult) => timerFoundOf(ctx.doc.results, hosts.length ? (r.host ?? '') : '', hosts, r.part ?? 1)?.vsClient;
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
      verifiedWord(r),
      ...tunables.map((t) => check(t)?.observed ?? ''),
      ...ctx.queries.map(mean),
      r.round ?? '',
      ...noiseCells(r.noise),
      ...timerCells(r, vsOf(r)),
    ];
  });
  return table(header, rows);
}

/** A restart's timer_offset_ms and timer_spread_ms: its host's timer against the client, when that timer measured it. */
function timerCells(r: RestartResult, vs: TimerVsClient | undefined): Row {
  return vs && r.queries.some((q) => q.source === vs.source) ? [vs.offsetMs, vs.spreadMs] : ['', ''];
}

/** The host's noise over each restart's measured window (common/noise.ts); empty where it was not read. */
export const NOISE_COLUMNS = ['host_load', 'steal_pct', 'others_cpu_pct', 'ctx_switches_per_s', 'cpu_mhz', 'host_busy', 'host_cpus', 'window_s'];

function noiseCells(n: HostNoise | undefined): Row {
  if (!n) return NOISE_COLUMNS.map(() => '');
  // The CPU count and the window's length too, so that analyze on this CSV judges the noise as on the file.
  return [n.load, n.stealPct, n.othersCpuPct, n.ctxPerS, n.cpuMhz ?? '', busyReasons(n) ? 'true' : 'false', n.cpus, n.seconds];
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
 * The stopping rule's columns (design.stopping), named as in `analyze --json`'s `sequential` (its
 * `verdict` as rule_verdict, beside the fixed-sample one): the rule's verdict, the round it was decided,
 * its two repeated intervals (rci: differs when it leaves out 0; eq: equivalent when inside ±target) and
 * the round the rule stopped at. Empty for a file without the rule, and for a row the rule does not compare.
 */
export const SUMMARY_RULE = ['rule_verdict', 'decided_round', 'rci_low_pct', 'rci_high_pct', 'eq_low_pct', 'eq_high_pct', 'stopped_round'] as const;

/**
 * `summary.csv`: the analysis, one row per cell and query: its statistics, the cell's spread average
 * and largest, and its comparison with the baseline (empty for the baseline itself). An empty field is
 * a value that could not be computed; the reason is in the `notes` column.
 */
export function summaryCsv(ctx: ExportContext): string {
  const a = ctx.analysis;
  const header = [...ctx.factors, 'cell', 'query', 'unit', ...SUMMARY_STATS, 'spread_avg_pct', 'spread_max_pct', 'baseline', ...SUMMARY_COMPARISON, 'adjustment', 'verdict', ...SUMMARY_RULE, 'warmup', 'notes'];
  const rows: Row[] = [];
  // The rule's verdicts as the report gives them beside its comparisons table (the same baseline).
  const rule = ruleVerdictsFor(ctx.doc, ctx.baseline);
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
        ...ruleCells(rule?.get(`${cell}\u0000${q.query}`)),
        ctx.warmup,
        [...new Set(notes)].join('; '),
      ]);
    }
  }
  return table(header, rows);
}

function ruleCells(c: RuleVerdict | undefined): Row {
  if (!c) return SUMMARY_RULE.map(() => '');
  return [c.verdict, num(c.decided_round), num(c.rci_low_pct), num(c.rci_high_pct), num(c.eq_low_pct), num(c.eq_high_pct), num(c.stopped_round)];
}

/**
 * `intervals.csv` in pieces, or null when no restart has interval lines: every `--report-interval`
 * line of a benchmark command (sysbench) in the restarts the analysis uses, its run flagged warm-up as
 * the runs' own figures are. The latency is the percentile sysbench printed (its column says which).
 */
export function intervalsCsvPieces(ctx: ExportContext): Iterable<string> | null {
  const restarts = ctx.restarts.filter((r) => r.status === 'ok' && r.intervals?.length);
  if (!restarts.length) return null;
  return (function* () {
    let text = line([...ctx.factors, 'cell', 'restart', 'restart_of_cell', 'run', 'warmup', 'second', 'threads', 'tps', 'qps', 'latency_ms', 'percentile', 'err_per_sec', 'round']);
    for (const r of restarts) {
      const head = line([...levelsOf(ctx, r.cell), r.cell, r.seq, r.restartOfCell]).slice(0, -1);
      const round = r.round ?? '';
      for (const iv of r.intervals!) {
        text += `${head},${iv.rep},${iv.rep <= ctx.warmup ? 'true' : 'false'},${num(iv.second)},${num(iv.threads)},${num(iv.tps)},${num(iv.qps)},${num(iv.latencyMs)},${num(iv.percentile)},${num(iv.errPerSec)},${round}\n`;
        if (text.length >= PIECE) {
          yield text;
          text = '';
        }
      }
    }
    yield text;
  })();
}

/** The files of a CSV export, each as its text in pieces; null for a file this experiment has nothing for. */
export const CSV_FILES: Record<string, (ctx: ExportContext) => Iterable<string> | null> = {
  'executions.csv': executionsCsvPieces,
  'restarts.csv': (ctx) => [restartsCsv(ctx)],
  'summary.csv': (ctx) => [summaryCsv(ctx)],
  'intervals.csv': intervalsCsvPieces,
};
