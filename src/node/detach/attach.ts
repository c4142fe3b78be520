// Attach to a detached run (issue 14), from nothing but the experiment file: the journal beside it
// says where the run is and how the laptop connected (the `detached` record: target, key and
// known-hosts paths, the run's directory), and how much of the target's journal it already holds
// (the offset of the last `imported` record).
//
//   attach  follow the run until it ends (follower.ts), one follower per host of a several-host run.
//   status  look only (status.ts).
//   cancel  SIGTERM to the runner (it stops mysqld and restores the host itself), then attach to
//           bring in what it measured.
import { detachedCannotPause, type Run } from '../runs/run.js';
import { ApiError, type RunStatus } from '../../common/api.js';

export type { AttachOptions, AttachOutcome } from './follower.js';

import { groupState, hostWhy } from '../../common/events.js';
import type { ExperimentDoc, Results } from '../../common/experiment/types.js';
import { resultsFromJournal, severalHostsResults } from '../../common/records.js';
import { EventBatcher } from '../engine/batcher.js';
import { hostJournalPath, readJournal } from '../engine/journal.js';
import { acquireRunLocks } from '../runs/locks.js';
import { signalCancel } from './target.js';

import { connect, requireDetachedRuns, sudoOf, type DetachedRun } from './runs.js';
import { Follower, type AttachOptions, type AttachOutcome } from './follower.js';


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
    let grows: { part: number } | undefined;
    for (const host of group.hosts) {
      const state = readJournal(runs.find((d) => d.target === host)?.journal ?? hostJournalPath(path, host));
      results.set(host, state ? resultsFromJournal(state, 'interrupted before it finished; run again') : { restarts: [] });
      grows ??= state?.header?.grows;
    }
    // A run of what the file missed (run --missing) joins its restarts to the file's, as attached.
    const save = async (host: string, doc: ExperimentDoc, r: Results) => {
      results.set(host, r);
      await o.documents.writeRunResults(path, doc, severalHostsResults(group.hosts.map((h) => ({ host: h, results: results.get(h)! }))), grows);
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
    ...(outs.every((h) => h.measured !== undefined) ? { measured: outs.reduce((n, h) => n + h.measured!, 0) } : {}),
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
