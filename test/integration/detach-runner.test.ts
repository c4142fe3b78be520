// The detached runner on its own, for real: compiled from the restart procedures, put on the target
// over the sandbox sshd, started under setsid nohup (this machine has no systemd), running a real
// mariadbd on a temporary host tree, its journal read back from offsets and imported. It runs the
// plan with no laptop attached, measures with the server's own timer, puts THP back itself, and
// on cancel stops mysqld and restores the host. A query refused at a later restart is named with it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Design, ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { JournalFold } from '../../src/common/records.js';
import { createServerControl, openTarget, profileId, type TargetSession } from '../../src/node/host/index.js';
import { hostDir } from '../../src/node/host/restore.js';
import type { HostPaths } from '../../src/node/host/script.js';
import { launchDetached, pullTargetJournal, signalCancel, cleanupTargetRun } from '../../src/node/detach/target.js';
import { alive, exited, startRunEnv, type RunEnv } from './run-env.js';
import { EXACT_TIMER_OPTIONS, timerNoteParts, timerNoteText, VS_CYCLE_QUERY, vsClientText } from '../../src/common/timer-note.js';
import { profileOptions } from '../../src/common/profile.js';

let env: RunEnv;
let session: TargetSession;
let paths: HostPaths;
const THP = () => join(paths.sys, 'kernel/mm/transparent_hugepage/enabled');

before(async () => {
  env = await startRunEnv();
  paths = { sys: join(env.dir, 'sys'), procSys: join(env.dir, 'procsys'), records: join(env.dir, 'records') };
  mkdirSync(join(paths.sys, 'kernel/mm/transparent_hugepage'), { recursive: true });
  mkdirSync(join(paths.procSys, 'kernel'), { recursive: true });
  mkdirSync(paths.records, { mode: 0o755 });
  writeFileSync(THP(), 'always [madvise] never\n');
  writeFileSync(join(paths.procSys, 'kernel/randomize_va_space'), '2\n');
  session = await openTarget(env.sshd.target, { auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, prompt: async () => ({ accept: false }), paths });
});

after(async () => {
  await session?.close();
  await env?.stop();
});

function design(edit: (d: Design) => void = () => {}): Design {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const d = doc.design;
  d.target = env.sshd.target;
  // THP at one level: the temporary tree's file holds only what was written (sysfs would show the
  // bracketed choice), so a set after a restore could not read its original back.
  d.factors = [
    { tunable: 'aslr', levels: ['on', 'off'] },
    { tunable: 'thp', levels: ['never'] },
  ];
  d.restartsPerCell = 2;
  d.idleSeconds = 0;
  d.workload.queries = d.workload.queries.slice(0, 2);
  d.workload.repetitions = 3;
  d.workload.warmup = 1;
  d.serverProfile = env.profile;
  edit(d);
  return d;
}

/** Read and import the target journal until the run ended (as attach does), from the offset held. */
async function follow(d: Design, dir: string, fold: JournalFold, untilMs = 240_000): Promise<{ offset: number; message?: string }> {
  // The design's own profile: the run's options are judged against it when its journal is imported.
  const profile = d.serverProfile ?? env.profile;
  const control = createServerControl(session, profile, { paths });
  const host = await control.host();
  const plan = buildPlan(d);
  let offset = 0;
  for (const until = Date.now() + untilMs; Date.now() < until; ) {
    const state = fold.state();
    const got = await pullTargetJournal(session, dir, false, offset, { design: d, plan, profile, host, target: env.sshd.target, open: state.interrupted.map((i) => i.seq), timer: state.timer?.source });
    let message: string | undefined;
    for (const rec of got.records) {
      fold.apply(rec);
      if (rec.t === 'run-finished') message = rec.message;
    }
    offset = got.offset;
    if (got.ended) return { offset, message };
    if (got.state !== 'running' && !got.records.length) throw new Error(`the runner ended without finishing: ${readFileSync(join(dir, 'runner.log'), 'utf8')}`);
    await new Promise((res) => setTimeout(res, 300));
  }
  throw new Error('the detached run did not end in time');
}

