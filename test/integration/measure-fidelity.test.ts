// Issue 22, on a sandbox mariadbd that varlab makes and starts (target `local`): the exact timer is on
// and read back at start; a query's executions run back to back and every one gets the figure of its
// own statement, the very TIMER_WAIT a by-hand reader of events_statements_history_long sees; a
// server without performance_schema is measured with query profiling and says how to turn on the
// exact timer; and an option nothing reads back is "set, not verifiable", never verified.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { Workload } from '../../src/common/experiment/types.js';
import type { RegisteredProfile } from '../../src/node/host/index.js';
import type { Execution } from '../../src/node/workloads/runners.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-fidelity-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
const host = await import('../../src/node/host/index.js');
const { detectTimer } = await import('../../src/node/workloads/queries.js');
const { runQueryLoop } = await import('../../src/node/workloads/runners.js');
const { schedPolicy, SCHED_BATCH, SCHED_OTHER } = await import('../../src/node/host/server-first.js');

let session: Awaited<ReturnType<typeof host.openTarget>>;
let profile: RegisteredProfile;
const controls: ReturnType<typeof host.createServerControl>[] = [];

before(async () => {
  session = await host.openTarget('local', { prompt: async () => ({ accept: false }) });
  profile = (await host.createSandbox(session, { parent: dir })).profile;
});

