// The run the UI is watching: started or found through the API, fed by 'run.batch' events.
// Kept outside React so switching views neither loses the data nor the subscription. A missed
// batch (a gap in the numbers, or a transport that reconnected) is fetched with run.events; when
// the backend no longer holds it in memory it sends the run rebuilt from its journal (a snapshot),
// and the view starts afresh from that.
import { create } from 'zustand';
import type { DesignChanged, EventBatch, RunCheck, RunStatus, TargetAuth, UntilAnswered } from '../../../common/api.js';
import type { TrustCheck } from '../../../common/trust.js';
import { getClient } from '../../client.js';
import type { RunEvent } from '../../../common/events.js';
import { LiveRuns, type LiveRun } from './live.js';
import { dataProgressText } from '../../../common/dbt3/words.js';
import { notStartedMessage } from './not-started.js';
import { followsByItself, type FollowState } from './follow.js';
import { trustGranted } from '../export/trust-grants.js';

interface RunSessionState {
  runId: string | null;
  path: string | null;
  /** The watched run goes on on its target by itself (a detached run): where, and the restart it was on when last looked at there (before its journal has come in). */
  detached: { target: string; current?: number } | null;
  /** Every host's live run (one, for a run on one host). */
  runs: LiveRuns;
  /** The host whose run the view shows (null: the first, or the only one). */
  shownHost: string | null;
  /** The live run shown: the shown host's. */
  live: LiveRun;
  /** Bumped at most once per animation frame when batches arrived. */
  frame: number;
  error: string | null;
  /** A journal beside the open file with restarts still to run; designChanges: what the file's design changed since it started; detached: it runs on that target by itself. */
  unfinished: ({ path: string } & NonNullable<Extract<RunCheck, { finished: false }>['unfinished']>) | null;
  /** The open file's detached run: being looked at on its target to follow it, why it could not be followed, or not followed because the user stopped following it. */
  follow: FollowState | null;
  /** run.start refused: the design changed since the unfinished run started; the user chooses. */
  designChanged: DesignChanged | null;
  /** run.start refused: the run would do things on the target the user has not agreed to (the list, and how the run was asked for). */
  consent: { path: string; check: TrustCheck; how: RunHow; auth: TargetAuth; detach: boolean; untilAnswered?: UntilAnswered | false } | null;
  /** The open file's run finished: it is not run again unless the user asks, and is told where its results stay. */
  finished: { path: string; restartsDone: number; restartsPlanned: number; keepResultsAs: string; missing?: { cells: number; restarts: number; sentence: string } } | null;
  /** The key file and known_hosts the file's last run was started with (paths, in memory only): Resume after a cancel or a failure offers them again. */
  lastAuth: { path: string; auth: TargetAuth } | null;
  /**
   * run.start asked and not answered yet (a detached launch waits for its data step and the runner's
   * first restart); runId: the launch's, once admitted (its Cancel uses it); cancelling: Cancel was
   * pressed; data: the data step's progress.
   */
  launching: { path: string; detach: boolean; runId?: string; cancelling?: boolean; data?: { text: string; fraction: number } } | null;
  /** The file whose detached launch was cancelled before its runner started (said until the next run). */
  launchCancelled: string | null;
}

const emptyRuns = new LiveRuns();
/** How a run starts: as the file says, resuming an edited design, from scratch, or only what a grown design misses. */
export type RunHow = 'auto' | 'resume' | 'fresh' | 'missing';

export const useRunSession = create<RunSessionState>(() => ({ runId: null, path: null, detached: null, runs: emptyRuns, shownHost: null, live: emptyRuns.get(), frame: 0, error: null, unfinished: null, follow: null, designChanged: null, consent: null, finished: null, lastAuth: null, launching: null, launchCancelled: null }));

let lastSeq = 0;
let unsubscribe: (() => void) | null = null;
let framePending = false;
let catchingUp = false;

function scheduleFrame(): void {
  if (framePending) return;
  framePending = true;
  const bump = () => {
    framePending = false;
    useRunSession.setState((s) => ({ frame: s.frame + 1 }));
  };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(bump);
  else setTimeout(bump, 16);
}

/** A gap was seen while a catch-up was on its way: ask again once it is back. */
let catchUpAgain = false;

