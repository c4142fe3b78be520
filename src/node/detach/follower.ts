// Following one host's detached run: read the target journal from the local journal's offset, append
// what it brings to the local journal together with the new offset (one write: a killed laptop keeps
// both or neither, so following again duplicates and loses nothing), emit the same events as a live
// run, until the runner ends; then save the results into the file (the fold an attached run saves)
// and remove the run's directory on the target. A link that drops meanwhile is said and followed again
// from the offset held (relink.ts). No printing here: the CLI and the app both use it, through its
// events and outcomes.
import { detachedCannotPause } from '../runs/run.js';
import { openRestart, runSoFar } from '../runs/snapshot.js';
import { ApiError, type EventBatch, type RunStatus } from '../../common/api.js';

import type { RunEvent } from '../../common/events.js';
import type { LinkState } from '../../common/link.js';
import type { Design, ExperimentDoc, Results } from '../../common/experiment/types.js';
import { perRestartMs, type FinishedRestart } from '../../common/plan.js';
import { eventOf, JournalFold, resultsFromJournal, type JournalRecord, type JournalState } from '../../common/records.js';
import type { DocumentService } from '../documents/service.js';
import { EventBatcher } from '../engine/batcher.js';
import { ENDING_AFTER_GONE } from '../host/lock.js';
import { JournalWriter } from '../engine/journal.js';
import type { TargetSession } from '../host/types.js';
import type { ImportContext } from './import.js';
import { forgetLaunch } from './launched.js';
import { cleanupTargetRun, pullTargetJournal, readTargetJournal, signalCancel, type Pulled } from './target.js';
import { resultsNotSaved } from '../documents/rebuild.js';
import { lookStep } from '../../common/stats/replay.js';
import { dataDirectoryOf, designWithCosts, hostResults, learnedCosts, runPoint, sensibleCosts, timeLeftMs, type Costs } from '../../common/stats/planner.js';
import { readExperimentFile } from '../files.js';
import { sleep } from '../sleep.js';
import { Link, linkLost } from './relink.js';

import { connect, fileDoc, localRun, savedDoc, sudoOf, type ConnectVia, type DetachedRun } from './runs.js';

/** Before the costs are read: nothing once. */
const NO_COSTS = { runSeconds: 0, runEndSeconds: 0 };

export interface AttachOptions extends ConnectVia {
  documents: DocumentService;
  /** Every event as it happens (after the local journal has it). */
  onEvent?: (e: RunEvent) => void;
  /** Events in numbered batches, for front ends (runId: the detached run's). */
  onBatch?: (b: EventBatch) => void;
  batchMs?: number;
  /** How often the target journal is read while the run goes on. */
  pollMs?: number;
  /** Aborted: stop following (the laptop detaches; the run goes on on its target). */
  signal?: AbortSignal;
  /** Save the experiment file at most this often while following (always at the end). */
  saveEveryMs?: number;
  /**
   * Following the run this process has just launched: what the file held before the launch replaced
   * it with this run's results (runs/prepare.ts measuredBefore, per host): the costs its time left
   * starts from, as the attached engine's do.
   */
  measured?: (target: string) => Results | undefined;
}

export interface AttachOutcome {
  /** `detached`: following stopped (signal) before the run ended; it goes on on its target. */
  state: 'finished' | 'failed' | 'cancelled' | 'detached';
  message?: string;
  path: string;
  target: string;
  planned: number;
  done: number;
  /** Of the restarts done, those that measured anything (the others failed to start or to verify). */
  measured?: number;
  /** The run's directory was removed from the target (its journal is all here and in the file). */
  cleanedUp: boolean;
  /** Following stopped on an error (in `message`), not by choice; the run goes on on its target. */
  error?: true;
  /** Several hosts: how following ended on each. */
  hosts?: { target: string; outcome: AttachOutcome }[];
  /** Several hosts: the hosts of the design whose runner never started (they run at the next `varlab run FILE`). */
  notStarted?: string[];
}

