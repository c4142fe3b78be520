// From nothing to the first field note's experiment at SF 0.01, as a new user goes: `varlab new
// --template dbt3`, then `varlab run` on the sandbox sshd's mariadbd. The data step loads DBT-3,
// journals what it loaded and the 22 queries' checks, then the restarts measure; a second run
// recognises the data and loads nothing. Each run's first time left is the time said before it: the
// load's estimate before any run, then none (the first run left the data there).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import type { RunEvent } from '../../src/common/events.js';
import { learnedEstimate } from '../../src/common/stats/planner.js';
import { keepCells, runEnvForTests, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests();

/** A run's first time left (engine/run.ts) is what `plan` and the start line said (stats/planner.ts learnedEstimate). */
function firstLeftIsSaid(events: RunEvent[], before: ExperimentDoc): void {
  const said = learnedEstimate(before, 1).estimate.seconds * 1000;
  const left = events.find((e) => e.type === 'progress');
  assert.ok(left?.type === 'progress' && Math.abs(left.remainingMs - said) <= 1, `first time left ${left?.type === 'progress' ? left.remainingMs : '?'} ms, said ${said} ms`);
}

test('new --template dbt3 --sf 0.01, then run: the data step is journaled with its checks and timed; a second run recognises the data', { timeout: 900_000 }, async () => {
  const file = join(env.dir, 'dbt3.varlab.json');
  const made = varlabSync(['new', file, '--template', 'dbt3', '--sf', '0.01', '--target', env.sshd.target, '--restarts', '1'], env.varlabHome);
  assert.equal(made.code, 0, made.stderr);
  assert.match(made.stdout, /wrote .*dbt3\.varlab\.json: DBT-3 SF 0\.01: ASLR x AHI x preload, 8 restarts/);
  assert.match(made.stdout, /--buffer-pool 256M/);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.factors.map((f) => f.tunable), ['aslr', 'ahi', 'preload']);
  assert.equal(doc.design.workload.queries.length, 22);
  assert.deepEqual([doc.design.workload.repetitions, doc.design.workload.warmup], [20, 10]);
  // Short: one cell, 2 executions of each query.
  keepCells(doc, ['aslr=on,ahi=off,preload=on']);
  doc.design.workload.repetitions = 2;
  doc.design.workload.warmup = 1;
  doc.design.idleSeconds = 0;
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const plan = varlabSync(['plan', file], env.varlabHome);
  assert.match(plan.stdout, /data step: creates database dbt3 \(if missing\) with the DBT-3 tables .* at scale factor 0\.01/);

  const first = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(await first.exit, 0, first.stderr());
  const data = first.events.find((e) => e.type === 'data');
  assert.ok(data && data.type === 'data', first.stderr());
  assert.equal(data.recognised, false);
  assert.equal(data.rows.lineitem, 60341);
  assert.equal(data.checks.length, 22);
  assert.ok(data.checks.every((c) => c.expected), 'every query checked against its expected result');
  assert.ok(data.ms > 0);
  assert.ok(first.events.some((e) => e.type === 'data-progress' && e.phase === 'rows'));
  assert.equal(first.events.filter((e) => e.type === 'execution').length, 22 * 2);
  const journal = readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8');
  assert.match(journal, /"t":"data".*"recognised":false/, 'the data step is in the journal');
  // Its first time left is the time said before it ran, the load's estimate in both (it left the load out).
  firstLeftIsSaid(first.events, doc);

  const measured = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  // The saved file, what a teammate receives, holds the data step whole (it held its time only): rows per table, each query's check.
  const [step] = measured.results?.dataSteps ?? [];
  assert.deepEqual([step?.database, step?.sf, step?.recognised, step?.method], ['dbt3', 0.01, false, data.method]);
  assert.deepEqual(step?.rows, data.rows);
  assert.equal(step?.checks?.length, 22);
  assert.ok(step?.checks?.every((c) => c.expected && /\S/.test(c.checksum)), 'every check in the file, against its expected result');
  const rows = Object.values(data.rows).reduce((a, b) => a + b, 0).toLocaleString('en-US');
  // The report says what data the numbers were measured on.
  const md = join(env.dir, 'dbt3.md');
  const exported = varlabSync(['export', file, '--markdown', md], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  const report = readFileSync(md, 'utf8');
  assert.match(report, new RegExp(`^- Data: DBT-3 SF 0\\.01 in dbt3: ${rows} rows loaded in .+ by (LOAD DATA LOCAL INFILE|INSERTs \\(local_infile is off\\)); 22 queries gave their expected results$`, 'm'), report);
  const again = varlabRun([file, ...env.authArgs, '--trust', '--fresh'], env.varlabHome);
  assert.equal(await again.exit, 0, again.stderr());
  // Run again there, at the costs the first run measured: its data is there, so no load is counted (the run recognises it).
  firstLeftIsSaid(again.events, measured);
  const second = again.events.find((e) => e.type === 'data');
  assert.ok(second && second.type === 'data' && second.recognised, 'the second run recognises the loaded data');
  assert.equal(second.rows.lineitem, 60341);
  // The file of the run again (--fresh: its results only) says the data was there, with its rows.
  const after = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(after.results?.dataSteps?.map((d) => [d.recognised, d.rows?.lineitem]), [[true, 60341]]);
  assert.equal(varlabSync(['export', file, '--markdown', md], env.varlabHome).code, 0);
  assert.match(readFileSync(md, 'utf8'), new RegExp(`^- Data: DBT-3 SF 0\\.01 in dbt3: already loaded \\(${rows} rows\\), not loaded again$`, 'm'));
});
