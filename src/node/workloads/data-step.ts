// The data step of a design (DBT-3): loaded, resumed or recognised over a connection to the target's
// mysqld, and the journal record that says what it found and checked, once per data directory (each
// server build has its own). One piece for the two places it runs: an attached run's first restart on
// each data directory (engine/restart.ts), and the launch of a detached run (detach/launch.ts), for
// every data directory its restarts reach, since the runner on the target has no generator and nothing
// can be installed there. The design's queries are checked on the tables before their rows are loaded (check.ts).
import type { Connection } from 'mysql2/promise';
import { DEFAULT_SEED } from '../../common/dbt3/scale.js';
import type { RunEvent } from '../../common/events.js';
import type { Design, Workload } from '../../common/experiment/types.js';
import type { ScheduledRestart } from '../../common/plan.js';
import type { RecordOf } from '../../common/records.js';
import { datadirKey, type RestartProcedure } from '../../common/restart.js';
import type { ServerControl } from '../host/types.js';
import { checkQueries } from './check.js';
import { loadDbt3, sourceOf } from './dbt3.js';

export interface DataStepOptions {
  /** Each step of the load as an event (the Run view's bar, the CLI's line). */
  emit(e: Extract<RunEvent, { type: 'data-progress' }>): void;
  /** Throws to give the load up (a cancel); what was loaded stays and resumes next time. */
  checkCancel?(): void;
  /** The data directory loaded (common/restart.ts datadirKey: its build's name, '' for the profile's own): said in the record. */
  datadir?: string;
}

/** Run the workload's data step; `loaded`: rows went in (the server is then restarted before measuring). */
export async function runDataStep(conn: Connection, w: Workload, o: DataStepOptions): Promise<{ record: RecordOf<'data'>; loaded: boolean }> {
  const d = w.data!;
  const data = { sf: d.sf, seed: d.seed ?? DEFAULT_SEED, ...(d.folder ? { folder: d.folder } : {}) };
  const out = await loadDbt3(conn, w.database, data, {
    checkCancel: o.checkCancel,
    // The design's queries, prepared on the empty tables: one the server refuses is named before a load of
    // minutes or hours. Not with a setup script of the design's own: it runs after the load (engine/restart.ts)
    // and may make what a query uses (a view); every query is prepared after it anyway.
    beforeRows: w.kind === 'queries' && w.queries.length && !w.setupSql.trim() ? () => checkQueries(conn, w.queries) : undefined,
    onProgress: (p) => o.emit({ type: 'data-progress', at: Date.now(), phase: p.phase, ...(p.table ? { table: p.table } : {}), fraction: p.fraction, remainingMs: p.remainingMs }),
  });
  const record: RecordOf<'data'> = {
    t: 'data',
    at: Date.now(),
    ...(o.datadir ? { datadir: o.datadir } : {}),
    database: w.database,
    sf: data.sf,
    seed: data.seed,
    source: sourceOf(data),
    recognised: out.recognised,
    resumedChunks: out.resumedChunks,
    rows: out.rows as Record<string, number>,
    ms: out.ms,
    method: out.method,
    checks: out.checks.map((c) => ({ query: c.query, rows: c.rows, checksum: c.checksum, expected: !!c.expected, ms: c.ms })),
  };
  return { record, loaded: !out.recognised };
}

/**
 * The data directories the restarts reach, in the order they first reach them, each with the procedure
 * of its first restart there: the server a run sets that directory up on (engine/restart.ts at that
 * restart; a detached run's launch, for the runner, before it). Keyed as the engine keys them (datadirKey).
 */
export async function firstRestartPerDataDirectory(control: ServerControl, design: Design, restarts: readonly ScheduledRestart[]): Promise<{ datadir: string; proc: RestartProcedure }[]> {
  const out = new Map<string, RestartProcedure>();
  const seen = new Set<string>();
  for (const r of restarts) {
    if (seen.has(r.cell)) continue;
    seen.add(r.cell);
    const proc = await control.procedure(design.factors, r.levels, { schemas: [design.workload.database], workload: true });
    const datadir = datadirKey(proc);
    if (!out.has(datadir)) out.set(datadir, proc);
  }
  return [...out].map(([datadir, proc]) => ({ datadir, proc }));
}
