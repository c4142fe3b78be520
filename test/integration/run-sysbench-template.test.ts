// The sysbench point-select template from the command line to a finished run on the sandbox sshd's
// mariadbd: `varlab new --template oltp_point_select`, then `varlab run`. The sbtest tables are made
// by the setup once; every run's tps and interval lines are journaled (records in the journal, kept in
// the file), the CSV export has them as intervals.csv and analyze judges the steady state on them; a
// second run skips the setup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import type { JournalRecord } from '../../src/common/records.js';
import { journalPath } from '../../src/node/engine/journal.js';
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

  // Every interval line sysbench printed is a journal record, and the file keeps them with the restart.
  const journal = readFileSync(journalPath(file), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as JournalRecord);
  const lines = journal.filter((r) => r.t === 'interval');
  assert.ok(lines.length >= 2, `interval records: ${lines.length}`);
  assert.deepEqual([...new Set(lines.map((r) => r.t === 'interval' && r.rep))], [1, 2]);
  for (const r of lines) if (r.t === 'interval') assert.ok(r.tps > 0 && r.qps > 0 && r.percentile === 95 && r.latencyMs! > 0 && r.threads === 1, JSON.stringify(r));
  const kept = saved.results!.restarts[0].intervals!;
  assert.deepEqual(kept, lines.map((r) => (r.t === 'interval' ? (({ t: _t, at: _at, seq: _seq, ...row }) => row)(r) : null)));

  // The CSV export's intervals table holds the same lines.
  const out = mkdtempSync(join(env.dir, 'csv-'));
  const exported = varlabSync(['export', file, '--csv', out], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  const csv = readFileSync(join(out, 'intervals.csv'), 'utf8').trim().split('\n');
  assert.equal(csv[0], 'aslr,cell,restart,restart_of_cell,run,warmup,second,threads,tps,qps,latency_ms,percentile,err_per_sec,round');
  assert.equal(csv.length - 1, kept.length);
  assert.equal(csv[1].split(',')[8], String(kept[0].tps));

  // analyze reads tps per restart and judges the steady state on the intervals.
  const analysed = varlabSync(['analyze', file], env.varlabHome);
  assert.equal(analysed.code, 0, analysed.stderr);
  assert.match(analysed.stdout, /Intervals \(1 s each\): steady state per restart, on the interval tps/);
  assert.match(analysed.stdout, /restart\s+cell\s+intervals\s+class\s+skipped\s+steady tps\s+run tps/);
  const json = JSON.parse(varlabSync(['analyze', file, '--json'], env.varlabHome).stdout) as { intervals: { restarts: { seq: number; intervals: number; runTps: number }[] } };
  assert.equal(json.intervals.restarts[0].intervals, kept.length);
  assert.ok(Math.abs(json.intervals.restarts[0].runTps - (saved.results!.restarts[0].queries[0].values[0] + saved.results!.restarts[0].queries[0].values[1]) / 2) < 1e-6);

  const again = varlabRun([file, ...env.authArgs, '--trust', '--fresh'], env.varlabHome);
  assert.equal(await again.exit, 0, again.stderr());
  assert.ok(again.events.some((e) => e.type === 'log' && /setup skipped: table sbtest1 already exists in sbtest/.test(e.message)));
});

test('a detached sysbench run keeps its interval lines too: the file holds them per restart, as an attached run does', { timeout: 600_000 }, async () => {
  const file = join(env.dir, 'ps-detached.varlab.json');
  const made = varlabSync(['new', file, '--template', 'oltp_point_select', '--runs', '2', '--seconds', '2', '--table-size', '1000', '--restarts', '1', '--target', env.sshd.target], env.varlabHome);
  assert.equal(made.code, 0, made.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  doc.design.excludedCells = ['aslr=on'];
  doc.design.idleSeconds = 0;
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const launched = varlabSync(['run', file, ...env.authArgs, '--trust', '--detach'], env.varlabHome);
  assert.equal(launched.code, 0, launched.stderr);
  const attached = varlabSync(['attach', file, ...env.authArgs], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr);

  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const restart = saved.results!.restarts[0];
  assert.deepEqual(restart.queries.map((q) => [q.query, q.values.length]), [['tps', 2]]);
  const kept = restart.intervals ?? [];
  assert.ok(kept.length >= 2, `intervals in the file: ${kept.length}`);
  assert.deepEqual([...new Set(kept.map((iv) => iv.rep))], [1, 2], 'each run of sysbench, its own lines');
  for (const iv of kept) assert.ok(iv.tps > 0 && iv.qps > 0 && iv.percentile === 95 && iv.latencyMs! > 0, JSON.stringify(iv));
});