/** One attachment: the local journal, the connection, the events. */
export class Follower {
  private readonly fold: JournalFold;
  private readonly context: (s: JournalState) => ImportContext;
  private readonly batcher: EventBatcher;
  private readonly restartMs: FinishedRestart[] = [];
  /** The costs measured so far and the design at them (the time left before a restart finishes while this follower looks, and the run's end). */
  private learned: { design: Design; costs: Costs } | undefined;
  private readonly startedAt = new Map<number, number>();
  private lastSave = 0;
  /** Aborted when following stops (detach, or the caller's signal). */
  private readonly stop = new AbortController();
  /** Wakes the wait between reads (a cancel asked for). */
  private wake = new AbortController();
  private cancelWanted = false;
  private signalled = false;
  /** Stop when answered: the round of the last look journaled here, and whether the rule stopped the run (the runner is then cancelled). */
  private lastLook = 0;
  private answered = false;
  private ended: AttachOutcome | null = null;
  /** The end of a runner found gone is being made on the target, and the log said so. */
  private saidEnding = false;
  /**
   * The run's end as its journal says it, told only once the file holds the results (finish), as the
   * attached engine tells its end after its last save: a view that reads "finished" finds the file whole.
   */
  private end: RunEvent | null = null;

  constructor(
    private readonly d: DetachedRun,
    private readonly o: AttachOptions,
    /** A host of a several-host run: the run's one batcher (events name their host) and its save of every host's results. */
    private readonly group?: { batcher: EventBatcher; save: (host: string, doc: ExperimentDoc, results: Results) => Promise<void> },
  ) {
    const local = localRun(d);
    this.fold = local.fold;
    this.context = local.context;
    this.batcher = group?.batcher ?? new EventBatcher(d.runId, (b) => o.onBatch?.(b), o.batchMs ?? 100);
    if (o.signal?.aborted) this.stop.abort();
    o.signal?.addEventListener('abort', () => this.detach(), { once: true });
  }

  status(): RunStatus {
    const e = this.ended;
    const state = !e || e.state === 'detached' ? 'running' : e.state;
    return { runId: this.d.runId, path: this.d.path, state, lastSeq: this.batcher.lastSeq, detached: { target: this.d.target, following: !e } };
  }

  events(afterSeq: number): EventBatch[] | null {
    return this.batcher.after(afterSeq);
  }

  /** Rebuilt from the local journal (what it has brought in so far). */
  snapshot(): null {
    return null;
  }

  pause(): never {
    return detachedCannotPause(this.d.target);
  }

  /** A detached run never paused. */
  resume(): void {}

  detach(): void {
    this.stop.abort();
    this.wake.abort();
  }

  /** Stop the run on its target (the runner restores the host), and bring its end in. */
  cancel(): void {
    this.cancelWanted = true;
    this.wake.abort();
  }

  /** What connectVia said already: a link opened again after a loss chooses the same way, and is not said again. */
  private readonly saidVia = new Set<string>();

  /** How this follower connects: what it is told of the choice goes into its log, as the run's other lines do. */
  private connectVia(): ConnectVia {
    return {
      ...this.o,
      say: (message) => {
        if (this.saidVia.has(message)) return;
        this.saidVia.add(message);
        this.emit({ type: 'log', at: Date.now(), level: 'warn', message });
      },
    };
  }

  /** To the caller's onEvent (the command line's lines) and the views' batches; `told: false`, to the batches only. */
  private emit(e: RunEvent, told = true): void {
    const event = this.group ? { ...e, host: this.d.target } : e;
    if (told) this.o.onEvent?.(event);
    this.batcher.push(event);
  }

