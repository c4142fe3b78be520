// DBT-3 at SF 0.01 into a real local sandbox mariadbd that varlab creates: the load, the 22 queries
// with their expected results, a second load recognising the data, a design's bad query refused
// before any row is loaded, a load killed halfway going on from its chunks, a user's .tbl files, and
// the batched INSERTs used when LOCAL INFILE is refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from 'mysql2/promise';
import type { Workload } from '../../src/common/experiment/types.js';
import { pidFileOf } from '../../src/common/profile.js';
import { expectedResults } from '../../src/common/dbt3/expected.js';
import { DEFAULT_SEED, Dbt3Generator, GENERATOR_VERSION, TABLES } from '../../src/common/dbt3/generate.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-dbt3-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
const host = await import('../../src/node/host/index.js');
const { loadDbt3 } = await import('../../src/node/workloads/dbt3.js');
const { runDataStep } = await import('../../src/node/workloads/data-step.js');

let session: Awaited<ReturnType<typeof host.openTarget>>;
let profile: Awaited<ReturnType<typeof host.createSandbox>>['profile'];
let control: ReturnType<typeof host.createServerControl>;
let pidFile: string | null = null;
const open: Connection[] = [];
const connect = async () => {
  const c = await control.connect();
  open.push(c);
  return c;
};
const data = { sf: 0.01, seed: DEFAULT_SEED };
const expected = expectedResults(0.01, DEFAULT_SEED, GENERATOR_VERSION)!;
const count = async (conn: Connection, sql: string) => Number(((await conn.query(sql))[0] as { n: number }[])[0].n);

before(async () => {
  session = await host.openTarget('local', { prompt: async () => ({ accept: false }) });
  profile = (await host.createSandbox(session, { parent: dir, bufferPool: '256M' })).profile;
  pidFile = pidFileOf(profile);
  control = host.createServerControl(session, profile, { paths: { records: join(dir, 'records') } });
  await control.restart([], {});
});

after(async () => {
  for (const c of open) c.destroy();
  await control?.stop().catch(() => {});
  const pid = pidFile && existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null;
  if (pid) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* stopped */
    }
  }
  if (profile) await host.removeSandbox(session, profile).catch(() => {});
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('SF 0.01 loads: the DBT-3 tables and indexes, and each of the 22 queries gives its expected rows and checksum', async () => {
  const conn = await connect();
  const progress: string[] = [];
  const rowsLeft: { fraction: number; remainingMs: number | null }[] = [];
  const out = await loadDbt3(conn, 'dbt3', data, { onProgress: (p) => (progress.push(p.phase), p.phase === 'rows' && rowsLeft.push({ fraction: p.fraction, remainingMs: p.remainingMs })) });
  // No time left from the first tables' few rows (each table's end is reported, region's at a tiny fraction); from 5 % on, one.
  const early = rowsLeft.filter((p) => p.fraction < 0.05);
  assert.ok(early.length > 0 && early.every((p) => p.remainingMs === null), JSON.stringify(rowsLeft));
  assert.equal(typeof rowsLeft.at(-1)!.remainingMs, 'number', JSON.stringify(rowsLeft));
  assert.equal(out.recognised, false);
  assert.equal(out.method, 'load-data-local');
  assert.deepEqual(out.rows, { region: 5, nation: 25, part: 2000, supplier: 100, partsupp: 8000, customer: 1500, orders: 15000, lineitem: 60341 });
  assert.equal(await count(conn, 'SELECT COUNT(*) AS n FROM dbt3.lineitem'), 60341);
  assert.equal(out.checks.length, 22);
  for (const c of out.checks) assert.deepEqual({ rows: c.rows, checksum: c.checksum }, expected[c.query], c.query);
  assert.ok(out.checks.find((c) => c.query === 'Q1')!.rows === 4);
  assert.deepEqual([...new Set(progress)], ['rows', 'indexes', 'analyze', 'check']);
  const indexes = await count(conn, "SELECT COUNT(DISTINCT TABLE_NAME, INDEX_NAME) AS n FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'dbt3' AND INDEX_NAME LIKE 'i\\_%'");
  assert.equal(indexes, 15, 'the DBT-3 secondary indexes');
});

