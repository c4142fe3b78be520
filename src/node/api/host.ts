// API handlers for targets: probe, dry run, prompts. (Owned by the host layer.)
import { ApiError, type DryRun } from '../../common/api.js';
import { expandCells } from '../../common/plan.js';
import type { BackendContext, Handlers } from '../backend.js';
import { openTarget, planCommands, probeHost, sandboxProfile } from '../host/index.js';
import { secretStore } from '../secrets.js';

export function hostHandlers(ctx: BackendContext): Handlers {
  return {
    'host.probe': async ({ target, auth }) => {
      if (typeof target !== 'string') throw new ApiError('invalid-argument', 'host.probe: target must be a string');
      // Questions (unknown host key, passwords) go to the UI as `prompt` events.
      const session = await openTarget(target, { auth, prompt: ctx.hub.prompt });
      try {
        return await probeHost(session);
      } finally {
        await session.close();
      }
    },
    'host.dryRun': async ({ design, target }) => {
      if (!design || !Array.isArray(design.factors)) throw new ApiError('invalid-argument', 'host.dryRun: design must be an experiment design');
      const where = target ?? design.target;
      const profile = design.serverProfile ?? (await sandboxProfile(where));
      const result: DryRun = { profile: profile ?? null, cells: [] };
      if (!profile) {
        result.problem = `no server profile: the experiment names none and none is registered for ${where} (run \`varlab sandbox create ${where}\`)`;
        return result;
      }
      try {
        for (const cell of expandCells(design).filter((c) => !c.excluded)) result.cells.push({ cell: cell.id, commands: planCommands(profile, design.factors, cell.levels) });
      } catch (e) {
        result.problem = (e as Error).message;
      }
      return result;
    },
    'prompt.answer': async (a) => {
      // Only the desktop app has a keychain to keep a password or passphrase in; the question stays open.
      if (a.remember && a.secret !== undefined && !secretStore()) {
        throw new ApiError('unsupported', 'cannot remember a password or passphrase here: only the desktop app keeps secrets (in the OS keychain); answer again without "remember"');
      }
      if (!ctx.hub.answer(a)) throw new ApiError('not-found', `no open question with id ${a.id}`);
      return null;
    },
  };
}
