// The one record type of a run. The engine journals each record (one JSON line in
// `<experiment>.journal.jsonl`) before anything else sees it; every run event about a restart is
// derived from its record by `eventOf`; and one fold (`JournalFold`) turns records into what the
// journal says: read from a file by the backend, fed live by the engine, and fed from events by the
// Run view (through `recordOf`). The experiment file's results and the analysis's tidy table are
// built from the fold's restarts.
import type { RunEvent } from './events.js';
import { eventLine } from './event-line.js';
import type { DataCheck, DataStepResult, Design, HostNoise, IntervalRow, QueryTimings, RestartResult, Results, RunLogLine, TimerVsClient, TimingSource, TunableCheck } from './experiment/types.js';
import type { HostFingerprint } from './host.js';
import type { ScheduledRestart } from './plan.js';
import { restartsOfCell } from './restart-of-cell.js';
import type { Costs } from './stats/planner.js';
import { timerNoteParts, timerNoteText } from './timer-note.js';
import type { Look, SequentialComparison } from './stats/sequential.js';

export const JOURNAL_FORMAT = 'varlab-journal';

export type JournalRecord =
  | {
      t: 'header';
      format: typeof JOURNAL_FORMAT;
      at: number;
      /** Digest of the ordered plan and the workload: a journal only resumes the plan it was written for. */
      planHash: string;
      seed: number;
      designDigest: string;
      planned: number;
      /** The design as run (overrides applied), so a resume runs exactly the same thing. */
      design: Design;
      /**
       * The run measures only what the file's results miss (run --missing): its design is the file's
       * with the complete cells left out, and its restarts join the file's as run `part` (2, 3…).
       */
      grows?: { part: number };
    }
  | { t: 'host'; at: number; host: HostFingerprint }
  | {
      t: 'timer';
      at: number;
      source: TimingSource;
      /** Why the exact timer is not the one (common/timer-note.ts says the note from it); absent for the exact timer. */
      why?: string;
      /** A timer other than performance_schema's, against the client's time. */
      vsClient?: TimerVsClient;
      /** The note in words, all that a journal written before `why` was kept holds. */
      note?: string;
    }
  | { t: 'restart-started'; at: number; seq: number; cell: string }
  | { t: 'checks'; at: number; seq: number; checks: TunableCheck[]; pid?: number; readyMs?: number; /** The server profile's own options, read back like the factors. */ options?: TunableCheck[] }
  | { t: 'preload'; at: number; seq: number; tables: number; indexes: number; rows: number; ms: number }
  | {
      t: 'execution';
      at: number;
      seq: number;
      query: string;
      rep: number;
      warmup: boolean;
      value: number;
      client?: number;
      unit: string;
      source: TimingSource;
    }
  /** One interval line of the benchmark command (sysbench --report-interval), journaled as it is printed. */
  | ({ t: 'interval'; at: number; seq: number } & IntervalRow)
  | { t: 'restart-finished'; at: number; seq: number; cell: string; status: RestartResult['status']; reason?: string; steps?: RestartResult['steps'] }
  | { t: 'restart-discarded'; at: number; seq: number; cell: string; reason: string }
  /**
   * The host's noise over a finished restart's measured window (common/noise.ts). An attached run
   * learns it in the next remote call (the window ends when the next restart's, or the final stop's,
   * script begins), so it comes after the restart's `restart-finished`.
   */
  | { t: 'noise'; at: number; seq: number; noise: HostNoise }
  | { t: 'run-finished'; at: number; state: 'finished' | 'failed' | 'cancelled'; message?: string }
  /**
   * A line the run said (the log): that varlab's process yields the CPU to mysqld, the host busy
   * before the run, the setup script, a timer's note, a reconnect… Journaled so the finished file
   * says it too (results.log), as the live run did.
   */
  | ({ t: 'log' } & RunLogLine)
  /**
   * Stop when answered (design.stopping): at the look after this round every comparison was decided,
   * so the restarts planned after it are not run. The journal is complete with it.
   */
  | { t: 'stopped-answered'; at: number; round: number; because: string }
  /** A look of the stopping rule: each comparison's running interval against the boundary, and what is left. */
  | {
      t: 'look';
      at: number;
      /** The look: its round, boundary and the comparisons still open at it. */
      look: Look;
      /** Every comparison's verdict so far (decided at this look or an earlier one, else inconclusive for now). */
      comparisons: SequentialComparison[];
      max_rounds: number;
      effect_pct: number;
      rounds_left: number;
      /** Set when the rule stops at this look. */
      stopped_because: string | null;
    }
  /** The end of a run on its host: mysqld stopped and host settings restored (ok), or why not (a later run finishes it). */
  | { t: 'host-left'; at: number; ok: boolean; problem?: string }
  /**
   * The run goes on on its target by itself (issue 14): how to reach it again (never a secret: the
   * paths of the key and known-hosts files), where its directory is, and under which supervisor.
   */
  | {
      t: 'detached';
      at: number;
      runId: string;
      target: string;
      auth?: { identity?: string; knownHosts?: string };
      dir: string;
      supervisor: 'systemd' | 'setsid';
      pid?: number;
      /** A host of a design detached on several hosts: the several-host run's id and every host it went to (each host's journal has its own record). */
      group?: { id: string; hosts: string[] };
      /**
       * What a restart and the run cost on this target in the file's run before this launch, when it
       * measured them. A run started again from scratch replaces the file's results at launch (the old
       * ones go to a kept copy nothing points to), so a follower in another process starts its time
       * left from these rather than from the design's estimates.
       */
      costs?: Costs;
    }
  /** The target's journal is in this one up to this byte offset (written with the records it brought). */
  | { t: 'imported'; at: number; offset: number }
  /** The detached run's directory on its target was removed once its results were in the file: nothing is left there to connect for. */
  | { t: 'target-cleaned'; at: number }
  /**
   * The data step (design.workload.data), once per run and data directory before its first measured
   * restart: loaded, resumed from the chunks a cut load finished, or recognised as already there; with
   * each check query's result.
   */
  | {
      t: 'data';
      at: number;
      /** The data directory loaded: its build's name (each build has its own); absent for the profile's own server's. */
      datadir?: string;
      database: string;
      sf: number;
      seed: number;
      source: string;
      recognised: boolean;
      resumedChunks: number;
      rows: Record<string, number>;
      ms: number;
      method: 'load-data-local' | 'insert';
      checks: DataCheck[];
    };

