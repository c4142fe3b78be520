// A run as one batch of events, folded once: what a client that missed more than the batches kept in
// memory (a tab opened mid-run, or one that reconnected after the run ended) starts its view from.
// While the run goes on it comes from the engine's own fold in memory; after, from the journal on disk.
import type { EventBatch, RunStatus } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import { buildPlan, expandCells } from '../../common/plan.js';
import { eventOf, JournalFold, recordsOfRestart, type JournalState } from '../../common/records.js';
import { readJournal } from '../engine/journal.js';

/**
 * The run so far, from a journal's fold, as a client there from the start saw it: its plan, its timer,
 * what it said (the journaled log lines), the restarts done (history) and those discarded, and the
 * rule's last look and stop. A late client of an attached run starts from it (below), and so does a
 * follower of a detached run (detach/follower.ts), before "attached" and the restart still open.
 */
export function runSoFar(s: JournalState, planned: number, at: number): RunEvent[] {
  const header = s.header!;
  const design = header.design;
  const warmup = design.workload.warmup;
  const events: RunEvent[] = [{ type: 'run-started', at: header.at, planned, done: s.restarts.length, cells: expandCells(design).filter((c) => !c.excluded).map((c) => c.id), queries: buildPlan(design)[0]?.queries ?? [], warmup, ...(design.stopping ? { stopping: design.stopping } : {}) }];
  if (s.timer) events.push({ type: 'timer', at: header.at, ...s.timer });
  for (const l of s.log) events.push({ type: 'log', ...l });
  if (s.restarts.length) events.push({ type: 'history', at, warmup, restarts: [...s.restarts].sort((a, b) => a.seq - b.seq) });
  for (const d of s.discarded) events.push({ type: 'restart-discarded', ...d });
  if (s.lastLook) events.push({ type: 'look', ...s.lastLook });
  if (s.stopped) events.push({ type: 'stopped-answered', ...s.stopped });
  return events;
}

/**
 * The restart still open in the fold (started, maybe some executions in), so the records that follow
 * (its further executions and its end) land on a restart the view's fold has open. Without it, a view
 * folds the executions that follow without a restart to put them in, and ignores its end: "1 of 5
 * restarts" beside no restart mean. (An ended run's open restart was interrupted: its end follows.)
 */
export function openRestart(fold: JournalFold): RunEvent[] {
  const open = fold.current();
  if (!open) return [];
  const warmup = fold.state().header!.design.workload.warmup;
  return recordsOfRestart({ ...open, queries: [...open.queries.values()] }, warmup).flatMap((r) => eventOf(r, () => open.cell) ?? []);
}

/** journal: the journal file's path, or the fold of a run in progress (every event of it already in a batch up to seq). */
export function snapshotBatch(runId: string, seq: number, journal: string | JournalFold, state: RunStatus['state']): EventBatch {
  const fold = typeof journal === 'string' ? new JournalFold() : journal;
  const s = typeof journal === 'string' ? readJournal(journal, fold) : journal.state();
  const events: RunEvent[] = [];
  const header = s?.header;
  if (!s || !header) return { runId, seq, events, snapshot: true };
  const design = header.design;
  const plan = buildPlan(design);
  const at = Date.now();
  const done = s.restarts.length;
  events.push(...runSoFar(s, plan.length, at));
  if (state === 'running' || state === 'paused') events.push(...openRestart(fold));
  events.push({ type: 'progress', at, done, planned: plan.length, remainingMs: 0 });
  if (state === 'paused') events.push({ type: 'state', at, state: 'paused' });
  const ended = state === 'finished' || state === 'failed' || state === 'cancelled' ? state : null;
  if (ended) events.push({ type: 'run-finished', at: s.finishedAt ?? at, state: ended, ...(s.lastMessage ? { message: s.lastMessage } : {}) });
  return { runId, seq, events, snapshot: true };
}