  private progress(): void {
    const s = this.fold.state();
    const design = s.header!.design;
    const learned = this.learned ?? learnedCosts({ design, results: undefined });
    const per = perRestartMs(this.restartMs, learned.design);
    // The runner on the target has begun, and set up the data directories of the restarts it finished; it
    // has no data step (its launch loaded the data, detach/launch.ts). What it still pays once is its end
    // (stop, restore) and the setup scripts ahead, as the attached engine says it.
    const point = runPoint(design, s.restarts, new Set(s.restarts.map((r) => r.seq)));
    const at = { ...point, begun: true, loaded: new Set(point.left.map((r) => dataDirectoryOf(design, r.levels))) };
    const { remainingMs, endMs } = timeLeftMs(design, learned.costs, per, at);
    this.emit({ type: 'progress', at: Date.now(), done: s.restarts.length, planned: this.d.planned, remainingMs, endMs });
  }

  private async save(force = false): Promise<void> {
    if (!force && Date.now() - this.lastSave < (this.o.saveEveryMs ?? 5_000)) return;
    this.lastSave = Date.now();
    const state = this.fold.state();
    const results = resultsFromJournal(state, state.detached?.ended ? 'interrupted before it finished' : 'running on the target');
    if (this.group) await this.group.save(this.d.target, await fileDoc(this.d), results);
    else await this.o.documents.writeRunResults(this.d.path, await savedDoc(this.d, state), results, state.header?.grows);
  }

  private outcome(state: AttachOutcome['state'], cleanedUp: boolean, message?: string): AttachOutcome {
    // The restarts the file holds: a run stopped when answered leaves out those its runner finished after the stop.
    const restarts = resultsFromJournal(this.fold.state()).restarts;
    const measured = restarts.filter((r) => r.status === 'ok').length;
    return { state, ...(message ? { message } : {}), path: this.d.path, target: this.d.target, planned: this.d.planned, done: restarts.length, measured, cleanedUp };
  }

  async run(): Promise<AttachOutcome & { signalled: boolean }> {
    let out: AttachOutcome;
    try {
      out = await this.attach();
    } catch (e) {
      // Following stopped (the target unreachable, the file unwritable…): the run itself goes on there.
      out = { ...this.outcome('detached', false, (e as Error).message), error: true };
      this.emit({ type: 'log', at: Date.now(), level: 'error', message: `stopped following the run on ${this.d.target}: ${out.message}` });
      this.batcher.flush();
    }
    this.ended = out;
    return { ...out, signalled: this.signalled };
  }

  /**
   * Before a restart finishes while this follower looks, the time left is at the costs measured so far,
   * as the attached engine's (engine/run.ts progress): the restarts the local journal holds (brought in
   * by an earlier attach), else the file's before this process launched the run (AttachOptions.measured),
   * else the costs the launch recorded from them (another process launched it), else the file's own
   * (run --missing grows a measured file); else the design's estimates.
   */
  private async learnedCosts(): Promise<{ design: Design; costs: Costs }> {
    const state = this.fold.state();
    const design = state.header!.design;
    const here = resultsFromJournal(state);
    // The run followed here has not ended: its own restarts say what a restart costs, not what its end will.
    if (here.restarts.some((r) => r.status === 'ok')) {
      const l = learnedCosts({ design, results: here });
      return { design: l.design, costs: { ...l.costs, ...NO_COSTS } };
    }
    // What the file held before this process launched the run (a run again from scratch: the launch replaced it).
    const before = this.o.measured?.(this.d.target);
    if (before?.restarts.length) return learnedCosts({ design, results: before });
    // Launched by another process: the costs its launch recorded from the file's results before it replaced them.
    const recorded = state.detached?.costs;
    if (recorded && sensibleCosts(recorded)) return { design: designWithCosts(design, recorded), costs: recorded };
    const file = (await readExperimentFile(this.d.path).catch(() => null))?.doc?.results;
    // One host of a run on several: what this host measured there, as the attached engine of that host is given it (runs/prepare.ts).
    return learnedCosts({ design, results: file?.restarts.length && this.group ? hostResults(file, this.d.target) : file });
  }

