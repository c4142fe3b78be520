// The sysbench point-select template from the command line to a finished run on the sandbox sshd's
// mariadbd: `varlab new --template oltp_point_select`, then `varlab run`. The sbtest tables are made
// by the setup once; every run's tps and interval lines are journaled; a second run skips the setup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { runEnvForTests, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests();

test('new --template oltp_point_select, then run: tps per run and its intervals journaled; the prepared tables are recognised', { timeout: 600_000 }, async () => {
  const file = join(env.dir, 'ps.varlab.json');
  const made = varlabSync(['new', file, '--template', 'oltp_point_select', '--runs', '2', '--seconds', '2', '--table-size', '1000', '--restarts', '1', '--target', env.sshd.target], env.varlabHome);
  assert.equal(made.code, 0, made.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.match(doc.design.workload.command!.line, /^sysbench oltp_point_select --mysql-socket=\{socket\} --mysql-user=\{user\} .* --time=2 --report-interval=1/);
  doc.design.excludedCells = ['aslr=on'];
  doc.design.idleSeconds = 0;
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  const executions = run.events.filter((e) => e.type === 'execution');
  assert.equal(executions.length, 2);
  assert.ok(executions.every((e) => e.type === 'execution' && e.source === 'sysbench' && e.value > 0));
  assert.ok(run.events.filter((e) => e.type === 'interval').length >= 2);
  assert.ok(run.events.some((e) => e.type === 'log' && /setup script ran/.test(e.message)));
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(saved.results!.restarts[0].queries.map((q) => [q.query, q.values.length]), [['tps', 2]]);

  const again = varlabRun([file, ...env.authArgs, '--trust', '--fresh'], env.varlabHome);
  assert.equal(await again.exit, 0, again.stderr());
  assert.ok(again.events.some((e) => e.type === 'log' && /setup skipped: table sbtest1 already exists in sbtest/.test(e.message)));
});
