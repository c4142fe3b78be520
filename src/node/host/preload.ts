// The preload step: after the start, read every table and every index of the chosen schemas into the
// buffer pool, so the first measured executions do not pay for disk reads. Reports what it read.
import type { Connection, RowDataPacket } from 'mysql2/promise';


export interface PreloadReport {
  tables: number;
  indexes: number;
  rows: number;
  ms: number;
}

/** Backquote an identifier for SQL (names come from information_schema, still quoted). */
export const ident = (name: string) => '`' + name.replace(/`/g, '``') + '`';

export async function preloadSchemas(conn: Connection, schemas: string[]): Promise<PreloadReport> {
  const t0 = performance.now();
  let tables = 0;
  let indexes = 0;
  let rows = 0;
  for (const schema of schemas) {
    const [tlist] = await conn.query<RowDataPacket[]>(
      "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME",
      [schema],
    );
    for (const { t } of tlist as { t: string }[]) {
      tables++;
      const table = `${ident(schema)}.${ident(t)}`;
      const [ilist] = await conn.query<RowDataPacket[]>(
        "SELECT DISTINCT INDEX_NAME AS i FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME",
        [schema, t],
      );
      const names = (ilist as { i: string }[]).map((x) => x.i).sort((a, b) => Number(b === 'PRIMARY') - Number(a === 'PRIMARY'));
      // Each index is scanned on its own (PRIMARY first: the clustered index holds the rows), so
      // every page of the table and of its secondary indexes is read once.
      if (names.length === 0) {
        const [[r]] = await conn.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table}`);
        rows += Number(r.n);
      }
      for (const [k, i] of names.entries()) {
        indexes++;
        const [[r]] = await conn.query<RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${table} FORCE INDEX (${ident(i)})`);
        if (k === 0) rows += Number(r.n);
      }
    }
  }
  return { tables, indexes, rows, ms: Math.round(performance.now() - t0) };
}
