// The data step's progress and outcome in words, the same in the CLI and the Run view.
import type { RunEvent } from '../events.js';
import { formatDuration } from '../plan.js';

const DATA_PHASES: Record<Extract<RunEvent, { type: 'data-progress' }>['phase'], string> = { rows: 'loading rows', indexes: 'adding indexes', analyze: 'ANALYZE TABLE', check: 'checking the 22 queries' };

/** The data step under way, in words (CLI bar, Run view): `DBT-3 data: loading rows (lineitem) 45%, 1 min 10 s left`. */
export function dataProgressText(e: Extract<RunEvent, { type: 'data-progress' }>): string {
  const left = e.phase === 'rows' && e.remainingMs !== null ? `, ${formatDuration(e.remainingMs / 1000)} left` : '';
  return `DBT-3 data: ${DATA_PHASES[e.phase]}${e.table ? ` (${e.table})` : ''} ${Math.floor(e.fraction * 100)}%${left}`;
}

/** The data step's outcome in words, from its journal record's event. */
export function dataOutcomeText(e: Extract<RunEvent, { type: 'data' }>): string {
  const rows = Object.values(e.rows).reduce((a, b) => a + b, 0).toLocaleString('en-US');
  // Each build's data directory has its own data step: which one, when the design has builds.
  if (e.datadir) return `build ${e.datadir}: ${dataOutcomeText({ ...e, datadir: undefined })}`;
  if (e.recognised) return `DBT-3 SF ${e.sf} in ${e.database}: already loaded (${rows} rows), not loaded again`;
  const checked = e.checks.length ? `; ${e.checks.length} ${e.checks.length === 1 ? 'query' : 'queries'} gave ${e.checks.some((c) => c.expected) ? (e.checks.length === 1 ? 'its expected result' : 'their expected results') : 'results (no expected results for this data)'}` : '';
  return `DBT-3 SF ${e.sf} in ${e.database}: ${rows} rows loaded${e.resumedChunks ? ` (going on from ${e.resumedChunks} chunks of a cut load)` : ''} in ${formatDuration(e.ms / 1000)} by ${e.method === 'insert' ? 'INSERTs (local_infile is off)' : 'LOAD DATA LOCAL INFILE'}${checked}`;
}
