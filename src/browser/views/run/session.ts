// The run the UI is watching: started or found through the API, fed by 'run.batch' events.
// Kept outside React so switching views neither loses the data nor the subscription; a missed
// batch (a reconnecting transport) is fetched with run.events.
import { create } from 'zustand';
import type { EventBatch, RunStatus, TargetAuth } from '../../../common/api.js';
import { getClient } from '../../client.js';
import { LiveRun } from './live.js';

interface RunSessionState {
  runId: string | null;
  path: string | null;
  live: LiveRun;
  /** Bumped at most once per animation frame when batches arrived. */
  frame: number;
  error: string | null;
  /** A journal beside the open file with restarts still to run (from experiment.open). */
  unfinished: { path: string; restartsDone: number; restartsPlanned: number } | null;
  /** The open file's run finished: it is not run again unless the user asks, and is told where its results stay. */
  finished: { path: string; restartsDone: number; restartsPlanned: number; keepResultsAs: string } | null;
}

export const useRunSession = create<RunSessionState>(() => ({ runId: null, path: null, live: new LiveRun(), frame: 0, error: null, unfinished: null, finished: null }));

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

async function catchUp(runId: string): Promise<void> {
  if (catchingUp) return;
  catchingUp = true;
  try {
    const r = await getClient().call('run.events', { runId, afterSeq: lastSeq });
    if (r.ok) for (const b of r.value) take(b);
  } finally {
    catchingUp = false;
  }
}

function take(batch: EventBatch): void {
  const { runId, live } = useRunSession.getState();
  if (batch.runId !== runId || batch.seq <= lastSeq) return;
  if (batch.seq !== lastSeq + 1) {
    // A gap: ask for everything after the last batch seen, in order.
    void catchUp(batch.runId);
    return;
  }
  lastSeq = batch.seq;
  live.apply(batch.events);
  scheduleFrame();
}

function watch(runId: string, path: string): void {
  unsubscribe?.();
  lastSeq = 0;
  useRunSession.setState({ runId, path, live: new LiveRun(), error: null });
  unsubscribe = getClient().on('run.batch', take);
  void catchUp(runId);
}

export async function startRun(path: string, auth: TargetAuth, resume: boolean, fresh = false): Promise<void> {
  const r = await getClient().call('run.start', { path, auth, resume, ...(fresh ? { fresh: true } : {}) });
  if (!r.ok) {
    useRunSession.setState({ error: r.message });
    return;
  }
  useRunSession.setState({ unfinished: null, finished: null });
  watch(r.value.runId, r.value.path);
}

/** Ask whether the file has an unfinished run to offer resuming (experiment.open reads its journal). */
export async function checkUnfinished(path: string): Promise<void> {
  const r = await getClient().call('experiment.open', { path });
  const u = r.ok ? r.value.unfinishedRun : undefined;
  const c = await getClient().call('run.check', { path });
  const f = c.ok && c.value.finished ? c.value : null;
  useRunSession.setState({ unfinished: u ? { path, ...u } : null, finished: f ? { path, restartsDone: f.restartsDone, restartsPlanned: f.restartsPlanned, keepResultsAs: f.keepResultsAs } : null });
}

/** Reattach to a run the backend is already doing (the window was reloaded). */
export async function attachToRunning(path: string | null): Promise<void> {
  if (useRunSession.getState().runId) return;
  const r = await getClient().call('run.status', {});
  if (!r.ok) return;
  const active = r.value.filter((s: RunStatus) => s.state === 'running' || s.state === 'paused');
  const mine = active.find((s) => s.path === path) ?? active[0];
  if (mine) watch(mine.runId, mine.path);
}

export async function control(action: 'run.pause' | 'run.resume' | 'run.cancel'): Promise<void> {
  const runId = useRunSession.getState().runId;
  if (!runId) return;
  const r = await getClient().call(action, { runId });
  if (!r.ok) useRunSession.setState({ error: r.message });
}
