// Every tunable module by catalog id.
import { allocator } from './allocator.js';
import { aslr } from './aslr.js';
import { cpubind } from './cpubind.js';
import { dropcaches, governor, thp, turboBoost, turboIntel } from './hostwide.js';
import { numa } from './numa.js';
import { preload } from './preload.js';
import type { Tunable } from './tunable.js';
import { ahi, bpLoad, oldBlocksTime, variable } from './variable.js';

export const TUNABLE_MODULES: Record<string, Tunable> = {
  aslr,
  ahi,
  preload,
  numa,
  cpubind,
  governor,
  turbo: turboIntel,
  thp,
  allocator,
  old_blocks_time: oldBlocksTime,
  bp_load: bpLoad,
  dropcaches,
  variable,
};

/** Which turbo file this host has decides the module. */
export function turboModule(hasIntelPstate: boolean): Tunable {
  return hasIntelPstate ? turboIntel : turboBoost;
}

export type { Tunable, StartRecipe, HostChange, LiveServer } from './tunable.js';
export { emptyRecipe } from './tunable.js';
export { preloadSchemas, type PreloadReport } from './preload.js';
