// What the Run view shows, folded from the engine's events as they arrive. Plain data and arithmetic
// (no React, no DOM), so it can be fed 100,000 executions and tested under Node.
import type { RunEvent } from '../../../common/events.js';
import type { RestartResult, TunableCheck } from '../../../common/experiment/types.js';
import { mdePct } from '../../../common/stats/planner.js';

interface Sums {
  n: number;
  sum: number;
  sumsq: number;
}

/** One attempt at a scheduled restart (a restart discarded and run again has two). */
export interface Attempt {
  seq: number;
  cell: string;
  state: 'running' | 'finished' | 'verify-failed' | 'failed' | 'discarded';
  reason?: string;
  checks?: TunableCheck[];
  /** Per query, measured executions only (warm-ups excluded). */
  sums: Map<string, Sums>;
  /** Per query, executions of this attempt on the timeline (warm-ups included): taken off again if it is discarded. */
  added: Map<string, number>;
}

/** Discrete restart colours: neighbouring restarts differ, a restart keeps its colour. */
export const RESTART_PALETTE = ['#3271d4', '#d4573b', '#2f9e6e', '#8a5cd1', '#c49a1a', '#1b9aaa', '#c2417d', '#6b7785', '#7a4f1d', '#4f8f00'];
export const restartColour = (seq: number) => RESTART_PALETTE[(seq - 1) % RESTART_PALETTE.length];

/** Every execution of one query, in arrival order: what the timeline draws. */
export interface Series {
  /** The execution's number among this query's executions in the run (1, 2, 3 … with no gaps). */
  x: number[];
  y: number[];
  seq: number[];
  warmup: boolean[];
  /** The restart's colour, one per execution (categorical, by plan number). */
  color: string[];
  /** "restart 3 · cell", for the hover. */
  label: string[];
  unit: string;
}

export interface LogLine {
  at: number;
  level: 'info' | 'warn' | 'error';
  message: string;
}

export interface RestartPoint {
  seq: number;
  cell: string;
  mean: number;
  sd: number;
  n: number;
}

export interface SpreadPoint {
  restarts: number;
  /** Coefficient of variation of the restart means so far, in percent. */
  cvPct: number;
}

export class LiveRun {
  planned = 0;
  done = 0;
  remainingMs = 0;
  state: 'running' | 'paused' | 'finished' | 'failed' | 'cancelled' = 'running';
  finishMessage?: string;
  cells: string[] = [];
  queries: string[] = [];
  current: Attempt | null = null;
  timerNote?: string;
  /** The latest `--report-interval` line of a benchmark command, while it runs. */
  interval?: { seq: number; rep: number; second: number; tps: number; qps: number; latencyMs?: number };
  source?: string;
  readonly attempts: Attempt[] = [];
  readonly series = new Map<string, Series>();
  readonly log: LogLine[] = [];
  /** Executions seen, for the header and the timeline's x. */
  executions = 0;
  /** Bumped on every change, so a view can tell whether to redraw. */
  version = 0;

  apply(events: RunEvent[]): void {
    for (const e of events) this.one(e);
    if (events.length) this.version++;
  }

  private say(line: LogLine): void {
    this.log.push(line);
    if (this.log.length > 500) this.log.splice(0, this.log.length - 500);
  }

