// API handlers for running experiments. (Owned by the run engine.)
import type { BackendContext, Handlers } from '../backend.js';

export function runHandlers(_ctx: BackendContext): Handlers {
  return {};
}
