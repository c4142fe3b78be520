// The run service: the one owner of every run in a process, used alike by the API (the app, browser
// mode) and the CLI. A run starts in one code path:
//
//   finished-check and design of record (prepare, reading only) → consent → locks (one run per
//   target and per file, across processes; refused naming the running file) → what prepare decided
//   on disk (results kept in a copy, journals archived) → the engine
//
// Refusals before the engine come back from start(); once the engine runs, every failure (even the
// journal not opening, or the target's lock held by a run from another machine) arrives as a
// run-finished event with its reason. dispose() cancels every run and waits, bounded, until each has
// stopped mysqld and restored its host.
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import type { DetachedStatus, EventBatch, RunCheck, RunStatus, TargetAuth } from '../../common/api.js';
import { ApiError } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import { endedWords } from '../../common/event-line.js';
import type { Design, ExperimentDoc, Results } from '../../common/experiment/types.js';
import { isComplete, restorePending, resultsFromJournal, severalHostsResults, type JournalState } from '../../common/records.js';
import type { DocumentService } from '../documents/service.js';
import type { HostLayer } from '../engine/hostlayer.js';
import { journalPath, readJournal, runJournals } from '../engine/journal.js';
import { designHosts, hostDesign } from '../../common/plan.js';
import { missingRestarts, missingSentence } from '../../common/experiment/carry.js';
import { hostAuths } from './auth.js';
import type { Run } from './run.js';
import { RunEngine, type EngineOptions, type ReconnectPolicy, type RunOutcome } from '../engine/run.js';
import { HostGroup } from './group.js';
import { readExperimentFile } from '../files.js';
import type { Prompter } from '../host/types.js';
import { rememberHost } from '../host/profiles.js';
import type { HostFingerprint } from '../../common/host.js';
import { acquireRunLocks, runningOnFile } from './locks.js';
import { finishedRun, journalDesignChanges, prepareRun, type PreparedRun, type RunRequest } from './prepare.js';
import { snapshotBatch } from './snapshot.js';
import { cancelDetached, openAttachment, type AttachOptions, type AttachOutcome, type Attached } from '../detach/attach.js';
import { detachedRuns, refuseWhileDetached } from '../detach/runs.js';
import { detachedStatus } from '../detach/status.js';
import { LAUNCH_CANCELLED, startDetached, type DetachedStart } from '../detach/launch.js';

export interface RunServiceOptions {
  documents: DocumentService;
  /** Every run's batches, for front ends. */
  onBatch?: (batch: EventBatch) => void;
  /** Who answers the questions of a run (host keys, passwords). */
  prompt: Prompter;
  host?: HostLayer;
}

export interface StartOptions extends RunRequest {
  /** How every host connects (one host: its only one), unless `hostAuth` says otherwise for a target. */
  auth?: TargetAuth;
  /** Several hosts: how each connects, by target (each its own key and known-hosts file); see runs/auth.ts. */
  hostAuth?: Record<string, TargetAuth | undefined>;
  /** Resolves when the user agreed to what the file runs beyond the built-in tunables on this target; throws otherwise. */
  consent: (doc: ExperimentDoc, target: string, prepared: PreparedRun) => Promise<void>;
  /** Every event as it happens (the CLI prints them). */
  onEvent?: (e: RunEvent) => void;
  prompt?: Prompter;
  reconnect?: Partial<ReconnectPolicy>;
  saveEveryMs?: number;
  batchMs?: number;
}

/** What `detach` started: the run (several hosts: their sums, joined), each host's own start, and each host that did not start. */
export interface DetachedLaunch extends DetachedStart {
  hosts: DetachedStart[];
  failed: { target: string; message: string }[];
  prepared: PreparedRun;
  said: string[];
}

export interface StartedRun {
  runId: string;
  prepared: PreparedRun;
  /** What was done on disk before the run (results kept in a copy, an edited file kept). */
  said: string[];
  status(): RunStatus;
  /** How the run ended (never rejects). */
  done: Promise<RunOutcome>;
}

/** What the service drives: one host's engine, or the engines of a design run on several hosts. */
/** A run of this process, and what the service needs of it beyond the Run face: its own run() to drive it. */
type Runner = Run & { run(): Promise<RunOutcome> };

