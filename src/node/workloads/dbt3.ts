// The DBT-3 data step: make the tables of a DBT-3 database on the target and fill them, from the
// generator (common/dbt3) or from a folder of `.tbl` files, over the run's own connection.
//
// Rows go in by LOAD DATA LOCAL INFILE from a stream made here (nothing is written on the target),
// or by batched INSERTs when the server refuses LOCAL INFILE. Each chunk of rows goes in with its
// line in the chunk table in one transaction, so a load that is killed loses at most the chunk it
// was in, and the next load goes on from there. A finished load is marked (SF, seed, source,
// generator version, row counts) and recognised: the same data is not loaded twice.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import { resultChecksum, type QueryExpectation } from '../../common/dbt3/check.js';
import { expectedResults } from '../../common/dbt3/expected.js';
import { Dbt3Generator, GENERATOR_VERSION, TABLES, sfProblem, type Dbt3Table } from '../../common/dbt3/generate.js';
import { dbt3Queries } from '../../common/dbt3/queries.js';
import { CHUNK_TABLE, CREATE_CHUNKS, CREATE_MARKER, INDEXES, MARKER_TABLE, addIndexes, createTable, loadStatement } from '../../common/dbt3/schema.js';

/** What to load: generated rows at a scale factor and seed, or the `.tbl` files of a local folder. */
export interface Dbt3Data {
  sf: number;
  seed: number;
  /** A folder of region.tbl … lineitem.tbl on this machine (the SF is then what the files were made at). */
  folder?: string;
}

export interface Dbt3Progress {
  phase: 'rows' | 'indexes' | 'analyze' | 'check';
  table?: Dbt3Table;
  /** Fraction of the rows phase done, from 0 to 1. */
  fraction: number;
  elapsedMs: number;
  /** Time left for the rows, from the rate so far (null until there is a rate). */
  remainingMs: number | null;
}

export interface QueryCheckResult {
  query: string;
  rows: number;
  checksum: string;
  expected?: QueryExpectation;
  ms: number;
}

export interface Dbt3Outcome {
  /** The data was already there, finished: nothing was loaded. */
  recognised: boolean;
  /** The load went on from chunks an interrupted load had finished. */
  resumedChunks: number;
  rows: Partial<Record<Dbt3Table, number>>;
  checks: QueryCheckResult[];
  ms: number;
  method: 'load-data-local' | 'insert';
}

export interface Dbt3LoadOptions {
  onProgress?(p: Dbt3Progress): void;
  checkCancel?(): void;
  /** Units (rows; parts for partsupp; orders for lineitem) per chunk. */
  chunkUnits?: number;
  /** Skip the check of the 22 queries (the bench). */
  skipCheck?: boolean;
  /** Once the tables exist and before rows are loaded (not for a database recognised as loaded): a check that may refuse the load. */
  beforeRows?(): Promise<void>;
}

export const DEFAULT_CHUNK_UNITS = 100_000;
/** The share of the rows' bytes moved before the time left is estimated from their rate. */
const MOVED_BEFORE_ESTIMATE = 0.05;

/** Approximate `.tbl` bytes per unit, measured on the generator: the progress weighs tables by them. */
const BYTES_PER_UNIT: Record<Dbt3Table, number> = { region: 107, nation: 89, part: 119, supplier: 136, partsupp: 576, customer: 160, orders: 111, lineitem: 485 };

/** The marker's `source`: what the rows came from. */
export function sourceOf(d: Dbt3Data): string {
  return d.folder ? `folder:${resolve(d.folder)}` : 'generator';
}

export function dbt3Problem(d: Dbt3Data): string | null {
  const p = sfProblem(d.sf);
  if (p) return p;
  if (!Number.isInteger(d.seed) || d.seed < 0 || d.seed > 0xffffffff) return `the DBT-3 seed must be an integer from 0 to 4294967295, not ${d.seed}`;
  if (d.folder !== undefined) {
    const missing = TABLES.filter((t) => !existsSync(join(d.folder!, `${t}.tbl`)));
    if (missing.length) return `the folder ${resolve(d.folder)} has no ${missing.map((t) => `${t}.tbl`).join(', ')}`;
  }
  return null;
}

