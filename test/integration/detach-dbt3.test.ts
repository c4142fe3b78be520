// A DBT-3 design run detached (issue 23): the runner on the target has no generator, so the data step
// runs at the launch, over varlab's own connection (mysqld started as the first restart's cell starts
// it, the rows loaded and checked, mysqld stopped), then the runner measures. `run --detach` prints the
// data step's progress, the local journal holds its record, and `attach` brings the measurements into
// the file. A second launch recognises the data. The real sandbox sshd and mariadbd.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText } from '../../src/common/records.js';
import { LAUNCH_CANCELLED } from '../../src/node/detach/launch.js';
import { profileDir } from '../../src/node/host/restore.js';
import { DEFAULT_HOST_PATHS } from '../../src/node/host/script.js';
import { runEnvForTests, running, shortDbt3, varlabChild, varlabSync } from './run-env.js';

const env = runEnvForTests();

const dataRecords = (file: string) =>
  readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"t":"data"'))
    .map((l) => JSON.parse(l) as { recognised: boolean; resumedChunks: number; rows: Record<string, number>; checks: { expected: boolean }[] });

test('a DBT-3 SF 0.01 design run --detach: the data step runs at the launch with its progress, then the runner measures and attach brings it in; a second launch recognises the data', { timeout: 900_000 }, async () => {
  const file = join(env.dir, 'dbt3-detached.varlab.json');
  const doc = shortDbt3(env, file, 'aslr=on,ahi=off,preload=off', 3);

  const launched = varlabSync(['run', file, '--detach', ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(launched.code, 0, launched.stderr + launched.stdout);
  assert.match(launched.stderr, /DBT-3 data: loading rows \(\w+\) \d+%/, 'the data step says how far it is');
  assert.match(launched.stdout, /^detached: run \S+ on /m);
  const [first] = dataRecords(file);
  assert.ok(first, 'the data step is in the local journal');
  assert.equal(first.recognised, false);
  assert.equal(first.rows.lineitem, 60341);
  assert.equal(first.checks.length, 22);
  assert.ok(first.checks.every((c) => c.expected), 'every query checked against its expected result');

  const attached = varlabSync(['attach', file, ...env.authArgs], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr + attached.stdout);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(saved.results?.restarts.length, 1);
  const r = saved.results!.restarts[0];
  assert.equal(r.status, 'ok', JSON.stringify(r));
  assert.deepEqual(
    r.queries.map((q) => [q.query, q.values.length]),
    doc.design.workload.queries.map((q) => [q.name, 2]),
    'every query measured twice on the loaded data',
  );

  const again = varlabSync(['run', file, '--detach', '--fresh', ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  const records = dataRecords(file);
  assert.equal(records[records.length - 1].recognised, true, 'the second launch recognises the data');
  // Run again from scratch, the launch replaced the file's results: its record keeps what they measured, so
  // an attach in another process (this one) starts its time left from them, not from the design's estimates.
  const launches = readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"t":"detached"'))
    .map((l) => JSON.parse(l) as { costs?: { source: string; runAt?: number; restartSeconds: number } });
  const launch = launches[launches.length - 1];
  assert.equal(launch.costs?.source, 'journal', JSON.stringify(launches));
  assert.equal(launch.costs?.runAt, saved.results!.startedAt, 'the costs of the run the launch replaced');
  assert.ok((launch.costs?.restartSeconds ?? 0) > 0);
  const done = varlabSync(['attach', file, ...env.authArgs], env.varlabHome);
  assert.equal(done.code, 0, done.stderr + done.stdout);
});

test('a detached launch cut in its DBT-3 load: killed, the next launch goes ahead; Ctrl-C, it stops after its chunk with mysqld stopped and the target let go; the launch after goes on from the last whole chunk', { timeout: 900_000 }, async () => {
  const file = join(env.dir, 'dbt3-cut.varlab.json');
  const doc = shortDbt3(env, file, 'aslr=on,ahi=off,preload=off', 2);
  // A database of its own: the test before loaded `dbt3` whole.
  doc.design.workload.database = 'dbt3_cut';
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const launch = () => varlabChild(['run', file, '--detach', ...env.authArgs, '--trust'], env.varlabHome);
  const loading = /DBT-3 data: loading rows/;
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  const lock = join(profileDir(env.profile, DEFAULT_HOST_PATHS), 'varlab-run.lock');

  // Killed in its load: nothing of it can stop mysqld, restore the host or let the target go.
  const killed = launch();
  await killed.waitForStderr(loading);
  killed.child.kill('SIGKILL');
  await killed.exit;

  // The next launch is not kept off by the killed one's lock (its connection, which the lock names, is gone).
  const cut = launch();
  await cut.waitForStderr(loading);
  assert.ok(existsSync(lock), 'the launch holds the target while it loads');
  cut.child.kill('SIGINT');
  assert.equal(await cut.exit, 130, cut.stderr());
  assert.match(cut.stderr(), /^cancelling \(SIGINT\): the launch stops at its next step/m);
  assert.equal(cut.stderr().trim().split('\n').at(-1), LAUNCH_CANCELLED, cut.stderr());
  assert.equal(existsSync(pidFile) && running(Number(readFileSync(pidFile, 'utf8').trim() || 0)), false, 'no mysqld is left running');
  assert.equal(existsSync(lock), false, 'the target is let go');
  const state = readJournalText(readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8'));
  assert.equal(state.lastState, 'cancelled');
  assert.equal(dataRecords(file).length, 0, 'no data step finished');

  // The launch after goes on from the last whole chunk, and the runner measures on the loaded data.
  const again = varlabSync(['run', file, '--detach', ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  const [data] = dataRecords(file);
  assert.equal(data.recognised, false);
  assert.ok(data.resumedChunks > 0, `the load went on from its chunks: ${JSON.stringify(data)}`);
  assert.equal(data.rows.lineitem, 60341);
  assert.ok(data.checks.every((c) => c.expected), 'every query checked against its expected result');
  const attached = varlabSync(['attach', file, ...env.authArgs], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr + attached.stdout);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(saved.results?.restarts.map((r) => r.status), ['ok']);
});