interface Entry {
  runId: string;
  path: string;
  /** The target, or the targets joined with `, ` for a run on several hosts. */
  target: string;
  /** Several hosts: each host's journal (for catching up from disk). */
  hosts?: { target: string; journal: string }[];
  engine: Runner | null;
  done: Promise<RunOutcome>;
  /** Once ended: its last status (the engine is let go). */
  ended?: RunStatus;
}

const SHUTTING_DOWN = () => new ApiError('cancelled', 'varlab is shutting down: no new run starts');

/** How a following is asked for: who answers the connection's questions, the user's own key, where its events go, when to stop. */
export type FollowOptions = Partial<Pick<AttachOptions, 'prompt'>> & Omit<AttachOptions, 'prompt' | 'documents' | 'host' | 'onBatch'>;

/** Ended runs kept for clients catching up (their status, their batches rebuilt from the journal); older ones are let go. */
const KEEP_ENDED = 20;

export class RunService {
  private readonly runs = new Map<string, Entry>();
  /** Detached runs followed from this process (issue 14), by run id. */
  private readonly attachments = new Map<string, Attached>();
  /** Followings that ended, oldest first (pruned beyond KEEP_ENDED). */
  private readonly followsEnded = new Set<Attached>();
  /**
   * Detached runs being launched (a DBT-3 data step may take minutes here first), by the run id their
   * launch has from the start: cancel(runId) and dispose() cancel them. One that launched its runner
   * stays until this process follows it (follow): a cancel asked meanwhile is the followed run's.
   */
  private readonly launches = new Map<string, { cancel: AbortController; path: string; target: string; launched: boolean; done: Promise<string> }>();
  private disposing = false;

  constructor(private readonly opts: RunServiceOptions) {}

  /** What every run goes through before it starts: the finished-check, consent, the locks and the decisions on disk. */
  private async admit(o: Omit<StartOptions, 'onEvent' | 'reconnect' | 'saveEveryMs' | 'batchMs'>) {
    if (this.disposing) throw SHUTTING_DOWN();
    refuseWhileDetached(resolve(o.out ?? o.file));
    // A file whose last save was lost (a full disk) is made whole from its journal before anything is decided from it.
    const rebuilt = await this.opts.documents.rebuild(o.out ?? o.file).catch(() => null);
    let prepared: PreparedRun;
    try {
      prepared = await prepareRun(o);
    } catch (e) {
      if (rebuilt && e instanceof ApiError && e.code === 'already-finished') throw new ApiError(e.code, `${rebuilt}.\n${e.message}`);
      throw e;
    }
    const hosts = prepared.hosts ?? [{ target: prepared.doc.design.target, doc: prepared.doc, journal: journalPath(prepared.out), done: false }];
    const target = hosts.map((h) => h.target).join(', ');
    // Consent is per target: what the file runs is agreed to on each host.
    for (const h of hosts) await o.consent(h.doc, h.target, prepared);
    if (this.disposing) throw SHUTTING_DOWN();
    const runId = randomUUID();
    const locks = await acquireRunLocks({ runId, file: prepared.out, target, startedAt: Date.now() }, { targets: hosts.map((h) => h.target) });
    let said: string[];
    try {
      said = [...(rebuilt ? [rebuilt] : []), ...(await prepared.commit())];
    } catch (e) {
      await locks.release();
      throw e;
    }
    const out = prepared.out;
    // Each host connects its own way (its own key and known-hosts file), never the first host's.
    const auths = await hostAuths(hosts.map((h) => h.target), o.auth, o.hostAuth);
    // What the engine and the detached launch alike are given.
    const run = {
      runId,
      path: out,
      doc: prepared.doc,
      auth: auths.get(hosts[0].target),
      prompt: o.prompt ?? this.opts.prompt,
      host: this.opts.host,
      save: (results: Results) => this.opts.documents.writeRunResults(out, prepared.saved, results, prepared.grows),
      ...(prepared.grows ? { grows: prepared.grows } : {}),
      ...(prepared.measured ? { measured: prepared.measured } : {}),
    };
    return { prepared, target, runId, locks, said, out, run, auths };
  }

