// What the Run view shows, folded from the engine's events as they arrive (through the journal's fold). Plain data
// (no React, no DOM), so it can be fed 100,000 executions and tested under Node. Every statistic comes
// from src/common/stats, so the numbers here are the analysis's numbers for the same restarts.
import { busyReasons } from '../../../common/noise.js';
import type { LinkState } from '../../../common/link.js';
import { dataProgressText } from '../../../common/dbt3/words.js';
import { eventLine } from '../../../common/event-line.js';
import type { RunEvent } from '../../../common/events.js';
import type { RestartResult, Stopping, Workload } from '../../../common/experiment/types.js';
import { eventOf, JournalFold, recordOf, recordsOfRestart, type JournalRecord, type OpenRestart, type RecordOf } from '../../../common/records.js';
import { DEFAULTS } from '../../../common/stats/analysis.js';
import { MIN_RESTARTS } from '../../../common/stats/evidence.js';
import { minimumDetectableEffect, type MdeDefinition } from '../../../common/stats/mde.js';
import { RunningMoments, runningCovPct } from '../../../common/stats/moments.js';
import { timerNoteParts, type RunsTimer, type TimerNoteParts } from '../../../common/timer-note.js';
import { fmtMdeBasis } from '../../../common/export/format.js';

/** Discrete restart colours: neighbouring restarts differ, a restart keeps its colour. */
export const RESTART_PALETTE = ['#3271d4', '#d4573b', '#2f9e6e', '#8a5cd1', '#c49a1a', '#1b9aaa', '#c2417d', '#6b7785', '#7a4f1d', '#4f8f00'];
export const restartColour = (seq: number) => RESTART_PALETTE[(seq - 1) % RESTART_PALETTE.length];

/**
 * Every execution of one query, in arrival order: what the timeline draws. Execution i (from 0) is the
 * query's execution number i + 1 in the run (no gaps). Only numbers per execution: its colour and
 * hover label are its restart's (restartColour, LiveRun.labelOf), made for the points drawn.
 */
export interface Series {
  y: number[];
  seq: number[];
  warmup: boolean[];
  /** The executions flagged warm-up (indices, ascending): the timeline counts those beyond its axis without going through the whole run. */
  warmAt: number[];
  unit: string;
}

/**
 * How a run ended, as the words after "Run" ("run" in the log). The runner's message for a cancel is
 * "cancelled; run again to resume" and a run on several hosts says "cancelled on HOST after …": they
 * already begin with the state, so it is said once ("Run cancelled; run again to resume"), not twice.
 */
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

/**
 * One restart's interval lines (sysbench --report-interval) on the run's clock of measured seconds:
 * restarts follow one another, and so do the runs of the command within a restart, so the plot has no
 * gaps for server starts and idle time; `start` is where the restart's first run begins.
 */
export interface IntervalTrace {
  seq: number;
  cell: string;
  start: number;
  /** Where the run of the latest line began. */
  runStart: number;
  x: number[];
  tps: number[];
  qps: number[];
  /** The latency percentile sysbench printed for each interval (NaN where it printed none). */
  latencyMs: number[];
  percentile?: number;
  rep: number[];
}

/** Mean and spread of one query's measured executions (warm-ups excluded) in one finished restart. */
interface RestartStats {
  n: number;
  mean: number;
  sd: number;
}

/**
 * The live run: its restarts are the journal's fold (records.ts) fed with the records the events
 * were derived from, so the Run view counts exactly what the journal keeps. On top of it, what only a
 * live view needs: the timeline in arrival order, progress, the log, the benchmark's last interval.
 */
