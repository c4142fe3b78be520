// The journal: every measurement of a run, appended as one JSON line to `<experiment>.journal.jsonl`
// before anything else sees it. The results in the experiment file can always be rebuilt from it,
// and a run that was interrupted (app killed, SSH dropped, laptop asleep) resumes from it.
//
// The record type and the fold that reads records are src/common/records.ts; this module is the file.
//
// Writes are synchronous `write(2)` calls on an append-mode descriptor: once `append` returns the
// line is in the kernel, so killing the process loses nothing; `fsync` at the end of every restart
// makes it survive a power cut too.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { ApiError } from '../../common/api.js';
import { canonicalJson } from '../../common/experiment/changes.js';
import type { Design } from '../../common/experiment/types.js';
import { buildPlan, designHosts, type ScheduledRestart } from '../../common/plan.js';
import { isComplete, JOURNAL_FORMAT, restorePending, JournalFold, readJournalText, type JournalRecord, type JournalState, type RecordOf } from '../../common/records.js';
import { kindOf } from '../small-file.js';

export function journalPath(experimentPath: string): string {
  return experimentPath.replace(/\.json$/i, '') + '.journal.jsonl';
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * One host's journal of a design run on several hosts: `<experiment>.journal.<host>.jsonl` beside the
 * file. The host part is readable (the target without `ssh://`, other characters as `_`) and made
 * unique by a digest of the whole target.
 */
export function hostJournalPath(experimentPath: string, host: string): string {
  const readable = host.replace(/^ssh:\/\//, '').replace(/[^A-Za-z0-9@._-]/g, '_').slice(0, 60);
  return `${experimentPath.replace(/\.json$/i, '')}.journal.${readable}-${sha256(host).slice(0, 8)}.jsonl`;
}

/** The journal of each host a design runs on: the one journal beside the file for one host, one per host for several. */
export function runJournals(experimentPath: string, design: Pick<Design, 'target' | 'targets'>): { host: string; path: string }[] {
  const hosts = designHosts(design);
  if (hosts.length === 1) return [{ host: hosts[0], path: journalPath(experimentPath) }];
  return hosts.map((host) => ({ host, path: hostJournalPath(experimentPath, host) }));
}

/** What identifies "the same run": the ordered restarts and what is measured in each. Target and idle time may change on resume. */
export function planHash(design: Design, plan: ScheduledRestart[] = buildPlan(design)): string {
  const w = design.workload;
  return sha256(
    canonicalJson({
      plan: plan.map((p) => [p.seq, p.cell]),
      factors: design.factors,
      workload: { kind: w.kind, database: w.database, queries: w.queries, repetitions: w.repetitions, warmup: w.warmup, command: w.command },
    }),
  );
}

export function designDigest(design: Design): string {
  return sha256(canonicalJson(design));
}

export function headerRecord(design: Design, at = Date.now(), grows?: { part: number }): RecordOf<'header'> {
  const plan = buildPlan(design);
  return { t: 'header', format: JOURNAL_FORMAT, at, planHash: planHash(design, plan), seed: design.seed, designDigest: designDigest(design), planned: plan.length, design, ...(grows ? { grows } : {}) };
}

export function readJournal(path: string, fold?: JournalFold): JournalState | null {
  if (!existsSync(path)) return null;
  let text: string;
  try {
    // A journal shipped beside a file may be a link to /dev/zero or a FIFO: read whole, it never ends.
    const st = statSync(path);
    if (!st.isFile()) throw new Error(`not a regular file (${kindOf(st)})`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    // Node's own message ("EISDIR: illegal operation on a directory, read") names no file.
    throw new Error(`cannot read the journal ${path}: ${(e as Error).message}`);
  }
  return readJournalText(text, fold);
}

/** An append-only journal file. */
export class JournalWriter {
  private fd: number;
  private closed = false;
  /** The last write may have left part of a line (a full disk). */
  private torn = false;

  constructor(readonly path: string) {
    try {
      this.fd = openSync(path, 'a', 0o644);
    } catch (e) {
      throw new Error(`cannot open the journal ${path}: ${(e as Error).message}`);
    }
    // A torn last line from a crash must not glue itself to the next record.
    const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (text.length && !text.endsWith('\n')) writeSync(this.fd, '\n');
  }

  /** Written to the kernel when this returns: a killed process loses nothing. */
  append(record: JournalRecord): void {
    this.write(JSON.stringify(record) + '\n');
  }

  /**
   * One write(2) of whole lines. A full disk can take part of a line and refuse the rest: that is an
   * error here, and the torn part is ended before the next line so that it cannot spoil it.
   */
  private write(text: string): void {
    if (this.closed) throw new Error(`journal ${this.path} is closed`);
    const out = this.torn ? '\n' + text : text;
    this.torn = true;
    const n = writeSync(this.fd, out);
    if (n !== Buffer.byteLength(out)) throw new Error(`journal ${this.path}: only ${n} of ${Buffer.byteLength(out)} bytes were written (is the disk full?)`);
    this.torn = false;
  }

  /**
   * Several records in one write(2): a killed process leaves all of them or none (the records a
   * detached run's journal brought, and the offset they reach, must not be taken apart).
   */
  appendAll(records: JournalRecord[]): void {
    if (records.length) this.write(records.map((r) => JSON.stringify(r) + '\n').join(''));
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

/** What is beside an experiment file: nothing, a run to resume, a finished run, or a journal of another plan. */
export type JournalVerdict =
  | { kind: 'fresh' }
  | { kind: 'resume'; state: JournalState; done: number; planned: number }
  | { kind: 'complete'; state: JournalState }
  | { kind: 'other-plan'; state: JournalState };

export function inspectJournal(experimentPath: string, design: Design, journal = journalPath(experimentPath)): JournalVerdict {
  const state = readJournal(journal);
  if (!state || !state.header) return { kind: 'fresh' };
  // All measured but the host not put back: a resume with nothing left to measure finishes the restore.
  if (isComplete(state) && !restorePending(state)) return { kind: 'complete', state };
  if (state.header.planHash !== planHash(design)) return { kind: 'other-plan', state };
  return { kind: 'resume', state, done: state.restarts.length, planned: state.header.planned };
}

export interface OpenedJournal {
  writer: JournalWriter;
  /** It goes on with an unfinished run of the same plan (the fold holds what it did). */
  resumed: boolean;
  /** To write first: the header of a new run, or the restarts an earlier process left open, discarded. */
  records: JournalRecord[];
}

/**
 * Open the journal beside an experiment for a run of this design (attached or detached): a new one
 * (a finished one is archived first), or the unfinished run of the same plan read into `fold`.
 */
export function openRunJournal(experimentPath: string, design: Design, fold: JournalFold, path = journalPath(experimentPath), grows?: { part: number }): OpenedJournal {
  const verdict = inspectJournal(experimentPath, design, path);
  if (verdict.kind === 'other-plan') {
    throw new ApiError(
      'busy',
      `${path} holds an unfinished run of a different plan (${verdict.state.restarts.length} of ${verdict.state.header!.planned} restarts done). Resume it with the same options, or move the journal away to start over.`,
    );
  }
  if (verdict.kind === 'complete') archiveJournal(path);
  const writer = new JournalWriter(path);
  if (verdict.kind !== 'resume') return { writer, resumed: false, records: [headerRecord(design, Date.now(), grows)] };
  readJournal(path, fold);
  // Restarts the previous process started and never finished: thrown away, run again.
  const records: JournalRecord[] = verdict.state.interrupted.map((i) => ({ t: 'restart-discarded', at: Date.now(), seq: i.seq, cell: i.cell, reason: 'interrupted: the previous run stopped during this restart' }));
  return { writer, resumed: true, records };
}

/** For `experiment.open`: does a journal beside this file hold a run that can be resumed? */
export function unfinishedRun(experimentPath: string, design?: Pick<Design, 'target' | 'targets'>): { restartsDone: number; restartsPlanned: number } | undefined {
  const states = (design ? runJournals(experimentPath, design).map((j) => j.path) : [journalPath(experimentPath)]).map((p) => readJournal(p));
  // Several hosts: unfinished while any host's journal is (a host not started yet counts once another has).
  const started = states.filter((s) => s?.header);
  if (!started.length || states.every((s) => s?.header && isComplete(s) && !restorePending(s))) return undefined;
  const planned = started[0]!.header!.planned * states.length;
  return { restartsDone: started.reduce((n, s) => n + s!.restarts.length, 0), restartsPlanned: planned };
}
