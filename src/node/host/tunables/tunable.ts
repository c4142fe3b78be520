// What every tunable module provides, in the spirit of pyperf's _system.py: each setting knows how
// to apply itself (by contributing to the mysqld start or changing a host file), how to verify
// itself on the live process after the restart, and how the host is put back (restore record).
import type { Connection } from 'mysql2/promise';
import type { TunableCheck } from '../../../common/experiment/types.js';

/** A host-wide file varlab writes; its original value goes into the restore record first. */
export interface HostChange {
  tunable: string;
  /** A constant shell glob (never built from input), e.g. /sys/devices/system/cpu/cpu[0-9]*\/cpufreq/scaling_governor. */
  files: string;
  /** The value to write: validated against the catalog before it gets here. */
  value: string;
  /** How the current value is read: `cat`, or the [bracketed] choice in a sysfs list (THP). */
  read: 'cat' | 'bracketed';
}

/** How mysqld is started for one cell: what each tunable contributed. */
export interface StartRecipe {
  /** mysqld options added after the profile's own. */
  args: string[];
  /** Environment for mysqld (LD_PRELOAD). */
  env: Record<string, string>;
  /** numactl policy words, e.g. ['--interleave=all']. */
  numactl: string[];
  /** taskset CPU list. */
  taskset: string | null;
  /** Start under `setarch $(uname -m) -R` (ASLR off for this mysqld only). */
  noRandomize: boolean;
  /** Host files to change before the start (root). */
  host: HostChange[];
  /** Fixed root commands run before the start (drop caches). */
  beforeStart: string[];
}

export function emptyRecipe(): StartRecipe {
  return { args: [], env: {}, numactl: [], taskset: null, noRandomize: false, host: [], beforeStart: [] };
}

/** What a verification may look at: the live process and the server. */
export interface LiveServer {
  pid: number;
  /** Read a file of the mysqld process: /proc/PID/<name>. */
  proc(name: 'personality' | 'status' | 'numa_maps' | 'maps'): Promise<string>;
  /** Read a host file (sysfs, procfs) by constant glob; one value per line. */
  hostFile(glob: string): Promise<string>;
  /** Read one server variable with SELECT @@name. */
  variable(name: string): Promise<string | null>;
  conn: Connection;
}

export interface Tunable {
  id: string;
  /** For tunables that can change host files: their constant glob, so a neutral level can put them back. */
  hostFiles?: string;
  /** Add to the start recipe for this level (the level is already validated). `name` is the variable name for `variable`. */
  plan(level: string, recipe: StartRecipe, name?: string): void;
  verify(level: string, live: LiveServer, name?: string): Promise<TunableCheck>;
}

export const check = (tunable: string, level: string, ok: boolean, observed: string): TunableCheck => ({ tunable, level, ok, observed });