async function rowsOf(conn: Connection, sql: string, values?: unknown[]): Promise<Record<string, unknown>[]> {
  const [rows] = await conn.query(sql, values);
  return rows as Record<string, unknown>[];
}

interface Marker {
  sf: number;
  seed: number;
  source: string;
  version: number;
  state: string;
  row_counts: string | null;
}

/** The marker of a database, or null when it has none. */
export async function readMarker(conn: Connection, database: string): Promise<Marker | null> {
  const has = await rowsOf(conn, 'SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?', [database, MARKER_TABLE]);
  if (!has.length) return null;
  const [m] = await rowsOf(conn, `SELECT sf, seed, source, version, state, row_counts FROM ${conn.escapeId(database)}.${MARKER_TABLE} WHERE id = 1`);
  return m ? { sf: Number(m.sf), seed: Number(m.seed), source: String(m.source), version: Number(m.version), state: String(m.state), row_counts: m.row_counts === null ? null : String(m.row_counts) } : null;
}

const describeMarker = (m: Marker) => `DBT-3 at SF ${m.sf} (${m.source === 'generator' ? `seed ${m.seed}, generator version ${m.version}` : m.source})${m.state === 'done' ? '' : `, a load left ${m.state}`}`;

/** Load (or recognise, or resume) a DBT-3 database. The connection is the profile's admin account. */
export async function loadDbt3(conn: Connection, database: string, data: Dbt3Data, opts: Dbt3LoadOptions = {}): Promise<Dbt3Outcome> {
  const problem = dbt3Problem(data);
  if (problem) throw new ApiError('invalid-argument', problem);
  const t0 = Date.now();
  const source = sourceOf(data);
  const db = conn.escapeId(database);
  await conn.query(`CREATE DATABASE IF NOT EXISTS ${db}`);
  await conn.query(`USE ${db}`);

  const marker = await readMarker(conn, database);
  const same = marker && marker.sf === data.sf && marker.source === source && (data.folder || (marker.seed === data.seed && marker.version === GENERATOR_VERSION));
  if (marker && !same) {
    throw new ApiError('conflict', `database ${database} holds ${describeMarker(marker)}, not SF ${data.sf} from ${source === 'generator' ? `seed ${data.seed}` : source}: choose another database for this data, or drop ${database} first`);
  }
  if (marker?.state === 'done') {
    return { recognised: true, resumedChunks: 0, rows: JSON.parse(marker.row_counts ?? '{}'), checks: [], ms: Date.now() - t0, method: 'load-data-local' };
  }
  if (!marker) {
    const theirs = await rowsOf(conn, `SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (${TABLES.map(() => '?').join(', ')})`, [database, ...TABLES]);
    if (theirs.length) {
      throw new ApiError('conflict', `database ${database} already has table${theirs.length > 1 ? 's' : ''} ${theirs.map((r) => r.t).join(', ')} that varlab did not load (no ${MARKER_TABLE} marker): choose another database, or drop ${database} first`);
    }
    await conn.query(CREATE_MARKER);
    await conn.query(`INSERT INTO ${MARKER_TABLE} (id, sf, seed, source, version, state, started_at) VALUES (1, ?, ?, ?, ?, 'loading', NOW())`, [data.sf, data.seed, source, GENERATOR_VERSION]);
  }
  await conn.query(CREATE_CHUNKS);
  for (const t of TABLES) await conn.query(createTable(t));
  await opts.beforeRows?.();

  const [local] = await rowsOf(conn, 'SELECT @@local_infile AS v');
  const method: Dbt3Outcome['method'] = Number(local?.v) === 1 ? 'load-data-local' : 'insert';
  const done = new Map<string, number>();
  for (const r of await rowsOf(conn, `SELECT tbl, chunk, row_count FROM ${CHUNK_TABLE}`)) done.set(`${r.tbl}/${r.chunk}`, Number(r.row_count));
  const resumedChunks = done.size;

  const gen = data.folder ? null : new Dbt3Generator(data.sf, data.seed);
  const chunkUnits = data.folder ? Infinity : Math.max(1, opts.chunkUnits ?? DEFAULT_CHUNK_UNITS);
  // The rows phase's work in bytes, for the progress and the time left.
  const size = (t: Dbt3Table) => (data.folder ? statSync(join(data.folder, `${t}.tbl`)).size : (gen!.units(t) * BYTES_PER_UNIT[t]));
  const total = TABLES.reduce((s, t) => s + size(t), 0);
  let doneBytes = 0;
  let movedBytes = 0; // this load's own bytes: the rate is theirs alone
  const tRows = Date.now();
  let lastReport = 0;
  const report = (table: Dbt3Table, force = false) => {
    const now = Date.now();
    if (!opts.onProgress || (!force && now - lastReport < 250)) return;
    lastReport = now;
    const rate = movedBytes / Math.max(1, now - tRows);
    // No time left before 5 % of the bytes have moved: the first tables are a few rows each, whose
    // round trips, not their bytes, set their pace (SF 0.01 said "20 min left" for a load of seconds).
    const known = movedBytes >= MOVED_BEFORE_ESTIMATE * total;
    opts.onProgress({ phase: 'rows', table, fraction: Math.min(1, doneBytes / total), elapsedMs: now - t0, remainingMs: known ? Math.max(0, (total - doneBytes) / rate) : null });
  };

  const rows: Partial<Record<Dbt3Table, number>> = {};
  for (const table of TABLES) {
    const units = gen ? gen.units(table) : 1;
    const chunks = gen ? Math.ceil(units / chunkUnits) : 1;
    rows[table] = 0;
    for (let c = 0; c < chunks; c++) {
      const key = `${table}/${c}`;
      const chunkBytes = gen ? (Math.min(units, (c + 1) * chunkUnits) - c * chunkUnits) * BYTES_PER_UNIT[table] : size(table);
      if (done.has(key)) {
        rows[table]! += done.get(key)!;
        doneBytes += chunkBytes;
        continue;
      }
      opts.checkCancel?.();
      const before = doneBytes;
      const counted = (n: number) => {
        // Generated chunks are estimated; keep the count within the chunk's estimate.
        doneBytes = Math.min(before + chunkBytes, doneBytes + n);
        movedBytes += n;
        report(table);
      };
      const stream = gen ? generatedStream(gen, table, c * chunkUnits, Math.min(units, (c + 1) * chunkUnits), counted) : fileStream(join(data.folder!, `${table}.tbl`), counted);
      let n: number;
      try {
        await conn.query('START TRANSACTION');
        n = method === 'load-data-local' ? await loadLocal(conn, table, stream) : await insertBatches(conn, table, stream);
        await conn.query(`INSERT INTO ${CHUNK_TABLE} (tbl, chunk, row_count) VALUES (?, ?, ?)`, [table, c, n]);
        await conn.query('COMMIT');
      } catch (e) {
        stream.destroy();
        await conn.query('ROLLBACK').catch(() => undefined);
        throw new ApiError('io', `loading DBT-3 table ${table} (chunk ${c + 1} of ${chunks}) into ${database} failed: ${(e as Error).message}`);
      }
      rows[table]! += n;
      doneBytes = before + chunkBytes;
      report(table, true);
    }
  }

  // DBT-3's secondary indexes, those not there yet (a resumed load may have added some).
  const now = () => Date.now() - t0;
  opts.onProgress?.({ phase: 'indexes', fraction: 1, elapsedMs: now(), remainingMs: null });
  const have = new Set((await rowsOf(conn, 'SELECT DISTINCT INDEX_NAME AS i FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?', [database])).map((r) => String(r.i)));
  for (const t of TABLES) {
    opts.checkCancel?.();
    const sql = addIndexes(t, INDEXES[t].map(([n]) => n).filter((n) => !have.has(n)));
    if (sql) await conn.query(sql);
  }
  opts.onProgress?.({ phase: 'analyze', fraction: 1, elapsedMs: now(), remainingMs: null });
  await conn.query(`ANALYZE TABLE ${TABLES.join(', ')}`);

  const checks = opts.skipCheck ? [] : await checkDbt3Queries(conn, data, opts);
  await conn.query(`UPDATE ${MARKER_TABLE} SET state = 'done', row_counts = ?, finished_at = NOW() WHERE id = 1`, [JSON.stringify(rows)]);
  return { recognised: false, resumedChunks, rows, checks, ms: Date.now() - t0, method };
}

