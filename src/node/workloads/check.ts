// Before the first measured restart, every query is prepared on the server once (after the set-up
// script made its tables): a query with a typo or a missing table is named with the server's own
// message before hours of restarts, instead of failing in the middle of the first one.
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
