// Before the first measured restart, every query is prepared on the server once (after the set-up
// script made its tables; for a DBT-3 design also before its rows are loaded, as soon as the tables
// exist): a query with a typo or a missing table is named with the server's own message before hours
// of restarts, instead of failing in the middle of the first one. A query the server refuses later
// (under one cell's settings, or a statement that fails only when run) names itself and its restart.
import type { Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import type { Query } from '../../common/experiment/types.js';

/** ER_UNSUPPORTED_PS: a statement the prepared-statement protocol cannot take; it is not checked. */
const UNSUPPORTED_PS = 1295;

export async function checkQueries(conn: Connection, queries: Query[]): Promise<void> {
  const problems: string[] = [];
  for (const q of queries) {
    try {
      await conn.query('PREPARE varlab_check FROM ?', [q.sql]);
      await conn.query('DEALLOCATE PREPARE varlab_check');
    } catch (e) {
      const err = e as { errno?: number; sqlMessage?: string; message: string };
      if (err.errno === UNSUPPORTED_PS) continue;
      problems.push(`query ${JSON.stringify(q.name)}: ${err.sqlMessage ?? err.message}`);
    }
  }
  if (problems.length) throw queryProblems(problems);
}

/** The one error for queries the server refused before anything was measured (`query "q1": message`). */
export function queryProblems(problems: string[]): ApiError {
  return new ApiError('invalid-file', `${problems.length === 1 ? 'a query fails' : `${problems.length} queries fail`} on the server, so nothing was measured: ${problems.join('; ')}`);
}

/**
 * A query the server refused while a restart measured it (not a lost connection): the run stops there,
 * naming the restart, its cell and the query. The attached query loop and a detached run's end say it
 * the same way.
 */
export function queryFailure(seq: number, cell: string, query: string, message: string): ApiError {
  return new ApiError('invalid-file', `restart ${seq} (${cell}): query ${JSON.stringify(query)} failed on the server: ${message}. The run stopped there; the restarts measured before it are kept`);
}

/**
 * A measured query the server refused (an SQL error, the connection still open): thrown by the query
 * loop (`query` filled in by the loop, which knows the name), named with its restart by the engine.
 */
export class QueryRefused extends Error {
  constructor(
    readonly query: string,
    readonly why: string,
  ) {
    super(`query ${JSON.stringify(query)} failed on the server: ${why}`);
  }
}

/** The error of an execution: a server's refusal as QueryRefused (its query named later), anything else (a lost connection) as it is. */
export function refusedOrAsIs(e: unknown): unknown {
  const err = e as { sqlMessage?: string; fatal?: boolean } | null;
  return err && typeof err.sqlMessage === 'string' && !err.fatal ? new QueryRefused('', err.sqlMessage) : e;
}