async function catchUp(runId: string): Promise<void> {
  // A batch that arrives with a gap while a catch-up is on its way is dropped by take(); without
  // asking again, one that came after the catch-up's answer was made (a follower's last batch, its
  // "stopped following" error) would never be seen: the view would wait for ever.
  if (catchingUp) {
    catchUpAgain = true;
    return;
  }
  catchingUp = true;
  try {
    let id: string | null = runId;
    do {
      catchUpAgain = false;
      const r = await getClient().call('run.events', { runId: id, afterSeq: lastSeq });
      if (r.ok) for (const b of r.value) take(b);
      // The run watched now (another may be watched since the first ask).
      id = useRunSession.getState().runId;
    } while (catchUpAgain && id);
  } finally {
    catchingUp = false;
  }
}

/** After the transport reconnected: what the watched run did meanwhile (it may have ended). */
export async function catchUpAfterReconnect(): Promise<void> {
  const { runId } = useRunSession.getState();
  if (runId) await catchUp(runId);
}

function take(batch: EventBatch): void {
  const { runId } = useRunSession.getState();
  if (batch.runId !== runId) return;
  if (batch.snapshot) {
    // The whole run up to batch.seq, rebuilt from the journal: the view starts afresh from it.
    if (batch.seq < lastSeq) return;
    const runs = new LiveRuns();
    lastSeq = batch.seq;
    useRunSession.setState({ runs });
    feed(batch.events);
    return;
  }
  if (batch.seq <= lastSeq) return;
  if (batch.seq !== lastSeq + 1) {
    // A gap: ask for everything after the last batch seen, in order.
    void catchUp(batch.runId);
    return;
  }
  lastSeq = batch.seq;
  feed(batch.events);
}

/** Events into their host's live run; the view shows the chosen host's (the first, until one is chosen). */
function feed(events: RunEvent[]): void {
  const { runs, shownHost, live } = useRunSession.getState();
  runs.apply(events);
  const shown = runs.get(shownHost);
  if (shown !== live) useRunSession.setState({ live: shown });
  scheduleFrame();
  // A detached run this computer stopped following on an error: the run goes on there; the view says so
  // and follows it again from where it stopped. (A dropped link does not end following: the follower
  // says it and follows again by itself, detach/relink.ts. What ends it is a key or host key refused on
  // the way back, the file unwritable, or the like.)
  if (useRunSession.getState().detached) {
    const lost = events.find((e) => e.type === 'log' && e.level === 'error' && e.message.startsWith('stopped following the run on '));
    if (lost && lost.type === 'log') void lostTouch(lost.message);
  }
}

async function lostTouch(message: string): Promise<void> {
  const { runId, path, detached } = useRunSession.getState();
  if (!runId || !path || !detached) return;
  const r = await getClient().call('run.status', {});
  const mine = r.ok ? r.value.find((s) => s.runId === runId) : undefined;
  if (!mine || mine.state !== 'running' || mine.detached?.following !== false || useRunSession.getState().runId !== runId) return;
  unsubscribe?.();
  unsubscribe = null;
  const runs = new LiveRuns();
  // Not watched any more: the Run view looks for it again (and follows it from the offset its journal holds), saying why if it cannot.
  useRunSession.setState({ runId: null, detached: null, runs, shownHost: null, live: runs.get(), follow: { path, target: detached.target, state: 'failed', message } });
  await checkUnfinished(path);
}

/** Show another host's run (a run on several hosts). */
export function showHost(host: string): void {
  const { runs } = useRunSession.getState();
  useRunSession.setState({ shownHost: host, live: runs.get(host) });
}

function watch(runId: string, path: string, detached?: RunStatus['detached'], current?: number): void {
  unsubscribe?.();
  lastSeq = 0;
  const runs = new LiveRuns();
  useRunSession.setState({ runId, path, detached: detached ? { target: detached.target, ...(current ? { current } : {}) } : null, runs, shownHost: null, live: runs.get(), error: null, follow: null });
  unsubscribe = getClient().on('run.batch', take);
  void catchUp(runId);
}

/**
 * Start the run of a file. how: 'resume' goes on with an unfinished run's design although the file's
 * changed; 'fresh' starts over (earlier results kept in a copy). Refusals are shown beside the buttons;
 * a changed design is offered as a choice.
 */
