// The query loop's measuring: executions of a query through mysql2 back to back, their rows streamed
// and counted (never held in memory), their times read afterwards from the server's own statement
// timer where there is one, and each client round trip kept beside it.
import type { Connection } from 'mysql2/promise';
import type { Connection as CoreConnection, QueryError } from 'mysql2';
import type { TimerVsClient, TimingSource } from '../../common/experiment/types.js';
import { refusedOrAsIs } from './check.js';
import { matchBatch, type HistoryRow, type SentExecution } from './history.js';

export interface ServerTimer {
  source: Extract<TimingSource, 'performance_schema' | 'profiling' | 'client'>;
  /** Why the exact timer is not the one (common/timer-note.ts says the note from it). */
  why?: string;
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
  /** When it ended (epoch milliseconds). */
  at: number;
}

type Row = Record<string, unknown>;

async function rows(conn: Connection, sql: string): Promise<Row[]> {
  const [r] = await conn.query(sql);
  return Array.isArray(r) ? (r as Row[]) : [];
}

const PROBE = 'SELECT 1 AS varlab_timer_probe';

/** The consumers performance_schema's statement timer needs, as setup_consumers names them. */
export const TIMER_CONSUMERS = ['global_instrumentation', 'thread_instrumentation', 'events_statements_current', 'events_statements_history_long'];

/**
 * Why the exact timer is not the one, in words: performance_schema off (null), the consumers it needs
 * that are off, or (none off) that it does not time this connection's statements.
 */
export function whyNotExact(off: string[] | null): string {
  if (off === null) return 'performance_schema is off';
  return off.length ? `performance_schema's consumer${off.length > 1 ? 's' : ''} ${off.join(', ')} ${off.length > 1 ? 'are' : 'is'} off` : "performance_schema does not time this connection's statements";
}

/**
 * Which server-side timer this connection offers, proved by timing a probe statement and finding it
 * in the history: performance_schema's statement history (exact), else query profiling (rounded to
 * the microsecond, with a constant of its own), else none (the client's round trip). The probes run
 * once per connection (once per restart), never between measured executions.
 */
export async function detectTimer(conn: Connection): Promise<ServerTimer> {
  let why = whyNotExact(null);
  try {
    const [ps] = await rows(conn, 'SELECT @@performance_schema AS ps');
    if (Number(ps?.ps) === 1) {
      const [thread] = await rows(conn, 'SELECT THREAD_ID AS t FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()');
      if (thread?.t != null) {
        const timer: ServerTimer = { source: 'performance_schema', threadId: Number(thread.t) };
        await conn.query(PROBE);
        if ((await history(conn, timer, 0)).some((r) => r.text === PROBE && r.ms > 0)) return timer;
      }
      const off = await rows(conn, `SELECT NAME AS n FROM performance_schema.setup_consumers WHERE ENABLED <> 'YES' AND NAME IN (${TIMER_CONSUMERS.map((c) => `'${c}'`).join(', ')})`);
      why = whyNotExact(off.map((r) => String(r.n)));
    }
  } catch (e) {
    why = `performance_schema cannot be read (${(e as Error).message})`;
  }
  try {
    await conn.query('SET profiling = 1');
    // SHOW PROFILES keeps at most 100 statements: a batch is never longer.
    await conn.query(`SET profiling_history_size = ${BATCH}`);
    await conn.query(PROBE);
    const timer: ServerTimer = { source: 'profiling', why };
    if ((await history(conn, timer, 0)).some((r) => r.text === PROBE)) return timer;
  } catch {
    /* profiling compiled out (MySQL builds without it) */
  }
  return { source: 'client', why };
}

/** What the exact timer's reuse reads of a connection: its thread, the timer's consumers on, where its history stands. */
const PROBE_THREAD = 't.THREAD_ID';
const PROBE_CONSUMERS = `(SELECT COUNT(*) FROM performance_schema.setup_consumers WHERE ENABLED = 'YES' AND NAME IN (${TIMER_CONSUMERS.map((c) => `'${c}'`).join(', ')}))`;
const PROBE_MARK = '(SELECT COALESCE(MAX(h.EVENT_ID), 0) FROM performance_schema.events_statements_history_long h WHERE h.THREAD_ID = t.THREAD_ID AND h.NESTING_EVENT_LEVEL = 0)';
const PROBE_FROM = "FROM performance_schema.threads t WHERE t.PROCESSLIST_ID = CONNECTION_ID() AND t.INSTRUMENTED = 'YES'";

/** The exact timer is this connection's when its thread is instrumented, the consumers on, and the history's mark a number. */
function exactTimerOf(thread: unknown, consumers: unknown, mark: unknown): { timer: ServerTimer; after: number } | null {
  return thread != null && Number.isSafeInteger(Number(thread)) && Number(consumers) === TIMER_CONSUMERS.length && Number.isSafeInteger(Number(mark)) ? { timer: { source: 'performance_schema', threadId: Number(thread) }, after: Number(mark) } : null;
}

/**
 * The same probe as one (n, e) row named `TIMER_PROBE_NAME`, "thread consumers mark", for a read back
 * that already runs on the measuring login (host/server.ts readBack): the timer's query rides in it.
 */
export const TIMER_PROBE_NAME = 'varlab:timer';
export const TIMER_PROBE_ROW = `SELECT '${TIMER_PROBE_NAME}' AS n, CONCAT_WS(' ', ${PROBE_THREAD}, ${PROBE_CONSUMERS}, ${PROBE_MARK}) AS e ${PROBE_FROM}`;