export type RecordKind = JournalRecord['t'];
export type RecordOf<K extends RecordKind> = Extract<JournalRecord, { t: K }>;

/** The event each kind of record becomes (header and host stay in the journal). */
const EVENT_TYPE = {
  timer: 'timer',
  'restart-started': 'restart-started',
  checks: 'tunables-verified',
  preload: 'preload',
  execution: 'execution',
  interval: 'interval',
  'restart-finished': 'restart-finished',
  'restart-discarded': 'restart-discarded',
  noise: 'host-noise',
  'run-finished': 'run-finished',
  'stopped-answered': 'stopped-answered',
  look: 'look',
  data: 'data',
  log: 'log',
} as const satisfies Partial<Record<RecordKind, RunEvent['type']>>;

type Evented = keyof typeof EVENT_TYPE;
const RECORD_KIND = Object.fromEntries(Object.entries(EVENT_TYPE).map(([k, v]) => [v, k])) as Record<string, Evented>;

/** The records whose events name their cell although the record does not repeat it (the restart's record has it). */
const ADDS_CELL = new Set<RecordKind>(['checks', 'execution', 'interval']);

/**
 * A record's event: the record's fields under the event's name, plus the cell of the restart it
 * belongs to where the record leaves it out. Null for records that are not events.
 */
