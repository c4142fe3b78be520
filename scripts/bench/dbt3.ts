// DBT-3 load benchmark: generating and loading SF (default 1; VARLAB_BENCH_DBT3_SF=0.1 for a quick
// look) into a local sandbox mariadbd over varlab's connection, against LOAD DATA INFILE of the same
// rows from local .tbl files read by the server itself; the same schema, indexes and ANALYZE after
// both. Also the generator alone: its time and its peak resident memory. Prints figures; asserts nothing.
import { chmodSync, createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Connection } from 'mysql2/promise';
import { Dbt3Generator, TABLES } from '../../src/common/dbt3/generate.js';
import { INDEXES, addIndexes, createTable, loadStatement } from '../../src/common/dbt3/schema.js';
import { bufferPoolMb, sizeOption } from '../../src/common/dbt3/template.js';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

export async function bench(): Promise<void> {
  const sf = Number(process.env.VARLAB_BENCH_DBT3_SF ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'varlab-bench-dbt3-'));
  chmodSync(dir, 0o755);
  const savedHome = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = join(dir, 'home');
  const { createSandbox, createServerControl, openTarget, removeSandbox } = await import('../../src/node/host/index.js');
  const { loadDbt3 } = await import('../../src/node/workloads/dbt3.js');
  console.log(`SF ${sf}`);

  // The generator alone, written to .tbl files (the other side's input); its peak RSS sampled per batch.
  const files = join(dir, 'tbl');
  mkdirSync(files);
  chmodSync(files, 0o755);
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  let t = Date.now();
  const gen = new Dbt3Generator(sf);
  let bytes = 0;
  for (const table of TABLES) {
    const out = createWriteStream(join(files, `${table}.tbl`), { mode: 0o644 });
    for (const b of gen.batches(table)) {
      bytes += b.length;
      if (!out.write(b, 'latin1')) await once(out, 'drain');
      peak = Math.max(peak, process.memoryUsage().rss);
    }
    out.end();
    await once(out, 'finish');
  }
  const genMs = Date.now() - t;
  console.log(`generator: ${(bytes / 1e6).toFixed(0)} MB of .tbl rows in ${s(genMs)} (${(bytes / 1e6 / (genMs / 1000)).toFixed(0)} MB/s, written to files); peak RSS ${(peak / 1e6).toFixed(0)} MB (${((peak - rss0) / 1e6).toFixed(0)} MB above the process before it)`);

  const session = await openTarget('local', { prompt: async () => ({ accept: false }) });
  const pool = sizeOption(bufferPoolMb(sf));
  const { profile } = await createSandbox(session, { parent: dir, bufferPool: pool, options: ['innodb_flush_log_at_trx_commit=2', `secure_file_priv=${files}`] });
  const control = createServerControl(session, profile, { paths: { records: join(dir, 'records') } });
  let conn: Connection | null = null;
  try {
    await control.restart([], {});
    conn = await control.connect();

    // varlab: generate and stream (LOAD DATA LOCAL from the generator), indexes, ANALYZE.
    t = Date.now();
    let rowsMs = 0;
    const out = await loadDbt3(conn, 'gen', { sf, seed: gen.seed }, { skipCheck: true, onProgress: (p) => (p.phase === 'indexes' && !rowsMs ? (rowsMs = Date.now() - t) : undefined) });
    const varlabMs = Date.now() - t;

    // The reference: the server reads the same rows from local files (LOAD DATA INFILE), same schema, indexes, ANALYZE.
    t = Date.now();
    await conn.query('CREATE DATABASE ref');
    await conn.query('USE ref');
    for (const table of TABLES) await conn.query(createTable(table));
    for (const table of TABLES) await conn.query(loadStatement(table, join(files, `${table}.tbl`), false));
    const refRowsMs = Date.now() - t;
    for (const table of TABLES) {
      const sql = addIndexes(table, INDEXES[table].map(([n]) => n));
      if (sql) await conn.query(sql);
    }
    await conn.query(`ANALYZE TABLE ${TABLES.join(', ')}`);
    const refMs = Date.now() - t;

    const rows = Object.values(out.rows).reduce((a, b) => a + (b ?? 0), 0);
    console.log(`varlab (generate + LOAD DATA LOCAL from a stream): rows ${s(rowsMs)}, with indexes and ANALYZE ${s(varlabMs)} (${rows.toLocaleString('en-US')} rows, ${out.method})`);
    console.log(`LOAD DATA INFILE from local .tbl files:             rows ${s(refRowsMs)}, with indexes and ANALYZE ${s(refMs)}`);
    console.log(`ratio varlab / LOAD DATA INFILE: rows ${(rowsMs / refRowsMs).toFixed(2)}x, whole ${(varlabMs / refMs).toFixed(2)}x (goal: at most 2x)`);
  } finally {
    conn?.destroy();
    await control.stop().catch(() => {});
    await removeSandbox(session, profile).catch(() => {});
    await session.close();
    rmSync(dir, { recursive: true, force: true });
    if (savedHome === undefined) delete process.env.VARLAB_HOME;
    else process.env.VARLAB_HOME = savedHome;
  }
}