for (const [timer, args] of [
  ['profiling', ['--performance-schema=OFF']],
  ['performance_schema', EXACT_TIMER_OPTIONS],
] as const) {
  test(`a detached plan runs on the target by itself: every execution timed by the server (${timer}), verified, the host put back`, async () => {
    const profile = { ...env.profile, extraArgs: [...env.profile.extraArgs, ...args] };
    const d = design((x) => (x.serverProfile = profile));
    // As sysfs shows it (the previous test's restore wrote the plain word).
    writeFileSync(THP(), 'always [madvise] never\n');
    const control = createServerControl(session, profile, { paths });
    const runId = `a1b2c3d4-0000-4000-8000-00000000000${timer === 'profiling' ? 1 : 5}`;
    const launched = await launchDetached({ runId, design: d, profile, session, control, paths, restarts: buildPlan(d) });
    assert.equal(launched.supervisor, 'setsid', 'no systemd here: setsid nohup');
    assert.ok(launched.pid && launched.pid > 0);
    // The run's directory: root's, 0700, beside the restore record; the runner 0700; the journal 0600.
    assert.equal(launched.dir, join(paths.records, profileId(profile), 'runs', runId));
    assert.equal(statSync(launched.dir).mode & 0o777, 0o700);
    assert.equal(statSync(join(launched.dir, 'runner.sh')).mode & 0o777, 0o700);
    assert.equal(statSync(join(launched.dir, 'journal')).mode & 0o777, 0o600);
    // varlab is not needed any more: the ssh session that started it is closed at once.
    await session.close();
    session = await openTarget(env.sshd.target, { auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, prompt: async () => ({ accept: false }), paths });

    const fold = new JournalFold();
    const { message } = await follow(d, launched.dir, fold);
    const s = fold.state();
    assert.equal(s.lastState, 'finished', message);
    assert.equal(s.restarts.length, 4);
    for (const r of s.restarts) {
      assert.equal(r.status, 'ok', `${r.cell}: ${r.reason}`);
      assert.ok(r.checks.length === 2 && r.checks.every((c) => c.ok), JSON.stringify(r.checks));
      assert.equal(r.checks.find((c) => c.tunable === 'aslr')?.level, r.cell.includes('aslr=off') ? 'off' : 'on');
      // Every server option of the profile is read back on the target, performance_schema's consumers from
      // setup_consumers as the attached run reads them; with performance_schema off there is nothing to
      // read them from, and they say so.
      const options = r.options ?? [];
      assert.deepEqual(new Set(options.map((o) => o.tunable)), new Set(profileOptions(profile).map((o) => o.variable)));
      const consumers = options.filter((o) => o.tunable.startsWith('performance_schema_consumer_'));
      assert.equal(consumers.length, 3);
      for (const o of options) {
        if (timer === 'profiling' && consumers.includes(o)) assert.deepEqual([o.ok, o.verifiable], [true, false], JSON.stringify(o));
        else assert.deepEqual([o.ok, o.verifiable], [true, undefined], JSON.stringify(o));
      }
      if (timer === 'performance_schema') assert.deepEqual(consumers.map((o) => o.observed), consumers.map((o) => `performance_schema.setup_consumers ${o.tunable.slice('performance_schema_consumer_'.length)} ENABLED = YES`));
      assert.deepEqual(r.queries.map((q) => [q.query, q.values.length, q.source]), d.workload.queries.map((q) => [q.name, 3, timer]));
      for (const q of r.queries) assert.ok(q.values.every((v) => v > 0 && v < 60_000), `${q.values}`);
      // Where its time went, as an attached restart says it.
      const st = r.steps ?? {};
      for (const step of ['stop', 'start', 'verify', 'measure'] as const) assert.ok((st[step] ?? -1) >= 0, `${step}: ${JSON.stringify(st)}`);
      assert.ok(st.start! + st.stop! + st.verify! + st.measure! <= r.finishedAt - r.startedAt + 10, `the steps fit in the restart: ${JSON.stringify(st)}, ${r.finishedAt - r.startedAt} ms`);
    }
    assert.equal(s.restarts.filter((r) => r.steps?.setup !== undefined).length, 1, 'the setup in the first restart only');
    assert.equal(s.timer?.source, timer);
    // Which timer and why, as an attached run says it: profiling names what the exact timer lacks on this server.
    const note = s.timer ? timerNoteParts(s.timer) : null;
    if (timer === 'profiling') assert.match(note ? timerNoteText(note) : '', /^times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema is off; for performance_schema's exact timer .*--performance-schema=ON/);
    else assert.equal(note, null);
    // Query profiling held against the client's time on the target, as an attached run holds it: in the
    // timer record (the file's timerVsClient) and said in its note.
    const vs = s.timer?.vsClient;
    if (timer === 'profiling') {
      assert.ok(vs && vs.source === 'profiling' && vs.query === VS_CYCLE_QUERY && vs.n === 30 && vs.offsetMs > 0 && vs.offsetMs < 1000 && vs.spreadMs >= 0, JSON.stringify(vs));
      assert.equal(note?.vsClient, vsClientText(vs));
    } else assert.equal(vs, undefined);
    assert.deepEqual(new Set(s.restarts.map((r) => r.seq)), new Set([1, 2, 3, 4]));
    // The target put THP back itself and stopped mysqld; no record is left.
    assert.equal(readFileSync(THP(), 'utf8').trim(), 'madvise');
    assert.equal(existsSync(join(hostDir(paths), 'restore.tsv')), false);
    const pidFile = profile.pidFile ?? join(profile.datadir, 'mysqld.pid');
    assert.ok(!existsSync(pidFile) || !alive(Number(readFileSync(pidFile, 'utf8'))), 'mysqld stopped');

    // The ended run read again in a chunk that ends between its end (E) and the host put back (H), as a
    // 4 MiB read of a long run can: still finished, once the next read brings H (it read "failed").
    const text = readFileSync(join(launched.dir, 'journal'), 'utf8');
    const cut = Buffer.byteLength(text.slice(0, text.lastIndexOf('\nH ') + 1), 'utf8');
    const ctx = { design: d, plan: buildPlan(d), profile, host: await createServerControl(session, profile, { paths }).host(), target: env.sshd.target, open: [] as number[] };
    const first = await pullTargetJournal(session, launched.dir, false, 0, ctx, cut);
    assert.equal(first.ended, false, JSON.stringify(first.records.filter((r) => r.t === 'run-finished')));
    const rest = await pullTargetJournal(session, launched.dir, false, first.offset, ctx);
    assert.deepEqual(rest.records.filter((r) => r.t === 'run-finished').map((r) => r.t === 'run-finished' && r.state), ['finished']);

    await cleanupTargetRun(session, launched.dir, false);
    assert.equal(existsSync(launched.dir), false);
  });
}

test('cancel: the runner stops mysqld and restores the host within seconds', async () => {
  const d = design((x) => {
    x.factors = [{ tunable: 'thp', levels: ['never'] }];
    x.restartsPerCell = 3;
    x.idleSeconds = 600;
  });
  writeFileSync(THP(), 'always [madvise] never\n');
  const control = createServerControl(session, env.profile, { paths });
  const runId = 'a1b2c3d4-0000-4000-8000-000000000002';
  const launched = await launchDetached({ runId, design: d, profile: env.profile, session, control, paths, restarts: buildPlan(d), waitS: 120 });
  // Wait for the first restart's idle time (THP set to never, mysqld stopped, before the start), then cancel during it.
  for (let i = 0; i < 600 && !readFileSync(join(launched.dir, 'journal'), 'utf8').includes('\nI '); i++) await new Promise((r) => setTimeout(r, 100));
  assert.equal(readFileSync(THP(), 'utf8').trim(), 'never');
  const t0 = Date.now();
  assert.equal(await signalCancel(session, launched.dir, false), true);
  const fold = new JournalFold();
  const { message } = await follow(d, launched.dir, fold, 60_000);
  assert.ok(Date.now() - t0 < 30_000, `cancel took ${Date.now() - t0} ms`);
  const s = fold.state();
  assert.equal(s.lastState, 'cancelled');
  assert.equal(message, 'cancelled; run again to resume');
  assert.equal(s.restarts.length, 0);
  assert.equal(s.discarded[0]?.reason, 'cancelled during this restart');
  assert.equal(readFileSync(THP(), 'utf8').trim(), 'madvise');
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  assert.ok(!existsSync(pidFile) || !alive(Number(readFileSync(pidFile, 'utf8'))), 'mysqld stopped');
  // Its idle sleep went with it: no process of the run is left.
  assert.equal(await exited(launched.pid!), true, 'the runner exited');
  rmSync(launched.dir, { recursive: true, force: true });
});

test('a detached run measures as the read-only account too: INTO OUTFILE and SET GLOBAL are refused by the server, nothing is written', async () => {
  const drop = join(env.dir, 'detach-drop');
  mkdirSync(drop, { recursive: true, mode: 0o777 });
  chmodSync(drop, 0o777);
  const marker = join(drop, 'measured.txt');
  for (const [i, sql, privilege] of [
    [1, `SELECT l_orderkey FROM lineitem LIMIT 1 INTO OUTFILE '${marker}'`, /FILE privilege/],
    [2, 'SET GLOBAL innodb_adaptive_hash_index=OFF', /SUPER|SYSTEM_VARIABLES_ADMIN/],
  ] as const) {
    const d = design((x) => {
      x.factors = [{ tunable: 'aslr', levels: ['on'] }];
      x.restartsPerCell = 1;
      x.workload.queries = [x.workload.queries[0], { name: 'hostile', sql }];
    });
    const control = createServerControl(session, env.profile, { paths });
    const runId = `a1b2c3d4-0000-4000-8000-00000000010${i}`;
    const launched = await launchDetached({ runId, design: d, profile: env.profile, session, control, paths, restarts: buildPlan(d) });
    const fold = new JournalFold();
    const { message } = await follow(d, launched.dir, fold);
    assert.equal(fold.state().lastState, 'failed', message);
    assert.match(message ?? '', /hostile/);
    assert.match(message ?? '', /Access denied/);
    assert.match(message ?? '', privilege);
    assert.equal(fold.state().restarts.flatMap((r) => r.queries).length, 0, 'nothing was measured');
    assert.equal(existsSync(marker), false);
    // No password on disk: the run's files hold the placeholder only.
    for (const f of readdirSync(launched.dir)) assert.doesNotMatch(readFileSync(join(launched.dir, f), 'utf8'), /IDENTIFIED BY '[0-9a-f]{36}'/, f);
    await cleanupTargetRun(session, launched.dir, false);
  }
});

test("a query the server refuses only at a later restart (under its cell's sql_mode) ends the detached run naming the query and the restart", async () => {
  // The first restart's check passes ("x" is a string); at restart 2, under ANSI_QUOTES, "x" is a column.
  const d = design((x) => {
    x.factors = [{ tunable: 'variable', name: 'sql_mode', levels: ['STRICT_TRANS_TABLES', 'ANSI_QUOTES'] }];
    x.order = 'blocked';
    x.restartsPerCell = 1;
    x.workload.queries = [x.workload.queries[0], { name: 'quoted', sql: 'SELECT "x"' }];
  });
  const control = createServerControl(session, env.profile, { paths });
  const launched = await launchDetached({ runId: 'a1b2c3d4-0000-4000-8000-000000000201', design: d, profile: env.profile, session, control, paths, restarts: buildPlan(d) });
  const fold = new JournalFold();
  const { message } = await follow(d, launched.dir, fold);
  assert.equal(fold.state().lastState, 'failed', message);
  assert.match(message ?? '', /^restart 2 \(sql_mode=ANSI_QUOTES\): query "quoted" failed on the server: Unknown column 'x' in '[^']+'\. The run stopped there; the restarts measured before it are kept$/);
  assert.deepEqual(fold.state().restarts.map((r) => [r.seq, r.status]), [[1, 'ok']]);
  await cleanupTargetRun(session, launched.dir, false);
});
