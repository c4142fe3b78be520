// A run as one batch of events, folded once: what a client that missed more than the batches kept in
// memory (a tab opened mid-run, or one that reconnected after the run ended) starts its view from.
// While the run goes on it comes from the engine's own fold in memory; after, from the journal on disk.
import type { EventBatch, RunStatus } from '../../common/api.js';
import type { RunEvent } from '../../common/events.js';
import { buildPlan, expandCells } from '../../common/plan.js';
import { eventOf, JournalFold, recordsOfRestart } from '../../common/records.js';
import { readJournal } from '../engine/journal.js';

/** journal: the journal file's path, or the fold of a run in progress (every event of it already in a batch up to seq). */
export function snapshotBatch(runId: string, seq: number, journal: string | JournalFold, state: RunStatus['state']): EventBatch {
  const fold = typeof journal === 'string' ? new JournalFold() : journal;
  const s = typeof journal === 'string' ? readJournal(journal, fold) : journal.state();
  const events: RunEvent[] = [];
  const header = s?.header;
  if (!s || !header) return { runId, seq, events, snapshot: true };
  const design = header.design;
  const plan = buildPlan(design);
  const warmup = design.workload.warmup;
  const at = Date.now();
  const done = s.restarts.length;
  events.push({ type: 'run-started', at: header.at, planned: plan.length, done, cells: expandCells(design).filter((c) => !c.excluded).map((c) => c.id), queries: plan[0]?.queries ?? [], warmup, ...(design.stopping ? { stopping: design.stopping } : {}) });
  if (s.timer) events.push({ type: 'timer', at: header.at, ...s.timer });
  // What the run has said so far (journaled log lines), as a client there from the start saw it.
  for (const l of s.log) events.push({ type: 'log', ...l });
  if (done) events.push({ type: 'history', at, warmup, restarts: [...s.restarts].sort((a, b) => a.seq - b.seq) });
  for (const d of s.discarded) events.push({ type: 'restart-discarded', ...d });
  if (s.lastLook) events.push({ type: 'look', ...s.lastLook });
  if (s.stopped) events.push({ type: 'stopped-answered', ...s.stopped });
  const open = state === 'running' || state === 'paused' ? fold.current() : undefined;
  if (open) {
    for (const r of recordsOfRestart({ ...open, queries: [...open.queries.values()] }, warmup)) {
      const e = eventOf(r, () => open.cell);
      if (e) events.push(e);
    }
  }
  events.push({ type: 'progress', at, done, planned: plan.length, remainingMs: 0 });
  if (state === 'paused') events.push({ type: 'state', at, state: 'paused' });
  const ended = state === 'finished' || state === 'failed' || state === 'cancelled' ? state : null;
  if (ended) events.push({ type: 'run-finished', at: s.finishedAt ?? at, state: ended, ...(s.lastMessage ? { message: s.lastMessage } : {}) });
  return { runId, seq, events, snapshot: true };
}