  async start(o: StartOptions): Promise<StartedRun> {
    const { prepared, target, runId, locks, said, out, run, auths } = await this.admit(o);
    await this.refuseIfDisposing(locks);
    // The run's probe of its host is that host's last probe (the Hosts view's list), as a probe from there would be.
    const onHost = (f: HostFingerprint) => void rememberHost(f.target, { probe: f }).catch(() => {});
    const engine = (more: Partial<EngineOptions> = {}) => new RunEngine({ ...run, onEvent: o.onEvent, onBatch: this.opts.onBatch, batchMs: o.batchMs, reconnect: o.reconnect, saveEveryMs: o.saveEveryMs, onHost, ...more });
    const runner = prepared.hosts
      ? new HostGroup({
          runId,
          path: out,
          hosts: prepared.hosts,
          save: run.save,
          onBatch: this.opts.onBatch,
          batchMs: o.batchMs,
          engine: (h, batcher, hostSave) => engine({ doc: h.doc, journalFile: h.journal, hostOfGroup: { target: h.target, batcher }, save: hostSave, auth: auths.get(h.target), measured: h.measured }),
        })
      : engine();
    const failed = (e: unknown): RunOutcome => ({ state: 'failed', message: (e as Error).message, planned: 0, done: 0, resumed: false, path: out, journal: journalPath(out), transient: false });
    // Once it ended: its locks go (before anyone hears it ended), and only its status stays (catching up is rebuilt from the journal).
    const ended = async (outcome: RunOutcome): Promise<RunOutcome> => {
      await locks.release();
      entry.ended = { ...runner.status(), state: outcome.state };
      entry.engine = null;
      this.prune();
      return outcome;
    };
    const entry: Entry = { runId, path: out, target, ...(prepared.hosts ? { hosts: prepared.hosts } : {}), engine: runner, done: runner.run().catch(failed).then(ended) };
    this.runs.set(runId, entry);
    return { runId, prepared, said, status: () => this.statusOf(entry), done: entry.done };
  }

  /**
   * Put the whole run on its target and return once it runs there (issue 14): the same finished-check,
   * consent and locks as start(), then the runner launched under the target's supervisor. The laptop
   * keeps nothing running: the target's own lock (taken here, handed to the runner) keeps other runs
   * off that host until the runner ends; attach.ts follows it.
   *
   * A design on several hosts: one runner per host, launched at once, each with its own order, journal
   * and connection; a host that fails to launch does not stop the others (it is in `failed`, with why).
   * Refused only when no host started.
   */
  async detach(o: Omit<StartOptions, 'reconnect' | 'saveEveryMs' | 'batchMs'> & { waitS?: number; /** The launch's run id, as soon as it is admitted (before its data step): cancel(runId) stops it. */ onLaunching?: (runId: string) => void }): Promise<DetachedLaunch> {
    const { prepared, target, locks, said, run, auths } = await this.admit({ ...o, detach: true });
    await this.refuseIfDisposing(locks);
    const cancel = new AbortController();
    const launch = this.launchDetached(cancel.signal, { prepared, locks, said, run, auths }, o);
    // How it ended, as dispose() says it: a runner launched before the cancel goes on there, as any detached run does.
    const entry = { cancel, path: run.path, target, launched: false, done: launch.then(() => `launched before the cancel; it goes on there (varlab cancel ${run.path} stops it)`, (e: unknown) => (e as Error).message) };
    this.launches.set(run.runId, entry);
    o.onLaunching?.(run.runId);
    try {
      const d = await launch;
      entry.launched = true;
      return d;
    } finally {
      if (!entry.launched) this.launches.delete(run.runId);
    }
  }

