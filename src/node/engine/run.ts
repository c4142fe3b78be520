// The run engine's lifecycle: executes an experiment's plan on its target, restart after restart
// (each one is restart.ts's procedure), with pause, resume and cancel, and says how the run ended.
//
// Every record goes to the journal before its event (derived from it) leaves the engine. A dropped
// SSH connection discards the restart it interrupted, reconnects (connection.ts) and runs that
// restart again; a killed process resumes from the journal the same way.
import type { Run } from '../runs/run.js';
import { snapshotBatch } from '../runs/snapshot.js';
import { interruptedMessage, RESTART_POLICY } from '../../common/restart-policy.js';
import { randomUUID } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { ApiError, type EventBatch, type RunStatus, type TargetAuth } from '../../common/api.js';
import { CANCELLED_MESSAGE, type RunEvent } from '../../common/events.js';
import type { Design, ExperimentDoc, HostNoise, Results } from '../../common/experiment/types.js';
import { problemsBeforeSave } from '../../common/experiment/validate.js';
import { buildPlan, expandCells, perRestartMs, type FinishedRestart, type ScheduledRestart } from '../../common/plan.js';
import { hostWideFactors } from '../../common/tunables/registry.js';
import { eventOf, JournalFold, recordOf, remainingRestarts, resultsFromJournal, type JournalRecord } from '../../common/records.js';
import { writeExperimentFile } from '../files.js';
import type { Prompter } from '../host/types.js';
import { checkRunBuilds } from '../host/builds.js';
import { EventBatcher } from './batcher.js';
import { ConnectionSupervisor, isConnectionLoss, type ReconnectPolicy } from './connection.js';
import type { HostLayer } from './hostlayer.js';
import { journalPath, JournalWriter, openRunJournal } from './journal.js';
import { RestartProcedure } from './restart.js';
import { resultsNotSaved } from '../documents/rebuild.js';
import { lookStep } from '../../common/stats/replay.js';
import { learnedCosts, runPoint, timeLeftMs, withLoadsSoFar, type Costs } from '../../common/stats/planner.js';
import { hostCheck, type NoiseFacts } from '../../common/host-check.js';
import type { HostFingerprint } from '../../common/host.js';

export type { ReconnectPolicy };

export interface EngineOptions {
  /** The experiment file the results are saved into (absolute); the journal sits beside it. */
  path: string;
  /** The experiment as run: overrides applied, server profile resolved. */
  doc: ExperimentDoc;
  /** The file's results before this run (runs/prepare.ts PreparedRun.measured): the costs its time left starts from. */
  measured?: Results;
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
  /** How the results reach the file (the document service keeps the labels on disk); default: the whole doc with its results. */
  save?: (results: Results) => Promise<void>;
  /** After a cancel, how long stopping mysqld and restoring the host may take before the run ends anyway. */
  restoreWithinMs?: number;
  runId?: string;
  /** The journal (default: beside the file); each host of a several-host run has its own. */
  journalFile?: string;
  /** A host of a several-host run: every event names it, and goes into the run's one batcher. */
  hostOfGroup?: { target: string; batcher: EventBatcher };
  /** The run measures only what the file misses (run --missing): said in its journal's header. */
  grows?: { part: number };
  /** The host layer's probe of the target, once the run has it (the run service keeps it as the host's last probe). */
  onHost?: (host: HostFingerprint) => void;
}

export interface RunOutcome {
  state: 'finished' | 'failed' | 'cancelled';
  message?: string;
  /** Set when mysqld could not be stopped or the host not restored at the end. */
  restoreProblem?: string;
  /** The run stopped for a reason that running it again does not repeat (cancelled, the connection lost); false: a problem to fix first. */
  transient: boolean;
  planned: number;
  done: number;
  /** Of the restarts done, those that measured anything (the others failed to start or to verify). */
  measured?: number;
  resumed: boolean;
  /** Stop when answered: the look at which the run stopped, and why. */
  stopped?: { round: number; because: string };
  path: string;
  journal: string;
  /** A run on several hosts: how each host's run ended. */
  hosts?: { target: string; outcome: RunOutcome }[];
}

/** Records of one restart: written only by the attempt that is current. */
const RESTART_SCOPED = new Set<JournalRecord['t']>(['restart-started', 'checks', 'preload', 'execution', 'restart-finished']);

class Cancelled extends Error {
  constructor() {
    super('cancelled');
  }
}

/** After a cancel, how long the abandoned restart may take to let go before the host is restored anyway. */
const SETTLE_AFTER_CANCEL_MS = 10_000;

