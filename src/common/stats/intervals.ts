// Steady state on a benchmark command's interval lines (sysbench --report-interval): each restart's
// intervals, its runs one after another in the order printed, classified as a restart's executions are
// (steady.ts: flat, warm-up, slowdown, no steady state; throughput, so higher is better). A restart's
// steady tps is the mean of its intervals from the steady state on; its run tps, the mean of its
// runs' own figures after the warm-up runs, is what the rest of the analysis compares, as before.
import type { IntervalRow, RestartResult } from '../experiment/types.js';
import { classifySeries, STEADY_METHOD, type SteadyCounts, type SteadyKind, type SteadyOptions } from './steady.js';

export const INTERVAL_STEADY_METHOD = `each restart's interval tps, its runs in the order printed: ${STEADY_METHOD}`;

export interface RestartIntervals {
  seq: number;
  cell: string;
  intervals: number;
  /** Null when the restart has too few intervals to classify. */
  kind: SteadyKind | null;
  /** Intervals before the steady state (0 when flat); null without one. */
  discard: number | null;
  /** The same in seconds of measurement (the intervals' own length). */
  discardSeconds: number | null;
  /** Mean tps of the intervals from the steady state on; null without one. */
  steadyTps: number | null;
  /** Mean of the restart's run figures after the warm-up runs (what the analysis compares); null without any. */
  runTps: number | null;
}

export interface CellIntervals {
  cell: string;
  steady: SteadyCounts;
  unclassified: number;
  consistent: boolean | null;
  /** Intervals to skip so that every restart of the cell is steady; null with the reason. */
  suggested: number | null;
  suggestedSeconds: number | null;
  reason?: string;
}

export interface IntervalSteady {
  method: string;
  /** The length of one interval in seconds (sysbench's --report-interval), from the data. */
  intervalSeconds: number;
  cells: CellIntervals[];
  restarts: RestartIntervals[];
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** The length of an interval: the smallest step between two lines of one run (1 s when nothing says). */
function intervalLength(rows: IntervalRow[]): number {
  let step = Infinity;
  for (let i = 1; i < rows.length; i++) if (rows[i].rep === rows[i - 1].rep && rows[i].second > rows[i - 1].second) step = Math.min(step, rows[i].second - rows[i - 1].second);
  if (step === Infinity && rows.length) step = rows[0].second;
  return step > 0 && Number.isFinite(step) ? step : 1;
}

/**
 * The steady state of every restart (status ok) that has interval lines, per cell in the order the
 * cells first appear; null when no restart has any. `warmup` is the runs flagged warm-up per restart.
 */
export function intervalSteady(restarts: readonly RestartResult[], warmup: number, opts: SteadyOptions = {}): IntervalSteady | null {
  const withRows = restarts.filter((r) => r.status === 'ok' && r.intervals?.length);
  if (!withRows.length) return null;
  const length = intervalLength(withRows[0].intervals!);
  const byCell = new Map<string, RestartResult[]>();
  for (const r of withRows) byCell.set(r.cell, [...(byCell.get(r.cell) ?? []), r]);
  const out: IntervalSteady = { method: INTERVAL_STEADY_METHOD, intervalSeconds: length, cells: [], restarts: [] };
  for (const [cell, list] of byCell) {
    const tps = list.map((r) => r.intervals!.map((iv) => iv.tps));
    const s = classifySeries(cell, 'tps', list.map((r) => String(r.seq)), tps, { ...opts, higherIsBetter: true });
    s.restarts.forEach((c, i) => {
      const r = list[i];
      const runs = r.queries.find((q) => q.query === 'tps')?.values.slice(warmup) ?? [];
      out.restarts.push({
        seq: r.seq,
        cell,
        intervals: tps[i].length,
        kind: c.kind,
        discard: c.discard,
        discardSeconds: c.discard === null ? null : c.discard * length,
        steadyTps: c.discard === null ? null : mean(tps[i].slice(c.discard)),
        runTps: mean(runs),
      });
    });
    out.cells.push({
      cell,
      steady: s.steady,
      unclassified: s.unclassified,
      consistent: s.consistent,
      suggested: s.suggested,
      suggestedSeconds: s.suggested === null ? null : s.suggested * length,
      ...(s.reason ? { reason: s.reason.replace('executions', 'intervals') } : {}),
    });
  }
  return out;
}
