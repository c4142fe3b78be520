// API handlers for running experiments: start (or resume) a run, pause, resume, cancel, status,
// and the batches a reconnecting client missed. One run per experiment file at a time.
import { ApiError, type RunStatus } from '../../common/api.js';
import type { BackendContext, Handlers } from '../backend.js';
import { finishedMessage, finishedRun, prepareRun } from '../engine/prepare.js';
import { RunEngine } from '../engine/run.js';
import { requireConsent } from '../trust.js';

export function runHandlers(ctx: BackendContext): Handlers {
  const runs = new Map<string, RunEngine>();

  const find = (runId: string): RunEngine => {
    const engine = runs.get(runId);
    if (!engine) throw new ApiError('not-found', `no run ${JSON.stringify(runId)} in this session`);
    return engine;
  };

  return {
    'run.start': async ({ path, target, auth, resume, fresh }) => {
      for (const e of runs.values()) {
        const s = e.status();
        if ((s.state === 'running' || s.state === 'paused') && s.path === path) throw new ApiError('busy', `${path} is already running (run ${s.runId})`);
      }
      // A finished file is not run again (its results replaced) unless the user asked for it: before consent is asked.
      const finished = await finishedRun(path);
      if (finished && fresh !== true) throw new ApiError('already-finished', `${finishedMessage(path, finished).replace('pass --fresh', 'start it with fresh: true')}`);
      await requireConsent(path, target); // teammates' files: their commands are confirmed once per host (issue 6)
      const prepared = await prepareRun({ file: path, target, resume, fresh: fresh === true });
      const engine = new RunEngine({
        path: prepared.out,
        doc: prepared.doc,
        auth,
        prompt: ctx.hub.prompt,
        onBatch: (batch) => ctx.hub.emit('run.batch', batch),
      });
      runs.set(engine.runId, engine);
      // The run goes on after this call returns; its end arrives as a run-finished event.
      void engine.run();
      return engine.status();
    },
    'run.pause': async ({ runId }): Promise<RunStatus> => {
      const e = find(runId);
      e.pause();
      return e.status();
    },
    'run.resume': async ({ runId }) => {
      const e = find(runId);
      e.resume();
      return e.status();
    },
    'run.cancel': async ({ runId }) => {
      const e = find(runId);
      e.cancel();
      return e.status();
    },
    'run.check': async ({ path }) => {
      if (typeof path !== 'string' || !path) throw new ApiError('invalid-argument', 'run.check: path must be an experiment file path');
      const f = await finishedRun(path);
      return f ? { finished: true, restartsDone: f.done, restartsPlanned: f.planned, keepResultsAs: f.keepResultsAs } : { finished: false };
    },
    'run.status': async () => [...runs.values()].map((e) => e.status()),
    'run.events': async ({ runId, afterSeq }) => {
      if (!Number.isInteger(afterSeq) || afterSeq < 0) throw new ApiError('invalid-argument', `afterSeq: expected a whole number of at least 0, got ${JSON.stringify(afterSeq)}`);
      return find(runId).events(afterSeq);
    },
  };
}
