// A benchmark command per restart (the seeds' sysbench runs): run on the target K times, its
// output parsed, its --report-interval lines passed on as events. And Ctrl-C: a clean cancel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { countJournal } from './run-journal-check.js';
import { alive, keepCells, quickstartCopy, runEnvForTests, varlabRun } from './run-env.js';

const env = runEnvForTests();

/** sysbench's own table, made with SQL so the setup script is all the workload needs. */
const SBTEST_SQL = `CREATE TABLE sbtest1 (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL DEFAULT 0, c CHAR(120) NOT NULL DEFAULT '', pad CHAR(60) NOT NULL DEFAULT '', KEY k_1 (k)) ENGINE=InnoDB;
INSERT INTO sbtest1 (k, c, pad) SELECT seq MOD 1000, REPEAT('x', 100), REPEAT('y', 50) FROM seq_1_to_1000;`;

function sysbenchExperiment(doc: ExperimentDoc): void {
  keepCells(doc, ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=off,numa=default']);
  doc.design.workload = {
    kind: 'command',
    database: 'sbtest',
    setupSql: SBTEST_SQL,
    setupSkipIfTable: 'sbtest1',
    queries: [],
    repetitions: 2,
    warmup: 0,
    command: {
      line: 'sysbench oltp_point_select --mysql-socket={socket} --mysql-user=root --mysql-db={database} --tables=1 --table-size=1000 --threads=1 --time=2 --report-interval=1 run',
      parser: 'sysbench',
      metric: 'tps',
      unit: 'tps',
      higherIsBetter: true,
    },
  };
}

test('a sysbench workload: tps per run recorded with source sysbench, interval lines as events', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'sysbench', sysbenchExperiment);
  // --trust: this test wrote the sysbench command itself (a file from elsewhere is asked about first).
  const run = varlabRun([file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '1', '--trust'], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  const executions = run.events.filter((e) => e.type === 'execution');
  assert.equal(executions.length, 2 * 2);
  for (const e of executions) {
    assert.ok(e.type === 'execution' && e.source === 'sysbench' && e.unit === 'tps' && e.query === 'tps' && e.value > 0);
  }
  assert.ok(run.events.filter((e) => e.type === 'interval').length >= 2 * 2, 'report-interval lines arrive as events');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results!.restarts.length, 2);
  for (const r of doc.results!.restarts) assert.deepEqual(r.queries.map((q) => [q.query, q.source, q.values.length]), [['tps', 'sysbench', 2]]);
});

test('Ctrl-C cancels cleanly: the restart in progress is discarded, mysqld is stopped, and a later run resumes', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'interrupted', (d) => keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=on,numa=interleave']));
  const args = [file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '2', '--repetitions', '3', '--warmup', '0'];
  const run = varlabRun(args, env.varlabHome);
  await run.waitFor((e) => e.type === 'execution' && e.seq === 2);
  run.child.kill('SIGINT');
  assert.equal(await run.exit, 130, run.stderr());
  assert.match(run.stderr(), /cancelled after 1 of 4 restarts: mysqld stopped and the host restored; run the same command again to resume/);
  assert.equal(run.events.at(-1)?.type, 'run-finished');
  // mysqld was stopped: its pid file is gone or names a process that has exited.
  const pidFile = env.profile.pidFile!;
  if (existsSync(pidFile)) assert.equal(alive(Number(readFileSync(pidFile, 'utf8').trim())), false, 'mysqld stopped after cancel');
  const j = countJournal(file.replace(/\.json$/, '.journal.jsonl'));
  assert.deepEqual([...j.finished.keys()], [1]);
  assert.deepEqual(j.discarded.map((d) => d.seq), [2]);

  const again = varlabRun(args, env.varlabHome);
  assert.equal(await again.exit, 0, again.stderr());
  assert.match(again.stderr(), /resuming/);
  const j2 = countJournal(file.replace(/\.json$/, '.journal.jsonl'));
  assert.deepEqual([...j2.finished.keys()].sort(), [1, 2, 3, 4]);
});