/** The exact timer from that row's value (as reuseExactTimer judges it), or null. */
export function exactTimerFromProbe(value: string | undefined): { timer: ServerTimer; after: number } | null {
  const [t, c, m] = (value ?? '').split(' ');
  return m === undefined ? null : exactTimerOf(t, c, m);
}

/**
 * The exact timer on a new connection to a server where it was proved before with the same options
 * (the same cell of the run): one query, which finds this connection's THREAD_ID, instrumented, the
 * statement consumers the timer needs on, and where the thread's statement history stands (`after`,
 * its newest statement id: the first batch's figures come after it; issue 22, a lean restart: no
 * round trip of its own for historyMark). Null when it does not: then detectTimer proves it anew.
 */
export async function reuseExactTimer(conn: Connection): Promise<{ timer: ServerTimer; after: number } | null> {
  try {
    const [row] = await rows(conn, `SELECT ${PROBE_THREAD} AS t, ${PROBE_CONSUMERS} AS c, ${PROBE_MARK} AS m ${PROBE_FROM}`);
    return row ? exactTimerOf(row.t, row.c, row.m) : null;
  } catch {
    return null;
  }
}

/** The statement a timer is held against the client's round trip with: it does nothing but answer. */
export const VS_CLIENT_QUERY = 'SELECT 1';
const VS_CLIENT_N = 30;

/**
 * A server timer that is not the exact one, held against the client's round trip: VS_CLIENT_N
 * executions of VS_CLIENT_QUERY back to back (as the query loop runs them), and per execution the
 * client's time less the server's figure; its median is the offset (what the figure leaves out: the
 * network, the driver, and query profiling's own constant), its standard deviation the spread. Null
 * when the timer gives too few figures to say.
 */
export async function timerAgainstClient(conn: Connection, timer: ServerTimer): Promise<TimerVsClient | null> {
  if (timer.source === 'client') return null;
  const b = await measureBatch(conn, VS_CLIENT_QUERY, VS_CLIENT_N, timer, await historyMark(conn, timer));
  const d = b.executions.flatMap((m) => (m ? [m.client - m.value] : []));
  if (d.length < 3) return null;
  const s = [...d].sort((x, y) => x - y);
  const median = s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  const mean = d.reduce((x, y) => x + y, 0) / d.length;
  const sd = Math.sqrt(d.reduce((x, y) => x + (y - mean) ** 2, 0) / (d.length - 1));
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return { source: timer.source, query: VS_CLIENT_QUERY, n: d.length, offsetMs: r3(median), spreadMs: r3(sd), at: Date.now() };
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

/** Executions in a row before the timer's figures are read: SHOW PROFILES keeps no more. */
export const BATCH = 100;

/**
 * The server's history of this connection's statements after id `after`: performance_schema's
 * events_statements_history_long (top-level statements; TIMER_WAIT in picoseconds) or SHOW PROFILES
 * (which is not profiled itself; Duration in seconds).
 */
export async function history(conn: Connection, timer: ServerTimer, after: number): Promise<HistoryRow[]> {
  if (timer.source === 'performance_schema') {
    const list = await rows(
      conn,
      `SELECT EVENT_ID AS id, TIMER_WAIT AS w, ROWS_SENT AS r, SQL_TEXT AS s FROM performance_schema.events_statements_history_long WHERE THREAD_ID = ${Number(timer.threadId)} AND EVENT_ID > ${Number(after)} AND NESTING_EVENT_LEVEL = 0 ORDER BY EVENT_ID`,
    );
    return list.map((r) => ({ id: Number(r.id), text: String(r.s ?? ''), ms: r.w == null ? NaN : serverMs('performance_schema', r.w), rows: Number(r.r) }));
  }
  if (timer.source === 'profiling') {
    const list = await rows(conn, 'SHOW PROFILES');
    return list.map((r) => ({ id: Number(r.Query_ID), text: String(r.Query ?? ''), ms: r.Duration == null ? NaN : serverMs('profiling', r.Duration) })).filter((r) => r.id > after);
  }
  return [];
}

/** The newest statement id of this connection's history: where the first batch's figures start. */
export async function historyMark(conn: Connection, timer: ServerTimer): Promise<number> {
  return (await history(conn, timer, 0)).reduce((m, r) => Math.max(m, r.id), 0);
}

export interface Batch {
  /** Each execution of the batch, or null: no figure of the server's timer is provably its own (measure it again). */
  executions: (Measurement | null)[];
  /** The next batch's `after`. */
  last: number;
}

/**
 * `n` executions of one statement back to back (nothing between them but the next statement), then
 * the server timer's figures read once and matched to them (history.ts).
 */
export async function measureBatch(conn: Connection, sql: string, n: number, timer: ServerTimer, after: number, checkCancel: () => void = () => {}): Promise<Batch> {
  const sent: (SentExecution & { rows: number; clientMs: number; at: number })[] = [];
  for (let i = 0; i < n; i++) {
    checkCancel();
    const t0 = process.hrtime.bigint();
    const count = await streamed(conn, sql).catch((e: unknown) => {
      throw refusedOrAsIs(e);
    });
    const clientMs = Number(process.hrtime.bigint() - t0) / 1e6;
    sent.push({ sql, rows: count, clientMs, at: Date.now() });
  }
  const client = (x: (typeof sent)[number]): Measurement => ({ value: x.clientMs, client: x.clientMs, source: 'client', rows: x.rows, at: x.at });
  if (timer.source === 'client') return { executions: sent.map(client), last: after };
  const m = matchBatch(sent, await history(conn, timer, after), after, timer.source === 'profiling' ? 'consecutive' : 'increasing');
  return { executions: sent.map((x, i) => (m.ms[i] === null ? null : { ...client(x), value: m.ms[i]!, source: timer.source })), last: m.last };
}