const userName = () => {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
};

export class RunEngine implements Run {
  readonly runId: string;
  readonly journalFile: string;
  private readonly design: Design;
  private readonly plan: ScheduledRestart[];
  private readonly fold = new JournalFold();
  private journal: JournalWriter | null = null;
  private readonly batcher: EventBatcher;
  private readonly link: ConnectionSupervisor;
  private readonly procedure: RestartProcedure;
  private attempt: { seq: number; abandoned: boolean } | null = null;
  private state: RunStatus['state'] = 'running';
  private cancelled = false;
  private pauseWanted = false;
  private wake: (() => void) | null = null;
  private readonly abort = new AbortController();
  /** Rejects on cancel: a restart waiting on a server that was restarted or killed underneath is given up at once. */
  private readonly cancelSignal: Promise<never>;
  /** The restart attempt in progress (or given up on and not yet settled). */
  private inflight: Promise<unknown> | null = null;
  private lastSave = 0;
  private resumed = false;
  /** Durations of restarts finished in this process (and their set-up), for the time remaining. */
  private restartMs: FinishedRestart[] = [];
  /** The restarts finished in this process, by seq: the data directories they set up are not set up again in it. */
  private readonly finishedHere = new Set<number>();
  private restartStartedAt = 0;
  /** Stop when answered: the round of the last look told, so each look is told once. */
  private lastLook = 0;
  /**
   * The restart that measured last, while its measured window is still open: the server control's
   * next call (the next restart's, or the final stop's) closes it, and the noise is that restart's.
   * Cleared by any restart that finishes without measuring (its window measured nothing).
   */
  private measuredSeq: number | null = null;
  /**
   * The costs the file's results measured, and the design at them: the time left before a restart
   * finishes here, and what the run costs once (its end).
   */
  private learned: { design: Design; costs: Costs } | undefined;

  constructor(private readonly opts: EngineOptions) {
    this.runId = opts.runId ?? randomUUID();
    this.design = opts.doc.design;
    this.plan = buildPlan(this.design);
    this.journalFile = opts.journalFile ?? journalPath(opts.path);
    this.batcher = opts.hostOfGroup?.batcher ?? new EventBatcher(this.runId, (b) => opts.onBatch?.(b), opts.batchMs ?? 100);
    const sleep = (ms: number) => this.sleep(ms);
    const checkCancel = () => this.checkCancel();
    const emit = (e: RunEvent) => this.emit(e);
    this.cancelSignal = new Promise<never>((_, reject) => this.abort.signal.addEventListener('abort', () => reject(new Cancelled()), { once: true }));
    this.cancelSignal.catch(() => {});
    const owner = { runId: this.runId, file: opts.path, host: hostname(), pid: process.pid, user: userName(), startedAt: Date.now() };
    const onWindow = (noise: HostNoise) => this.noise(noise);
    this.link = new ConnectionSupervisor({ target: this.design.target, profile: this.design.serverProfile, auth: opts.auth, prompt: opts.prompt, host: opts.host, reconnect: opts.reconnect, emit, sleep, checkCancel, owner, hostWide: hostWideFactors(this.design.factors), onWindow });
    const link = this.link;
    this.procedure = new RestartProcedure({
      design: this.design,
      get host() {
        return link.host;
      },
      control: () => link.control,
      session: () => link.session,
      profile: () => link.profile(),
      record: (r) => this.record(r),
      emit,
      sleep,
      checkCancel,
      track: (c) => link.track(c),
      release: (c) => link.release(c),
    });
  }

  status(): RunStatus {
    return { runId: this.runId, path: this.opts.path, state: this.state, lastSeq: this.batcher.lastSeq };
  }

  /** Batches after afterSeq, or null when they are no longer in memory (rebuild from the journal). */
  events(afterSeq: number): EventBatch[] | null {
    return this.batcher.after(afterSeq);
  }

  /**
   * The run folded so far, for a snapshot: pending events are sent first, so every event the fold
   * holds is in a batch up to `seq` (a client that takes the snapshot then skips none, repeats none).
   */
  folded(): { fold: JournalFold; seq: number } {
    this.batcher.flush();
    return { fold: this.fold, seq: this.batcher.lastSeq };
  }