export function eventOf(r: JournalRecord, cellOf: (seq: number) => string | undefined): RunEvent | null {
  const type = EVENT_TYPE[r.t as Evented];
  if (!type) return null;
  const { t: _t, ...fields } = r;
  const cell = ADDS_CELL.has(r.t) && 'seq' in r ? { cell: cellOf(r.seq) ?? '' } : {};
  return { type, ...fields, ...cell } as RunEvent;
}

/** The record an event was derived from (the added cell stays: the fold ignores it). Null for events that are not records. */
export function recordOf(e: RunEvent): JournalRecord | null {
  const t = RECORD_KIND[e.type];
  if (!t) return null;
  const { type: _type, ...fields } = e;
  return { t, ...fields } as JournalRecord;
}

/**
 * The records a restart is made of, in journal order: replays a finished restart kept in a file or
 * sent as history, or (without status) one still open, rebuilt from a journal's fold.
 */
export function recordsOfRestart(r: RestartResult | (Omit<RestartResult, 'status' | 'finishedAt'> & { status?: undefined; finishedAt?: number }), warmup: number): JournalRecord[] {
  const out: JournalRecord[] = [{ t: 'restart-started', at: r.startedAt, seq: r.seq, cell: r.cell }, { t: 'checks', at: r.startedAt, seq: r.seq, checks: r.checks, ...(r.options ? { options: r.options } : {}) }];
  if (r.preload) out.push({ t: 'preload', at: r.startedAt, seq: r.seq, ...r.preload });
  for (const iv of r.intervals ?? []) out.push({ t: 'interval', at: r.finishedAt ?? r.startedAt, seq: r.seq, ...iv });
  for (const q of r.queries) {
    q.values.forEach((value, i) =>
      out.push({ t: 'execution', at: r.finishedAt ?? r.startedAt, seq: r.seq, query: q.query, rep: i + 1, warmup: i < warmup, value, ...(q.client ? { client: q.client[i] } : {}), unit: q.unit, source: q.source }),
    );
  }
  if (r.status) out.push({ t: 'restart-finished', at: r.finishedAt ?? r.startedAt, seq: r.seq, cell: r.cell, status: r.status, ...(r.reason ? { reason: r.reason } : {}), ...(r.steps ? { steps: r.steps } : {}) });
  if (r.status && r.noise) out.push({ t: 'noise', at: r.finishedAt ?? r.startedAt, seq: r.seq, noise: r.noise });
  return out;
}

/** What a journal says about a run. */
export interface JournalState {
  header: RecordOf<'header'> | null;
  host?: HostFingerprint;
  timer?: { source: TimingSource; why?: string; vsClient?: TimerVsClient; note?: string };
  /** Finished restarts in the order they finished; each planned seq at most once. */
  restarts: RestartResult[];
  /** Restarts thrown away, including ones interrupted before this read (not yet recorded as discarded). */
  discarded: { seq: number; cell: string; reason: string; at: number }[];
  /** Started, never finished nor discarded: interrupted. The caller records them as discarded on resume. */
  interrupted: { seq: number; cell: string; at: number }[];
  startedAt?: number;
  finishedAt?: number;
  lastState?: 'finished' | 'failed' | 'cancelled';
  /** Why it ended that way, when it says. */
  lastMessage?: string;
  /** How the last run left its host (absent in journals written before this was recorded). */
  hostLeft?: { ok: boolean; problem?: string };
  /** A detached run: how to reach it, how much of its target journal is here, and whether its end is (a run-finished after it). */
  detached?: Omit<RecordOf<'detached'>, 't'> & { offset: number; ended: boolean; cleaned?: boolean };
  /** Lines that did not parse (a crash mid-write leaves at most the last one torn). */
  skippedLines: number;
  /** The run stopped at a look of its stopping rule: the restarts planned after it are not run. */
  stopped?: { at: number; round: number; because: string };
  /** The stopping rule's last look. */
  lastLook?: Omit<RecordOf<'look'>, 't'>;
  /** What the run said (its log records), in journal order. */
  log: RunLogLine[];
  /** The data steps (its `data` records), in journal order. */
  dataSteps: DataStepResult[];
}

