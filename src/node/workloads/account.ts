// The measurement account: measured queries (and the preload's scans, and the check of every query
// before the first restart) run as an account that can only read the workload database, so the
// server itself refuses what a file's query must not do: `SELECT … INTO OUTFILE` (no FILE),
// `SET GLOBAL` (no SUPER, no SYSTEM_VARIABLES_ADMIN), any write (SELECT only), any other database.
// The admin account of the server profile makes it, after the setup script, once per run: every
// privilege it had is taken away first, then SELECT on the workload database and on the three
// performance_schema tables the statement timer reads. Its password is new for every run and is
// kept in memory only (the detached runner makes its own on the target, likewise never on disk).
import { randomBytes } from 'node:crypto';
import type { Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';

export const MEASURE_USER = 'varlab_measure';
/** A unix socket login is `localhost`; a TCP one from the target itself (an SSH forward) is `127.0.0.1`. */
export const MEASURE_HOSTS = ['localhost', '127.0.0.1'] as const;
/** What the statement timer reads (queries.ts, the detached runner's session SQL). */
const TIMER_TABLES = ['events_statements_history', 'events_statements_history_long', 'threads', 'setup_consumers'];

export type Flavor = 'mariadb' | 'mysql';

export interface MeasureAccount {
  user: string;
  password: string;
}

const DATABASE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The statements that make (or remake) the account, for one flavor. `PASSWORD` stands for the
 * password as a quoted SQL string (a placeholder for mysql2, a shell variable for the runner).
 * MariaDB and MySQL agree on CREATE USER IF NOT EXISTS, REVOKE and GRANT; they differ in how a
 * password is set: MySQL 8 has no PASSWORD() function, and MariaDB before 10.2 has no ALTER USER.
 */
export function measureAccountSql(flavor: Flavor, database: string, password = '?'): string[] {
  if (!DATABASE.test(database)) throw new ApiError('invalid-argument', `database ${JSON.stringify(database)}: expected letters, digits and _`);
  const out: string[] = [];
  for (const host of MEASURE_HOSTS) {
    const who = `'${MEASURE_USER}'@'${host}'`;
    out.push(`CREATE USER IF NOT EXISTS ${who} IDENTIFIED BY ${password}`);
    out.push(flavor === 'mariadb' ? `SET PASSWORD FOR ${who} = PASSWORD(${password})` : `ALTER USER ${who} IDENTIFIED BY ${password}`);
    // Whatever an earlier run (or anyone) gave it goes: it reads this run's database and nothing else.
    out.push(`REVOKE ALL PRIVILEGES, GRANT OPTION FROM ${who}`);
    out.push(`GRANT SELECT ON \`${database}\`.* TO ${who}`);
    for (const t of TIMER_TABLES) out.push(`GRANT SELECT ON performance_schema.${t} TO ${who}`);
  }
  return out;
}

/** Which server this connection is on, from its version string. */
export async function flavorOf(conn: Connection): Promise<Flavor> {
  const [rows] = await conn.query('SELECT VERSION() AS v');
  const v = String((rows as { v?: unknown }[])[0]?.v ?? '');
  return /mariadb/i.test(v) ? 'mariadb' : 'mysql';
}

/** Make the account on the server the admin connection is logged in to; returns how to log in as it. */
export async function makeMeasureAccount(admin: Connection, database: string): Promise<MeasureAccount> {
  const password = randomBytes(18).toString('base64url');
  const flavor = await flavorOf(admin);
  for (const sql of measureAccountSql(flavor, database)) {
    const n = (sql.match(/\?/g) ?? []).length;
    try {
      await admin.query(sql, Array(n).fill(password));
    } catch (e) {
      // The statement, never the password: it is not in the text (a placeholder).
      throw new ApiError('auth', `cannot make the read-only measurement account ${MEASURE_USER} as the server profile's account: ${(e as Error).message}. That account needs CREATE USER and GRANT OPTION (root does); statement: ${sql}`);
    }
  }
  return { user: MEASURE_USER, password };
}
