// The run engine: executes an experiment's plan on its target, restart after restart.
//
//   for each scheduled restart (plan order, skipping those the journal has finished):
//     restart mysqld with the cell's tunables (applied and verified by the host layer)
//     → preload when the cell says so → idle time (equal for every restart)
//     → each query, its repetitions (first W flagged warm-up) or the benchmark command K times
//
// Every record goes to the journal before its event leaves the engine. A dropped SSH connection
// discards the restart it interrupted, reconnects with backoff (the host key is checked again)
// and runs that restart again; a killed process resumes from the journal the same way.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Connection } from 'mysql2/promise';
import { ApiError, type EventBatch, type RunStatus, type TargetAuth } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import type { Design, ExperimentDoc, ServerProfile, TunableCheck } from '../../common/experiment/types.js';
import { problemsBeforeSave } from '../../common/experiment/validate.js';
import { buildPlan, estimatePlan, expandCells, type ScheduledRestart } from '../../common/plan.js';
import { writeExperimentFile } from '../files.js';
import type { Prompter, ServerControl, TargetSession } from '../host/types.js';
import { shellQuote } from '../host/shell.js';
import { detectTimer, measure, type ServerTimer } from '../workloads/queries.js';
import { runSetup } from '../workloads/setup.js';
import { parseSysbench, parseSysbenchInterval, parseWithRegex, sysbenchMetric } from '../workloads/sysbench.js';
import { EventBatcher } from './batcher.js';
import { defaultHostLayer, type HostLayer } from './hostlayer.js';
import {
  archiveJournal,
  headerRecord,
  isComplete,
  JournalFold,
  journalPath,
  JournalWriter,
  planHash,
  readJournal,
  remainingRestarts,
  resultsFromJournal,
  type JournalRecord,
  type JournalState,
} from './journal.js';

