// The journal: every measurement of a run, appended as one JSON line to `<experiment>.journal.jsonl`
// before anything else sees it. The results in the experiment file can always be rebuilt from it,
// and a run that was interrupted (app killed, SSH dropped, laptop asleep) resumes from it.
//
// Writes are synchronous `write(2)` calls on an append-mode descriptor: once `append` returns the
// line is in the kernel, so killing the process loses nothing; `fsync` at the end of every restart
// makes it survive a power cut too.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { Design, QueryTimings, RestartResult, Results, TimingSource, TunableCheck } from '../../common/experiment/types.js';
import type { HostFingerprint } from '../../common/host.js';
import { buildPlan, type ScheduledRestart } from '../../common/plan.js';

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
    }
  | { t: 'host'; at: number; host: HostFingerprint }
  | { t: 'timer'; at: number; source: TimingSource; note?: string }
  | { t: 'restart-started'; at: number; seq: number; cell: string }
  | { t: 'checks'; at: number; seq: number; checks: TunableCheck[]; pid?: number; readyMs?: number }
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
  | { t: 'restart-finished'; at: number; seq: number; cell: string; status: RestartResult['status']; reason?: string }
  | { t: 'restart-discarded'; at: number; seq: number; cell: string; reason: string }
  | { t: 'run-finished'; at: number; state: 'finished' | 'failed' | 'cancelled'; message?: string };

export function journalPath(experimentPath: string): string {
  return experimentPath.replace(/\.json$/i, '') + '.journal.jsonl';
}

/** Stable JSON: keys sorted, so a digest does not depend on property order in the file. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** What identifies "the same run": the ordered restarts and what is measured in each. Target and idle time may change on resume. */
export function planHash(design: Design, plan: ScheduledRestart[] = buildPlan(design)): string {
  const w = design.workload;
  return sha256(
    canonical({
      plan: plan.map((p) => [p.seq, p.cell]),
      factors: design.factors,
      workload: { kind: w.kind, database: w.database, queries: w.queries, repetitions: w.repetitions, warmup: w.warmup, command: w.command },
    }),
  );
}

export function designDigest(design: Design): string {
  return sha256(canonical(design));
}

export function headerRecord(design: Design, at = Date.now()): Extract<JournalRecord, { t: 'header' }> {
  const plan = buildPlan(design);
  return { t: 'header', format: JOURNAL_FORMAT, at, planHash: planHash(design, plan), seed: design.seed, designDigest: designDigest(design), planned: plan.length, design };
}

/** What a journal says about a run. */
export interface JournalState {
  header: Extract<JournalRecord, { t: 'header' }> | null;
  host?: HostFingerprint;
  timer?: { source: TimingSource; note?: string };
  /** Finished restarts in the order they finished; each planned seq at most once. */
  restarts: RestartResult[];
  /** Restarts thrown away, including ones interrupted before this read (not yet recorded as discarded). */
  discarded: { seq: number; cell: string; reason: string; at: number }[];
  /** Started, never finished nor discarded: interrupted. The caller records them as discarded on resume. */
  interrupted: { seq: number; cell: string; at: number }[];
  startedAt?: number;
  finishedAt?: number;
  lastState?: 'finished' | 'failed' | 'cancelled';
  /** Lines that did not parse (a crash mid-write leaves at most the last one torn). */
  skippedLines: number;
}

interface Open {
  seq: number;
  cell: string;
  startedAt: number;
  checks: TunableCheck[];
  preload?: RestartResult['preload'];
  queries: Map<string, QueryTimings>;
}

