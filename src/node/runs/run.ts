// The one face of a run, whatever drives it: an engine on one host (engine/run.ts), a group of hosts
// run at once (runs/group.ts), or a detached run followed from this process (detach/attach.ts).
// RunService holds them all alike, and the app and every command reach them through it.
import { ApiError, type EventBatch, type RunStatus } from '../../common/api.js';

export interface Run {
  status(): RunStatus;
  /** Batches after afterSeq while they are in memory; null: the run is rebuilt from its journal. */
  events(afterSeq: number): EventBatch[] | null;
  /** The whole run so far as one batch, from memory while it runs; null: from its journal. */
  snapshot(): EventBatch | null;
  /** Between restarts (a detached run cannot pause: it refuses, saying what it can do). */
  pause(): void;
  resume(): void;
  /** Ends within a bounded time, with mysqld stopped and the host restored. */
  cancel(): void;
}

/** A detached run's pause: refused, with what to do instead. */
export function detachedCannotPause(target: string): never {
  throw new ApiError('unsupported', `the run on ${target} is detached: it cannot pause (cancel stops it, and a later run resumes it)`);
}