  private async attach(): Promise<AttachOutcome> {
    const d = this.d;
    this.learned = await this.learnedCosts();
    // What the run said before (log lines, discards, its timer) is for the views that start now: a command line said it then.
    for (const e of runSoFar(this.fold.state(), d.planned, Date.now())) this.emit(e, e.type !== 'log' && e.type !== 'restart-discarded' && e.type !== 'timer');
    const open = d.ended ? undefined : this.fold.current();
    if (open) this.startedAt.set(open.seq, open.startedAt);
    this.progress();
    try {
      if (d.ended) return await this.finish(null);
      // The first connection failing ends following at once (a wrong key, a host not there): said, as before.
      // Once following, a dropped link is followed again (relink.ts).
      return await this.follow(await connect(d, this.connectVia()));
    } finally {
      this.batcher.flush();
    }
  }

  private async follow(first: TargetSession): Promise<AttachOutcome> {
    const d = this.d;
    const sudo = sudoOf(this.fold.state());
    let offset = d.offset;
    this.emit({ type: 'log', at: Date.now(), level: 'info', message: `attached to the detached run on ${d.target}${offset ? ` (its journal is here up to byte ${offset})` : ''}` });
    // The restart open here goes on from where it is, said after "attached" (it was said before it).
    for (const e of openRestart(this.fold)) this.emit(e);
    // Lines about the link are this computer's following, not the run's: told, not journaled (say).
    const tell = (level: 'info' | 'warn', message: string) => this.emit({ type: 'log', at: Date.now(), level, message });
    // Its state, to the views alone (the lines above say it to the command line): the Run view shows it in place of "running restart k of n".
    const state = (s: LinkState) => this.emit({ type: 'link', at: Date.now(), ...s }, false);
    const link = new Link({ target: d.target, path: d.path, connect: () => connect(d, this.connectVia()), tell, dropped: () => this.wake.abort(), state }, first);
    let journal: JournalWriter | undefined;
    try {
      journal = new JournalWriter(d.journal);
      for (;;) {
        // After a loss: one try to reach the target again (and its wait); a detach ends following meanwhile, a cancel tries at once.
        const session = await link.session(this.wake.signal, offset);
        if (this.wake.signal.aborted) this.wake = new AbortController();
        if (!session) {
          if (this.stop.signal.aborted) return await this.detachedHere();
          continue;
        }
        let got: Pulled;
        try {
          if (this.cancelWanted && !this.signalled) {
            this.signalled = await signalCancel(session, d.dir, sudo);
            const why = this.answered ? `stopped when answered at round ${this.fold.state().stopped?.round}: ` : '';
            if (this.signalled) this.say(journal, 'info', `${why}asked the run on ${d.target} to stop: it discards the restart in progress, stops mysqld and restores the host`);
          }
          got = await pullTargetJournal(session, d.dir, sudo, offset, this.context(this.fold.state()));
        } catch (e) {
          if (e instanceof ApiError && e.code === 'not-found') return await this.directoryGone(journal, e);
          // Nothing of a read that failed was written: the next one starts from the same offset.
          if (!linkLost(e)) throw e;
          link.lost(e);
          if (this.stop.signal.aborted) return await this.detachedHere();
          continue;
        }
        // After the rule stopped the run, the runner's "cancelled" is the rule's stop: the run finished.
        const imported = got.records.map((r) => this.asStopped(r));
        const records: JournalRecord[] = [...imported];
        if (got.offset !== offset) records.push({ t: 'imported', at: Date.now(), offset: got.offset });
        // The records and the offset they reach: one write.
        journal.appendAll(records);
        if (records.length) journal.sync();
        const ranOut = got.offset === offset;
        offset = got.offset;
        // What the runner said comes as log records among the others: told in the order it said it.
        for (const r of imported) this.apply(r);
        if (imported.some((r) => r.t === 'restart-finished')) await this.look(journal);
        if (got.ended) {
          journal.close();
          return await this.finish(session);
        }
        if (ranOut && got.state === 'ending' && !this.saidEnding) {
          // Its end is made there in a process of its own (a slow stop of mysqld holds no read): followed until its H.
          this.saidEnding = true;
          this.say(journal, 'info', `the runner on ${d.target} is gone; ${ENDING_AFTER_GONE}`);
        }
        if (ranOut && got.state === 'ended') {
          // The runner is gone and said nothing more (killed): its run is over, and this journal says so.
          const message = `the runner on ${d.target} stopped without saying how it ended (killed?); the host may not be as it was found (varlab offers to restore it when it next connects there)`;
          const end: JournalRecord = { t: 'run-finished', at: Date.now(), state: 'failed', message };
          journal.appendAll([end]);
          this.apply(end);
          journal.close();
          return await this.finish(session);
        }
        await this.save();
        if (this.stop.signal.aborted) return await this.detachedHere();
        // Read again at once while there is more to read, or a cancel is to be sent; else wait (a dropped link wakes it).
        if (ranOut && !(this.cancelWanted && !this.signalled)) await sleep(this.o.pollMs ?? 2_000, this.wake.signal);
        if (this.wake.signal.aborted) this.wake = new AbortController();
      }
    } finally {
      journal?.close();
      await link.close();
    }
  }

