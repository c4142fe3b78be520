// Attach to a detached run (issue 14), from nothing but the experiment file: the journal beside it
// says where the run is and how the laptop connected (the `detached` record: target, key and
// known-hosts paths, the run's directory), and how much of the target's journal it already holds
// (the offset of the last `imported` record).
//
//   attach  read the target journal from that offset, append what it brings to the local journal
//           together with the new offset (one write: a killed laptop keeps both or neither, so
//           attaching again duplicates and loses nothing), emit the same events as a live run, until
//           the runner ends; then save the results into the file (the fold an attached run saves)
//           and remove the run's directory on the target.
//   status  look only (nothing written): running, finished, failed or cancelled, where, restart k of n.
//   cancel  SIGTERM to the runner (it stops mysqld and restores the host itself), then attach to
//           bring in what it measured.
//
// No printing here: the CLI and the app both use it, through its events and outcomes.
import { detachedCannotPause, type Run } from '../runs/run.js';
import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ApiError, type DetachedStatus, type EventBatch, type RunStatus, type TargetAuth } from '../../common/api.js';

export type { DetachedStatus };
import { groupState, hostWhy, type RunEvent } from '../../common/events.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { buildPlan, estimatePlan, expandCells } from '../../common/plan.js';
import { eventOf, JournalFold, recordsOfRestart, resultsFromJournal, severalHostsResults, type JournalRecord, type JournalState } from '../../common/records.js';
import type { Results } from '../../common/experiment/types.js';
import type { DocumentService } from '../documents/service.js';
import { EventBatcher } from '../engine/batcher.js';
import { defaultHostLayer, type HostLayer } from '../engine/hostlayer.js';
import { hostJournalPath, journalPath, JournalWriter, readJournal } from '../engine/journal.js';
import { readExperimentFile } from '../files.js';
import type { Prompter, TargetSession } from '../host/types.js';
import { acquireRunLocks } from '../runs/locks.js';
import type { ImportContext } from './import.js';
import { detachedAuth, forgetLaunch } from './launched.js';
import { checkJournalRunDir } from './runner.js';
import { cleanupTargetRun, pullTargetJournal, readTargetJournal, signalCancel, type Pulled } from './target.js';
import { resultsNotSaved } from '../documents/rebuild.js';
import { lookStep } from '../../common/stats/replay.js';

/** What the local journal says of a file's detached run (read from disk, no connection). */
export interface DetachedRun {
  /** The experiment file (absolute). */
  path: string;
  journal: string;
  runId: string;
  target: string;
  auth?: { identity?: string; knownHosts?: string };
  /** The run's directory on the target. */
  dir: string;
  supervisor: 'systemd' | 'setsid';
  /** Bytes of the target journal already in the local journal. */
  offset: number;
  /** The run's end is in the local journal. */
  ended: boolean;
  /** Its directory on the target was removed once its results were in the file (nothing there to connect for). */
  cleaned?: boolean;
  planned: number;
  /** Restarts finished (in the local journal). */
  done: number;
  lastState?: 'finished' | 'failed' | 'cancelled';
  lastMessage?: string;
  /** When it was launched (its `detached` record). */
  at: number;
  /** A host of a design detached on several hosts: the several-host run's id and every host it went to. */
  group?: { id: string; hosts: string[] };
}


export interface AttachOptions {
  /** Who answers the questions of the connection (a host key, a key's passphrase). */
  prompt: Prompter;
  /** The user's own key and known_hosts for the target (the command line's): before anything else (launched.ts). */
  auth?: TargetAuth;
  /** Told how the target is reached when the journal's own key and known_hosts are not used, and why. */
  say?: (message: string) => void;
  documents: DocumentService;
  host?: HostLayer;
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
}

export interface AttachOutcome {
  /** `detached`: following stopped (signal) before the run ended; it goes on on its target. */
  state: 'finished' | 'failed' | 'cancelled' | 'detached';
  message?: string;
  path: string;
  target: string;
  planned: number;
  done: number;
  /** The run's directory was removed from the target (its journal is all here and in the file). */
  cleanedUp: boolean;
  /** Following stopped on an error (in `message`), not by choice; the run goes on on its target. */
  error?: true;
  /** Several hosts: how following ended on each. */
  hosts?: { target: string; outcome: AttachOutcome }[];
  /** Several hosts: the hosts of the design whose runner never started (they run at the next `varlab run FILE`). */
  notStarted?: string[];
}

