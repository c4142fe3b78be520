// API handlers for running experiments: start (or resume) a run, pause, resume, cancel, status,
// and the batches a reconnecting client missed. One run per experiment file at a time.
import { ApiError, type RunStatus } from '../../common/api.js';
import type { BackendContext, Handlers } from '../backend.js';
import { prepareRun } from '../engine/prepare.js';
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
    'run.start': async ({ path, target, auth, resume }) => {
      for (const e of runs.values()) {
        const s = e.status();
        if ((s.state === 'running' || s.state === 'paused') && s.path === path) throw new ApiError('busy', `${path} is already running (run ${s.runId})`);
      }
      await requireConsent(path, target); // teammates' files: their commands are confirmed once per host (issue 6)
      const prepared = await prepareRun({ file: path, target, resume });
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
    'run.status': async () => [...runs.values()].map((e) => e.status()),
    'run.events': async ({ runId, afterSeq }) => {
      if (!Number.isInteger(afterSeq) || afterSeq < 0) throw new ApiError('invalid-argument', `afterSeq: expected a whole number of at least 0, got ${JSON.stringify(afterSeq)}`);
      return find(runId).events(afterSeq);
    },
  };
}