export async function startRun(path: string, auth: TargetAuth, how: RunHow = 'auto', detach = false, untilAnswered?: UntilAnswered | false): Promise<void> {
  useRunSession.setState({ error: null, designChanged: null, consent: null, lastAuth: { path, auth }, launching: { path, detach }, launchCancelled: null });
  // A detached launch runs the DBT-3 data step here first: its id (for Cancel) and its progress come before the run exists.
  const unlisten = detach
    ? getClient().on('run.launch', ({ path: p, runId, event }) => {
        const { launching } = useRunSession.getState();
        if (launching?.path === p) useRunSession.setState({ launching: { ...launching, runId, ...(event ? { data: { text: dataProgressText(event), fraction: event.fraction } } : {}) } });
      })
    : () => {};
  const r = await getClient()
    .call('run.start', { path, auth, ...(how === 'resume' ? { resume: true } : {}), ...(how === 'fresh' ? { fresh: true } : {}), ...(how === 'missing' ? { missing: true } : {}), ...(detach ? { detach: true } : {}), ...(untilAnswered !== undefined ? { untilAnswered } : {}) })
    .finally(() => {
      unlisten();
      useRunSession.setState({ launching: null });
    });
  if (!r.ok) {
    // The user's Cancel of the launch (or the app quitting): said as a cancel, not as an error; the file's journal now ends cancelled.
    if (r.code === 'cancelled' && detach) {
      useRunSession.setState({ launchCancelled: path });
      await checkUnfinished(path);
    } else if (r.code === 'design-changed' && r.details?.designChanged) useRunSession.setState({ designChanged: r.details.designChanged });
    else if (r.code === 'needs-consent' && r.details?.consent) useRunSession.setState({ consent: { path, check: r.details.consent, how, auth, detach, untilAnswered } });
    else useRunSession.setState({ error: r.message });
    return;
  }
  useRunSession.setState({ unfinished: null, finished: null });
  watch(r.value.runId, r.value.path, r.value.detached);
  // Several hosts, detached: a host whose runner did not start is said (the others go on).
  const notStarted = notStartedMessage(r.value.detached);
  if (notStarted) useRunSession.setState({ error: notStarted });
}

/** The file whose detached run is being looked at now (one look at a time per file). */
let looking: string | null = null;

/**
 * Targets the user agreed to connect to, to follow a detached run this computer did not launch, per
 * file, with the open-file generation then: opening the file again asks again (opening does nothing
 * on the network by itself).
 */
const agreements = new Map<string, { target: string; opened: number }>();

/** The user agreed to follow the file's recorded run on `target` (shown to them): follow it now. */
export async function agreeToFollow(path: string, target: string, opened: number): Promise<void> {
  agreements.set(path, { target, opened });
  await followDetached(path);
}

/**
 * A file whose run goes on on its target by itself (detached), or ended there with its results not
 * brought in yet: follow it, so its measurements come in from where this computer stopped and the
 * view shows it live (or its end). Why it could not be followed is shown, never swallowed.
 * opened: the app's open-file generation, when the view looks by itself (a run the user stopped
 * following is not followed again until they open the file again); omitted when the user asks.
 */
export async function followDetached(path: string, opened?: number): Promise<void> {
  const now = useRunSession.getState();
  // A run this tab watches goes on (another file's, or this one's already followed).
  if ((now.runId && now.runs.active) || looking === path) return;
  if (opened !== undefined && !followsByItself(now.follow, path, opened)) return;
  looking = path;
  const problem = (message: string, target?: string) => useRunSession.setState({ follow: { path, target, state: 'failed', message } });
  const agreement = agreements.get(path);
  const agreed = agreement && (opened === undefined || agreement.opened === opened) ? { target: agreement.target } : {};
  try {
    const s = await getClient().call('run.detachedStatus', { path, ...agreed });
    // A run this computer did not launch: nothing connected; the view says where it is recorded and offers Follow.
    if (!s.ok && s.code === 'needs-consent' && s.details?.follow) return void useRunSession.setState({ follow: { path, target: s.details.follow.target, state: 'recorded', journals: s.details.follow.journals } });
    if (!s.ok) return problem(s.message, useRunSession.getState().unfinished?.detached?.target);
    const d = s.value;
    if (!d || d.imported) {
      // No detached run, or its end is in the file already: nothing to follow.
      if (useRunSession.getState().follow?.path === path) useRunSession.setState({ follow: null });
      return;
    }
    if (d.state === 'gone') return problem(`the run's directory is no longer on ${d.target} (${d.done} of ${d.planned} restarts are here)${d.message ? `: ${d.message}` : ''}`, d.target);
    const later = useRunSession.getState();
    if (later.runId && later.runs.active) return;
    useRunSession.setState({ follow: { path, target: d.target, state: 'connecting' } });
    // Running, or ended on the target while nobody followed: attaching brings every measurement in.
    const r = await getClient().call('run.attach', { path, ...agreed });
    if (!r.ok) return problem(r.message, d.target);
    useRunSession.setState({ unfinished: null });
    watch(r.value.runId, r.value.path, r.value.detached ?? { target: d.target, following: true }, d.current);
  } finally {
    looking = null;
  }
}