  /**
   * The run's directory is not on the target. Following it ends, saying how to forget it; a cancel of it
   * ends it here (nothing will ever end it but this journal), and the file can be run again (it resumes).
   */
  private async directoryGone(journal: JournalWriter, e: ApiError): Promise<AttachOutcome> {
    const d = this.d;
    if (!this.cancelWanted) throw new ApiError('not-found', `${e.message}. \`varlab cancel ${d.path}\` forgets it, so the file can be run again (it resumes from what is here).`);
    const message = `the detached run's directory ${d.dir} is no longer on ${d.target}; what it measured and was not brought in before is lost`;
    const end: JournalRecord = { t: 'run-finished', at: Date.now(), state: 'failed', message };
    journal.appendAll([end]);
    this.apply(end);
    const problem = await this.saveThenTellEnd();
    if (problem) return this.outcome('failed', false, problem);
    forgetLaunch(d.runId);
    return this.outcome('failed', true, message);
  }

  /** Following stopped by choice (detach): what came in is saved into the file; the run goes on there. */
  private async detachedHere(): Promise<AttachOutcome> {
    await this.save(true);
    return this.outcome('detached', false, `detached from ${this.d.target}: the run goes on there`);
  }

  /**
   * Stop when answered, for a detached run (issue 21): the runner on the target is plain shell, so the
   * follower takes the rule's looks on what it imported, the same step as an attached run's engine
   * (stats/replay.ts lookStep), journals them here, and when the rule stops the run, cancels the runner
   * (it discards the restart in progress, stops mysqld and restores the host). A run nobody followed
   * gets its looks, up to the stop, when it is attached.
   */
  private async look(journal: JournalWriter): Promise<void> {
    const state = this.fold.state();
    const design = state.header?.design;
    if (!design?.stopping || state.stopped) return;
    this.lastLook = Math.max(this.lastLook, state.lastLook?.look.round ?? 0);
    const doc = { ...(await savedDoc(this.d, state)), results: resultsFromJournal(state) };
    const step = lookStep(doc, this.lastLook);
    this.lastLook = step.lastLook;
    if (!step.records.length) return;
    journal.appendAll(step.records);
    journal.sync();
    this.say(journal, 'info', step.text.join('\n'));
    for (const r of step.records) this.apply(r);
    if (step.stop && !state.detached?.ended) {
      this.answered = true;
      this.cancelWanted = true;
    }
  }

  /** The runner's end after the rule stopped the run: the cancel was the rule's, so the run finished. */
  private asStopped(r: JournalRecord): JournalRecord {
    const stopped = this.fold.state().stopped;
    if (r.t !== 'run-finished' || r.state !== 'cancelled' || !stopped) return r;
    return { ...r, state: 'finished', message: `stopped when answered at round ${stopped.round}: ${stopped.because}` };
  }