  /** The run so far as one batch, from the engine's fold (no re-reading of the journal, however long the run). */
  snapshot(): EventBatch {
    const { fold, seq } = this.folded();
    return snapshotBatch(this.runId, seq, fold, this.state);
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

  /** Ends within a bounded time: the restart in progress is given up at once, then mysqld is stopped and the host restored. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.abort.abort();
    this.link.abandon();
    this.wake?.();
  }

  private emit(e: RunEvent): void {
    // What the run says goes to its journal too (while it is open), so the file keeps it (results.log).
    if (e.type === 'log' && this.journal) {
      try {
        this.record(recordOf(e)!, true);
      } catch {
        // A journal that cannot take it (closed, a full disk) loses only the line here; it is still told.
      }
    }
    const group = this.opts.hostOfGroup;
    const event = group ? { ...e, host: group.target } : e;
    this.opts.onEvent?.(event);
    this.batcher.push(event);
  }

  /** To the journal first, then to everyone else as the event derived from it (unless `silent`). */
  private record(r: JournalRecord, silent = false): void {
    // A restart attempt given up on (connection dropped) must not write into the journal any more,
    // even if a stray promise of it wakes up later.
    if (RESTART_SCOPED.has(r.t) && (!this.attempt || this.attempt.abandoned)) throw new Error('this restart attempt was abandoned');
    this.journal!.append(r);
    this.fold.apply(r);
    const event = silent ? null : eventOf(r, (seq) => this.fold.cellOf(seq));
    if (event) this.emit(event);
    if (r.t === 'restart-started') this.restartStartedAt = r.at;
    if (r.t === 'restart-finished') {
      this.measuredSeq = r.status === 'ok' ? r.seq : null;
      this.journal!.sync();
      this.restartMs.push({ ms: r.at - this.restartStartedAt, steps: r.steps });
      this.finishedHere.add(r.seq);
      this.progress();
    }
  }

  /**
   * A host that is busy before the run is named before the first restart (a log warning): the load and
   * the busy processes of probe --check's one-second sample. Not on the measured path; a host that
   * cannot say is not held against the run. The line reaches the app's Run view and the terminal alike,
   * so it names the check in both.
   */
  private async sayBusyHost(host: HostFingerprint): Promise<void> {
    const layer = this.link.host;
    if (!layer.noiseFacts) return;
    let facts: NoiseFacts;
    try {
      facts = await Promise.race([layer.noiseFacts(this.link.session), this.cancelSignal]);
    } catch (e) {
      if (e instanceof Cancelled) throw e;
      return;
    }
    // The load and the busy processes only: the settings (governor, turbo…) are the design's to set, and the check's to say.
    const busy = hostCheck(host, facts).filter((i) => !i.ok && (i.what === 'Load average' || i.what === 'Other busy processes'));
    if (busy.length) this.emit({ type: 'log', at: Date.now(), level: 'warn', message: `the host is busy before the run: ${busy.map((i) => `${i.what.toLowerCase()} ${i.state}`).join('; ')}. Its restarts are flagged when it stays so; the Hosts view's noise check (or \`varlab probe ${host.target} --check\`) lists what else makes it noisy` });
  }

  /** A measured window closed by the server control: the noise of the restart that measured in it. */
  private noise(noise: HostNoise): void {
    const seq = this.measuredSeq;
    this.measuredSeq = null;
    if (seq === null || !this.journal) return;
    try {
      this.record({ t: 'noise', at: Date.now(), seq, noise });
    } catch {
      // A journal that cannot take it loses only this figure; the call that read it (a start, the stop) goes on.
    }
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

  private async save(force = false): Promise<void> {
    const every = this.opts.saveEveryMs ?? 5_000;
    if (!force && Date.now() - this.lastSave < every) return;
    this.lastSave = Date.now();
    const results = resultsFromJournal(this.fold.state(), 'interrupted before it finished; run again');
    if (this.opts.save) await this.opts.save(results);
    else await writeExperimentFile(this.opts.path, { ...this.opts.doc, results });
  }

  private progress(): void {
    const state = this.fold.state();
    // Before this run's first restart, at the costs the file's earlier restarts measured (a resumed run, run --missing), as the start line says.
    this.learned ??= learnedCosts({ design: this.design, results: this.opts.measured ?? this.opts.doc.results });
    const perRestart = perRestartMs(this.restartMs, this.learned.design);
    // And what the run still pays once, as the estimate before Run (or before resuming) counts it: its
    // start until this process's first restart, its end, the set-ups of the data directories still ahead
    // (their loads at what this run has measured so far: a build's load tells the others').
    const { remainingMs, endMs } = timeLeftMs(this.design, withLoadsSoFar(this.learned.costs, state.dataSteps), perRestart, runPoint(this.design, state.restarts, this.finishedHere, state.dataSteps));
    this.emit({ type: 'progress', at: Date.now(), done: state.restarts.length, planned: this.plan.length, remainingMs, endMs });
  }

  /** Run the whole plan (or what the journal says is left of it). Never throws: the outcome says how it ended. */
  async run(): Promise<RunOutcome> {
    const planned = this.plan.length;
    const outcome = (state: RunOutcome['state'], message?: string, transient = state !== 'failed'): RunOutcome => ({
      state,
      message,
      transient,
      planned,
      done: this.fold.state().restarts.length,
      measured: this.fold.state().restarts.filter((r) => r.status === 'ok').length,
      resumed: this.resumed,
      ...(this.fold.state().stopped ? { stopped: { round: this.fold.state().stopped!.round, because: this.fold.state().stopped!.because } } : {}),
      path: this.opts.path,
      journal: this.journalFile,
    });
    let end: RunOutcome;
    try {
      this.openJournal();
    } catch (e) {
      // Nothing ran and there is no journal to record it in: the event alone says why.
      this.state = 'failed';
      end = outcome('failed', `cannot start the run: ${(e as Error).message}`);
      this.emit({ type: 'run-finished', at: Date.now(), state: 'failed', message: end.message });
      this.batcher.flush();
      return end;
    }
    try {
      await this.save(true);
      await this.execute();
      end = outcome('finished');
    } catch (e) {
      end = e instanceof Cancelled || this.cancelled ? outcome('cancelled', CANCELLED_MESSAGE) : outcome('failed', (e as Error).message, isConnectionLoss(e));
    }
    await this.letGo();
    const restoreProblem = await this.link.leaveHostAsFound(this.opts.restoreWithinMs);
    if (restoreProblem) {
      this.emit({ type: 'log', at: Date.now(), level: 'error', message: restoreProblem });
      // Every restart is measured; what is left (stop, restore) a later run of the same command finishes.
      if (end.state === 'finished') end = outcome('failed', `${restoreProblem}; run the same command again to finish stopping mysqld and restoring the host`, true);
      else end.message = `${end.message}; ${restoreProblem}`;
      end.restoreProblem = restoreProblem;
    }
    // The journal's disk may be full: the outcome is still told, and the next run reads what reached it.
    // The end is journaled first (the file saved next carries it), and told once the file is saved
    // or has failed to be: a run whose results did not reach its file never reads "finished".
    let journalProblem: string | undefined;
    try {
      if (this.link.everConnected) this.record({ t: 'host-left', at: Date.now(), ok: !restoreProblem, ...(restoreProblem ? { problem: restoreProblem } : {}) }, true);
      this.record({ t: 'run-finished', at: Date.now(), state: end.state, ...(end.message ? { message: end.message } : {}) }, true);
    } catch (e) {
      journalProblem = `the journal could not record the end: ${(e as Error).message}`;
    }
    try {
      this.journal?.close();
    } catch {
      /* the records are in the kernel already; a failed fsync leaves them to the next read */
    }
    try {
      await this.save(true);
    } catch (e) {
      end = outcome('failed', resultsNotSaved(this.journalFile, this.opts.path, e), false);
    }
    this.state = end.state;
    const told = [end.message, journalProblem].filter(Boolean).join('; ');
    this.emit({ type: 'run-finished', at: Date.now(), state: end.state, ...(told ? { message: told } : {}) });
    this.batcher.flush();
    return end;
  }

  /** Decide fresh or resume from the journal beside the file, and open it for appending. */
  private openJournal(): void {
    const problems = problemsBeforeSave(this.opts.doc);
    if (problems.length) throw new ApiError('invalid-file', problems.join('\n'));
    const opened = openRunJournal(this.opts.path, this.design, this.fold, this.journalFile, this.opts.grows);
    this.journal = opened.writer;
    this.resumed = opened.resumed;
    for (const r of opened.records) this.record(r, true);
    this.journal.sync();
  }

  private async execute(): Promise<void> {
    const prior = this.fold.state();
    const w = this.design.workload;
    const queries = this.plan[0]?.queries ?? [];
    this.emit({ type: 'run-started', at: Date.now(), planned: this.plan.length, done: prior.restarts.length, cells: expandCells(this.design).filter((c) => !c.excluded).map((c) => c.id), queries, warmup: w.warmup, ...(this.design.stopping ? { stopping: this.design.stopping } : {}) });
    if (this.resumed) {
      this.emit({ type: 'log', at: Date.now(), level: 'info', message: `resuming: ${prior.restarts.length} of ${this.plan.length} restarts were already done` });
      if (prior.restarts.length) this.emit({ type: 'history', at: Date.now(), warmup: w.warmup, restarts: [...prior.restarts].sort((a, b) => a.seq - b.seq) });
    }
    for (const d of prior.discarded) this.emit({ type: 'restart-discarded', at: d.at, seq: d.seq, cell: d.cell, reason: d.reason });
    this.progress();
    // A cancel while the target is being reached (a slow host, a question nobody answers) ends the wait.
    // Every build the rest of the plan starts must be registered for the target and there to start, before anything on the host changes.
    const restarts = remainingRestarts(this.plan, this.fold.state());
    await Promise.race([this.link.connect((session) => checkRunBuilds(session, this.link.profile(), this.design.factors, restarts)), this.cancelSignal]);
    // The host layer's own probe: the one its restart procedures are computed for.
    const fingerprint = await Promise.race([this.link.control.host(), this.cancelSignal]);
    this.record({ t: 'host', at: Date.now(), host: fingerprint });
    this.opts.onHost?.(fingerprint);
    await this.sayBusyHost(fingerprint);

    // A process that died between a round's last restart and its look takes the look now.
    if (this.answered()) return;
    for (const restart of restarts) {
      await this.waitWhilePaused();
      this.checkCancel();
      await this.runWithRetries(restart);
      if (this.answered()) return;
      await this.save();
    }
  }

  /**
   * Stop when answered (design.stopping): after a restart, the rule (stats/replay.ts stopCheck, the
   * same pure function `analyze --until-answered` replays) looks at the complete rounds. Each look is
   * told; when every comparison is decided, or at the maximum, the stop is journaled and the run ends
   * (mysqld stopped and the host restored as after any run). A host of a several-host run looks at its
   * own rounds only: its engine's results are its own (the host is a block).
   */
  private answered(): boolean {
    if (!this.design.stopping || this.design.order === 'blocked') return false;
    const state = this.fold.state();
    if (state.stopped) return true;
    // A resumed run does not journal again the looks its journal has.
    this.lastLook = Math.max(this.lastLook, state.lastLook?.look.round ?? 0);
    // The one step the detached run's follower takes too (stats/replay.ts lookStep): journaled, so the
    // file's journal keeps every look the run took; its events are the Run view's.
    const step = lookStep({ ...this.opts.doc, results: resultsFromJournal(state) }, this.lastLook);
    this.lastLook = step.lastLook;
    if (!step.records.length) return false;
    this.record(step.records[0]);
    this.emit({ type: 'log', at: Date.now(), level: 'info', message: step.text.join('\n') });
    if (!step.stop) return false;
    for (const r of step.records.slice(1)) this.record(r);
    this.journal!.sync();
    return true;
  }

  /** A restart given up on (cancel) may still be waiting on the host: give it a moment to let go. */
  private async letGo(): Promise<void> {
    if (this.inflight) await Promise.race([this.inflight.catch(() => {}), new Promise((r) => setTimeout(r, SETTLE_AFTER_CANCEL_MS).unref())]);
    this.inflight = null;
  }

  /** One scheduled restart; an attempt the connection dropped under is discarded and run again. */
  private async runWithRetries(restart: ScheduledRestart): Promise<void> {
    for (let discards = 0; ; ) {
      try {
        this.attempt = { seq: restart.seq, abandoned: false };
        this.inflight = this.procedure.run(restart);
        this.inflight.catch(() => {});
        await Promise.race([this.inflight, this.link.dropSignal, this.cancelSignal]);
        this.attempt = null;
        this.inflight = null;
        return;
      } catch (e) {
        if (this.attempt) this.attempt.abandoned = true;
        this.attempt = null;
        const dropped = this.link.dropped;
        const reason = e instanceof Cancelled ? 'cancelled during this restart' : dropped ? dropped.message : (e as Error).message;
        // What the attempt given up on finishes (a setup under way says so) happened before its discard, and is said first.
        if (e instanceof Cancelled || this.cancelled) await this.letGo();
        this.record({ t: 'restart-discarded', at: Date.now(), seq: restart.seq, cell: restart.cell, reason });
        this.journal!.sync();
        if (e instanceof Cancelled || this.cancelled) throw new Cancelled();
        if (!(dropped || isConnectionLoss(e))) throw e;
        if (++discards >= RESTART_POLICY.triesPerRestart) throw new Error(interruptedMessage(restart.seq, restart.cell, discards, reason));
        // Reconnect only when the way to the target is gone; a lost mysqld connection alone just reruns the restart.
        if (this.link.dropped || !(await this.link.alive())) await this.link.reconnect(reason);
      }
    }
  }
}