/** A restart started and not yet finished nor discarded. */
export interface OpenRestart {
  seq: number;
  cell: string;
  startedAt: number;
  checks: TunableCheck[];
  options?: TunableCheck[];
  preload?: RestartResult['preload'];
  queries: Map<string, QueryTimings>;
  intervals: IntervalRow[];
}

/** Folds records, one at a time, into what the journal says. */
export class JournalFold {
  private s: JournalState = { header: null, restarts: [], discarded: [], interrupted: [], skippedLines: 0, log: [], dataSteps: [] };
  private open = new Map<number, OpenRestart>();
  private finished = new Set<number>();

  apply(r: JournalRecord): void {
    const state = this.s;
    switch (r.t) {
      case 'header':
        // A journal holds one run; a resume does not write a second header.
        if (!state.header) {
          state.header = r;
          state.startedAt = r.at;
        }
        break;
      case 'host':
        state.host = r.host;
        // A new attempt (a resume, a launch again) begins with its host: how the one before ended is no longer how the run ended.
        delete state.lastState;
        delete state.lastMessage;
        delete state.finishedAt;
        break;
      case 'timer':
        state.timer = { source: r.source, ...(r.why !== undefined ? { why: r.why } : {}), ...(r.vsClient ? { vsClient: r.vsClient } : {}), ...(r.note ? { note: r.note } : {}) };
        break;
      case 'restart-started':
        if (this.finished.has(r.seq)) break;
        this.open.set(r.seq, { seq: r.seq, cell: r.cell, startedAt: r.at, checks: [], queries: new Map(), intervals: [] });
        break;
      case 'checks': {
        const o = this.open.get(r.seq);
        if (o) {
          o.checks = r.checks;
          if (r.options) o.options = r.options;
        }
        break;
      }
      case 'preload': {
        const o = this.open.get(r.seq);
        if (o) o.preload = { tables: r.tables, indexes: r.indexes, rows: r.rows, ms: r.ms };
        break;
      }
      case 'execution': {
        const o = this.open.get(r.seq);
        if (!o) break;
        let q = o.queries.get(r.query);
        if (!q) {
          q = { query: r.query, unit: r.unit, source: r.source, values: [] };
          o.queries.set(r.query, q);
        }
        q.values.push(r.value);
        if (r.client !== undefined) (q.client ??= []).push(r.client);
        break;
      }
      case 'interval': {
        // The row's own fields only (a record rebuilt from an event also carries its cell).
        const row: IntervalRow = { rep: r.rep, second: r.second, threads: r.threads, tps: r.tps, qps: r.qps };
        if (r.latencyMs !== undefined) row.latencyMs = r.latencyMs;
        if (r.percentile !== undefined) row.percentile = r.percentile;
        if (r.errPerSec !== undefined) row.errPerSec = r.errPerSec;
        this.open.get(r.seq)?.intervals.push(row);
        break;
      }
      case 'restart-finished': {
        const o = this.open.get(r.seq);
        if (!o || this.finished.has(r.seq)) break;
        this.open.delete(r.seq);
        this.finished.add(r.seq);
        state.restarts.push({
          seq: r.seq,
          cell: r.cell,
          status: r.status,
          ...(r.reason ? { reason: r.reason } : {}),
          startedAt: o.startedAt,
          finishedAt: r.at,
          checks: o.checks,
          ...(o.options ? { options: o.options } : {}),
          ...(o.preload ? { preload: o.preload } : {}),
          queries: [...o.queries.values()],
          ...(o.intervals.length ? { intervals: o.intervals } : {}),
          ...(r.steps ? { steps: r.steps } : {}),
        });
        break;
      }
      case 'noise': {
        // Its restart has finished: the noise joins its result (a copy, so a result already handed out stays as it was).
        const i = this.s.restarts.findIndex((x) => x.seq === r.seq);
        if (i >= 0) this.s.restarts[i] = { ...this.s.restarts[i], noise: r.noise };
        break;
      }
      case 'restart-discarded':
        this.open.delete(r.seq);
        state.discarded.push({ seq: r.seq, cell: r.cell, reason: r.reason, at: r.at });
        break;
      case 'detached': {
        // A new detached run (started again from this journal) reads its own target journal from 0.
        const { t: _t, ...how } = r;
        state.detached = { ...how, offset: 0, ended: false };
        break;
      }
      case 'imported':
        if (state.detached) state.detached = { ...state.detached, offset: r.offset };
        break;
      case 'target-cleaned':
        if (state.detached) state.detached = { ...state.detached, cleaned: true };
        break;
      case 'stopped-answered':
        state.stopped = { at: r.at, round: r.round, because: r.because };
        break;
      case 'look': {
        const { t: _t, ...look } = r;
        state.lastLook = look;
        break;
      }
      case 'log':
        state.log.push({ at: r.at, level: r.level, message: r.message });
        break;
      case 'data': {
        // The record whole, field by field (one rebuilt from an event carries no more), so the file keeps what was loaded.
        const step: DataStepResult = { at: r.at, ms: r.ms, ...(r.datadir ? { datadir: r.datadir } : {}), recognised: r.recognised, database: r.database, sf: r.sf, seed: r.seed, source: r.source, resumedChunks: r.resumedChunks, rows: r.rows, method: r.method, checks: r.checks };
        state.dataSteps.push(Object.fromEntries(Object.entries(step).filter(([, v]) => v !== undefined)) as unknown as DataStepResult);
        break;
      }
      case 'host-left':
        state.hostLeft = { ok: r.ok, ...(r.problem ? { problem: r.problem } : {}) };
        break;
      case 'run-finished':
        if (state.detached) state.detached = { ...state.detached, ended: true };
        state.lastState = r.state;
        state.lastMessage = r.message;
        state.finishedAt = r.at;
        break;
    }
  }