export class LiveRun {
  planned = 0;
  done = 0;
  remainingMs = 0;
  /** Of remainingMs, what the run costs once (its end: stop, restore), not per restart. */
  private endMs = 0;
  /** When the last estimate of the time left was made (its progress event), and when the run was paused, if it is. */
  private remainingAt = 0;
  private pausedAt: number | null = null;
  state: 'running' | 'paused' | 'finished' | 'failed' | 'cancelled' = 'running';
  finishMessage?: string;
  cells: string[] = [];
  queries: string[] = [];
  /** Executions flagged warm-up at the start of each restart (kept on the timeline, out of the means). */
  warmup = 0;
  /** The timer's note in its parts (common/timer-note.ts), when it is not the exact timer. */
  timerNote?: TimerNoteParts;
  /** Saved results of a grown design whose runs measured with different timers: each run's (common/timer-note.ts timersByRun). */
  timerRuns?: RunsTimer[];
  /** The host was busy over the last measured window read (cleared by a quiet one): the restart and why. */
  busyHost?: { seq: number; reasons: string[] };
  /** The latest `--report-interval` line of a benchmark command, while it runs. */
  interval?: { seq: number; rep: number; second: number; tps: number; qps: number; latencyMs?: number; percentile?: number };
  source?: string;
  /** Stop when answered: the rule the run follows (its planned restarts are then a maximum). */
  stopping?: Stopping;
  /** The rule's last look: each comparison's running interval against the boundary, and the rounds left. */
  look?: Omit<RecordOf<'look'>, 't'>;
  /** The run stopped at a look, every comparison decided (or at the maximum). */
  stopped?: { round: number; because: string };
  /** The data step (DBT-3) under way, in words, with its fraction; gone when it ends. */
  data?: { text: string; fraction: number };
  /** A followed detached run: this computer's link to its target, lost or back (`back` until the next restart finishes). */
  link?: LinkState;
  readonly fold = new JournalFold();
  readonly series = new Map<string, Series>();
  readonly log: LogLine[] = [];
  /** Per restart, its interval lines in arrival order (a discarded restart's are taken off again). */
  readonly intervalTraces: IntervalTrace[] = [];
  /** Interval lines seen, for the plots' redraw. */
  intervalCount = 0;
  /** Where the next restart's intervals begin on the clock of measured seconds. */
  private intervalClock = 0;
  /** Executions seen, for the header and the timeline's x. */
  executions = 0;
  /** The design's workload kind, when the view knows it (saved results: their file's design). */
  workload?: Workload['kind'];
  /** What the run measures: the design's kind, else once a figure has said (its source), a benchmark command's runs or queries' executions. */
  get kind(): Workload['kind'] | undefined {
    if (this.workload !== undefined) return this.workload;
    if (this.source === undefined) return undefined;
    return this.source === 'sysbench' || this.source === 'regex' ? 'command' : 'queries';
  }
  /** Bumped on every change, so a view can tell whether to redraw. */
  version = 0;
  /** Per open restart and query, executions on the timeline: taken off again if the restart is discarded. */
  private added = new Map<number, Map<string, number>>();
  /** "restart 3 · cell" per restart, made the first time a drawn point needs it. */
  private labels = new Map<number, string>();
  /** The cell of each restart seen on the timeline (a discarded one's rerun has the same cell). */
  private cellOfSeq = new Map<number, string>();
  /** Finished restarts never change: their statistics are computed once. */
  private stats = new WeakMap<RestartResult, Map<string, RestartStats>>();
  /**
   * plannedExecutions per query, with the finished restarts and planned restarts it was counted from:
   * the timeline asks on every frame, and a frame's cost must not grow with the run.
   */
  private plannedOf = new Map<string, { restarts: number; planned: number; executions: number }>();

  /** The restart running now, with the tunables verified for it. */
  get current(): OpenRestart | undefined {
    return this.state === 'running' || this.state === 'paused' ? this.fold.current() : undefined;
  }

  /**
   * What was verified on the live server: at the restart running now, else at the last one that
   * finished (so the line stays once the run has ended).
   */
  get verified(): { seq: number; running: boolean; checks: OpenRestart['checks']; options?: OpenRestart['options'] } | undefined {
    const c = this.current;
    if (c) return { seq: c.seq, running: true, checks: c.checks, options: c.options };
    const last = this.fold.restarts[this.fold.restarts.length - 1];
    return last ? { seq: last.seq, running: false, checks: last.checks, options: last.options } : undefined;
  }

  /** Finished restarts (any status), in the order they finished. */
  get restarts(): readonly RestartResult[] {
    return this.fold.restarts;
  }

