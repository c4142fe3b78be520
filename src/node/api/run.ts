// API handlers for running experiments: the run service does the work (the CLI uses the same);
// these only carry its answers (their arguments are checked before: api/args.ts). Refusals come back
// from run.start; everything after, as events.
import { resolve } from 'node:path';
import type { RunEvent } from '../../common/events.js';
import type { BackendContext, Handlers } from '../backend.js';
import { consentNote, measuredBefore } from '../runs/prepare.js';
import { requireConsentFor } from '../trust.js';
import { detachedRuns } from '../detach/runs.js';
import { notLaunchedHere, requireFollowConsent } from '../detach/launched.js';

export function runHandlers(ctx: BackendContext): Handlers {
  const runs = ctx.runs;
  return {
    'run.start': async ({ path, target, auth, resume, fresh, missing, detach, untilAnswered }, origin) => {
      // The run's questions (a host key, a password) go to the window that started it.
      const prompt = ctx.hub.promptFor(origin.clientId);
      // Its batches go to this client from the first (a run may send some before this call returns).
      ctx.hub.follow(origin.clientId, resolve(path));
      if (detach === true) {
        // The run goes on on its target; this process follows it while it can (the Run view stays live).
        // The launch's own work here (the DBT-3 data step) is shown in the window that launched it.
        // Its id first, at once: the Run view's Cancel stops the launch with it (run.cancel).
        let runId = '';
        const onLaunching = (id: string) => ctx.hub.emit('run.launch', { path: resolve(path), runId: (runId = id) }, origin.clientId);
        const onEvent = (e: RunEvent) => e.type === 'data-progress' && ctx.hub.emit('run.launch', { path: resolve(path), runId, event: e }, origin.clientId);
        const d = await runs.detach({ file: path, target, auth, prompt, untilAnswered, onLaunching, onEvent, resume: resume === true, fresh: fresh === true, missing: missing === true, consent: (doc, t, prepared) => requireConsentFor(doc, t, path, consentNote(prepared)) });
        // Followed from the costs the file measured before the launch replaced its results (a run again from scratch).
        const s = await runs.attach(path, { prompt, measured: (t) => measuredBefore(d.prepared, t) });
        // Several hosts: a host that did not start is said; the others go on.
        return d.failed.length && s.detached ? { ...s, detached: { ...s.detached, notStarted: d.failed } } : s;
      }
      const started = await runs.start({
        file: path,
        target,
        untilAnswered,
        auth,
        prompt,
        resume: resume === true,
        fresh: fresh === true,
        missing: missing === true,
        // Teammates' files: their commands are confirmed once per host in the UI (trust.grant), then started again.
        consent: (doc, t, prepared) => requireConsentFor(doc, t, path, consentNote(prepared)),
      });
      return started.status();
    },
    'run.pause': async ({ runId }) => runs.pause(runId),
    'run.resume': async ({ runId }) => runs.resume(runId),
    'run.cancel': async ({ runId }) => runs.cancel(runId),
    'run.check': async ({ path, target }) => {
      const c = await runs.check(path, target);
      if (c.finished || !c.unfinished) return c;
      // Said from the local journal alone (no connection), so the Run view offers to follow it, never to resume it.
      let going: ReturnType<typeof detachedRuns> = [];
      try {
        going = detachedRuns(path).filter((d) => !d.ended);
      } catch {
        /* a journal refused here is refused, with its reason, by run.detachedStatus and run.attach */
      }
      // Several hosts: every host whose run goes on, joined.
      if (!going.length) return c;
      const detached = { target: going.map((d) => d.target).join(', '), journals: going.map((d) => d.journal), launchedHere: !notLaunchedHere(going).length };
      return { ...c, unfinished: { ...c.unfinished, detached } };
    },
    'run.status': async () => runs.status(),
    'run.attach': async ({ path, target }, origin) => {
      // Following connects (an ended run too: its directory there is removed).
      requireFollowConsent(path, detachedRuns(path), target);
      ctx.hub.follow(origin.clientId, resolve(path));
      return runs.attach(path, { prompt: ctx.hub.promptFor(origin.clientId) });
    },
    'run.stopFollowing': async ({ runId }) => runs.stopFollowing(runId),
    'run.detachedStatus': async ({ path, target }, origin) => {
      const all = detachedRuns(path);
      // Looking connects only for a run whose end is not here yet.
      requireFollowConsent(path, all.filter((d) => !d.ended), target);
      return all.length ? runs.detachedStatus(path, { prompt: ctx.hub.promptFor(origin.clientId) }) : null;
    },
    'run.events': async ({ runId, afterSeq }, origin) => {
      // Asking for a run's events is following it: its next batches come to this client too.
      const path = runs.pathOf(runId);
      if (path) ctx.hub.follow(origin.clientId, path);
      return runs.events(runId, afterSeq);
    },
  };
}

