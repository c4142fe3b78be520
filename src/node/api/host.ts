// API handlers for targets: probe, prompts. (Owned by the host layer.)
import { ApiError } from '../../common/api.js';
import type { BackendContext, Handlers } from '../backend.js';

export function hostHandlers(ctx: BackendContext): Handlers {
  return {
    'prompt.answer': async (a) => {
      if (!ctx.hub.answer(a)) throw new ApiError('not-found', `no open question with id ${a.id}`);
      return null;
    },
  };
}