  /**
   * The time left at `now`: the last estimate (made when a restart ended) counted down since, so it
   * does not stand still for a whole restart and then jump; never below what the restarts after the
   * current one take at that estimate and the run's end (a restart slower than estimated holds it there
   * until it ends).
   */
  remainingNow(now: number): number {
    const left = this.planned - this.done;
    const end = Math.min(this.endMs, this.remainingMs);
    const afterThis = left > 0 ? ((this.remainingMs - end) * (left - 1)) / left + end : 0;
    const spent = Math.max(0, (this.pausedAt ?? now) - this.remainingAt);
    return Math.max(afterThis, this.remainingMs - spent);
  }

  apply(events: RunEvent[]): void {
    for (const e of events) this.one(e);
    if (events.length) this.version++;
  }

  private say(line: LogLine): void {
    this.log.push(line);
    if (this.log.length > 500) this.log.splice(0, this.log.length - 500);
  }

  /** A record into the fold, and what the timeline and log make of it. */
  private take(r: JournalRecord, cell?: string): void {
    const e = eventOf(r, (seq) => cell ?? this.fold.cellOf(seq));
    const line = e && eventLine(e);
    if (line && !line.routine) this.say({ at: r.at, level: line.level, message: line.text });
    switch (r.t) {
      case 'restart-started':
        this.added.set(r.seq, new Map());
        break;
      case 'execution': {
        this.push(r.query, r.unit, r.seq, cell ?? this.fold.cellOf(r.seq) ?? '', r.value, r.warmup);
        this.source = r.source;
        const a = this.added.get(r.seq);
        if (a) a.set(r.query, (a.get(r.query) ?? 0) + 1);
        break;
      }
      case 'restart-finished':
        this.added.delete(r.seq);
        if (this.link?.state === 'back') this.link = undefined;
        break;
      case 'interval':
        this.addInterval(r, cell ?? this.fold.cellOf(r.seq) ?? '');
        this.interval = { seq: r.seq, rep: r.rep, second: r.second, tps: r.tps, qps: r.qps, latencyMs: r.latencyMs, percentile: r.percentile };
        break;
      case 'restart-discarded':
        this.takeOff(r.seq);
        break;
      case 'noise': {
        const reasons = busyReasons(r.noise);
        this.busyHost = reasons ? { seq: r.seq, reasons } : undefined;
        break;
      }
      case 'timer':
        this.source = r.source;
        this.timerNote = timerNoteParts(r) ?? undefined;
        break;
      case 'look': {
        const { t: _t, ...look } = r;
        this.look = look;
        break;
      }
      case 'stopped-answered':
        this.stopped = { round: r.round, because: r.because };
        break;
      case 'data':
        this.data = undefined;
        break;
      case 'run-finished':
        this.data = undefined;
        this.state = r.state;
        this.finishMessage = r.message;
        break;
      default:
        break;
    }
    this.fold.apply(r);
  }

  private one(e: RunEvent): void {
    const r = recordOf(e);
    if (r) return this.take(r, 'cell' in e ? e.cell : undefined);
    switch (e.type) {
      case 'run-started':
        this.planned = e.planned;
        this.done = e.done;
        this.cells = e.cells;
        this.queries = e.queries;
        this.warmup = e.warmup;
        this.stopping = e.stopping;
        this.state = 'running';
        break;
      case 'progress':
        this.done = e.done;
        this.planned = e.planned;
        this.remainingMs = e.remainingMs;
        this.endMs = e.endMs ?? 0;
        this.remainingAt = e.at;
        break;
      case 'state':
        // A pause stops the countdown of the time left; a resume goes on from where it stopped.
        if (e.state === 'paused') this.pausedAt ??= e.at;
        else if (this.pausedAt !== null) {
          this.remainingAt += e.at - this.pausedAt;
          this.pausedAt = null;
        }
        this.state = e.state;
        break;
      case 'data-progress':
        this.data = { text: dataProgressText(e), fraction: e.fraction };
        break;
      case 'link': {
        const { type: _type, at: _at, host: _host, ...link } = e;
        this.link = link;
        break;
      }
      case 'history':
        this.warmup = e.warmup;
        for (const restart of e.restarts) for (const rec of recordsOfRestart(restart, e.warmup)) this.take(rec, restart.cell);
        break;
      default:
        break;
    }
  }

