// Where a detached run is (varlab status, the app's detached status): looked at on its target, nothing
// written; and the one line that says it, the same in the CLI and the app.
import { ApiError, type DetachedStatus } from '../../common/api.js';

import { ENDING_AFTER_GONE } from '../host/lock.js';
import { pullTargetJournal, type Pulled } from './target.js';

import { connect, localRun, requireDetachedRuns, sudoOf, type ConnectVia, type DetachedRun } from './runs.js';


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
        // A runner found gone whose end is being made: how it ended, and that its host is being put back.
        if (got.state === 'ending') return { ...base, state: got.pending?.state ?? 'failed', done: s.restarts.length, message: [got.pending?.message, ENDING_AFTER_GONE].filter(Boolean).join('; '), imported: false };
        if (got.state !== 'running') return { ...base, state: 'failed', done: s.restarts.length, message: `the runner on ${d.target} stopped without saying how it ended`, imported: false };
        return { ...base, state: 'running', done: s.restarts.length, current: s.restarts.length + 1, imported: false };
      }
    }
  } finally {
    await session.close().catch(() => {});
  }
}
