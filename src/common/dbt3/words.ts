// The data step's progress and outcome in words, the same in the CLI and the Run view.
import type { RunEvent } from '../events.js';
import type { DataStepResult, Design, Results } from '../experiment/types.js';
import { formatDuration } from '../plan.js';

const DATA_PHASES: Record<Extract<RunEvent, { type: 'data-progress' }>['phase'], string> = { rows: 'loading rows', indexes: 'adding indexes', analyze: 'ANALYZE TABLE', check: 'checking the 22 queries' };

/** The data step under way, in words (CLI bar, Run view): `DBT-3 data: loading rows (lineitem) 45%, 1 min 10 s left`. */
export function dataProgressText(e: Extract<RunEvent, { type: 'data-progress' }>): string {
  const left = e.phase === 'rows' && e.remainingMs !== null ? `, ${formatDuration(e.remainingMs / 1000)} left` : '';
  return `DBT-3 data: ${DATA_PHASES[e.phase]}${e.table ? ` (${e.table})` : ''} ${Math.floor(e.fraction * 100)}%${left}`;
}

/** What a data step loaded or recognised, as its journal record, its event and the file's `dataSteps` have it. */
export type DataOutcome = Required<Pick<DataStepResult, 'sf' | 'database' | 'rows' | 'recognised' | 'ms' | 'method' | 'checks'>> & Pick<DataStepResult, 'datadir' | 'resumedChunks'>;

/** The data step's outcome in words, from its journal record's event or the file's record of it. */
export function dataOutcomeText(e: DataOutcome): string {
  const rows = Object.values(e.rows).reduce((a, b) => a + b, 0).toLocaleString('en-US');
  // Each build's data directory has its own data step: which one, when the design has builds.
  if (e.datadir) return `build ${e.datadir}: ${dataOutcomeText({ ...e, datadir: undefined })}`;
  if (e.recognised) return `DBT-3 SF ${e.sf} in ${e.database}: already loaded (${rows} rows), not loaded again`;
  const checked = e.checks.length ? `; ${e.checks.length} ${e.checks.length === 1 ? 'query' : 'queries'} gave ${e.checks.some((c) => c.expected) ? (e.checks.length === 1 ? 'its expected result' : 'their expected results') : 'results (no expected results for this data)'}` : '';
  return `DBT-3 SF ${e.sf} in ${e.database}: ${rows} rows loaded${e.resumedChunks ? ` (going on from ${e.resumedChunks} chunks of a cut load)` : ''} in ${formatDuration(e.ms / 1000)} by ${e.method === 'insert' ? 'INSERTs (local_infile is off)' : 'LOAD DATA LOCAL INFILE'}${checked}`;
}

/** A step of the file that holds what it loaded (files written before the file kept it hold its time only). */
function outcomeOf(d: DataStepResult): DataOutcome | null {
  const { sf, database, rows, method, checks } = d;
  return sf !== undefined && database !== undefined && rows && method && checks ? { ...d, sf, database, rows, method, checks } : null;
}

/**
 * The data the results were measured on, a line per data directory (and host): the load its numbers
 * came from, and how many later runs recognised it; for the report's and the Analysis view's data-set
 * line. Empty for a design without a data step; said in words when the file holds no record of it.
 */
export function dataSetLines(design: Design, results: Results | undefined): string[] {
  const d = design.workload.data;
  if (!d) return [];
  const byDir = new Map<string, DataOutcome[]>();
  for (const step of results?.dataSteps ?? []) {
    const o = outcomeOf(step);
    if (!o) continue;
    const key = `${step.host ?? ''}\u0000${step.datadir ?? ''}`;
    byDir.set(key, [...(byDir.get(key) ?? []), o]);
  }
  if (!byDir.size) return [`DBT-3 SF ${d.sf} in ${design.workload.database}${results?.restarts.length ? ': this file does not hold what its data step loaded (written before varlab kept it)' : ''}`];
  const hosts = new Set((results?.dataSteps ?? []).map((s) => s.host).filter(Boolean)).size > 1 || (design.targets?.length ?? 0) > 1;
  return [...byDir].map(([key, steps]) => {
    const host = key.split('\u0000')[0];
    // The last load is what the numbers were measured on; the runs after it found it there.
    const at = steps.map((s) => s.recognised).lastIndexOf(false);
    const shown = steps[at >= 0 ? at : steps.length - 1];
    const later = at >= 0 ? steps.length - 1 - at : 0;
    return `${hosts && host ? `${host}: ` : ''}${dataOutcomeText(shown)}${later ? `; recognised by ${later} later run${later === 1 ? '' : 's'}` : ''}`;
  });
}