/** The one-line description, the same in the CLI and the app: `detached on T, running restart k of n`. */
export function describeDetached(s: Pick<DetachedStatus, 'state' | 'target' | 'planned' | 'done' | 'current' | 'message' | 'imported'>): string {
  switch (s.state) {
    case 'running':
      return `detached on ${s.target}, running restart ${s.current ?? s.done + 1} of ${s.planned}`;
    case 'gone':
      return `gone: the run's directory is no longer on ${s.target}; ${s.done} of ${s.planned} restarts are in the file`;
    default: {
      const why = s.message ? ` (${s.message})` : '';
      return `${s.state} on ${s.target}: ${s.done} of ${s.planned} restarts${why}${s.imported ? '' : '; varlab attach brings the results into the file'}`;
    }
  }
}

/** The file's detached run on one host, from its journal; null when the file has none. */
export function detachedRun(path: string): DetachedRun | null {
  const abs = resolve(path);
  return runOfJournal(abs, journalPath(abs));
}

function runOfJournal(abs: string, journal: string, state = readJournal(journal)): DetachedRun | null {
  if (!state?.detached || !state.header) return null;
  const d = state.detached;
  checkJournalRunDir(d.dir, d.runId, journal);
  return {
    path: abs,
    journal,
    runId: d.runId,
    target: d.target,
    ...(d.auth ? { auth: d.auth } : {}),
    dir: d.dir,
    supervisor: d.supervisor,
    offset: d.offset,
    ended: d.ended,
    ...(d.cleaned ? { cleaned: true } : {}),
    planned: state.header.planned,
    done: state.restarts.length,
    at: d.at,
    ...(d.group ? { group: d.group } : {}),
    ...(d.ended && state.lastState ? { lastState: state.lastState, lastMessage: state.lastMessage } : {}),
  };
}