/**
 * Run the 22 queries once and compare each result with what this data must give (shipped for the
 * generator's data at the SFs in expected.ts). A mismatch stops the load before the data is marked done.
 */
export async function checkDbt3Queries(conn: Connection, data: Dbt3Data, opts: Pick<Dbt3LoadOptions, 'onProgress' | 'checkCancel'> = {}): Promise<QueryCheckResult[]> {
  const expected = data.folder ? undefined : expectedResults(data.sf, data.seed, GENERATOR_VERSION);
  const out: QueryCheckResult[] = [];
  const wrong: string[] = [];
  const t0 = Date.now();
  for (const q of dbt3Queries(data.sf)) {
    opts.checkCancel?.();
    opts.onProgress?.({ phase: 'check', fraction: 1, elapsedMs: Date.now() - t0, remainingMs: null });
    const t = Date.now();
    const [rows] = await conn.query({ sql: q.sql, rowsAsArray: true, dateStrings: true });
    const list = rows as unknown[][];
    const r: QueryCheckResult = { query: q.name, rows: list.length, checksum: resultChecksum(list), ms: Date.now() - t };
    const e = expected?.[q.name];
    if (e) {
      r.expected = e;
      if (e.rows !== r.rows || e.checksum !== r.checksum) wrong.push(`${q.name}: ${r.rows} rows, checksum ${r.checksum}; expected ${e.rows} rows, checksum ${e.checksum}`);
    }
    out.push(r);
  }
  if (wrong.length) throw new ApiError('verify-failed', `the DBT-3 queries gave results other than this data must give (a wrong plan or wrong data):\n  ${wrong.join('\n  ')}`);
  return out;
}