  /** One execution onto the timeline of its query. */
  private push(query: string, unit: string, seq: number, cell: string, value: number, warmup: boolean): void {
    let s = this.series.get(query);
    if (!s) {
      s = { y: [], seq: [], warmup: [], warmAt: [], unit };
      this.series.set(query, s);
    }
    s.y.push(value);
    s.seq.push(seq);
    if (warmup) s.warmAt.push(s.warmup.length);
    s.warmup.push(warmup);
    if (!this.cellOfSeq.has(seq)) this.cellOfSeq.set(seq, cell);
    this.executions++;
  }

  /** One interval line onto its restart's trace: a run's lines count from its own start, which is where the run before it ended. */
  private addInterval(r: Extract<JournalRecord, { t: 'interval' }>, cell: string): void {
    let t = this.intervalTraces[this.intervalTraces.length - 1];
    if (!t || t.seq !== r.seq) {
      t = { seq: r.seq, cell, start: this.intervalClock, runStart: this.intervalClock, x: [], tps: [], qps: [], latencyMs: [], rep: [] };
      this.intervalTraces.push(t);
    }
    const n = t.x.length;
    if (n && t.rep[n - 1] !== r.rep) t.runStart = t.x[n - 1];
    const x = t.runStart + r.second;
    t.x.push(x);
    t.tps.push(r.tps);
    t.qps.push(r.qps);
    t.latencyMs.push(r.latencyMs ?? Number.NaN);
    t.rep.push(r.rep);
    if (r.percentile !== undefined) t.percentile = r.percentile;
    this.intervalClock = x;
    this.intervalCount++;
  }

  /** A discarded restart's executions leave the timeline and the count (they are the newest of their restart). */
  private takeOff(seq: number): void {
    const at = this.intervalTraces.findIndex((t) => t.seq === seq);
    if (at >= 0) {
      const [t] = this.intervalTraces.splice(at, 1);
      this.intervalCount -= t.x.length;
      if (at === this.intervalTraces.length) this.intervalClock = t.start;
    }
    for (const [query, n] of this.added.get(seq) ?? []) {
      const s = this.series.get(query);
      if (!s) continue;
      const k = Math.min(n, s.y.length);
      for (const list of [s.y, s.seq, s.warmup]) list.splice(list.length - k, k);
      while (s.warmAt.length && s.warmAt[s.warmAt.length - 1] >= s.y.length) s.warmAt.pop();
      this.executions -= k;
    }
    this.added.delete(seq);
  }

  /** Does the run go on (more executions may arrive)? */
  get following(): boolean {
    return this.state === 'running' || this.state === 'paused';
  }

  /**
   * The executions of `query` the whole run will have on the timeline, estimated once a restart has
   * finished ok: its most executions in one such restart, times the planned restarts (0: not known).
   */
  plannedExecutions(query: string): number {
    // Finished restarts are only ever added (and never change): the count holds until one is, or the planned restarts change.
    const known = this.plannedOf.get(query);
    if (known && known.restarts === this.fold.restarts.length && known.planned === this.planned) return known.executions;
    let most = 0;
    for (const r of this.fold.restarts) {
      if (r.status !== 'ok') continue;
      const q = r.queries.find((x) => x.query === query);
      if (q && q.values.length > most) most = q.values.length;
    }
    const executions = most * this.planned;
    this.plannedOf.set(query, { restarts: this.fold.restarts.length, planned: this.planned, executions });
    return executions;
  }

  /** The hover label of a restart's executions: "restart 3 · cell". */
  labelOf(seq: number): string {
    let l = this.labels.get(seq);
    if (l === undefined) {
      l = `restart ${seq} · ${this.cellOfSeq.get(seq) ?? this.fold.cellOf(seq) ?? ''}`;
      this.labels.set(seq, l);
    }
    return l;
  }