  skipped(): void {
    this.s.skippedLines++;
  }

  /** The cell of a restart that is open (or finished). */
  cellOf(seq: number): string | undefined {
    return this.open.get(seq)?.cell ?? this.s.restarts.find((r) => r.seq === seq)?.cell;
  }

  /** The restart started last and still open, if any. */
  current(): OpenRestart | undefined {
    let last: OpenRestart | undefined;
    for (const o of this.open.values()) if (!last || o.startedAt >= last.startedAt) last = o;
    return last;
  }

  /** Finished restarts in the order they finished (the fold's own list: read, never change). */
  get restarts(): readonly RestartResult[] {
    return this.s.restarts;
  }

  /** The state now; restarts started and not yet finished count as interrupted. */
  state(): JournalState {
    return { ...this.s, restarts: [...this.s.restarts], discarded: [...this.s.discarded], log: [...this.s.log], dataSteps: [...this.s.dataSteps], interrupted: [...this.open.values()].map((o) => ({ seq: o.seq, cell: o.cell, at: o.startedAt })) };
  }
}

/** Rebuild results from journal text. Tolerates a torn line (a crash mid-write): it is counted and skipped. */
export function readJournalText(text: string, fold = new JournalFold()): JournalState {
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let r: JournalRecord;
    try {
      r = JSON.parse(line) as JournalRecord;
    } catch {
      fold.skipped();
      continue;
    }
    fold.apply(r);
  }
  return fold.state();
}

/** The planned restarts the journal has no finished record for, in plan order: where a resume starts. */
export function remainingRestarts(plan: ScheduledRestart[], state: JournalState | null): ScheduledRestart[] {
  if (state?.stopped) return [];
  const done = new Set(state?.restarts.map((r) => r.seq));
  return plan.filter((p) => !done.has(p.seq));
}