/** Folds journal records, one at a time, into what the journal says: used for reading a file and, live, by the engine. */
export class JournalFold {
  private s: JournalState = { header: null, restarts: [], discarded: [], interrupted: [], skippedLines: 0 };
  private open = new Map<number, Open>();
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
        break;
      case 'timer':
        state.timer = { source: r.source, note: r.note };
        break;
      case 'restart-started':
        if (this.finished.has(r.seq)) break;
        this.open.set(r.seq, { seq: r.seq, cell: r.cell, startedAt: r.at, checks: [], queries: new Map() });
        break;
      case 'checks': {
        const o = this.open.get(r.seq);
        if (o) o.checks = r.checks;
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
          ...(o.preload ? { preload: o.preload } : {}),
          queries: [...o.queries.values()],
        });
        break;
      }
      case 'restart-discarded':
        this.open.delete(r.seq);
        state.discarded.push({ seq: r.seq, cell: r.cell, reason: r.reason, at: r.at });
        break;
      case 'run-finished':
        state.lastState = r.state;
        state.finishedAt = r.at;
        break;
    }
  }

  skipped(): void {
    this.s.skippedLines++;
  }

  /** The state now; restarts started and not yet finished count as interrupted. */
  state(): JournalState {
    return { ...this.s, restarts: [...this.s.restarts], discarded: [...this.s.discarded], interrupted: [...this.open.values()].map((o) => ({ seq: o.seq, cell: o.cell, at: o.startedAt })) };
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

export function readJournal(path: string, fold?: JournalFold): JournalState | null {
  if (!existsSync(path)) return null;
  return readJournalText(readFileSync(path, 'utf8'), fold);
}

/** The planned restarts the journal has no finished record for, in plan order: where a resume starts. */
export function remainingRestarts(plan: ScheduledRestart[], state: JournalState | null): ScheduledRestart[] {
  const done = new Set(state?.restarts.map((r) => r.seq));
  return plan.filter((p) => !done.has(p.seq));
}

/** Did this journal's run end with every planned restart finished? */
export function isComplete(state: JournalState): boolean {
  if (!state.header) return false;
  const done = new Set(state.restarts.map((r) => r.seq));
  for (let s = 1; s <= state.header.planned; s++) if (!done.has(s)) return false;
  return true;
}

/** An append-only journal file. */
export class JournalWriter {
  private fd: number;
  private closed = false;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'a', 0o644);
    // A torn last line from a crash must not glue itself to the next record.
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (text.length && !text.endsWith('\n')) writeSync(this.fd, '\n');
  }

  /** Written to the kernel when this returns: a killed process loses nothing. */
  append(record: JournalRecord): void {
    if (this.closed) throw new Error(`journal ${this.path} is closed`);
    writeSync(this.fd, JSON.stringify(record) + '\n');
  }

  /** To the disk itself: called at the end of every restart. */
  sync(): void {
    if (!this.closed) fsyncSync(this.fd);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      fsyncSync(this.fd);
    } finally {
      closeSync(this.fd);
    }
  }
}

/** Move a finished journal aside so a fresh run of the same file starts a new one (the old one is kept). */
export function archiveJournal(path: string, at = Date.now()): string {
  const to = path.replace(/\.jsonl$/, `.${new Date(at).toISOString().replace(/[:.]/g, '-')}.jsonl`);
  renameSync(path, to);
  return to;
}

/** The `results` section of the experiment file, rebuilt from the journal (restarts in plan order). */
export function resultsFromJournal(state: JournalState, interruptedReason = 'interrupted before it finished'): Results {
  const discarded = [...state.discarded, ...state.interrupted.map((i) => ({ seq: i.seq, cell: i.cell, reason: interruptedReason, at: i.at }))];
  return {
    ...(state.host ? { host: state.host } : {}),
    ...(state.startedAt !== undefined ? { startedAt: state.startedAt } : {}),
    ...(state.finishedAt !== undefined && state.lastState ? { finishedAt: state.finishedAt } : {}),
    ...(state.timer?.note ? { timerNote: state.timer.note } : {}),
    ...(discarded.length ? { discarded } : {}),
    restarts: [...state.restarts].sort((a, b) => a.seq - b.seq),
  };
}