  private async launchDetached(signal: AbortSignal, { prepared, locks, said, run, auths }: Pick<Awaited<ReturnType<RunService['admit']>>, 'prepared' | 'locks' | 'said' | 'run' | 'auths'>, o: { waitS?: number; onEvent?: (e: RunEvent) => void }): Promise<DetachedLaunch> {
    try {
      if (!prepared.hosts) {
        const one = await startDetached({ ...run, waitS: o.waitS, onEvent: o.onEvent, measured: prepared.measured, signal });
        return { ...one, hosts: [one], failed: [], prepared, said: [...said, ...(one.said ?? [])] };
      }
      const group = { id: run.runId, hosts: prepared.hosts.map((h) => h.target) };
      const launching = prepared.hosts.filter((h) => !h.done);
      const settled = await Promise.allSettled(
        launching.map((h) => startDetached({ ...run, runId: randomUUID(), doc: h.doc, journalFile: h.journal, auth: auths.get(h.target), group, save: async () => {}, waitS: o.waitS, onEvent: o.onEvent, measured: h.measured, signal })),
      );
      const started = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      const failed = settled.flatMap((r, i) => (r.status === 'rejected' ? [{ target: launching[i].target, message: (r.reason as Error).message }] : []));
      // Every host's restarts so far into the file at once (a host finished before keeps its own).
      const byHost = prepared.hosts.map((h) => {
        const read = readJournal(h.journal);
        // A run of what the file missed: a host whose launch failed may still hold an earlier run's journal, not this run's.
        const state = prepared.grows && read?.header?.grows?.part !== prepared.grows.part ? null : read;
        return { host: h.target, results: state ? resultsFromJournal(state, 'interrupted before it finished; run again') : { restarts: [] } };
      });
      await run.save(severalHostsResults(byHost));
      if (!started.length && signal.aborted) throw new ApiError('cancelled', LAUNCH_CANCELLED);
      if (!started.length) throw new ApiError('connection', `the detached run started on none of its hosts:\n${failed.map((f) => `  ${f.target}: ${f.message}`).join('\n')}`);
      const planned = started.reduce((n, d) => n + d.planned, 0);
      return {
        runId: group.id,
        target: started.map((d) => d.target).join(', '),
        dir: started.map((d) => d.dir).join(', '),
        supervisor: started[0].supervisor,
        pid: null,
        planned,
        done: started.reduce((n, d) => n + d.done, 0),
        restarts: started.reduce((n, d) => n + d.restarts, 0),
        hosts: started,
        failed,
        prepared,
        said: [...said, ...started.flatMap((d) => d.said ?? [])],
      };
    } finally {
      await locks.release();
    }
  }

  /** Has the file's run finished, or does an unfinished one wait (and was the design changed since)? */
  async check(path: string, target?: string): Promise<RunCheck> {
    const file = await readExperimentFile(path);
    // One host of a several-host file: the file's run, and what that host misses of it (its restarts alone count).
    const ofHost = file.doc && target && designHosts(file.doc.design).length > 1 && designHosts(file.doc.design).includes(target) ? target : undefined;
    const design = file.doc ? { ...file.doc.design, ...(target && !ofHost ? { target, targets: undefined } : {}) } : null;
    const f = await finishedRun(path, undefined, design ?? undefined);
    if (f) {
      // A design that grew since its run: how much a run of only the missing restarts would measure.
      // A run stopped when answered has the restarts its rule needed: none is missing.
      const missing = (design && !file.doc?.results?.stopped?.length ? missingRestarts(design, file.doc?.results?.restarts ?? []) : []).filter((m) => !ofHost || m.host === ofHost);
      const grew = file.doc?.results?.restarts.length && missing.length ? { missing: { cells: new Set(missing.map((m) => m.cell)).size, restarts: missing.reduce((n, m) => n + m.need, 0), sentence: missingSentence(missing) } } : {};
      return { finished: true, restartsDone: f.done, restartsPlanned: f.planned, keepResultsAs: f.keepResultsAs, ...grew };
    }
    // Each host's journal (one for one host): unfinished when any is, its design compared on its own host.
    const journals = design ? runJournals(resolve(path), design) : [{ host: '', path: journalPath(resolve(path)) }];
    const states = journals.map((j) => ({ host: j.host, state: readJournal(j.path) })).filter((j) => j.state?.header);
    if (!states.length || states.every((j) => isComplete(j.state!) && !restorePending(j.state!))) return { finished: false };
    const several = journals.length > 1;
    // A run of what the file missed (run --missing) runs the file's design with the complete cells left out: not a change.
    const asRun = (d: Design, h: NonNullable<JournalState['header']>) => (h.grows ? { ...d, excludedCells: h.design.excludedCells, restartsPerCell: h.design.restartsPerCell } : d);
    const designChanges = design ? [...new Set(states.flatMap((j) => journalDesignChanges(j.state!.header!.design, asRun(several ? hostDesign(design, j.host) : design, j.state!.header!))))] : [];
    const header = states[0].state!.header!;
    const restartsDone = states.reduce((n, j) => n + j.state!.restarts.length, 0);
    // Every host of the design, one whose journal never began (its launch failed) with all of its restarts left.
    const hosts = several ? journals.map((j) => ({ host: j.host, restartsDone: states.find((x) => x.host === j.host)?.state!.restarts.length ?? 0, restartsPlanned: header.planned })) : undefined;
    // Why it stopped, as its log said it (a run that failed before its first restart shows nothing else).
    // A sentence: "It failed: …", "It was cancelled", on several hosts "On ssh://a it failed: …; on ssh://b it was cancelled".
    const how = (s: JournalState) => (s.lastState === 'cancelled' ? 'was cancelled' : endedWords(s.lastState!, s.lastMessage));
    const ends = states.filter((j) => j.state!.lastState === 'failed' || j.state!.lastState === 'cancelled').map((j, i) => `${several ? `${i ? 'on' : 'On'} ${j.host} it` : 'It'} ${how(j.state!)}`);
    return { finished: false, unfinished: { restartsDone, restartsPlanned: header.planned * journals.length, designChanges, ...(hosts ? { hosts } : {}), ...(ends.length ? { ended: ends.join('; ') } : {}) } };
  }