export interface ReconnectPolicy {
  /** Attempts before giving up; the wait doubles from firstDelayMs up to maxDelayMs. */
  attempts: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export interface EngineOptions {
  /** The experiment file the results are saved into (absolute); the journal sits beside it. */
  path: string;
  /** The experiment as run: overrides applied, server profile resolved. */
  doc: ExperimentDoc;
  auth?: TargetAuth;
  prompt: Prompter;
  host?: HostLayer;
  /** Every event as it happens (after the journal has it). */
  onEvent?: (e: RunEvent) => void;
  /** Events in numbered batches, for front ends. */
  onBatch?: (b: EventBatch) => void;
  batchMs?: number;
  reconnect?: Partial<ReconnectPolicy>;
  /** Save the experiment file at most this often during a run (it is always saved at the end). */
  saveEveryMs?: number;
  runId?: string;
}

export interface RunOutcome {
  state: 'finished' | 'failed' | 'cancelled';
  message?: string;
  planned: number;
  done: number;
  resumed: boolean;
  path: string;
  journal: string;
}

/** What is beside an experiment file: nothing, a run to resume, a finished run, or a journal of another plan. */
export type JournalVerdict =
  | { kind: 'fresh' }
  | { kind: 'resume'; state: JournalState; done: number; planned: number }
  | { kind: 'complete'; state: JournalState }
  | { kind: 'other-plan'; state: JournalState };

export function inspectJournal(experimentPath: string, design: Design): JournalVerdict {
  const state = readJournal(journalPath(experimentPath));
  if (!state || !state.header) return { kind: 'fresh' };
  if (isComplete(state)) return { kind: 'complete', state };
  if (state.header.planHash !== planHash(design)) return { kind: 'other-plan', state };
  return { kind: 'resume', state, done: state.restarts.length, planned: state.header.planned };
}

/** For `experiment.open`: does a journal beside this file hold a run that can be resumed? */
export function unfinishedRun(experimentPath: string): { restartsDone: number; restartsPlanned: number } | undefined {
  const state = readJournal(journalPath(experimentPath));
  if (!state?.header || isComplete(state)) return undefined;
  return { restartsDone: state.restarts.length, restartsPlanned: state.header.planned };
}

const RESTART_SCOPED = new Set<JournalRecord['t']>(['restart-started', 'checks', 'preload', 'execution', 'restart-finished']);

class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** Errors that mean "the way to the target went away", as opposed to a problem with the experiment. */
function isConnectionLoss(e: unknown): boolean {
  const err = e as { code?: string; fatal?: boolean };
  if (e instanceof ApiError) return e.code === 'connection';
  return ['PROTOCOL_CONNECTION_LOST', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ERR_STREAM_DESTROYED'].includes(err?.code ?? '');
}

const DISCARDS_PER_RESTART = 3;

export class RunEngine {
  readonly runId: string;
  readonly journalFile: string;
  private readonly design: Design;
  private readonly plan: ScheduledRestart[];
  private readonly fold = new JournalFold();
  private journal: JournalWriter | null = null;
  private readonly batcher: EventBatcher;
  private readonly reconnectPolicy: ReconnectPolicy;
  private host: HostLayer | null;
  private session: TargetSession | null = null;
  private control: ServerControl | null = null;
  private dropped: Error | null = null;
  /** Rejects when the session drops, so a restart waiting on a dead stream is given up at once. */
  private dropSignal: Promise<never> = new Promise(() => {});
  private attempt: { seq: number; abandoned: boolean } | null = null;
  /** mysql connections open in the current restart: destroyed when the session drops so nothing hangs. */
  private readonly conns = new Set<Connection>();
  private state: RunStatus['state'] = 'running';
  private cancelled = false;
  private pauseWanted = false;
  private wake: (() => void) | null = null;
  private readonly abort = new AbortController();
  private setupDone = false;
  /** Nothing on the host was touched before the first connection: nothing to restore. */
  private everConnected = false;
  private timer: ServerTimer | null = null;
  private lastSave = 0;
  private resumed = false;
  /** Durations of restarts finished in this process, for the time remaining. */
  private restartMs: number[] = [];

  constructor(private readonly opts: EngineOptions) {
    this.runId = opts.runId ?? randomUUID();
    this.design = opts.doc.design;
    this.plan = buildPlan(this.design);
    this.journalFile = journalPath(opts.path);
    this.host = opts.host ?? null;
    this.batcher = new EventBatcher(this.runId, (b) => opts.onBatch?.(b), opts.batchMs ?? 100);
    this.reconnectPolicy = { attempts: 8, firstDelayMs: 500, maxDelayMs: 15_000, ...opts.reconnect };
  }

  status(): RunStatus {
    return { runId: this.runId, path: this.opts.path, state: this.state, lastSeq: this.batcher.lastSeq };
  }

  events(afterSeq: number): EventBatch[] {
    return this.batcher.after(afterSeq);
  }

  /** Takes effect between restarts, so that no restart is measured across a pause. */
  pause(): void {
    if (this.state !== 'running') return;
    this.pauseWanted = true;
    this.state = 'paused';
    this.emit({ type: 'state', at: Date.now(), state: 'paused' });
  }

  resume(): void {
    if (this.state !== 'paused') return;
    this.pauseWanted = false;
    this.state = 'running';
    this.emit({ type: 'state', at: Date.now(), state: 'running' });
    this.wake?.();
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abort.abort();
    this.wake?.();
  }

  private emit(e: RunEvent): void {
    this.opts.onEvent?.(e);
    this.batcher.push(e);
  }

  /** To the journal first, then to everyone else. */
  private record(r: JournalRecord, event?: RunEvent): void {
    // A restart attempt given up on (connection dropped) must not write into the journal any more,
    // even if a stray promise of it wakes up later.
    if (RESTART_SCOPED.has(r.t) && (!this.attempt || this.attempt.abandoned)) throw new Error('this restart attempt was abandoned');
    this.journal!.append(r);
    this.fold.apply(r);
    if (event) this.emit(event);
  }

  private checkCancel(): void {
    if (this.cancelled) throw new Cancelled();
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    const signal = this.abort.signal;
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        // Removed every time, or thousands of idle waits would pile listeners onto the signal.
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private async waitWhilePaused(): Promise<void> {
    while (this.pauseWanted && !this.cancelled) {
      this.batcher.flush();
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = null;
    }
  }

  private profile(): ServerProfile {
    const p = this.design.serverProfile;
    if (!p) throw new ApiError('invalid-argument', `no server profile for ${this.design.target}: run \`varlab sandbox create ${this.design.target}\` first`);
    return p;
  }

  private async connectTarget(): Promise<void> {
    this.host ??= defaultHostLayer();
    this.dropped = null;
    const session = await this.host.openTarget(this.design.target, { auth: this.opts.auth, prompt: this.opts.prompt });
    this.dropSignal = new Promise<never>((_, reject) => {
      session.onDrop((err) => {
        this.dropped = err;
        for (const c of this.conns) c.destroy();
        reject(err);
      });
    });
    this.dropSignal.catch(() => {});
    this.session = session;
    this.everConnected = true;
    this.control = await this.host.createServerControl(session, this.profile(), { prompt: this.opts.prompt });
  }

  private async sessionAlive(): Promise<boolean> {
    try {
      return (await this.session!.exec('true', { timeoutMs: 10_000 })).code === 0 && !this.dropped;
    } catch {
      return false;
    }
  }

  /** After a drop: close what is left, then open the target again with growing waits. */
  private async reconnect(reason: string): Promise<void> {
    await this.session?.close().catch(() => {});
    this.session = null;
    this.control = null;
    const p = this.reconnectPolicy;
    let delay = p.firstDelayMs;
    for (let attempt = 1; ; attempt++) {
      this.checkCancel();
      this.emit({ type: 'log', at: Date.now(), level: 'warn', message: `${reason}; reconnecting to ${this.design.target} (attempt ${attempt} of ${p.attempts}) in ${(delay / 1000).toFixed(1)} s` });
      await this.sleep(delay);
      this.checkCancel();
      try {
        await this.connectTarget();
        this.emit({ type: 'log', at: Date.now(), level: 'info', message: `reconnected to ${this.design.target}` });
        return;
      } catch (e) {
        // A changed host key, refused auth or a bad profile will not get better by waiting.
        if (e instanceof ApiError && e.code !== 'connection') throw e;
        if (attempt >= p.attempts) throw new ApiError('connection', `could not reconnect to ${this.design.target} after ${attempt} attempts: ${(e as Error).message}`);
        reason = (e as Error).message;
      }
      delay = Math.min(p.maxDelayMs, delay * 2);
    }
  }

  private async save(force = false): Promise<void> {
    const every = this.opts.saveEveryMs ?? 5_000;
    if (!force && Date.now() - this.lastSave < every) return;
    this.lastSave = Date.now();
    const doc: ExperimentDoc = { ...this.opts.doc, results: resultsFromJournal(this.fold.state(), 'interrupted before it finished; run again') };
    await writeExperimentFile(this.opts.path, doc);
  }

  private progress(): void {
    const done = this.fold.state().restarts.length;
    const left = this.plan.length - done;
    const perRestart = this.restartMs.length ? this.restartMs.reduce((a, b) => a + b, 0) / this.restartMs.length : estimatePlan(this.design, 1).perRestartSeconds * 1000;
    this.emit({ type: 'progress', at: Date.now(), done, planned: this.plan.length, remainingMs: Math.round(left * perRestart) });
  }

  /** Run the whole plan (or what the journal says is left of it). Never throws: the outcome says how it ended. */
  async run(): Promise<RunOutcome> {
    const planned = this.plan.length;
    const outcome = (state: RunOutcome['state'], message?: string): RunOutcome => ({
      state,
      message,
      planned,
      done: this.fold.state().restarts.length,
      resumed: this.resumed,
      path: this.opts.path,
      journal: this.journalFile,
    });
    let end: RunOutcome;
    try {
      this.openJournal();
    } catch (e) {
      this.state = 'failed';
      return outcome('failed', (e as Error).message);
    }
    try {
      await this.save(true);
      await this.execute();
      end = outcome('finished');
    } catch (e) {
      end = e instanceof Cancelled || this.cancelled ? outcome('cancelled', 'cancelled; run again to resume') : outcome('failed', (e as Error).message);
    }
    const restoreProblem = await this.leaveHostAsFound();
    if (restoreProblem) {
      this.emit({ type: 'log', at: Date.now(), level: 'error', message: restoreProblem });
      if (end.state === 'finished') end = outcome('failed', restoreProblem);
      else end.message = `${end.message}; ${restoreProblem}`;
    }
    this.state = end.state;
    this.record({ t: 'run-finished', at: Date.now(), state: end.state, ...(end.message ? { message: end.message } : {}) }, { type: 'run-finished', at: Date.now(), state: end.state, ...(end.message ? { message: end.message } : {}) });
    this.journal?.close();
    try {
      await this.save(true);
    } catch (e) {
      end = outcome('failed', `results are safe in ${this.journalFile}, but ${this.opts.path} could not be written: ${(e as Error).message}`);
    }
    this.batcher.flush();
    return end;
  }

  /** Decide fresh or resume from the journal beside the file, and open it for appending. */
  private openJournal(): void {
    const problems = problemsBeforeSave(this.opts.doc);
    if (problems.length) throw new ApiError('invalid-file', problems.join('\n'));
    const verdict = inspectJournal(this.opts.path, this.design);
    if (verdict.kind === 'other-plan') {
      throw new ApiError(
        'busy',
        `${this.journalFile} holds an unfinished run of a different plan (${verdict.state.restarts.length} of ${verdict.state.header!.planned} restarts done). Resume it with the same options, or move the journal away to start over.`,
      );
    }
    if (verdict.kind === 'complete') archiveJournal(this.journalFile);
    this.journal = new JournalWriter(this.journalFile);
    if (verdict.kind === 'resume') {
      this.resumed = true;
      readJournal(this.journalFile, this.fold);
      // Restarts the previous process started and never finished: thrown away, run again.
      for (const i of verdict.state.interrupted) {
        this.record({ t: 'restart-discarded', at: Date.now(), seq: i.seq, cell: i.cell, reason: 'interrupted: the previous run stopped during this restart' });
      }
    } else {
      this.record(headerRecord(this.design));
    }
    this.journal.sync();
  }

  private async execute(): Promise<void> {
    const prior = this.fold.state();
    const queries = this.plan[0]?.queries ?? [];
    this.emit({ type: 'run-started', at: Date.now(), planned: this.plan.length, done: prior.restarts.length, cells: expandCells(this.design).filter((c) => !c.excluded).map((c) => c.id), queries });
    if (this.resumed) {
      this.emit({ type: 'log', at: Date.now(), level: 'info', message: `resuming: ${prior.restarts.length} of ${this.plan.length} restarts were already done` });
      if (prior.restarts.length) this.emit({ type: 'history', at: Date.now(), warmup: this.design.workload.warmup, restarts: [...prior.restarts].sort((a, b) => a.seq - b.seq) });
    }
    for (const d of prior.discarded) this.emit({ type: 'restart-discarded', at: d.at, seq: d.seq, cell: d.cell, reason: d.reason });
    this.progress();
    await this.connectTarget();
    const fingerprint = await this.host!.probeHost(this.session!);
    this.record({ t: 'host', at: Date.now(), host: fingerprint });

    for (const restart of remainingRestarts(this.plan, this.fold.state())) {
      await this.waitWhilePaused();
      this.checkCancel();
      for (let discards = 0; ; ) {
        try {
          this.attempt = { seq: restart.seq, abandoned: false };
          await Promise.race([this.runRestart(restart), this.dropSignal]);
          this.attempt = null;
          break;
        } catch (e) {
          if (this.attempt) this.attempt.abandoned = true;
          this.attempt = null;
          const reason = e instanceof Cancelled ? 'cancelled during this restart' : this.dropped ? this.dropped.message : (e as Error).message;
          this.record({ t: 'restart-discarded', at: Date.now(), seq: restart.seq, cell: restart.cell, reason }, { type: 'restart-discarded', at: Date.now(), seq: restart.seq, cell: restart.cell, reason });
          this.journal!.sync();
          if (e instanceof Cancelled || this.cancelled) throw new Cancelled();
          if (!(this.dropped || isConnectionLoss(e))) throw e;
          if (++discards >= DISCARDS_PER_RESTART) throw new Error(`restart ${restart.seq} (${restart.cell}) was interrupted ${discards} times; last: ${reason}`);
          // Reconnect only when the way to the target is gone; a lost mysqld connection alone just reruns the restart.
          if (this.dropped || !(await this.sessionAlive())) await this.reconnect(reason);
        }
      }
      await this.save();
    }
  }

  private async runRestart(r: ScheduledRestart): Promise<void> {
    const t0 = Date.now();
    const cellLevels = expandCells(this.design).find((c) => c.id === r.cell)!.levels;
    const control = this.control!;
    const w = this.design.workload;
    this.record({ t: 'restart-started', at: t0, seq: r.seq, cell: r.cell }, { type: 'restart-started', at: t0, seq: r.seq, cell: r.cell });

    let started = await control.restart(this.design.factors, cellLevels);
    if (!this.setupDone) {
      const conn = this.track(await control.connect());
      let setup;
      try {
        setup = await runSetup(conn, w.database, w.setupSql, w.setupSkipIfTable);
      } finally {
        this.conns.delete(conn);
        await conn.end().catch(() => {});
      }
      this.setupDone = true;
      const what = setup.skipped ? `setup skipped: table ${w.setupSkipIfTable} already exists in ${w.database}` : `setup script ran (${setup.statements} statements, ${(setup.ms / 1000).toFixed(1)} s)`;
      this.emit({ type: 'log', at: Date.now(), level: 'info', message: what });
      // Fresh data sits in the buffer pool of this server: start a clean one for the measurements.
      if (!setup.skipped) started = await control.restart(this.design.factors, cellLevels);
    }
    const checks: TunableCheck[] = started.checks;
    this.record({ t: 'checks', at: Date.now(), seq: r.seq, checks, pid: started.pid, readyMs: started.readyMs }, { type: 'tunables-verified', at: Date.now(), seq: r.seq, cell: r.cell, checks });
    const failed = checks.filter((c) => !c.ok);
    if (failed.length) {
      const reason = failed.map((c) => `${c.tunable}=${c.level} not in effect (observed ${c.observed})`).join('; ');
      this.finishRestart(r, t0, 'verify-failed', reason);
      return;
    }

    const conn = this.track(await control.connect(w.database));
    try {
      if (cellLevels.preload === 'on') {
        const p = await this.host!.preloadSchemas(conn, [w.database]);
        this.record({ t: 'preload', at: Date.now(), seq: r.seq, ...p }, { type: 'preload', at: Date.now(), seq: r.seq, ...p });
      }
      if (w.kind === 'queries') await this.queryTimer(conn);
      // The same idle time before every restart's measurements, so background work is alike for all.
      await this.sleep(this.design.idleSeconds * 1000);
      this.checkCancel();
      if (w.kind === 'queries') await this.runQueries(r, conn);
      else await this.runCommand(r);
    } finally {
      this.conns.delete(conn);
      await conn.end().catch(() => conn.destroy());
    }
    this.finishRestart(r, t0, 'ok');
  }

  private track(conn: Connection): Connection {
    this.conns.add(conn);
    // A connection that breaks (its stream closed under it) reports here instead of as an unhandled error.
    conn.on('error', () => {});
    return conn;
  }

  private finishRestart(r: ScheduledRestart, t0: number, status: 'ok' | 'verify-failed', reason?: string): void {
    const at = Date.now();
    this.record({ t: 'restart-finished', at, seq: r.seq, cell: r.cell, status, ...(reason ? { reason } : {}) }, { type: 'restart-finished', at, seq: r.seq, cell: r.cell, status, ...(reason ? { reason } : {}) });
    this.journal!.sync();
    this.restartMs.push(at - t0);
    this.progress();
  }

  private async queryTimer(conn: Connection): Promise<void> {
    const timer = await detectTimer(conn);
    if (timer.source !== this.timer?.source) {
      this.record({ t: 'timer', at: Date.now(), source: timer.source, ...(timer.note ? { note: timer.note } : {}) }, { type: 'timer', at: Date.now(), source: timer.source, ...(timer.note ? { note: timer.note } : {}) });
      if (timer.note) this.emit({ type: 'log', at: Date.now(), level: 'warn', message: timer.note });
    }
    this.timer = timer;
  }

  private async runQueries(r: ScheduledRestart, conn: Connection): Promise<void> {
    const w = this.design.workload;
    for (const q of w.queries) {
      for (let rep = 1; rep <= w.repetitions; rep++) {
        this.checkCancel();
        const m = await measure(conn, q.sql, this.timer!);
        const at = Date.now();
        const warmup = rep <= w.warmup;
        this.record(
          { t: 'execution', at, seq: r.seq, query: q.name, rep, warmup, value: m.value, client: m.client, unit: 'ms', source: m.source },
          { type: 'execution', at, seq: r.seq, cell: r.cell, query: q.name, rep, warmup, value: m.value, client: m.client, unit: 'ms', source: m.source },
        );
      }
    }
  }

  /** The benchmark command, K times: `{socket}`, `{port}`, `{database}` substituted, each quoted. */
  private async runCommand(r: ScheduledRestart): Promise<void> {
    const w = this.design.workload;
    const cmd = w.command;
    if (!cmd) throw new ApiError('invalid-file', 'design.workload.command: required when workload.kind is "command"');
    const p = this.profile();
    const line = cmd.line.replace(/\{(socket|port|database)\}/g, (_, k: string) => shellQuote(k === 'socket' ? p.socket : k === 'port' ? p.port : w.database));
    for (let rep = 1; rep <= w.repetitions; rep++) {
      this.checkCancel();
      // sysbench's --report-interval lines become events as they are printed, not after the run.
      let partial = '';
      const live = cmd.parser === 'sysbench';
      const onStdout = (chunk: string) => {
        partial += chunk;
        let nl;
        while ((nl = partial.indexOf('\n')) >= 0) {
          const iv = parseSysbenchInterval(partial.slice(0, nl));
          partial = partial.slice(nl + 1);
          if (iv) this.emit({ type: 'interval', at: Date.now(), seq: r.seq, cell: r.cell, rep, second: iv.second, tps: iv.tps, qps: iv.qps, ...(iv.latencyMs !== undefined ? { latencyMs: iv.latencyMs } : {}) });
        }
      };
      const res = await this.session!.exec(line, live ? { onStdout } : {});
      if (res.code !== 0) {
        const tail = (res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ');
        throw new Error(`the benchmark command exited with ${res.code}: ${tail}`);
      }
      let value: number;
      if (cmd.parser === 'sysbench') {
        const s = parseSysbench(res.stdout);
        value = sysbenchMetric(s, cmd.metric);
      } else {
        value = parseWithRegex(res.stdout, cmd.regex ?? '');
      }
      const at = Date.now();
      const warmup = rep <= w.warmup;
      const source = cmd.parser === 'sysbench' ? 'sysbench' : 'regex';
      this.record(
        { t: 'execution', at, seq: r.seq, query: cmd.metric, rep, warmup, value, unit: cmd.unit, source },
        { type: 'execution', at, seq: r.seq, cell: r.cell, query: cmd.metric, rep, warmup, value, unit: cmd.unit, source },
      );
    }
  }

  /** Stop mysqld and put back every host-wide setting; reconnects once if the connection is gone. Returns a problem, or null. */
  private async leaveHostAsFound(): Promise<string | null> {
    if (!this.host || !this.everConnected) return null;
    try {
      if (!this.control || this.dropped) {
        this.cancelled = false; // reconnect must not stop at the cancel flag: restoring is part of cancelling
        await this.reconnectForRestore();
      }
      await this.control!.stop();
      await this.control!.restore();
      return null;
    } catch (e) {
      return `the host may not be as it was found: ${(e as Error).message}`;
    } finally {
      await this.session?.close().catch(() => {});
    }
  }

  private async reconnectForRestore(): Promise<void> {
    await this.session?.close().catch(() => {});
    await this.connectTarget();
  }
}

export const journalExists = (experimentPath: string) => existsSync(journalPath(experimentPath));
