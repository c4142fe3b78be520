// Events the run engine emits, carried to every front end in numbered batches.
import type { RestartResult, TimingSource, TunableCheck } from './experiment/types.js';

export type RunEvent =
  | { type: 'run-started'; at: number; planned: number; done: number; cells: string[]; queries: string[] }
  | { type: 'restart-started'; at: number; seq: number; cell: string }
  | { type: 'tunables-verified'; at: number; seq: number; cell: string; checks: TunableCheck[] }
  | { type: 'preload'; at: number; seq: number; tables: number; indexes: number; rows: number; ms: number }
  | {
      type: 'execution';
      at: number;
      seq: number;
      cell: string;
      query: string;
      rep: number;
      warmup: boolean;
      value: number;
      client?: number;
      unit: string;
      source: TimingSource;
    }
  | { type: 'restart-finished'; at: number; seq: number; cell: string; status: 'ok' | 'verify-failed' | 'failed'; reason?: string }
  | { type: 'restart-discarded'; at: number; seq: number; cell: string; reason: string }
  | { type: 'progress'; at: number; done: number; planned: number; remainingMs: number }
  | { type: 'log'; at: number; level: 'info' | 'warn' | 'error'; message: string }
  | { type: 'run-finished'; at: number; state: 'finished' | 'failed' | 'cancelled'; message?: string }
  // Added by the run engine (issue 4):
  /** Where execution times come from on this server; `note` when they are client round trips. */
  | { type: 'timer'; at: number; source: TimingSource; note?: string }
  /** One `--report-interval` line of a benchmark command (sysbench), live. */
  | { type: 'interval'; at: number; seq: number; cell: string; rep: number; second: number; tps: number; qps: number; latencyMs?: number }
  /** Paused (takes effect between restarts, so no restart is measured across a pause) or running again. */
  | { type: 'state'; at: number; state: 'running' | 'paused' }
  /** On resume: the restarts an earlier process finished (from the journal), so a live view starts complete. */
  | { type: 'history'; at: number; warmup: number; restarts: RestartResult[] };
