// The preload step: after the start, read every table and every index of the chosen schemas into the
// buffer pool, so the first measured executions do not pay for disk reads. Reports what it read.
//
// What is scanned comes from one query (preloadListSql), used by the attached run through mysql2 and
// by the detached runner through the mysql client on the target, so both read the same pages.
import type { Connection, RowDataPacket } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';

export interface PreloadReport {
  tables: number;
  indexes: number;
  rows: number;
  ms: number;
}

/** Backquote an identifier for SQL (names come from information_schema, still quoted). */
export const ident = (name: string) => '`' + name.replace(/`/g, '``') + '`';

/** Schema names reach SQL as literals: only plain identifiers (the design's database name is one). */
function schemaLiteral(name: string): string {
  if (!/^[A-Za-z0-9_$]{1,64}$/.test(name)) throw new ApiError('invalid-argument', `preload: schema name ${JSON.stringify(name)} is not a plain identifier`);
  return `'${name}'`;
}

/**
 * One row per scan, in order: `kind` T (a table's first index: PRIMARY when it has one; its rows are
 * counted), t (a table without indexes: a plain scan, rows counted) or i (another index), and
 * `source`, the quoted `schema.table FORCE INDEX (index)` to count from. Each index is scanned on its
 * own (PRIMARY first: the clustered index holds the rows), so every page is read once. `select`
 * makes the select list from the two expressions (the detached runner turns them into statements).
 */
export function preloadListSql(schemas: string[], select = (kind: string, source: string) => `${kind} AS kind, ${source} AS source`): string {
  const q = (x: string) => `CONCAT('\`', REPLACE(${x}, '\`', '\`\`'), '\`')`;
  const kind = `IF(x.INDEX_NAME IS NULL, 't', IF(x.INDEX_NAME = (SELECT IF(SUM(f.INDEX_NAME = 'PRIMARY') > 0, 'PRIMARY', MIN(f.INDEX_NAME)) FROM information_schema.STATISTICS f WHERE f.TABLE_SCHEMA = t.TABLE_SCHEMA AND f.TABLE_NAME = t.TABLE_NAME), 'T', 'i'))`;
  const source = `CONCAT(${q('t.TABLE_SCHEMA')}, '.', ${q('t.TABLE_NAME')}, IF(x.INDEX_NAME IS NULL, '', CONCAT(' FORCE INDEX (', ${q('x.INDEX_NAME')}, ')')))`;
  return [
    `SELECT ${select(kind, source)}`,
    `FROM information_schema.TABLES t LEFT JOIN (SELECT DISTINCT TABLE_SCHEMA, TABLE_NAME, INDEX_NAME FROM information_schema.STATISTICS) x ON x.TABLE_SCHEMA = t.TABLE_SCHEMA AND x.TABLE_NAME = t.TABLE_NAME`,
    `WHERE t.TABLE_SCHEMA IN (${schemas.map(schemaLiteral).join(', ') || "''"}) AND t.TABLE_TYPE = 'BASE TABLE'`,
    `ORDER BY t.TABLE_SCHEMA, t.TABLE_NAME, x.INDEX_NAME = 'PRIMARY' DESC, x.INDEX_NAME`,
  ].join('\n');
}

/** What the scans of a preload add up to, from their kinds and counts. */
export function preloadTotals(scans: { kind: string; n: number }[]): Omit<PreloadReport, 'ms'> {
  let tables = 0;
  let indexes = 0;
  let rows = 0;
  for (const s of scans) {
    if (s.kind === 'T' || s.kind === 't') {
      tables++;
      rows += s.n;
    }
    if (s.kind === 'T' || s.kind === 'i') indexes++;
  }
  return { tables, indexes, rows };
}

export async function preloadSchemas(conn: Connection, schemas: string[]): Promise<PreloadReport> {
  const t0 = performance.now();
  const [list] = await conn.query<RowDataPacket[]>(preloadListSql(schemas));
  const scans: { kind: string; n: number }[] = [];
  for (const { kind, source } of list as { kind: string; source: string }[]) {
    const [[r]] = await conn.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${source}`);
    scans.push({ kind, n: Number(r.n) });
  }
  return { ...preloadTotals(scans), ms: Math.round(performance.now() - t0) };
}