  /**
   * Follow the file's detached run from this process: its events arrive as batches like a live run's,
   * and when it has ended its results are saved into the file. Returns at once.
   */
  async attach(path: string, o: Pick<FollowOptions, 'prompt' | 'measured'> = {}): Promise<RunStatus> {
    const abs = resolve(path);
    for (const a of this.attachments.values()) if (a.path === abs && a.status().detached?.following) return a.status();
    return (await this.follow(abs, o)).status();
  }

  /**
   * `varlab attach`: follow the file's detached run to its end (or until `o.signal`: this computer
   * detaches), its events to `o.onEvent`; the same following as the app's, kept with its runs.
   */
  async attachToEnd(path: string, o: FollowOptions): Promise<AttachOutcome> {
    this.refuseWhileDisposing();
    return (await this.follow(resolve(path), o)).done;
  }

  /** `varlab cancel`: stop the file's detached run on every host; then what it measured comes into the file. */
  cancelDetached(path: string, o: FollowOptions): Promise<AttachOutcome & { signalled: boolean }> {
    this.refuseWhileDisposing();
    return cancelDetached(resolve(path), this.followOptions(o));
  }

  /** `varlab status` and the Run view's look at a detached run: where it is, from its target; changes nothing. */
  detachedStatus(path: string, o: Pick<FollowOptions, 'prompt' | 'auth' | 'say'> = {}): Promise<DetachedStatus> {
    return detachedStatus(resolve(path), { ...o, prompt: o.prompt ?? this.opts.prompt });
  }

  private followOptions(o: FollowOptions): AttachOptions {
    return { ...o, prompt: o.prompt ?? this.opts.prompt, documents: this.opts.documents, host: this.opts.host, onBatch: this.opts.onBatch };
  }

  private async follow(abs: string, o: FollowOptions): Promise<Attached> {
    const a = await openAttachment(abs, this.followOptions(o));
    this.attachments.set(a.runId, a);
    // The run this process launched: a Cancel pressed as its runner started (the launch over, not followed yet) cancels it there.
    for (const [id, l] of this.launches) {
      if (!l.launched || l.path !== abs) continue;
      this.launches.delete(id);
      if (l.cancel.signal.aborted) a.cancel();
    }
    const ended = () => {
      this.followsEnded.add(a);
      this.prune();
    };
    void a.done.then(ended, ended);
    return a;
  }

  private refuseWhileDisposing(): void {
    if (this.disposing) throw SHUTTING_DOWN();
  }

