// Events the run engine emits, carried to every front end in numbered batches. The events about a
// restart are its journal records under another name (see `eventOf` in records.ts): their fields are
// the record's, so an event never says something its record does not.
import type { RestartResult, Stopping } from './experiment/types.js';
import type { LinkState } from './link.js';
import type { RecordKind, RecordOf } from './records.js';

/** An event made of record K's fields (without its `t`), named Type, with Extra fields. */
type FromRecord<K extends RecordKind, Type extends string, Extra = unknown> = { type: Type } & Omit<RecordOf<K>, 't'> & Extra;

/**
 * Why a cancelled run ended, as its run-finished event and journal say: the state, and how to go on.
 * A run on several hosts says it once for the whole run, not once for each cancelled host.
 */
export const CANCELLED_MESSAGE = 'cancelled; run again to resume';

/**
 * Why one host of a run on several hosts ended, said after its state ("failed on HOST after n of m
 * restarts: WHY"): the reason it failed; nothing for a cancel, whose own message only says the state
 * again and how to go on (the whole run's message says that once); nothing for a host that finished.
 */
export function hostWhy(o: { state: string; message?: string }): string {
  if (o.state === 'finished' || !o.message) return '';
  return o.state === 'cancelled' && o.message.startsWith(CANCELLED_MESSAGE) ? o.message.slice(CANCELLED_MESSAGE.length).replace(/^;\s*/, '') : o.message;
}

/** hostWhy as it follows "… after n of m restarts": ": WHY", or nothing. */
export function afterColon(o: { state: string; message?: string }): string {
  const why = hostWhy(o);
  return why ? `: ${why}` : '';
}

/**
 * The state of a run on several hosts, from its hosts' states, whatever their order: running while any
 * host runs; else paused while any host waits to resume (a finished host does not hide a paused one,
 * or a reloaded window would take the run for finished and Run would be refused as busy); else
 * detached while any host goes on unfollowed; else failed, else cancelled; finished when all finished
 * (or there is no host).
 */
export function groupState<S extends GroupableState>(states: readonly S[]): S | 'finished' {
  return GROUP_PRECEDENCE.find((s): s is S => (states as readonly string[]).includes(s)) ?? 'finished';
}
const GROUP_PRECEDENCE = ['running', 'paused', 'detached', 'failed', 'cancelled', 'finished'] as const;
type GroupableState = (typeof GROUP_PRECEDENCE)[number];

/**
 * In a run of one design on several hosts every event also names its `host` (each host numbers its
 * own restarts from 1, so a restart is known by host and seq).
 */
export type RunEvent = RunEventOfOneHost & { host?: string };

type RunEventOfOneHost =
  | FromRecord<'restart-started', 'restart-started'>
  /** The `checks` record: every tunable read back from the live process. */
  | FromRecord<'checks', 'tunables-verified', { cell: string }>
  | FromRecord<'preload', 'preload'>
  | FromRecord<'execution', 'execution', { cell: string }>
  /** One `--report-interval` line of a benchmark command (sysbench), journaled as it is printed. */
  | FromRecord<'interval', 'interval', { cell: string }>
  | FromRecord<'restart-finished', 'restart-finished'>
  | FromRecord<'restart-discarded', 'restart-discarded'>
  /** The host's noise over a finished restart's measured window (its `noise` record). */
  | FromRecord<'noise', 'host-noise'>
  | FromRecord<'run-finished', 'run-finished'>
  /** Stop when answered: the run stops at this look, every comparison decided. */
  | FromRecord<'stopped-answered', 'stopped-answered'>
  /** Stop when answered: a look of the rule (running intervals against the boundary). */
  | FromRecord<'look', 'look'>
  /** Where execution times come from on this server; `why` (or, journaled before it was kept, `note`) when it is not the exact timer. */
  | FromRecord<'timer', 'timer'>
  /** The data step's outcome (DBT-3 loaded, resumed or recognised). */
  | FromRecord<'data', 'data'>
  // Events that are not records:
  /** `warmup`: the first executions of each restart flagged warm-up (out of the means). */
  | { type: 'run-started'; at: number; planned: number; done: number; cells: string[]; queries: string[]; warmup: number; /** Stop when answered: the rule (planned is then a maximum). */ stopping?: Stopping }
  /** `remainingMs`: the restarts left and the run's end (stats/planner.ts timeLeftMs); `endMs`: of it, what the run costs once, not per restart. */
  | { type: 'progress'; at: number; done: number; planned: number; remainingMs: number; endMs?: number }
  | { type: 'log'; at: number; level: 'info' | 'warn' | 'error'; message: string }
  /** The data step under way: its phase, the rows' fraction done and the time left for them (null until known). */
  | { type: 'data-progress'; at: number; phase: 'rows' | 'indexes' | 'analyze' | 'check'; table?: string; fraction: number; remainingMs: number | null }
  /** Paused (takes effect between restarts, so no restart is measured across a pause) or running again. */
  | { type: 'state'; at: number; state: 'running' | 'paused' }
  /** A followed detached run: this computer's link to its target lost (and when it tries again) or back (detach/relink.ts); not journaled, the run's own state is not changed by it. */
  | ({ type: 'link'; at: number } & LinkState)
  /** On resume: the restarts an earlier process finished (from the journal), so a live view starts complete. */
  | { type: 'history'; at: number; warmup: number; restarts: RestartResult[] };