  private one(e: RunEvent): void {
    switch (e.type) {
      case 'run-started':
        this.planned = e.planned;
        this.done = e.done;
        this.cells = e.cells;
        this.queries = e.queries;
        this.state = 'running';
        break;
      case 'restart-started': {
        const a: Attempt = { seq: e.seq, cell: e.cell, state: 'running', sums: new Map(), added: new Map() };
        this.attempts.push(a);
        this.current = a;
        break;
      }
      case 'tunables-verified':
        if (this.current?.seq === e.seq) this.current.checks = e.checks;
        break;
      case 'execution': {
        this.push(e.query, e.unit, e.seq, e.cell, e.value, e.warmup);
        this.source = e.source;
        const a = this.current?.seq === e.seq ? this.current : null;
        if (a) a.added.set(e.query, (a.added.get(e.query) ?? 0) + 1);
        if (a && !e.warmup) {
          const sums = a.sums.get(e.query) ?? { n: 0, sum: 0, sumsq: 0 };
          sums.n++;
          sums.sum += e.value;
          sums.sumsq += e.value * e.value;
          a.sums.set(e.query, sums);
        }
        break;
      }
      case 'restart-finished': {
        const a = this.findRunning(e.seq);
        if (a) {
          a.state = e.status === 'ok' ? 'finished' : e.status;
          a.reason = e.reason;
        }
        if (e.status !== 'ok') this.say({ at: e.at, level: 'warn', message: `restart ${e.seq} ${e.cell}: ${e.status}${e.reason ? ` (${e.reason})` : ''}` });
        break;
      }
      case 'restart-discarded': {
        const a = this.findRunning(e.seq);
        if (a) {
          a.state = 'discarded';
          a.reason = e.reason;
          this.takeOff(a);
        }
        this.say({ at: e.at, level: 'warn', message: `restart ${e.seq} discarded: ${e.reason}` });
        break;
      }
      case 'progress':
        this.done = e.done;
        this.planned = e.planned;
        this.remainingMs = e.remainingMs;
        break;
      case 'timer':
        this.source = e.source;
        this.timerNote = e.note;
        break;
      case 'state':
        this.state = e.state;
        break;
      case 'interval':
        this.interval = { seq: e.seq, rep: e.rep, second: e.second, tps: e.tps, qps: e.qps, latencyMs: e.latencyMs };
        break;
      case 'history':
        for (const r of e.restarts) this.replay(r, e.warmup);
        break;
      case 'log':
        this.say({ at: e.at, level: e.level, message: e.message });
        break;
      case 'run-finished':
        this.state = e.state;
        this.finishMessage = e.message;
        this.current = null;
        this.say({ at: e.at, level: e.state === 'finished' ? 'info' : e.state === 'cancelled' ? 'warn' : 'error', message: `run ${e.state}${e.message ? `: ${e.message}` : ''}` });
        break;
      default:
        break;
    }
  }

  /** One execution onto the timeline of its query. */
  private push(query: string, unit: string, seq: number, cell: string, value: number, warmup: boolean): void {
    let s = this.series.get(query);
    if (!s) {
      s = { x: [], y: [], seq: [], warmup: [], color: [], label: [], unit };
      this.series.set(query, s);
    }
    s.x.push(s.x.length + 1);
    s.y.push(value);
    s.seq.push(seq);
    s.warmup.push(warmup);
    s.color.push(restartColour(seq));
    s.label.push(`restart ${seq} · ${cell}`);
    this.executions++;
  }

  /** A discarded attempt's executions leave the timeline and the count (they are the newest of their restart). */
  private takeOff(a: Attempt): void {
    for (const [query, n] of a.added) {
      const s = this.series.get(query);
      if (!s) continue;
      const k = Math.min(n, s.x.length);
      for (const list of [s.x, s.y, s.seq, s.warmup, s.color, s.label]) list.splice(list.length - k, k);
      this.executions -= k;
    }
    a.added.clear();
    a.sums.clear();
  }

  /** A restart an earlier process finished: onto the timeline and into the means as if it had just run. */
  private replay(r: RestartResult, warmup: number): void {
    const a: Attempt = { seq: r.seq, cell: r.cell, state: r.status === 'ok' ? 'finished' : r.status, reason: r.reason, checks: r.checks, sums: new Map(), added: new Map() };
    this.attempts.push(a);
    for (const q of r.queries) {
      const sums: Sums = { n: 0, sum: 0, sumsq: 0 };
      q.values.forEach((v, i) => {
        this.push(q.query, q.unit, r.seq, r.cell, v, i < warmup);
        if (i >= warmup) {
          sums.n++;
          sums.sum += v;
          sums.sumsq += v * v;
        }
      });
      a.sums.set(q.query, sums);
    }
  }

  private findRunning(seq: number): Attempt | undefined {
    for (let i = this.attempts.length - 1; i >= 0; i--) if (this.attempts[i].seq === seq && this.attempts[i].state === 'running') return this.attempts[i];
    return undefined;
  }

