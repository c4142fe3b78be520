// The sysbench templates: the second field note's oltp_read_only (runs of 5 minutes, 5 per restart,
// the first taken as warm-up) and the third's oltp_point_select, as benchmark-command workloads.
// Preparing the tables is the setup script: sysbench's own table layout, filled with SQL that MySQL
// 8 and MariaDB both take, skipped when sbtest1 is already there.
import type { ExperimentDoc } from '../experiment/types.js';
import { templateDoc } from './doc.js';

export const SYSBENCH_TESTS = ['oltp_read_only', 'oltp_point_select'] as const;
export type SysbenchTest = (typeof SYSBENCH_TESTS)[number];

export interface SysbenchTemplateOptions {
  test: SysbenchTest;
  /** Runs of the benchmark per restart (default 5). */
  runs?: number;
  /** Seconds per run (default 300). */
  seconds?: number;
  tables?: number;
  tableSize?: number;
  target?: string;
  database?: string;
  restartsPerCell?: number;
}

/** 11 random digits, as sysbench writes each group of `c` and `pad`. */
const GROUP = "LPAD(FLOOR(RAND() * 99999999999), 11, '0')";

/** sysbench prepare's tables (sbtest1…N: id, k, c, pad; index k_N on k), with rows made by SQL. */
export function sbtestSetupSql(tables: number, tableSize: number): string {
  const digits = Math.max(1, Math.ceil(Math.log10(tableSize + 1)));
  const joins = Array.from({ length: digits }, (_, i) => `digits d${i}`).join(', ');
  const n = Array.from({ length: digits }, (_, i) => `${10 ** i} * d${i}.d`).join(' + ');
  const groups = (k: number) => `CONCAT_WS('-', ${Array.from({ length: k }, () => GROUP).join(', ')})`;
  const out = [
    '-- sysbench prepare, as SQL: the tables and rows sysbench would make (its column layout and string shapes).',
    'CREATE TABLE digits (d INT NOT NULL PRIMARY KEY) ENGINE=InnoDB;',
    'INSERT INTO digits VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9);',
    'CREATE TABLE seq (n INT NOT NULL PRIMARY KEY) ENGINE=InnoDB;',
    `INSERT INTO seq SELECT 1 + ${n} FROM ${joins};`,
  ];
  for (let t = 1; t <= tables; t++) {
    out.push(`CREATE TABLE sbtest${t} (id INT NOT NULL AUTO_INCREMENT, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', PRIMARY KEY (id), KEY k_${t} (k)) ENGINE=InnoDB;`);
    out.push(`INSERT INTO sbtest${t} (id, k, c, pad) SELECT n, FLOOR(1 + RAND() * ${tableSize}), ${groups(10)}, ${groups(5)} FROM seq WHERE n <= ${tableSize} ORDER BY n;`);
  }
  out.push('DROP TABLE seq;', 'DROP TABLE digits;');
  return out.join('\n') + '\n';
}

/**
 * How the template's sysbench logs in, said wherever a template is offered: over the socket as the server
 * profile's account with no password, as a sandbox's root does. varlab puts no password in a command
 * line, a file or the target, so an account that has one is given socket authentication instead.
 */
export const SYSBENCH_LOGIN =
  "sysbench logs in over the socket as the server profile's account, with no password (a sandbox's root has none). For an account with a password, let the system user that runs sysbench in by socket authentication instead (MariaDB: ALTER USER … IDENTIFIED VIA unix_socket; MySQL: IDENTIFIED WITH auth_socket): varlab keeps no password in the file, the command line or on the target.";

export function sysbenchTemplate(o: SysbenchTemplateOptions): ExperimentDoc {
  const runs = o.runs ?? 5;
  const seconds = o.seconds ?? 300;
  const tables = o.tables ?? 1;
  const tableSize = o.tableSize ?? 10000;
  const readOnly = o.test === 'oltp_read_only';
  return templateDoc(
    readOnly ? 'sysbench oltp_read_only across restarts' : 'sysbench point select: baseline variance',
    readOnly
      ? `The second field note: ${runs} runs of ${seconds} s of sysbench oltp_read_only (1 thread) per server start; the runs within a start agree, the starts may not. The first run of each start is warm-up. ${SYSBENCH_LOGIN}`
      : `The third field note: know your baseline variance. ${runs} runs of ${seconds} s of sysbench select by primary key (1 thread) per server start, in interleaved order with equal idle time. ${SYSBENCH_LOGIN}`,
    {
      factors: [{ tunable: 'aslr', levels: ['on', 'off'] }],
      restartsPerCell: o.restartsPerCell ?? 5,
      workload: {
        kind: 'command',
        database: o.database ?? 'sbtest',
        setupSql: sbtestSetupSql(tables, tableSize),
        setupSkipIfTable: 'sbtest1',
        queries: [],
        repetitions: runs,
        warmup: readOnly && runs > 1 ? 1 : 0,
        command: {
          line: `sysbench ${o.test} --mysql-socket={socket} --mysql-user={user} --mysql-db={database} --tables=${tables} --table-size=${tableSize} --threads=1 --time=${seconds} --report-interval=1 --percentile=95 run`,
          parser: 'sysbench',
          metric: 'tps',
          unit: 'tps',
          higherIsBetter: true,
        },
      },
      seed: readOnly ? 20130617 : 20130904,
      idleSeconds: 10,
      estimates: { restartSeconds: 10, executionMs: seconds * 1000 + 500 },
    },
    o.target,
  );
}
