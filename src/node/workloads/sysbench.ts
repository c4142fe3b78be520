// Reading the figures out of a benchmark command's output: sysbench built in, anything else by a
// user-given regular expression with one capture group.
import type { IntervalRow } from '../../common/experiment/types.js';

/** One `--report-interval` line: an interval row without the run it belongs to. */
export type SysbenchInterval = Omit<IntervalRow, 'rep'>;

export interface SysbenchSummary {
  tps: number;
  qps: number;
  latency_avg_ms: number;
  latency_min_ms?: number;
  latency_max_ms?: number;
  /** Under the percentile sysbench was asked for (`--percentile`, 95 by default). */
  latency_pct_ms?: number;
  percentile?: number;
  /** Kept under its usual name for the default 95th percentile. */
  latency_p95_ms?: number;
  total_time_s?: number;
  events?: number;
  intervals: SysbenchInterval[];
}

const num = (s: string) => Number(s);

/** One `--report-interval` line, e.g. `[ 1s ] thds: 1 tps: 549.62 qps: 8799.86 (r/w/o: …) lat (ms,95%): 2.14 err/s: 0.00 …`. */
export function parseSysbenchInterval(line: string): SysbenchInterval | null {
  const m = /^\[\s*(\d+(?:\.\d+)?)s\s*\]\s+thds:\s*(\d+)\s+tps:\s*([\d.]+)\s+qps:\s*([\d.]+)/.exec(line.trim());
  if (!m) return null;
  const out: SysbenchInterval = { second: num(m[1]), threads: num(m[2]), tps: num(m[3]), qps: num(m[4]) };
  const lat = /lat \(ms,(\d+(?:\.\d+)?)%\):\s*([\d.]+)/.exec(line);
  if (lat) {
    out.percentile = num(lat[1]);
    out.latencyMs = num(lat[2]);
  }
  const err = /err\/s:?\s*([\d.]+)/.exec(line);
  if (err) out.errPerSec = num(err[1]);
  return out;
}

/** The final report of `sysbench … run`. Throws with what is missing when the output is not a finished sysbench run. */
export function parseSysbench(output: string): SysbenchSummary {
  const intervals = output
    .split('\n')
    .map(parseSysbenchInterval)
    .filter((x): x is SysbenchInterval => x !== null);
  const tps = /transactions:\s+\d+\s+\(([\d.]+) per sec\.\)/.exec(output);
  const qps = /queries:\s+\d+\s+\(([\d.]+) per sec\.\)/.exec(output);
  const avg = /^\s*avg:\s+([\d.]+)\s*$/m.exec(output);
  if (!tps || !qps || !avg) {
    const missing = [!tps && 'transactions per second', !qps && 'queries per second', !avg && 'average latency'].filter(Boolean).join(', ');
    const tail = output.trim().split('\n').slice(-3).join(' | ');
    throw new Error(`sysbench output has no ${missing} (did the run finish?): ${tail || 'no output'}`);
  }
  const out: SysbenchSummary = { tps: num(tps[1]), qps: num(qps[1]), latency_avg_ms: num(avg[1]), intervals };
  const min = /^\s*min:\s+([\d.]+)\s*$/m.exec(output);
  const max = /^\s*max:\s+([\d.]+)\s*$/m.exec(output);
  const pct = /^\s*(\d+(?:\.\d+)?)th percentile:\s+([\d.]+)\s*$/m.exec(output);
  const total = /total time:\s+([\d.]+)s/.exec(output);
  const events = /total number of events:\s+(\d+)/.exec(output);
  if (min) out.latency_min_ms = num(min[1]);
  if (max) out.latency_max_ms = num(max[1]);
  if (pct) {
    out.percentile = num(pct[1]);
    out.latency_pct_ms = num(pct[2]);
    if (out.percentile === 95) out.latency_p95_ms = out.latency_pct_ms;
  }
  if (total) out.total_time_s = num(total[1]);
  if (events) out.events = num(events[1]);
  return out;
}

/** The figure a metric names in a sysbench summary: tps, qps, latency_avg_ms, latency_p95_ms (or latency_pct_ms), … */
export function sysbenchMetric(summary: SysbenchSummary, metric: string): number {
  const value = (summary as unknown as Record<string, unknown>)[metric];
  if (typeof value !== 'number') {
    const known = Object.entries(summary)
      .filter(([, v]) => typeof v === 'number')
      .map(([k]) => k);
    throw new Error(`sysbench metric "${metric}" is not in the output; available: ${known.join(', ')}`);
  }
  return value;
}

/** A user's regular expression: its first capture group is the figure. */
export function compileFigureRegex(source: string): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(source, 'm');
  } catch (e) {
    throw new Error(`workload.command.regex: not a valid regular expression: ${(e as Error).message}`);
  }
  // A regex with no group would "match" with nothing to read.
  if (new RegExp(`${source}|`).exec('')!.length < 2) throw new Error('workload.command.regex: needs one capture group around the figure, e.g. "([0-9.]+) ops/s"');
  return re;
}

export function parseWithRegex(output: string, source: string): number {
  const m = compileFigureRegex(source).exec(output);
  if (!m) throw new Error(`the command's output does not match workload.command.regex ${JSON.stringify(source)}: ${output.trim().split('\n').slice(-2).join(' | ') || 'no output'}`);
  const n = Number(m[1]);
  if (!Number.isFinite(n)) throw new Error(`workload.command.regex captured ${JSON.stringify(m[1])}, which is not a number`);
  return n;
}
