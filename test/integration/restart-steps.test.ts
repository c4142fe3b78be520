// Where a restart's time goes (issue 22, Deliver 3): every restart journals the milliseconds of its
// steps, the file keeps them, and `varlab analyze` says the median of each. Checked against what the
// restart itself says: the steps fit in the restart's wall time, the start holds the server's own
// start (readyMs), the idle is the design's, and only the first restart has a setup. The real sandbox
// sshd and mariadbd.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { RunEngine } from '../../src/node/engine/run.js';
import { keptForm } from '../../src/node/workloads/history.js';
import { keepCells, quickstartCopy, runEnvForTests, varlabSync } from './run-env.js';

const env = runEnvForTests();

test('every restart journals its step times; the file keeps them and analyze says where the time goes', { timeout: 600_000 }, async () => {
  const file = quickstartCopy(env, 'steps', (d: ExperimentDoc) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=on,ahi=off,preload=off,numa=default']);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 2;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 3;
    d.design.workload.warmup = 1;
    d.design.idleSeconds = 1;
  });
  const run = varlabSync(['run', file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(run.code, 0, run.stderr);

  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const restarts = doc.results!.restarts;
  assert.equal(restarts.length, 4);
  const journal = readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { t: string; seq?: number; readyMs?: number });
  for (const r of [...restarts].sort((a, b) => a.seq - b.seq)) {
    const s = r.steps!;
    assert.ok(s, `restart ${r.seq} has its step times`);
    for (const step of ['stop', 'idle', 'start', 'verify', 'connect', 'timer', 'measure'] as const) assert.ok((s[step] ?? -1) >= 0, `restart ${r.seq}: ${step} timed (${JSON.stringify(s)})`);
    // The idle is the design's second, spent with mysqld stopped (the laps it lies between are whole
    // milliseconds, each cut down: their difference can lose one; a fresh-clone CI once read 999).
    assert.ok(s.idle! >= 999 && s.idle! < 3000, `idle ${s.idle} ms`);
    const ready = journal.find((x) => x.t === 'checks' && x.seq === r.seq)?.readyMs;
    assert.ok(ready !== undefined && s.start! >= ready, `start ${s.start} ms holds the server's own start (${ready} ms)`);
    const sum = Object.values(s).reduce((a, b) => a + b, 0);
    assert.ok(sum <= r.finishedAt - r.startedAt + 5, `the steps (${sum} ms) fit in the restart (${r.finishedAt - r.startedAt} ms)`);
    assert.ok(sum >= 0.5 * (r.finishedAt - r.startedAt), `the steps (${sum} ms) account for most of the restart (${r.finishedAt - r.startedAt} ms)`);
  }
  assert.equal(restarts.filter((r) => r.steps?.setup !== undefined).length, 1, 'the setup ran in the first restart only');

  const json = JSON.parse(varlabSync(['analyze', file, '--json'], env.varlabHome).stdout) as { restart_steps: { step: string; median_ms: number; restarts: number }[] };
  assert.deepEqual(
    json.restart_steps.map((s) => s.step),
    ['stop', 'idle', 'start', 'verify', 'setup', 'connect', 'timer', 'measure'],
  );
  assert.equal(json.restart_steps.find((s) => s.step === 'setup')!.restarts, 1);
  assert.equal(json.restart_steps.find((s) => s.step === 'measure')!.restarts, 4);
  const text = varlabSync(['analyze', file], env.varlabHome).stdout;
  assert.match(text, /^where a restart's time goes \(median per restart\): stop \S+ m?s, idle 1\.\d s, start /m);
});

test('a lean restart: the verify login is the measuring one, and the timer is proved once per cell', { timeout: 600_000 }, async () => {
  // mariadbd's general log names every login (Connect), account switch (Change user) and statement.
  const log = `${env.profile.datadir}/varlab-general.log`;
  const path = quickstartCopy(env, 'lean');
  const doc = JSON.parse(readFileSync(path, 'utf8')) as ExperimentDoc;
  keepCells(doc, ['aslr=on,ahi=on,preload=off,numa=default']);
  doc.design.target = env.sshd.target;
  const { sandboxDir: _d, createdAt: _c, ...profile } = env.profile as ServerProfile & { sandboxDir?: string; createdAt?: number };
  // The engine runs the file's own profile (a `varlab run` would take the registered one).
  doc.design.serverProfile = { ...profile, target: env.sshd.target, extraArgs: [...profile.extraArgs, '--general-log=ON', `--general-log-file=${log}`] };
  doc.design.restartsPerCell = 3;
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 1);
  doc.design.workload.repetitions = 3;
  doc.design.workload.warmup = 0;
  const engine = new RunEngine({ path, doc, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, prompt: async () => ({ accept: true }) });
  const out = await engine.run();
  assert.equal(out.state, 'finished', out.message);
  const saved = JSON.parse(readFileSync(path, 'utf8')) as ExperimentDoc;
  assert.deepEqual(saved.results!.restarts.map((r) => [r.status, r.queries[0].source, r.queries[0].values.length]), [['ok', 'performance_schema', 3], ['ok', 'performance_schema', 3], ['ok', 'performance_schema', 3]]);
  const text = readFileSync(log, 'utf8');
  const logins = text.split('\n').filter((l) => / (Connect|Change user)\t/.test(l)).join('\n');
  // The probe on the cell's first restart only (the setup's start measures nothing).
  assert.equal(text.split('varlab_timer_probe').length - 1, 1, 'one timer probe in three restarts');
  // The measurement account: one login for the setup's check of the queries and one per restart's
  // measuring connection (4). Once the account is there, a restart's verify step logs in as it, to the
  // workload's database, and that login measures: no account switch (Change user) at all. (The first
  // restart's verify login, as the profile's account, went to the setup: the same login, no switch.)
  const connects = text.match(/ Connect\tvarlab_measure@/g)?.length ?? 0;
  const switches = text.match(/ Change user\t/g)?.length ?? 0;
  assert.equal(connects, 4, logins);
  assert.equal(switches, 0, logins);

  // Round trips on the measuring connection of a restart that reused the proved timer (each one
  // through the SSH channel): the verify step's read back, which also holds the timer's query (the
  // thread, its consumers on, where the statement history stands), the executions, and one history
  // read after them; nothing else: no switch of account, no query of the timer's own.
  const measured = keptForm(doc.design.workload.queries[0].sql);
  const lives = text.split(/^.*started with:$/m).slice(1);
  const reused = lives.filter((l) => l.includes(measured) && !l.includes('varlab_timer_probe'));
  assert.equal(reused.length, 2, 'restarts 2 and 3 reused the proved timer');
  for (const life of reused) {
    const thread = new RegExp(`^(?:\\d{6}\\s+[\\d:]+)?\\s+(\\d+) Query\\t${measured.slice(0, 40).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm').exec(life)![1];
    const statements = [...life.matchAll(/^(?:\d{6}\s+[\d:]+)?\s+(\d+) (Query|Change user)\t(.*)$/gm)].filter((m) => m[1] === thread).map((m) => (m[3] === measured ? 'execution' : m[2] === 'Change user' ? 'change user' : m[3].slice(0, 60)));
    assert.deepEqual(
      statements.map((x) => x.replace(/^(SELECT VARIABLE_NAME|SELECT t\.THREAD_ID|SELECT EVENT_ID).*/, '$1')),
      ['SELECT VARIABLE_NAME', 'execution', 'execution', 'execution', 'SELECT EVENT_ID'],
      statements.join('\n'),
    );
  }
});