/** Did this journal's run end with every planned restart finished, or stop because its question was answered? */
export function isComplete(state: JournalState): boolean {
  if (!state.header) return false;
  if (state.stopped) return true;
  const done = new Set(state.restarts.map((r) => r.seq));
  for (let s = 1; s <= state.header.planned; s++) if (!done.has(s)) return false;
  return true;
}

/**
 * Every restart is done but the host was not put back (mysqld left running, host settings changed):
 * the final stop and restore failed, or the process died before it. A later run finishes it.
 * Journals from before `host-left` existed count as restored when their run says it finished.
 */
export function restorePending(state: JournalState): boolean {
  // A detached run stops and restores on its target by itself.
  if (!isComplete(state) || state.detached) return false;
  if (state.hostLeft) return !state.hostLeft.ok;
  return state.lastState !== 'finished';
}

/**
 * The restarts of rounds after the look that stopped the run. A detached runner goes on until the
 * follower's stop reaches it (the follower reads its journal every few seconds, and a run nobody
 * followed goes on to its maximum), so its journal may hold restarts past the stop. They are not part
 * of the design as stopped: the fixed-sample analysis of the file would otherwise use more rounds
 * than the rule looked at. Round k of a cell is its k-th restart in seq order, as stats/tidy.ts's
 * restartRounds derives it.
 */
function pastTheStop(restarts: readonly RestartResult[], round: number): RestartResult[] {
  // One journal is one host's run of one part: its k-th restart of a cell is that cell's round k.
  const ofCell = restartsOfCell(restarts);
  return [...restarts].sort((a, b) => a.seq - b.seq).filter((r) => ofCell.get(r)! > round);
}

/** At most this many of a run's log lines are kept in its file: its first ones (what it said as it began) and its newest. */
export const LOG_KEPT = { first: 100, last: 400 };

/** A log too long for the file: its first and newest lines, a line between saying how many were left out (the journal has them all). */
function keptLog(log: RunLogLine[]): RunLogLine[] {
  const { first, last } = LOG_KEPT;
  if (log.length <= first + last) return log;
  const gap = log.length - first - last;
  return [...log.slice(0, first), { at: log[first].at, level: 'info', message: `… ${gap} more lines (the journal beside the file has every one)` }, ...log.slice(-last)];
}

/** The file's schema holds a log line of at most this many characters (results.log[].message). */
const LOG_MESSAGE_MAX = 20_000;

/** A line too long for the file (a start failure's error log, say) cut, so the results are still saved; the journal keeps it whole. */
function clipped(l: RunLogLine): RunLogLine {
  return l.message.length <= LOG_MESSAGE_MAX ? l : { ...l, message: `${l.message.slice(0, LOG_MESSAGE_MAX - 40)} … (cut; the journal has it whole)` };
}

/**
 * How the run ended when it did not finish (failed or cancelled: the target unreachable, its lock
 * refused, mysqld that would not start…), as its live log said it: the log's last line, so a file
 * whose run stopped before its first restart still says why. A finished run's end is no news.
 */
function endLine(state: JournalState): RunLogLine | null {
  if (state.lastState === undefined || state.lastState === 'finished' || state.finishedAt === undefined) return null;
  const line = eventLine({ type: 'run-finished', at: state.finishedAt, state: state.lastState, ...(state.lastMessage ? { message: state.lastMessage } : {}) })!;
  return { at: state.finishedAt, level: line.level, message: line.text };
}