  /**
   * A line the follower says about the run itself (a stop it asked for, the rule's look, a runner
   * found gone): into the local journal first, so the file keeps it beside the runner's own lines
   * (results.log), as an attached run's engine keeps what it says. Lines about this computer's
   * following (attached, stopped following) are told only: they are not the run's.
   */
  private say(journal: JournalWriter, level: 'info' | 'warn' | 'error', message: string): void {
    const line: JournalRecord = { t: 'log', at: Date.now(), level, message };
    journal.appendAll([line]);
    this.apply(line);
  }

  private apply(r: JournalRecord): void {
    this.fold.apply(r);
    const e = eventOf(r, (seq) => this.fold.cellOf(seq));
    // The end waits for the file (saveThenTellEnd): under load the save came after the view read "finished".
    if (e?.type === 'run-finished') this.end = e;
    else if (e) this.emit(e);
    if (r.t === 'restart-started') this.startedAt.set(r.seq, r.at);
    if (r.t === 'restart-finished') {
      const t0 = this.startedAt.get(r.seq);
      if (t0 !== undefined) this.restartMs.push({ ms: r.at - t0, steps: r.steps });
      this.progress();
    }
  }

  /**
   * The results into the file, then the run's end told (null), or, when the file could not take them,
   * a failed end saying why (returned): a run whose results did not reach its file never reads "finished".
   */
  private async saveThenTellEnd(): Promise<string | null> {
    const s = this.fold.state();
    // Brought in by an earlier attach (not applied here): the live view still hears how the run ended.
    const end = this.end ?? (s.lastState ? ({ type: 'run-finished', at: s.finishedAt ?? Date.now(), state: s.lastState, ...(s.lastMessage ? { message: s.lastMessage } : {}) } as RunEvent) : null);
    this.end = null;
    try {
      await this.save(true);
    } catch (e) {
      const problem = resultsNotSaved(this.d.journal, this.d.path, e);
      this.emit({ type: 'run-finished', at: Date.now(), state: 'failed', message: problem });
      return problem;
    }
    if (end) this.emit(end);
    return null;
  }

  /** The run's end is in the local journal: the results into the file, then the run's directory removed from the target. */
  private async finish(session: TargetSession | null): Promise<AttachOutcome> {
    const s = this.fold.state();
    // The target keeps its copy too: nothing is removed there until the file holds the results.
    const notSaved = await this.saveThenTellEnd();
    if (notSaved) return this.outcome('failed', false, notSaved);
    // Removed by an earlier attach: the results are in the file and nothing is left on the target.
    if (this.d.cleaned) return this.outcome(s.lastState ?? 'failed', true, s.lastMessage);
    let cleanedUp = false;
    let problem: string | undefined;
    try {
      const own = session ?? (await connect(this.d, this.connectVia()));
      try {
        const sudo = sudoOf(s);
        // The runner writes its last line just before it exits: give it a moment to be gone.
        for (let i = 0; i < 40 && ['running', 'ending'].includes((await readTargetJournal(own, this.d.dir, 0, sudo, 0)).state); i++) await sleep(250);
        await cleanupTargetRun(own, this.d.dir, sudo);
        cleanedUp = (await readTargetJournal(own, this.d.dir, 0, sudo, 0)).state === 'missing';
        if (cleanedUp) {
          // Said in the journal, so a later attach, cancel or look at the ended run needs no connection (and no launch record).
          const journal = new JournalWriter(this.d.journal);
          try {
            journal.appendAll([{ t: 'target-cleaned', at: Date.now() }]);
            journal.sync();
          } finally {
            journal.close();
          }
          forgetLaunch(this.d.runId);
        }
      } finally {
        if (!session) await own.close().catch(() => {});
      }
    } catch (e) {
      problem = `the run's directory ${this.d.dir} on ${this.d.target} was not removed: ${(e as Error).message}`;
      this.emit({ type: 'log', at: Date.now(), level: 'warn', message: problem });
    }
    return this.outcome(s.lastState ?? 'failed', cleanedUp, s.lastMessage);
  }
}