  /**
   * Stop following a detached run (the run goes on on its target). Resolves once following has
   * stopped (at most withinMs): what it read is in the file and the file's lock is let go, so
   * following it again at once starts afresh from there instead of finding this follower still on.
   */
  async stopFollowing(runId: string, withinMs = 30_000): Promise<RunStatus> {
    const a = this.attachments.get(runId);
    if (!a) throw new ApiError('not-found', `no detached run ${JSON.stringify(runId)} followed in this session`);
    a.detach();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([a.done, new Promise((r) => (timer = setTimeout(r, withinMs)))]);
    clearTimeout(timer);
    return a.status();
  }

  pause(runId: string): RunStatus {
    const h = this.held(runId);
    h.run?.pause();
    return h.status();
  }

  resume(runId: string): RunStatus {
    const h = this.held(runId);
    h.run?.resume();
    return h.status();
  }

  /**
   * Cancel a run; a detached one is stopped on its target (which restores the host), its end brought in.
   * A detached run still being launched (its data step) stops at its next step: mysqld stopped, the
   * host restored, the target let go; its launch (run.start) then ends refused as cancelled. Its
   * status says running until then.
   */
  cancel(runId: string): RunStatus {
    const l = this.launches.get(runId);
    if (l && !this.attachments.has(runId)) {
      l.cancel.abort();
      return { runId, path: l.path, state: 'running', lastSeq: 0, detached: { target: l.target, following: false } };
    }
    const h = this.held(runId);
    h.run?.cancel();
    return h.status();
  }

  status(): RunStatus[] {
    return [...this.runs.keys(), ...this.attachments.keys()].map((id) => this.held(id).status());
  }

  /** The experiment file a run (attached or followed) belongs to; undefined for a run let go. */
  pathOf(runId: string): string | undefined {
    return this.attachments.get(runId)?.path ?? this.runs.get(runId)?.path;
  }

  /**
   * What a client missed: the batches kept in memory, or else the run as one snapshot: from the
   * engine's fold while it runs (no re-reading of the journal, however long the run), from the
   * journal on disk once it ended.
   */
  events(runId: string, afterSeq: number): EventBatch[] {
    const h = this.held(runId);
    const kept = h.run?.events(afterSeq);
    if (kept) return kept;
    const live = h.run?.snapshot();
    if (live) return [live];
    const s = h.status();
    if (afterSeq >= s.lastSeq) return [];
    if (!h.hosts) return [snapshotBatch(runId, s.lastSeq, journalPath(h.path), s.state)];
    // Several hosts: each host's run rebuilt from its journal, every event naming its host.
    const events = h.hosts.flatMap((x) => snapshotBatch(runId, s.lastSeq, x.journal, s.state).events.map((ev) => ({ ...ev, host: x.target })));
    return [{ runId, seq: s.lastSeq, events, snapshot: true }];
  }

  /** Why a file cannot take a design edit now: a run (here or in another process on this machine) writes into it. */
  async busyWith(path: string): Promise<string | null> {
    const abs = resolve(path);
    for (const e of this.runs.values()) if (e.path === abs && !e.ended) return `a run of it is going on (on ${e.target})`;
    for (const a of this.attachments.values()) if (a.path === abs && a.status().detached?.following) return `a detached run of it is going on (on ${a.target})`;
    // Followed by nobody, a detached run still runs its design, and its results come into the file at the next attach.
    try {
      const going = detachedRuns(abs).filter((d) => !d.ended);
      if (going.length) return `a detached run of it is going on (on ${going.map((d) => d.target).join(', ')}); varlab attach, status or cancel it first`;
    } catch {
      /* a journal refused here is refused, with its reason, when the file is run or attached */
    }
    const other = await runningOnFile(abs);
    return other ? `a run of it is going on (on ${other.target}, pid ${other.pid})` : null;
  }