test('a second load recognises the data and loads nothing; another SF in the same database is refused, named', async () => {
  const conn = await connect();
  const out = await loadDbt3(conn, 'dbt3', data);
  assert.equal(out.recognised, true);
  assert.equal(out.rows.lineitem, 60341);
  await assert.rejects(loadDbt3(conn, 'dbt3', { sf: 0.02, seed: DEFAULT_SEED }), /database dbt3 holds DBT-3 at SF 0.01 \(seed 20170116.*not SF 0.02/);
  await conn.query('CREATE DATABASE theirs');
  await conn.query('CREATE TABLE theirs.lineitem (x INT)');
  await assert.rejects(loadDbt3(conn, 'theirs', data), /database theirs already has table lineitem that varlab did not load/);
});

test("a design's query the server refuses is named once the tables exist, before any row is loaded", async () => {
  const conn = await connect();
  const progress: string[] = [];
  const workload: Workload = {
    kind: 'queries',
    database: 'dbt3_typo',
    setupSql: '',
    data: { kind: 'dbt3', sf: 0.01 },
    queries: [
      { name: 'Q1', sql: 'SELECT COUNT(*) FROM lineitem' },
      { name: 'typo', sql: 'SELECT l_no_such_column FROM lineitem' },
    ],
    repetitions: 1,
    warmup: 0,
  };
  await assert.rejects(runDataStep(conn, workload, { emit: (e) => progress.push(e.phase) }), /a query fails on the server, so nothing was measured: query "typo": Unknown column 'l_no_such_column'/);
  assert.deepEqual(progress, [], 'no row was loaded');
  assert.equal(await count(conn, 'SELECT COUNT(*) AS n FROM dbt3_typo.lineitem'), 0);
});

test('a load killed halfway goes on from its finished chunks and gives the same data', async () => {
  const victim = await connect();
  const [[{ id }]] = (await victim.query('SELECT CONNECTION_ID() AS id')) as unknown as [[{ id: number }]];
  const killer = await connect();
  let killed = false;
  const first = loadDbt3(victim, 'dbt3_killed', data, {
    chunkUnits: 1000,
    onProgress: (p) => {
      // Halfway through lineitem: the server drops the loading connection, as when varlab is killed.
      if (!killed && p.phase === 'rows' && p.table === 'lineitem' && p.fraction > 0.6) {
        killed = true;
        void killer.query(`KILL ${Number(id)}`);
      }
    },
  });
  await assert.rejects(first, /loading DBT-3 table lineitem/);
  // Whole chunks only: the lines of a whole number of 1000-order chunks, none of the chunk being loaded.
  const orders = await count(killer, 'SELECT COUNT(DISTINCT l_orderkey) AS n FROM dbt3_killed.lineitem');
  assert.ok(orders > 0 && orders < 15000 && orders % 1000 === 0, `whole chunks only: the lines of ${orders} orders`);
  const again = await connect();
  const out = await loadDbt3(again, 'dbt3_killed', data, { chunkUnits: 1000 });
  assert.ok(out.resumedChunks > 0);
  assert.equal(out.rows.orders, 15000);
  assert.equal(out.rows.lineitem, 60341);
  for (const c of out.checks) assert.deepEqual({ rows: c.rows, checksum: c.checksum }, expected[c.query], c.query);
});

test('.tbl files from a local folder load too; with LOCAL INFILE refused, rows go in as batched INSERTs', async () => {
  const tbl = join(dir, 'tbl');
  mkdirSync(tbl);
  const g = new Dbt3Generator(0.01);
  for (const t of TABLES) writeFileSync(join(tbl, `${t}.tbl`), [...g.batches(t)].join(''), 'latin1');
  const conn = await connect();
  const out = await loadDbt3(conn, 'dbt3_files', { ...data, folder: tbl });
  assert.equal(out.rows.lineitem, 60341);
  // The same rows as generated: the queries agree with the generated data's expected results.
  for (const c of out.checks) assert.deepEqual({ rows: c.rows, checksum: c.checksum }, expected[c.query], c.query);

  await conn.query('SET GLOBAL local_infile = 0');
  try {
    const ins = await loadDbt3(conn, 'dbt3_insert', data);
    assert.equal(ins.method, 'insert');
    assert.equal(ins.rows.lineitem, 60341);
    for (const c of ins.checks) assert.deepEqual({ rows: c.rows, checksum: c.checksum }, expected[c.query], c.query);
  } finally {
    await conn.query('SET GLOBAL local_infile = 1');
  }
});