  private statsOf(r: RestartResult): Map<string, RestartStats> {
    let out = this.stats.get(r);
    if (out) return out;
    out = new Map();
    for (const q of r.queries) {
      const m = new RunningMoments();
      for (let i = this.warmup; i < q.values.length; i++) m.add(q.values[i]);
      out.set(q.query, { n: m.n, mean: m.mean, sd: m.sd });
    }
    this.stats.set(r, out);
    return out;
  }

  /** Restarts that count (finished ok, not discarded), with the mean and within-restart spread of `query`. */
  restartMeans(query: string): RestartPoint[] {
    const out: RestartPoint[] = [];
    for (const r of this.fold.restarts) {
      if (r.status !== 'ok') continue;
      const s = this.statsOf(r).get(query);
      if (!s || s.n === 0) continue;
      out.push({ seq: r.seq, cell: r.cell, mean: s.mean, sd: s.sd, n: s.n });
    }
    return out;
  }

  /** Restart means of `query` per cell, in the order the restarts finished. */
  private meansByCell(query: string): Map<string, number[]> {
    const byCell = new Map<string, number[]>();
    for (const p of this.restartMeans(query)) {
      const list = byCell.get(p.cell) ?? [];
      list.push(p.mean);
      byCell.set(p.cell, list);
    }
    return byCell;
  }

  /** Per cell: the between-restart CV of `query` after 2, 3, … restarts. */
  spreadByCell(query: string): Map<string, SpreadPoint[]> {
    const out = new Map<string, SpreadPoint[]>();
    for (const [cell, means] of this.meansByCell(query)) out.set(cell, runningCovPct(means).map((p) => ({ restarts: p.count, cvPct: p.covPct })));
    return out;
  }

  /**
   * The minimum detectable effect (percent, at the analysis's default α and power) between two cells of
   * `query` with the restarts per cell done so far: the analysis's MDE, pooled over cells.
   */
  mde(query: string): { pct: number; restartsPerCell: number; definition: MdeDefinition; basis: string } | null {
    const m = this.mdeOf(query);
    return m.pct === null ? null : { pct: m.pct, restartsPerCell: m.restarts, definition: m.definition, basis: fmtMdeBasis(m) };
  }

  private mdeOf(query: string) {
    return minimumDetectableEffect([...this.meansByCell(query).values()], { definition: 'pooled', alpha: DEFAULTS.alpha, power: DEFAULTS.power });
  }

  /** Why mde(query) has no value yet, in words a user can act on (null when it has one). */
  mdeWhy(query: string): string | null {
    const m = this.mdeOf(query);
    if (m.pct !== null) return null;
    if (m.reason === 'no restarts with executions') return `needs ${MIN_RESTARTS} restarts of a cell (none has finished yet)`;
    return m.reason ?? 'not computable';
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

/**
 * A run of one design on several hosts: one LiveRun per host (each host numbers its restarts from 1,
 * so they never share a fold). Events that name no host belong to a run on one host (kept under
 * ''), or, once hosts are known, are the several-host run's own end, which each host has already
 * said for itself.
 */
export class LiveRuns {
  readonly byHost = new Map<string, LiveRun>();

  /** The hosts in the order their first event came. */
  get hosts(): string[] {
    return [...this.byHost.keys()].filter((h) => h !== '');
  }

  /** A host's live run (a run on one host: host undefined or ''). */
  get(host?: string | null): LiveRun {
    const key = host ?? this.hosts[0] ?? '';
    let live = this.byHost.get(key);
    if (!live) this.byHost.set(key, (live = new LiveRun()));
    return live;
  }

  /** Does the run go on (on any host)? */
  get active(): boolean {
    const lives = this.hosts.length ? this.hosts.map((h) => this.get(h)) : [this.get('')];
    return lives.some((l) => l.state === 'running' || l.state === 'paused');
  }

  apply(events: RunEvent[]): void {
    const groups = new Map<string, RunEvent[]>();
    for (const e of events) {
      if (e.host === undefined && this.hosts.length) continue;
      const key = e.host ?? '';
      let g = groups.get(key);
      if (!g) groups.set(key, (g = []));
      g.push(e);
    }
    for (const [host, g] of groups) this.get(host).apply(g);
  }
}