  /**
   * Cancel every run and wait (at most `withinMs`) until each has stopped mysqld and restored its
   * host. Says what it did, run by run.
   */
  async dispose(withinMs = 90_000): Promise<string> {
    this.disposing = true;
    // Both at once (R4): runs of this process are cancelled while followed detached runs are let go
    // (those go on on their targets: this process only stops following them), within the same wait.
    const followed = [...this.attachments.values()].filter((a) => a.status().detached?.following);
    for (const a of followed) a.detach();
    const active = [...this.runs.values()].filter((e) => e.engine && !e.ended);
    for (const e of active) e.engine!.cancel();
    // A launch in progress (its DBT-3 data step) stops at its next chunk, stops mysqld, restores the host and lets the lock go; its caller says how it ended.
    const launches = [...this.launches].filter(([, l]) => !l.launched);
    for (const [, l] of launches) l.cancel.abort();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), withinMs)).unref());
    const [, launched, lines] = await Promise.all([
      Promise.race([Promise.all(followed.map((a) => a.done)), late]),
      Promise.all(launches.map(async ([, l]) => `${l.path}: ${await Promise.race([l.done, late.then(() => `its launch did not stop within ${Math.round(withinMs / 1000)} s; mysqld may still run on its target`)])}`)),
      Promise.all(
        active.map(async (e) => {
          const o = await Promise.race([e.done, late]);
          if (o === 'late') return `${e.path}: did not stop within ${Math.round(withinMs / 1000)} s; mysqld may still run on ${e.target} and host settings may be changed (varlab offers to restore them when it next connects there)`;
          const how = o.restoreProblem ?? (o.state === 'cancelled' ? 'mysqld stopped and the host restored' : (o.message ?? ''));
          return `${e.path}: ${o.state} after ${o.done} of ${o.planned} restarts; ${how}`;
        }),
      ),
    ]);
    clearTimeout(timer);
    const detachedNote = followed.length ? `stopped following ${followed.length} detached run${followed.length === 1 ? '' : 's'}; ${followed.length === 1 ? 'it goes' : 'they go'} on on ${[...new Set(followed.map((a) => a.target))].join(', ')} (varlab attach FILE follows again)` : '';
    const launchNote = launched.length ? `cancelled ${launched.length} detached launch${launched.length === 1 ? '' : 'es'}:\n${launched.map((l) => `  ${l}`).join('\n')}` : '';
    if (!active.length) return [detachedNote, launchNote].filter(Boolean).join('\n') || 'no run was going on';
    return [`cancelled ${active.length} run${active.length === 1 ? '' : 's'}:\n${lines.map((l) => `  ${l}`).join('\n')}`, detachedNote, launchNote].filter(Boolean).join('\n');
  }

  /**
   * A run admitted while dispose() began (its consent or locks took time) must not escape it (R5): its
   * locks go and it is refused, before any engine starts.
   */
  private async refuseIfDisposing(locks: { release(): Promise<void> }): Promise<void> {
    if (!this.disposing) return;
    await locks.release();
    throw SHUTTING_DOWN();
  }

  /** Lets go of ended runs and followed runs that ended beyond the last KEEP_ENDED of each (the maps grew for ever). */
  private prune(): void {
    const endedRuns = [...this.runs.values()].filter((e) => e.ended);
    for (const e of endedRuns.slice(0, Math.max(0, endedRuns.length - KEEP_ENDED))) this.runs.delete(e.runId);
    const endedFollows = [...this.followsEnded];
    for (const a of endedFollows.slice(0, Math.max(0, endedFollows.length - KEEP_ENDED))) {
      this.followsEnded.delete(a);
      if (this.attachments.get(a.runId) === a) this.attachments.delete(a.runId);
    }
  }

  private statusOf(e: Entry): RunStatus {
    return e.ended ?? e.engine!.status();
  }

  /** A run held here, whatever drives it (the driver is let go once an attached run ended: its status stays). */
  private held(runId: string): { run: Run | null; path: string; hosts?: { target: string; journal: string }[]; status(): RunStatus } {
    const a = this.attachments.get(runId);
    if (a) return { run: a, path: a.path, hosts: a.hosts, status: () => a.status() };
    const e = this.runs.get(runId);
    if (!e) throw new ApiError('not-found', `no run ${JSON.stringify(runId)} in this session`);
    return { run: e.engine, path: e.path, hosts: e.hosts, status: () => this.statusOf(e) };
  }
}
