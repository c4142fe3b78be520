// The query loop: one measured execution of a query through mysql2, its rows streamed and counted
// (never held in memory), its time read from the server's own statement timer where there is one,
// and the client round trip kept beside it.
import type { Connection } from 'mysql2/promise';
import type { Connection as CoreConnection, QueryError } from 'mysql2';
import type { TimingSource } from '../../common/experiment/types.js';

export interface ServerTimer {
  source: Extract<TimingSource, 'performance_schema' | 'profiling' | 'client'>;
  /** Why the time is the client's (no server-side timer): shown in the UI and saved as results.timerNote. */
  note?: string;
  /** performance_schema: this connection's THREAD_ID. */
  threadId?: number;
}

export interface Measurement {
  /** Milliseconds, from `source`. */
  value: number;
  /** The client round trip in milliseconds (includes the network and the driver). */
  client: number;
  source: ServerTimer['source'];
  rows: number;
}

type Row = Record<string, unknown>;

async function rows(conn: Connection, sql: string): Promise<Row[]> {
  const [r] = await conn.query(sql);
  return Array.isArray(r) ? (r as Row[]) : [];
}

/**
 * Which server-side timer this connection offers. MySQL has performance_schema statement history
 * on by default; MariaDB has it off by default but offers per-session query profiling. The probes
 * run once per connection (once per restart), never between measured executions.
 */
export async function detectTimer(conn: Connection): Promise<ServerTimer> {
  try {
    const [ps] = await rows(conn, 'SELECT @@performance_schema AS ps');
    if (Number(ps?.ps) === 1) {
      const [consumer] = await rows(conn, "SELECT ENABLED AS e FROM performance_schema.setup_consumers WHERE NAME = 'events_statements_history'");
      const [thread] = await rows(conn, 'SELECT THREAD_ID AS t FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()');
      if (consumer?.e === 'YES' && thread?.t != null) return { source: 'performance_schema', threadId: Number(thread.t) };
    }
  } catch {
    /* no performance_schema tables (or no privilege): try profiling */
  }
  try {
    await conn.query('SET profiling = 1');
    await conn.query('SET profiling_history_size = 1');
    const [on] = await rows(conn, 'SELECT @@profiling AS p');
    if (Number(on?.p) === 1) return { source: 'profiling' };
  } catch {
    /* profiling compiled out (MySQL builds without it) */
  }
  return {
    source: 'client',
    note: 'no server-side statement timer on this server (performance_schema statement history off, query profiling unavailable): times are client round trips and include the network',
  };
}

/** Run one statement, counting rows as they stream past; resolves with the row count. */
function streamed(conn: Connection, sql: string): Promise<number> {
  const core = (conn as unknown as { connection: CoreConnection }).connection;
  return new Promise((resolve, reject) => {
    let count = 0;
    // A query without a callback is not told when the connection dies under it (mysqld killed):
    // mysql2 tells the connection instead. Without this the run would wait forever.
    const lost = (e: QueryError) => reject(e);
    core.once('error', lost);
    core
      .query(sql)
      .on('result', () => {
        count++;
      })
      .on('error', (e: QueryError) => {
        core.off('error', lost);
        reject(e);
      })
      .on('end', () => {
        core.off('error', lost);
        resolve(count);
      });
  });
}

/**
 * A server timer's figure in milliseconds: performance_schema's TIMER_WAIT is in picoseconds, a
 * query profile's Duration in seconds. The detached runner journals the raw figure and varlab
 * converts it here when it imports it, so both ways give the same number.
 */
export function serverMs(source: 'performance_schema' | 'profiling', raw: unknown): number {
  return source === 'performance_schema' ? Number(raw) / 1e9 : Number(raw) * 1000;
}

/** The server's own time for the statement this connection ran last, in milliseconds. */
async function serverTime(conn: Connection, timer: ServerTimer): Promise<number | null> {
  if (timer.source === 'performance_schema') {
    // TIMER_WAIT is in picoseconds; the history holds statements once they completed.
    const [r] = await rows(conn, `SELECT TIMER_WAIT AS w FROM performance_schema.events_statements_history WHERE THREAD_ID = ${Number(timer.threadId)} ORDER BY EVENT_ID DESC LIMIT 1`);
    return r?.w != null ? serverMs('performance_schema', r.w) : null;
  }
  if (timer.source === 'profiling') {
    // SHOW PROFILES is not itself profiled, so its last line is the measured statement. Duration in seconds.
    const list = await rows(conn, 'SHOW PROFILES');
    const last = list[list.length - 1];
    return last?.Duration != null ? serverMs('profiling', last.Duration) : null;
  }
  return null;
}

/** One measured execution. */
export async function measure(conn: Connection, sql: string, timer: ServerTimer): Promise<Measurement> {
  const t0 = process.hrtime.bigint();
  const count = await streamed(conn, sql);
  const client = Number(process.hrtime.bigint() - t0) / 1e6;
  const server = await serverTime(conn, timer);
  if (server === null) return { value: client, client, source: 'client', rows: count };
  return { value: server, client, source: timer.source, rows: count };
}
