// API handlers for targets: probe, prompts. (Owned by the host layer.)
import { ApiError } from '../../common/api.js';
import type { BackendContext, Handlers } from '../backend.js';
import { openTarget, probeHost } from '../host/index.js';

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
    'prompt.answer': async (a) => {
      if (!ctx.hub.answer(a)) throw new ApiError('not-found', `no open question with id ${a.id}`);
      return null;
    },
  };
}