after(async () => {
  for (const c of controls) await c.stop().catch(() => {});
  if (session && profile) await host.removeSandbox(session, profile).catch(() => {});
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

const SQL = 'SELECT SUM(seq) FROM seq_1_to_20000';
const workload = (repetitions: number): Workload => ({ kind: 'queries', database: 'mysql', setupSql: '', queries: [{ name: 'sum', sql: SQL }], repetitions, warmup: 2 });

async function started(extraArgs: string[] = []) {
  const control = host.createServerControl(session, { ...profile, extraArgs: [...profile.extraArgs, ...extraArgs] });
  controls.push(control);
  const s = await control.restart([], {});
  return { control, s, conn: await control.connect('mysql') };
}

async function loop(conn: Connection, repetitions: number) {
  const timer = await detectTimer(conn);
  const got: Execution[] = [];
  await runQueryLoop(conn, workload(repetitions), timer, { checkCancel: () => {}, onExecution: (x) => got.push(x) });
  return { timer, got };
}

test('a sandbox starts with the exact timer: performance_schema and its statement consumers, each read back at start', { timeout: 300_000 }, async () => {
  const { control, s, conn } = await started();
  try {
    const opt = (v: string) => s.options.find((o) => o.tunable === v);
    assert.equal(opt('performance_schema')?.ok, true);
    assert.equal(opt('performance_schema')?.observed, '@@performance_schema = ON');
    for (const c of ['events_statements_current', 'events_statements_history', 'events_statements_history_long']) {
      const o = opt(`performance_schema_consumer_${c}`);
      assert.equal(o?.ok, true, JSON.stringify(o));
      assert.equal(o?.verifiable, undefined, `${c} is read back`);
      assert.equal(o?.observed, `performance_schema.setup_consumers ${c} ENABLED = YES`);
    }
    assert.equal((await detectTimer(conn)).source, 'performance_schema');
  } finally {
    await conn.end();
    await control.stop();
  }
});

test('connected to a local server, varlab yields the CPU to it (SCHED_BATCH) while mysqld keeps the ordinary policy', { timeout: 300_000 }, async () => {
  const { control, s, conn } = await started();
  try {
    assert.equal(schedPolicy('self'), SCHED_BATCH, "varlab's process, once connected");
    assert.equal(schedPolicy(s.pid), SCHED_OTHER, 'mysqld, started through the local session, runs as from a shell');
    const own = (await session.exec('cat /proc/$$/stat')).stdout;
    assert.equal(Number(own.slice(own.lastIndexOf(')') + 2).split(' ')[38]), SCHED_OTHER, 'a command on the local target');
  } finally {
    await conn.end();
    await control.stop();
  }
});

test('250 executions back to back give 250 figures, each the TIMER_WAIT of its own statement in the server history', { timeout: 300_000 }, async () => {
  const { control, conn } = await started();
  try {
    const { timer, got } = await loop(conn, 250);
    assert.equal(timer.source, 'performance_schema');
    assert.deepEqual(got.map((x) => x.rep), Array.from({ length: 250 }, (_, i) => i + 1), 'every repetition once, in order');
    assert.ok(got.every((x) => x.source === 'performance_schema' && x.value > 0 && x.client! > 0));
    assert.deepEqual(got.map((x) => x.warmup).filter(Boolean).length, 2);
    // A by-hand reader on another connection: this thread's executions of the statement, in order.
    const hand = await control.connect();
    try {
      const [rows] = await hand.query<RowDataPacket[]>(
        'SELECT TIMER_WAIT AS w FROM performance_schema.events_statements_history_long WHERE THREAD_ID = ? AND SQL_TEXT = ? ORDER BY EVENT_ID',
        [timer.threadId, SQL],
      );
      assert.equal(rows.length, 250, 'the history still holds all of them (1000 rows on a sandbox)');
      assert.deepEqual(got.map((x) => x.value), rows.map((r) => Number(r.w) / 1e9));
    } finally {
      await hand.end();
    }
  } finally {
    await conn.end();
    await control.stop();
  }
});

test('without performance_schema: query profiling, named with how to turn on the exact timer, every figure its own', { timeout: 300_000 }, async () => {
  const { control, s, conn } = await started(['--performance-schema=OFF']);
  try {
    // The last --performance-schema wins, as in mysqld: it alone is judged, and read back in effect.
    assert.deepEqual(s.options.filter((o) => o.tunable === 'performance_schema').map((o) => [o.level, o.ok, o.observed]), [['OFF', true, '@@performance_schema = OFF']]);
    const { timer, got } = await loop(conn, 150);
    assert.equal(timer.source, 'profiling');
    assert.equal(timer.why, 'performance_schema is off');
    assert.deepEqual(got.map((x) => x.rep), Array.from({ length: 150 }, (_, i) => i + 1));
    // SHOW PROFILES by hand after the loop: the last 100 executions, the same durations.
    const [rows] = await conn.query<RowDataPacket[]>('SHOW PROFILES');
    assert.equal(rows.length, 100);
    assert.ok(rows.every((r) => r.Query === SQL));
    assert.deepEqual(got.slice(-100).map((x) => x.value), rows.map((r) => Number(r.Duration) * 1000));
  } finally {
    await conn.end();
    await control.stop();
  }
});

test('an option nothing reads back is "set, not verifiable", never verified', { timeout: 300_000 }, async () => {
  const { control, s, conn } = await started(['--performance-schema-consumer-events-stages-current=ON', '--loose-varlab-no-such-option=1']);
  try {
    const stages = s.options.find((o) => o.tunable === 'performance_schema_consumer_events_stages_current');
    assert.deepEqual([stages?.ok, stages?.verifiable, stages?.observed], [true, undefined, 'performance_schema.setup_consumers events_stages_current ENABLED = YES']);
    const none = s.options.find((o) => o.tunable === 'varlab_no_such_option');
    assert.equal(none?.verifiable, false);
    assert.match(none?.observed ?? '', /^set, not verifiable: --loose-varlab-no-such-option=1 is not a server variable/);
  } finally {
    await conn.end();
    await control.stop();
  }
});

test('sandbox create turns the exact timer on for a sandbox made without it: the reused sandbox gets the options, its next start takes TIMER_WAIT', { timeout: 300_000 }, async () => {
  const { EXACT_TIMER_OPTIONS } = await import('../../src/common/timer-note.js');
  const made = profile;
  // As a sandbox made before the exact timer was on by default is registered.
  await host.registerProfile('local', { ...made, extraArgs: made.extraArgs.filter((a) => !EXACT_TIMER_OPTIONS.includes(a)) });
  try {
    const r = await host.createSandbox(session, { parent: dir });
    assert.equal(r.reused, true);
    assert.deepEqual(r.added, EXACT_TIMER_OPTIONS);
    assert.deepEqual((await host.sandboxProfile('local'))?.extraArgs, r.profile.extraArgs, 'registered');
    profile = r.profile;
    const { control, s, conn } = await started();
    try {
      for (const o of EXACT_TIMER_OPTIONS) assert.equal(s.options.find((x) => `--${x.tunable.replace(/_/g, '-')}=${x.level}` === o)?.ok, true, o);
      assert.equal((await detectTimer(conn)).source, 'performance_schema');
    } finally {
      await conn.end();
      await control.stop();
    }
    // Reused again: nothing more to add.
    assert.equal((await host.createSandbox(session, { parent: dir })).added, undefined);
  } finally {
    profile = made;
  }
});

test('the idle time is spent with mysqld stopped, after the stop and before the start (as the seeds keep it)', { timeout: 300_000 }, async () => {
  const control = host.createServerControl(session, profile);
  controls.push(control);
  const before = await control.restart([], {});
  const proc = await control.procedure([], {}, { idleSeconds: 2 });
  let answered: boolean | undefined;
  let idleAt = 0;
  const s = await control.run(proc, {
    idle: async (ms) => {
      idleAt = Date.now();
      answered = await control.connect().then(
        async (c) => (await c.end(), true),
        () => false,
      );
      await new Promise((r) => setTimeout(r, ms));
    },
  });
  try {
    assert.equal(answered, false, 'nothing answers during the idle: mysqld is stopped');
    assert.ok(s.startedAt - idleAt >= 2000, `the start came ${s.startedAt - idleAt} ms after the idle began`);
    assert.notEqual(s.pid, before.pid);
    const conn = await control.connect();
    const [[{ up }]] = (await conn.query('SELECT VARIABLE_VALUE AS up FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = "UPTIME"')) as unknown as [[{ up: string }]];
    await conn.end();
    assert.ok(Number(up) < (Date.now() - idleAt) / 1000, `mysqld has been up ${up} s, less than since the idle began`);
  } finally {
    await control.stop();
  }
});

test('a run on a server without the exact timer says which timer it uses, how it compares with the client\'s time at the start of the run, and how to turn on the exact one', { timeout: 300_000 }, async () => {
  const { RunEngine } = await import('../../src/node/engine/run.js');
  const { sandboxDir: _d, createdAt: _c, ...plain } = profile;
  const serverProfile = { ...plain, target: 'local', extraArgs: [...plain.extraArgs, '--performance-schema=OFF'] };
  const path = join(dir, 'profiling.varlab.json');
  const events: { type: string; level?: string; message?: string }[] = [];
  const engine = new RunEngine({
    path,
    doc: {
      format: 'varlab-experiment',
      version: 3,
      name: 'profiling timer',
      design: { factors: [], excludedCells: [], restartsPerCell: 2, workload: { ...workload(5), setupSql: '' }, order: 'interleaved', seed: 1, idleSeconds: 0, estimates: { restartSeconds: 2, executionMs: 1 }, target: 'local', serverProfile },
    },
    prompt: async () => ({ accept: true }),
    onEvent: (e) => events.push(e as (typeof events)[number]),
  });
  const out = await engine.run();
  assert.equal(out.state, 'finished', out.message);
  const { readFileSync } = await import('node:fs');
  const results = JSON.parse(readFileSync(path, 'utf8')).results;
  const vs = results.timerVsClient;
  assert.deepEqual([vs?.source, vs?.query, vs?.n], ['profiling', 'SELECT 1', 30], JSON.stringify(vs));
  // The client's round trip holds the server's figure and more (the socket, the driver): a positive offset.
  assert.ok(vs.offsetMs > 0 && vs.offsetMs < 50 && vs.spreadMs >= 0, JSON.stringify(vs));
  assert.match(results.timerNote, /^times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema is off; for performance_schema's exact timer .*--performance-schema=ON.*; compared with the client's round trip at the start of the run \(30 executions of SELECT 1\): the client's time is \d+\.\d{3} ms longer \(median\), spread \d+\.\d{3} ms/);
  // Said once, as the run's warning, which the Run view shows.
  assert.deepEqual(events.filter((e) => e.type === 'timer').length, 1);
  assert.equal(events.filter((e) => e.type === 'log' && e.level === 'warn' && e.message === results.timerNote).length, 1);
  // On `local`, once: varlab's process yields the CPU to mysqld (host/server-first.ts).
  assert.equal(events.filter((e) => e.type === 'log' && e.level === 'info' && /^varlab's process yields the CPU to mysqld on this host while connected \(SCHED_BATCH\)/.test(e.message ?? '')).length, 1);
  // And the file on disk keeps it, journaled as it was said (results.log).
  assert.equal((results.log as { message: string }[]).filter((l) => /^varlab's process yields the CPU to mysqld/.test(l.message)).length, 1, JSON.stringify(results.log));
});