/** The journals beside the file that may be a host's of a several-host run: `BASE.journal.<host>-<8 hex>.jsonl`. */
function hostJournalFiles(abs: string): string[] {
  const dir = dirname(abs);
  const base = `${basename(abs).replace(/\.json$/i, '')}.journal.`;
  try {
    return readdirSync(dir)
      .filter((n) => n.startsWith(base) && /-[0-9a-f]{8}\.jsonl$/.test(n))
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/**
 * The file's detached run, one entry per host: the one journal beside it (one host), or each host's
 * journal of the latest design detached on several hosts, in the order of its hosts. A host journal
 * counts only under the name its own target gives it (one copied over another's is not followed).
 * Empty when the file has no detached run.
 */
export function detachedRuns(path: string): DetachedRun[] {
  const abs = resolve(path);
  const one = detachedRun(abs);
  const several: DetachedRun[] = [];
  for (const journal of hostJournalFiles(abs)) {
    const d = runOfJournal(abs, journal);
    if (d?.group && hostJournalPath(abs, d.target) === journal) several.push(d);
  }
  if (!several.length) return one ? [one] : [];
  const latest = several.reduce((a, b) => (b.at > a.at ? b : a));
  if (one && one.at > latest.at) return [one];
  const hosts = latest.group!.hosts;
  return several.filter((d) => d.group!.id === latest.group!.id).sort((a, b) => hosts.indexOf(a.target) - hosts.indexOf(b.target));
}

/** Refuse to start another run of a file whose detached run goes on (or whose end is not in yet), on any of its hosts. */
export function refuseWhileDetached(path: string): void {
  const runs = detachedRuns(path).filter((d) => !d.ended);
  if (runs.length) {
    const where = runs.map((d) => `${d.target} (run ${d.runId})`).join(', ');
    throw new ApiError('busy', `${path}: a detached run of it goes on on ${where}. Follow it with \`varlab attach ${path}\`, see it with \`varlab status ${path}\`, or stop it with \`varlab cancel ${path}\`.`);
  }
}

function requireDetachedRuns(path: string): DetachedRun[] {
  const runs = detachedRuns(path);
  if (!runs.length) throw new ApiError('not-found', `${path}: no detached run (start one with \`varlab run ${path} --detach\`)`);
  return runs;
}

/**
 * What a follower says first, from the local journal's fold: the run's plan, the restarts already
 * here (history), and the restart still open in it (started, maybe some executions brought in by an
 * earlier follower), so the records that follow from the target journal's offset (that restart's
 * further executions and its end) land on a restart the view's fold has open. Without the open
 * restart, a view folds the executions that follow without a restart to put them in, and ignores
 * its end: "1 of 5 restarts" beside no restart mean.
 */
export function openingEvents(fold: JournalFold, planned: number, ended: boolean): RunEvent[] {
  const prior = fold.state();
  const design = prior.header!.design;
  const warmup = design.workload.warmup;
  const at = Date.now();
  const events: RunEvent[] = [{ type: 'run-started', at, planned, done: prior.restarts.length, cells: expandCells(design).filter((c) => !c.excluded).map((c) => c.id), queries: buildPlan(design)[0]?.queries ?? [], warmup, ...(design.stopping ? { stopping: design.stopping } : {}) }];
  if (prior.restarts.length) events.push({ type: 'history', at, warmup, restarts: [...prior.restarts].sort((a, b) => a.seq - b.seq) });
  // Stop when answered: the rule's last look and its stop, as a late client of an attached run gets them (runs/snapshot.ts).
  if (prior.lastLook) events.push({ type: 'look', ...prior.lastLook });
  if (prior.stopped) events.push({ type: 'stopped-answered', at: prior.stopped.at, round: prior.stopped.round, because: prior.stopped.because });
  // An ended run's open restart was interrupted: its end (run-finished) follows, not more of it.
  const open = ended ? undefined : fold.current();
  if (open) {
    for (const r of recordsOfRestart({ ...open, queries: [...open.queries.values()] }, warmup)) {
      const e = eventOf(r, () => open.cell);
      if (e) events.push(e);
    }
  }
  return events;
}

/** The local journal read into a fold, and what importing needs from it. */
function localRun(d: DetachedRun): { fold: JournalFold; state: JournalState; context: (s: JournalState) => ImportContext } {
  const fold = new JournalFold();
  const state = readJournal(d.journal, fold)!;
  const design = state.header!.design;
  const profile = design.serverProfile;
  if (!profile) throw new ApiError('invalid-file', `${d.journal}: the run's design names no server profile`);
  if (!state.host) throw new ApiError('invalid-file', `${d.journal}: the detached run's host record is missing`);
  const plan = buildPlan(design);
  const host = state.host;
  const context = (s: JournalState): ImportContext => ({ design, plan, profile, host, target: d.target, open: s.interrupted.map((i) => i.seq), timer: s.timer?.source });
  return { fold, state, context };
}

type ConnectVia = Pick<AttachOptions, 'prompt' | 'host' | 'auth' | 'say'>;

/** A session on the run's target, with the user's own keys unless this machine launched the run with the journal's (launched.ts). */
async function connect(d: DetachedRun, o: ConnectVia): Promise<TargetSession> {
  const host = o.host ?? defaultHostLayer();
  const how = await detachedAuth(d, o.auth);
  if (how.said) o.say?.(how.said);
  return host.openTarget(d.target, { auth: how.auth, prompt: o.prompt });
}

const sudoOf = (state: JournalState) => state.header!.design.serverProfile?.sudo === true;

/**
 * Where the detached run is, by looking at the target (when its end is not in the local journal yet).
 * Writes nothing: what the target journal holds beyond the offset is folded in memory only. Several
 * hosts: each host's in `hosts` (a host that cannot be reached in `unreachable`, the others still
 * said), the run as a whole in the top fields.
 */
export async function detachedStatus(path: string, o: ConnectVia): Promise<DetachedStatus> {
  const runs = requireDetachedRuns(path);
  const group = runs[0].group;
  if (!group) return statusOf(runs[0], o);
  const settled = await Promise.allSettled(runs.map((d) => statusOf(d, o)));
  const hosts = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  const unreachable = settled.flatMap((r, i) => (r.status === 'rejected' ? [{ target: runs[i].target, message: (r.reason as Error).message }] : []));
  const states = hosts.map((h) => h.state);
  const state: DetachedStatus['state'] = states.includes('running') || unreachable.length ? 'running' : states.includes('failed') ? 'failed' : states.includes('gone') ? 'gone' : states.includes('cancelled') ? 'cancelled' : 'finished';
  const notStarted = group.hosts.filter((h) => !runs.some((d) => d.target === h));
  return {
    path: runs[0].path,
    runId: group.id,
    target: runs.map((d) => d.target).join(', '),
    state,
    planned: runs.reduce((n, d) => n + d.planned, 0),
    done: hosts.reduce((n, h) => n + h.done, 0),
    imported: hosts.every((h) => h.imported) && !unreachable.length,
    hosts,
    ...(unreachable.length ? { unreachable } : {}),
    ...(notStarted.length ? { notStarted } : {}),
  };
}

/** One host's detached run, looked at on its target. */
async function statusOf(d: DetachedRun, o: ConnectVia): Promise<DetachedStatus> {
  const base = { path: d.path, runId: d.runId, target: d.target, planned: d.planned };
  if (d.ended) return { ...base, state: d.lastState ?? 'failed', done: d.done, message: d.lastMessage, imported: true };
  const { fold, context } = localRun(d);
  const session = await connect(d, o);
  try {
    const sudo = sudoOf(fold.state());
    let offset = d.offset;
    for (;;) {
      let got: Pulled;
      try {
        got = await pullTargetJournal(session, d.dir, sudo, offset, context(fold.state()));
      } catch (e) {
        if (e instanceof ApiError && e.code === 'not-found') return { ...base, state: 'gone', done: fold.state().restarts.length, message: e.message, imported: false };
        throw e;
      }
      for (const r of got.records) fold.apply(r);
      const s = fold.state();
      const ranOut = got.offset === offset;
      offset = got.offset;
      if (got.ended) return { ...base, state: s.lastState ?? 'failed', done: s.restarts.length, message: s.lastMessage, imported: false };
      if (ranOut) {
        if (got.state !== 'running') return { ...base, state: 'failed', done: s.restarts.length, message: `the runner on ${d.target} stopped without saying how it ended`, imported: false };
        return { ...base, state: 'running', done: s.restarts.length, current: s.restarts.length + 1, imported: false };
      }
    }
  } finally {
    await session.close().catch(() => {});
  }
}

/** The file as the run saves it: the design as run, with the file's own server profile and labels. */
async function savedDoc(d: DetachedRun, state: JournalState): Promise<ExperimentDoc> {
  const file = await readExperimentFile(d.path);
  if (!file.doc) throw new ApiError('invalid-file', `${d.path}: ${file.problems.join('; ')} (the results are safe in ${d.journal})`);
  const design = { ...state.header!.design };
  if (file.doc.design.serverProfile) design.serverProfile = file.doc.design.serverProfile;
  else delete design.serverProfile;
  const { results: _results, ...doc } = file.doc;
  return { ...doc, design };
}

/** The file as a several-host run saves it: its own design (every host), without results. */
async function fileDoc(d: DetachedRun): Promise<ExperimentDoc> {
  const file = await readExperimentFile(d.path);
  if (!file.doc) throw new ApiError('invalid-file', `${d.path}: ${file.problems.join('; ')} (the results are safe in ${d.journal})`);
  const { results: _results, ...doc } = file.doc;
  return doc;
}

/** A detached run being followed in this process (the run service keeps it for the app). */
export interface Attached extends Run {
  runId: string;
  path: string;
  target: string;
  /** Several hosts: each host's target and local journal (its events name their host). */
  hosts?: { target: string; journal: string }[];
  /** Stop following: the laptop detaches, the run goes on on its target. */
  detach(): void;
  /** How following ended (never rejects once started). */
  done: Promise<AttachOutcome & { signalled: boolean }>;
}

/**
 * Start following the file's detached run, and return at once. It holds the file's lock (one follower
 * per file on this machine) until it ends. Several hosts: every host's run followed at once, each on
 * its own connection (a host that cannot be reached does not stop the others).
 */
export async function openAttachment(path: string, o: AttachOptions): Promise<Attached> {
  const runs = requireDetachedRuns(path);
  if (runs[0].group) return openGroup(runs, o);
  const d = runs[0];
  const locks = await acquireRunLocks({ runId: d.runId, file: d.path, target: d.target, startedAt: Date.now() }, { fileOnly: true });
  let f: Follower;
  try {
    f = new Follower(d, o);
  } catch (e) {
    await locks.release();
    throw e;
  }
  const done = f.run().finally(() => locks.release());
  return {
    runId: d.runId,
    path: d.path,
    target: d.target,
    status: () => f.status(),
    events: (n) => f.events(n),
    snapshot: () => f.snapshot(),
    pause: () => f.pause(),
    resume: () => f.resume(),
    detach: () => f.detach(),
    cancel: () => f.cancel(),
    done,
  };
}

/**
 * A design detached on several hosts, followed as one run: one follower per host, their events in one
 * numbered stream under the several-host run's id (each naming its host), every save writing every
 * host's results at once (as an attached run on several hosts does).
 */
async function openGroup(runs: DetachedRun[], o: AttachOptions): Promise<Attached> {
  const group = runs[0].group!;
  const path = runs[0].path;
  const target = runs.map((d) => d.target).join(', ');
  const locks = await acquireRunLocks({ runId: group.id, file: path, target, startedAt: Date.now() }, { fileOnly: true });
  let followers: Follower[];
  const batcher = new EventBatcher(group.id, (b) => o.onBatch?.(b), o.batchMs ?? 100);
  try {
    // Every host of the design, also one whose runner never started: its journal keeps what it has.
    const results = new Map<string, Results>();
    for (const host of group.hosts) {
      const state = readJournal(runs.find((d) => d.target === host)?.journal ?? hostJournalPath(path, host));
      results.set(host, state ? resultsFromJournal(state, 'interrupted before it finished; run again') : { restarts: [] });
    }
    const save = async (host: string, doc: ExperimentDoc, r: Results) => {
      results.set(host, r);
      await o.documents.writeRunResults(path, doc, severalHostsResults(group.hosts.map((h) => ({ host: h, results: results.get(h)! }))));
    };
    followers = runs.map((d) => new Follower(d, o, { batcher, save }));
  } catch (e) {
    await locks.release();
    throw e;
  }
  const notStarted = group.hosts.filter((h) => !runs.some((d) => d.target === h));
  const done = Promise.all(followers.map((f) => f.run()))
    .then((outs) => {
      const end = groupOutcome(path, runs, outs, notStarted);
      if (end.state !== 'detached') batcher.push({ type: 'run-finished', at: Date.now(), state: end.state, ...(end.message ? { message: end.message } : {}) });
      batcher.flush();
      return end;
    })
    .finally(() => locks.release());
  const status = (): RunStatus => {
    const each = followers.map((f) => f.status());
    const state = groupState(each.map((s) => s.state));
    return { runId: group.id, path, state, lastSeq: batcher.lastSeq, detached: { target, following: each.some((s) => s.detached?.following) } };
  };
  return {
    runId: group.id,
    path,
    target,
    hosts: runs.map((d) => ({ target: d.target, journal: d.journal })),
    status,
    events: (n) => batcher.after(n),
    snapshot: () => null,
    pause: () => detachedCannotPause(target),
    resume: () => {},
    detach: () => followers.forEach((f) => f.detach()),
    cancel: () => followers.forEach((f) => f.cancel()),
    done,
  };
}

/** Several hosts: finished when every host finished; detached while any goes on unfollowed; else failed, else cancelled. Each host's own in `hosts`. */
function groupOutcome(path: string, runs: DetachedRun[], outs: (AttachOutcome & { signalled: boolean })[], notStarted: string[]): AttachOutcome & { signalled: boolean } {
  const state = groupState(outs.map((h) => h.state));
  const hosts = outs.map((outcome, i) => ({ target: runs[i].target, outcome }));
  const message = hosts
    .filter((h) => h.outcome.state !== 'finished' || state !== 'finished')
    .map((h) => `${h.target}: ${h.outcome.state}${hostWhy(h.outcome) ? ` (${hostWhy(h.outcome)})` : ''}`)
    .concat(state === 'cancelled' ? ['run again to resume'] : [])
    .join('; ');
  return {
    state,
    ...(message ? { message } : {}),
    path,
    target: runs.map((d) => d.target).join(', '),
    planned: outs.reduce((n, h) => n + h.planned, 0),
    done: outs.reduce((n, h) => n + h.done, 0),
    cleanedUp: outs.every((h) => h.cleanedUp),
    ...(outs.some((h) => h.error) ? { error: true as const } : {}),
    hosts,
    ...(notStarted.length ? { notStarted } : {}),
    signalled: outs.some((h) => h.signalled),
  };
}

/**
 * Follow the file's detached run until it ends (or `signal` aborts: the laptop detaches), bringing
 * every record of the target journal into the local journal once, and the results into the file.
 */
export async function attachDetached(path: string, o: AttachOptions): Promise<AttachOutcome> {
  return (await openAttachment(path, o)).done;
}

/**
 * Stop the file's detached run: the runner journals the cancel, stops mysqld and restores the host
 * by itself; then what it measured is brought in (unless another process follows it and does that).
 * Several hosts: every host's runner is stopped.
 */
export async function cancelDetached(path: string, o: AttachOptions): Promise<AttachOutcome & { signalled: boolean }> {
  const runs = requireDetachedRuns(path);
  let a: Attached;
  try {
    a = await openAttachment(path, o);
  } catch (e) {
    if (!(e instanceof ApiError && e.code === 'busy')) throw e;
    // Another varlab follows it (the app, another terminal): ask each runner to stop; that one brings the end in.
    const asked = await askEachToStop(runs, async (d) => {
      const session = await connect(d, o);
      try {
        return await signalCancel(session, d.dir, sudoOf(readJournal(d.journal)!));
      } finally {
        await session.close().catch(() => {});
      }
    });
    const failed = asked.notReached;
    const target = runs.map((d) => d.target).join(', ');
    return {
      state: 'detached',
      message: `asked the run on ${target} to stop; the varlab process following it brings its end into ${runs[0].path} (${e.message})${failed.length ? `; not reached: ${failed.join('; ')}` : ''}`,
      path: runs[0].path,
      target,
      planned: runs.reduce((n, d) => n + d.planned, 0),
      done: runs.reduce((n, d) => n + d.done, 0),
      cleanedUp: false,
      signalled: asked.signalled,
    };
  }
  a.cancel();
  return a.done;
}

/**
 * Ask the runner of every host that has not ended to stop, at once. A host not reached is named by its
 * own target (the list asked is the unfinished hosts, not every host: R1, issue 26).
 */
export async function askEachToStop(runs: DetachedRun[], ask: (d: DetachedRun) => Promise<boolean>): Promise<{ signalled: boolean; notReached: string[] }> {
  const unfinished = runs.filter((d) => !d.ended);
  const asked = await Promise.allSettled(unfinished.map(ask));
  return {
    signalled: asked.some((r) => r.status === 'fulfilled' && r.value),
    notReached: asked.flatMap((r, i) => (r.status === 'rejected' ? [`${unfinished[i].target}: ${(r.reason as Error).message}`] : [])),
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((res) => {
    if (signal?.aborted) return res();
    const done = () => {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      res();
    };
    const t = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** One attachment: the local journal, the connection, the events. */
class Follower {
  private readonly fold: JournalFold;
  private readonly context: (s: JournalState) => ImportContext;
  private readonly batcher: EventBatcher;
  private readonly restartMs: number[] = [];
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

  /** How this follower connects: what it is told of the choice goes into its log, as the run's other lines do. */
  private connectVia(): ConnectVia {
    return { ...this.o, say: (message) => this.emit({ type: 'log', at: Date.now(), level: 'warn', message }) };
  }

  private emit(e: RunEvent): void {
    const event = this.group ? { ...e, host: this.d.target } : e;
    this.o.onEvent?.(event);
    this.batcher.push(event);
  }

  private progress(): void {
    const s = this.fold.state();
    const design = s.header!.design;
    const left = this.d.planned - s.restarts.length;
    const per = this.restartMs.length ? this.restartMs.reduce((a, b) => a + b, 0) / this.restartMs.length : estimatePlan(design, 1).perRestartSeconds * 1000;
    this.emit({ type: 'progress', at: Date.now(), done: s.restarts.length, planned: this.d.planned, remainingMs: Math.round(left * per) });
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
    return { state, ...(message ? { message } : {}), path: this.d.path, target: this.d.target, planned: this.d.planned, done: this.fold.state().restarts.length, cleanedUp };
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

  private async attach(): Promise<AttachOutcome> {
    const d = this.d;
    for (const e of openingEvents(this.fold, d.planned, d.ended)) this.emit(e);
    const open = d.ended ? undefined : this.fold.current();
    if (open) this.startedAt.set(open.seq, open.startedAt);
    this.progress();
    try {
      if (d.ended) return await this.finish(null);
      const session = await connect(d, this.connectVia());
      try {
        return await this.follow(session);
      } finally {
        await session.close().catch(() => {});
      }
    } finally {
      this.batcher.flush();
    }
  }

  private async follow(session: TargetSession): Promise<AttachOutcome> {
    const d = this.d;
    const sudo = sudoOf(this.fold.state());
    let offset = d.offset;
    this.emit({ type: 'log', at: Date.now(), level: 'info', message: `attached to the detached run on ${d.target}${offset ? ` (its journal is here up to byte ${offset})` : ''}` });
    const journal = new JournalWriter(d.journal);
    try {
      for (;;) {
        if (this.cancelWanted && !this.signalled) {
          this.signalled = await signalCancel(session, d.dir, sudo);
          const why = this.answered ? `stopped when answered at round ${this.fold.state().stopped?.round}: ` : '';
          if (this.signalled) this.emit({ type: 'log', at: Date.now(), level: 'info', message: `${why}asked the run on ${d.target} to stop: it discards the restart in progress, stops mysqld and restores the host` });
        }
        let got: Pulled;
        try {
          got = await pullTargetJournal(session, d.dir, sudo, offset, this.context(this.fold.state()));
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 'not-found')) throw e;
          if (!this.cancelWanted) throw new ApiError('not-found', `${e.message}. \`varlab cancel ${d.path}\` forgets it, so the file can be run again (it resumes from what is here).`);
          // Cancelling a run whose directory is gone: nothing will ever end it but this journal; the file can be run again (it resumes).
          const message = `the detached run's directory ${d.dir} is no longer on ${d.target}; what it measured and was not brought in before is lost`;
          const end: JournalRecord = { t: 'run-finished', at: Date.now(), state: 'failed', message };
          journal.appendAll([end]);
          this.apply(end);
          await this.save(true);
          forgetLaunch(d.runId);
          return this.outcome('failed', true, message);
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
        for (const l of got.logs) this.emit(l);
        for (const r of imported) this.apply(r);
        if (imported.some((r) => r.t === 'restart-finished')) await this.look(journal);
        if (got.ended) {
          journal.close();
          return await this.finish(session);
        }
        if (ranOut && got.state !== 'running') {
          // The runner is gone and said nothing more (killed): its run is over, and this journal says so.
          const message = `the runner on ${d.target} stopped without saying how it ended (killed?); the host may not be as it was found (varlab offers to restore it when it next connects there)`;
          const end: JournalRecord = { t: 'run-finished', at: Date.now(), state: 'failed', message };
          journal.appendAll([end]);
          this.apply(end);
          journal.close();
          return await this.finish(session);
        }
        await this.save();
        if (this.stop.signal.aborted) {
          await this.save(true);
          return this.outcome('detached', false, `detached from ${d.target}: the run goes on there`);
        }
        // Read again at once while there is more to read, or a cancel is to be sent; else wait.
        if (ranOut && !(this.cancelWanted && !this.signalled)) await sleep(this.o.pollMs ?? 2_000, this.wake.signal);
        if (this.wake.signal.aborted) this.wake = new AbortController();
      }
    } finally {
      journal.close();
    }
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
    this.emit({ type: 'log', at: Date.now(), level: 'info', message: step.text.join('\n') });
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

  private apply(r: JournalRecord): void {
    this.fold.apply(r);
    const e = eventOf(r, (seq) => this.fold.cellOf(seq));
    if (e) this.emit(e);
    if (r.t === 'restart-started') this.startedAt.set(r.seq, r.at);
    if (r.t === 'restart-finished') {
      const t0 = this.startedAt.get(r.seq);
      if (t0 !== undefined) this.restartMs.push(r.at - t0);
      this.progress();
    }
  }

  /** The run's end is in the local journal: the results into the file, then the run's directory removed from the target. */
  private async finish(session: TargetSession | null): Promise<AttachOutcome> {
    const s = this.fold.state();
    // Brought in by an earlier attach: the live view still hears how the run ended.
    if (!session && s.lastState) this.emit({ type: 'run-finished', at: s.finishedAt ?? Date.now(), state: s.lastState, ...(s.lastMessage ? { message: s.lastMessage } : {}) });
    try {
      await this.save(true);
    } catch (e) {
      // The target keeps its copy too: nothing is removed there until the file holds the results.
      return this.outcome('failed', false, resultsNotSaved(this.d.journal, this.d.path, e));
    }
    // Removed by an earlier attach: the results are in the file and nothing is left on the target.
    if (this.d.cleaned) return this.outcome(s.lastState ?? 'failed', true, s.lastMessage);
    let cleanedUp = false;
    let problem: string | undefined;
    try {
      const own = session ?? (await connect(this.d, this.connectVia()));
      try {
        const sudo = sudoOf(s);
        // The runner writes its last line just before it exits: give it a moment to be gone.
        for (let i = 0; i < 40 && (await readTargetJournal(own, this.d.dir, 0, sudo, 0)).state === 'running'; i++) await sleep(250);
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