/**
 * The user agreed to the list a run asked about: recorded for the experiment as that run would run
 * it (the backend prepares it the same way), then the run is started again the same way.
 */
export async function agreeAndStart(): Promise<void> {
  const c = useRunSession.getState().consent;
  if (!c) return;
  const g = await getClient().call('trust.grant', { path: c.path, target: c.check.target, digest: c.check.digest, ...(c.how === 'resume' ? { resume: true } : {}), ...(c.how === 'fresh' ? { fresh: true } : {}) });
  // The file changed since the list was shown: nothing was allowed; the new list is shown instead.
  if (!g.ok && g.code === 'needs-consent' && g.details?.consent) {
    useRunSession.setState({ consent: { ...c, check: g.details.consent }, error: 'What this run would do changed since it was shown: nothing was allowed. Read the list again.' });
    return;
  }
  if (!g.ok) {
    useRunSession.setState({ error: g.message });
    return;
  }
  // The banner above the views asked about the same list: it checks again, and goes.
  trustGranted();
  await startRun(c.path, c.auth, c.how, c.detach, c.untilAnswered);
}

/** Has the file's run finished, or does an unfinished one wait (and did the design change since)? */
export async function checkUnfinished(path: string): Promise<void> {
  const c = await getClient().call('run.check', { path });
  if (!c.ok) return;
  const v = c.value;
  useRunSession.setState({
    unfinished: !v.finished && v.unfinished ? { path, ...v.unfinished } : null,
    finished: v.finished ? { path, restartsDone: v.restartsDone, restartsPlanned: v.restartsPlanned, keepResultsAs: v.keepResultsAs, ...(v.missing ? { missing: v.missing } : {}) } : null,
  });
}

/** Reattach to a run the backend is already doing (the window was reloaded). */
export async function attachToRunning(path: string | null): Promise<void> {
  if (useRunSession.getState().runId) return;
  const r = await getClient().call('run.status', {});
  if (!r.ok) return;
  const active = r.value.filter((s: RunStatus) => s.state === 'running' || s.state === 'paused');
  const mine = active.find((s) => s.path === path) ?? active[0];
  if (mine) watch(mine.runId, mine.path, mine.detached);
}

/**
 * Stop following the watched detached run: this computer stops reading its journal, and the run goes
 * on on its target (it is not cancelled). The view says so and offers to follow it again; it does
 * not follow it by itself until the file is opened again (opened: the app's open-file generation now).
 */
export async function stopFollowing(opened: number): Promise<void> {
  const { runId, path, detached } = useRunSession.getState();
  if (!runId || !path || !detached) return;
  const r = await getClient().call('run.stopFollowing', { runId });
  if (!r.ok) {
    useRunSession.setState({ error: r.message });
    return;
  }
  // It ended meanwhile (its end came in): the view shows that end, nothing goes on to be followed.
  if (r.value.state !== 'running' || useRunSession.getState().runId !== runId) return;
  unsubscribe?.();
  unsubscribe = null;
  const runs = new LiveRuns();
  useRunSession.setState({ runId: null, detached: null, runs, shownHost: null, live: runs.get(), error: null, follow: { path, target: detached.target, state: 'stopped', opened, since: Date.now() } });
  await checkUnfinished(path);
}

/**
 * Cancel the detached launch under way (its DBT-3 data step, before the runner exists): it stops at its
 * next step with mysqld stopped and the host restored; run.start then answers cancelled.
 */
export async function cancelLaunch(): Promise<void> {
  const { launching } = useRunSession.getState();
  if (!launching?.runId || launching.cancelling) return;
  useRunSession.setState({ launching: { ...launching, cancelling: true } });
  const r = await getClient().call('run.cancel', { runId: launching.runId });
  if (!r.ok) useRunSession.setState({ error: r.message });
}

export async function control(action: 'run.pause' | 'run.resume' | 'run.cancel'): Promise<void> {
  const runId = useRunSession.getState().runId;
  if (!runId) return;
  const r = await getClient().call(action, { runId });
  if (!r.ok) useRunSession.setState({ error: r.message });
}