  /** Restarts that count (finished, not discarded), with the mean and within-restart spread of `query`. */
  restartMeans(query: string): RestartPoint[] {
    const out: RestartPoint[] = [];
    for (const a of this.attempts) {
      if (a.state !== 'finished') continue;
      const s = a.sums.get(query);
      if (!s || s.n === 0) continue;
      const mean = s.sum / s.n;
      const variance = s.n > 1 ? Math.max(0, (s.sumsq - s.n * mean * mean) / (s.n - 1)) : 0;
      out.push({ seq: a.seq, cell: a.cell, mean, sd: Math.sqrt(variance), n: s.n });
    }
    return out;
  }

  /** Per cell: the between-restart CV of `query` after 2, 3, … restarts. */
  spreadByCell(query: string): Map<string, SpreadPoint[]> {
    const byCell = new Map<string, number[]>();
    for (const p of this.restartMeans(query)) {
      const list = byCell.get(p.cell) ?? [];
      list.push(p.mean);
      byCell.set(p.cell, list);
    }
    const out = new Map<string, SpreadPoint[]>();
    for (const [cell, means] of byCell) {
      const pts: SpreadPoint[] = [];
      let sum = 0;
      let sumsq = 0;
      means.forEach((m, i) => {
        sum += m;
        sumsq += m * m;
        const n = i + 1;
        if (n < 2) return;
        const mean = sum / n;
        const sd = Math.sqrt(Math.max(0, (sumsq - n * mean * mean) / (n - 1)));
        pts.push({ restarts: n, cvPct: (100 * sd) / mean });
      });
      out.set(cell, pts);
    }
    return out;
  }

  /**
   * The minimum detectable effect (percent, α 0.05, power 0.8) between two cells of `query` with the
   * restarts per cell done so far: from the pooled between-restart variance of restart means.
   */
  mde(query: string): { pct: number; restartsPerCell: number } | null {
    const byCell = new Map<string, number[]>();
    for (const p of this.restartMeans(query)) byCell.set(p.cell, [...(byCell.get(p.cell) ?? []), p.mean]);
    let pooledNum = 0;
    let pooledDf = 0;
    let total = 0;
    let count = 0;
    let minN = Infinity;
    for (const means of byCell.values()) {
      const n = means.length;
      minN = Math.min(minN, n);
      const m = means.reduce((a, b) => a + b, 0) / n;
      total += m * n;
      count += n;
      if (n > 1) {
        pooledNum += means.reduce((a, b) => a + (b - m) ** 2, 0);
        pooledDf += n - 1;
      }
    }
    if (pooledDf === 0 || !Number.isFinite(minN) || minN < 2) return null;
    const s2 = pooledNum / pooledDf;
    const pct = mdePct(s2, total / count, minN, 0.05, 0.8);
    return Number.isFinite(pct) ? { pct, restartsPerCell: minN } : null;
  }

  /** Why mde(query) has no value yet, in words a user can act on (null when it has one). */
  mdeWhy(query: string): string | null {
    if (this.mde(query)) return null;
    const counts = this.restartsPerCell(query);
    if (!counts.size) return 'needs at least 2 restarts of every cell (none has finished yet)';
    const fewest = Math.min(...counts.values());
    if (fewest < 2) return `needs at least 2 restarts of every cell measured so far (fewest: ${fewest})`;
    return 'not computable: the restart means do not vary (or average 0)';
  }

  /** Why the between-restart CV plot of `query` is empty (null when it has a point). */
  spreadWhy(query: string): string | null {
    const counts = this.restartsPerCell(query);
    const most = counts.size ? Math.max(...counts.values()) : 0;
    if (most >= 2) return null;
    return `The between-restart CV needs at least 2 restarts of a cell (so far ${most === 0 ? 'no restart has finished' : 'each cell has 1'}).`;
  }

  private restartsPerCell(query: string): Map<string, number> {
    const counts = new Map<string, number>();
    for (const p of this.restartMeans(query)) counts.set(p.cell, (counts.get(p.cell) ?? 0) + 1);
    return counts;
  }
}
