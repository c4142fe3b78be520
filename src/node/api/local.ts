// API handlers for the first run on this machine (issue 4, point 8): what is installed, and the
// quickstart prepared on the `local` target. The UI then starts it with run.start like any file.
import { ApiError } from '../../common/api.js';
import type { BackendContext, Handlers } from '../backend.js';
import { localReadiness, prepareLocalQuickstart } from '../quickstart.js';

export function localHandlers(_ctx: BackendContext): Handlers {
  return {
    'local.readiness': async () => localReadiness(),
    'local.quickstart': async ({ dir, port }) => {
      if (dir !== undefined && (typeof dir !== 'string' || !dir.trim())) throw new ApiError('invalid-argument', 'local.quickstart: dir must be a folder path');
      if (port !== undefined && !(Number.isInteger(port) && port >= 1024 && port <= 65535)) throw new ApiError('invalid-argument', `local.quickstart: port must be a whole number from 1024 to 65535, got ${JSON.stringify(port)}`);
      return prepareLocalQuickstart({ dir, port });
    },
  };
}
