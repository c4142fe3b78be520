// The data step of a design (DBT-3): loaded, resumed or recognised over a connection to the target's
// mysqld, and the journal record that says what it found and checked. One piece for the two places it
// runs: an attached run's first restart (engine/restart.ts), and the launch of a detached run
// (detach/launch.ts), since the runner on the target has no generator and nothing can be installed there.
// The design's queries are checked on the tables before their rows are loaded (check.ts).
import type { Connection } from 'mysql2/promise';
import { DEFAULT_SEED } from '../../common/dbt3/scale.js';
import type { RunEvent } from '../../common/events.js';
import type { Workload } from '../../common/experiment/types.js';
import type { RecordOf } from '../../common/records.js';
import { checkQueries } from './check.js';
import { loadDbt3, sourceOf } from './dbt3.js';

export interface DataStepOptions {
  /** Each step of the load as an event (the Run view's bar, the CLI's line). */
  emit(e: Extract<RunEvent, { type: 'data-progress' }>): void;
  /** Throws to give the load up (a cancel); what was loaded stays and resumes next time. */
  checkCancel?(): void;
}

/** Run the workload's data step; `loaded`: rows went in (the server is then restarted before measuring). */
export async function runDataStep(conn: Connection, w: Workload, o: DataStepOptions): Promise<{ record: RecordOf<'data'>; loaded: boolean }> {
  const d = w.data!;
  const data = { sf: d.sf, seed: d.seed ?? DEFAULT_SEED, ...(d.folder ? { folder: d.folder } : {}) };
  const out = await loadDbt3(conn, w.database, data, {
    checkCancel: o.checkCancel,
    // The design's queries, prepared on the empty tables: one the server refuses is named before a load of minutes or hours.
    beforeRows: w.kind === 'queries' && w.queries.length ? () => checkQueries(conn, w.queries) : undefined,
    onProgress: (p) => o.emit({ type: 'data-progress', at: Date.now(), phase: p.phase, ...(p.table ? { table: p.table } : {}), fraction: p.fraction, remainingMs: p.remainingMs }),
  });
  const record: RecordOf<'data'> = {
    t: 'data',
    at: Date.now(),
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