/** The `results` section of the experiment file, rebuilt from the journal (restarts in plan order). */
export function resultsFromJournal(state: JournalState, interruptedReason = 'interrupted before it finished'): Results {
  const past = state.stopped ? pastTheStop(state.restarts, state.stopped.round) : [];
  const pastSeqs = new Set(past.map((r) => r.seq));
  const discarded = [
    ...state.discarded,
    ...state.interrupted.map((i) => ({ seq: i.seq, cell: i.cell, reason: interruptedReason, at: i.at })),
    ...past.map((r) => ({ seq: r.seq, cell: r.cell, reason: `measured after the look at round ${state.stopped!.round} stopped the run (the runner had gone on before the stop reached it): not part of the design as stopped`, at: r.finishedAt })),
  ];
  const end = endLine(state);
  const log = [...keptLog(state.log), ...(end ? [end] : [])].map(clipped);
  return {
    ...(state.host ? { host: state.host } : {}),
    ...(state.startedAt !== undefined ? { startedAt: state.startedAt } : {}),
    ...(state.finishedAt !== undefined && state.lastState ? { finishedAt: state.finishedAt } : {}),
    ...timerResults(state.timer),
    ...(discarded.length ? { discarded } : {}),
    ...(state.stopped ? { stopped: [state.stopped] } : {}),
    ...(log.length ? { log } : {}),
    ...(state.dataSteps.length ? { dataSteps: state.dataSteps } : {}),
    restarts: state.restarts.filter((r) => !pastSeqs.has(r.seq)).sort((a, b) => a.seq - b.seq),
  };
}

/**
 * The run's timer as the file keeps it: found (`timers`), in words for people (`timerNote`), and
 * against the client's time (`timerVsClient`). A journal from before `why` was kept has the words only.
 */
function timerResults(t: JournalState['timer']): Pick<Results, 'timerNote' | 'timerVsClient' | 'timers'> {
  if (!t) return {};
  const parts = timerNoteParts(t);
  const found = t.why !== undefined && parts;
  return {
    ...(found ? { timerNote: timerNoteText(parts), timers: [{ source: t.source, why: t.why!, ...(t.vsClient ? { vsClient: t.vsClient } : {}) }] } : t.note ? { timerNote: t.note } : {}),
    ...(t.vsClient ? { timerVsClient: t.vsClient } : {}),
  };
}

/**
 * The `results` of one design run on several hosts: each host's results (from its own journal)
 * folded together, every restart and discarded restart tagged with its host; restarts by host (in
 * the design's order of hosts), then seq. Finished when every host's run is. No host fingerprint:
 * there are several.
 */
export function severalHostsResults(byHost: { host: string; results: Results }[]): Results {
  const all = byHost.map((h) => h.results);
  const started = all.map((r) => r.startedAt).filter((t): t is number => t !== undefined);
  const finished = all.map((r) => r.finishedAt);
  // Each host's note, in words for people; varlab reads each host's from `timers` (common/timer-note.ts).
  const notes = [...new Set(byHost.filter((h) => h.results.timerNote).map((h) => `${h.host}: ${h.results.timerNote}`))];
  const timers = byHost.flatMap((h) => (h.results.timers ?? []).map((t) => ({ ...t, host: h.host })));
  const discarded = byHost.flatMap((h) => (h.results.discarded ?? []).map((d) => ({ ...d, host: h.host })));
  const stopped = byHost.flatMap((h) => (h.results.stopped ?? []).map((s) => ({ ...s, host: h.host })));
  const log = byHost.flatMap((h) => (h.results.log ?? []).map((l) => ({ ...l, host: h.host })));
  const dataSteps = byHost.flatMap((h) => (h.results.dataSteps ?? []).map((d) => ({ ...d, host: h.host })));
  return {
    ...(started.length ? { startedAt: Math.min(...started) } : {}),
    ...(finished.length && finished.every((t) => t !== undefined) ? { finishedAt: Math.max(...(finished as number[])) } : {}),
    ...(notes.length ? { timerNote: notes.join('; ') } : {}),
    ...(timers.length ? { timers } : {}),
    ...(discarded.length ? { discarded } : {}),
    ...(stopped.length ? { stopped } : {}),
    ...(log.length ? { log } : {}),
    ...(dataSteps.length ? { dataSteps } : {}),
    restarts: byHost.flatMap((h) => [...h.results.restarts].sort((a, b) => a.seq - b.seq).map((r) => ({ ...r, host: h.host }))),
  };
}