/** A LOAD DATA LOCAL INFILE whose file is the stream; the server gets rows, no file is made anywhere. */
async function loadLocal(conn: Connection, table: Dbt3Table, stream: Readable): Promise<number> {
  const [res] = await conn.query({ sql: loadStatement(table, `varlab-dbt3/${table}.tbl`, true), infileStreamFactory: () => stream });
  return Number((res as { affectedRows: number }).affectedRows);
}

/** Batched INSERTs of the stream's `.tbl` lines, about 1 MB a statement (for servers with local_infile off). */
async function insertBatches(conn: Connection, table: Dbt3Table, stream: Readable): Promise<number> {
  let rest = '';
  let batch: string[] = [];
  let len = 0;
  let n = 0;
  const flush = async () => {
    if (!batch.length) return;
    await conn.query(`INSERT INTO ${table} VALUES ${batch.join(',')}`);
    n += batch.length;
    batch = [];
    len = 0;
  };
  for await (const chunk of stream) {
    const lines = (rest + String(chunk)).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (!line) continue;
      const values = line.endsWith('|') ? line.slice(0, -1).split('|') : line.split('|');
      const tuple = `(${values.map((v) => conn.escape(v)).join(',')})`;
      batch.push(tuple);
      len += tuple.length;
      if (len > 1 << 20) await flush();
    }
  }
  if (rest) throw new Error(`the last line of ${table} does not end in a newline: ${rest.slice(0, 80)}`);
  await flush();
  return n;
}

/** A stream of the generator's lines for units [from, to), made as the server reads them (bounded memory). */
function generatedStream(gen: Dbt3Generator, table: Dbt3Table, from: number, to: number, counted: (bytes: number) => void): Readable {
  const it = gen.batches(table, from, to);
  return new Readable({
    read() {
      const r = it.next();
      if (r.done) this.push(null);
      else {
        counted(r.value.length);
        this.push(r.value, 'latin1');
      }
    },
  });
}

/** A file's bytes as the server reads them (counted on the way: a 'data' listener would start the flow before the driver reads). */
function fileStream(path: string, counted: (bytes: number) => void): Readable {
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      counted(chunk.length);
      done(null, chunk);
    },
  });
  const file = createReadStream(path);
  file.on('error', (e) => count.destroy(e));
  return file.pipe(count);
}
