// A DBT-3 design with two server builds run detached: each build has its own data directory, and the
// runner on the target has no generator, so the launch runs the data step for every data directory the
// restarts reach (each build's server started as its first restart starts it, the rows loaded, mysqld
// stopped, the host put back), journaled per data directory, before the runner takes over. A second
// launch recognises both. With a setup script, the data step comes first and the script second, attached as
// detached. Two copies of the sandbox mariadbd at two paths (builds-env.ts), over the sandbox sshd, SF 0.01.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { learnedEstimate, measuredCosts } from '../../src/common/stats/planner.js';
import { buildsEnvForTests } from './builds-env.js';
import { varlabSync } from './run-env.js';

const env = buildsEnvForTests('dbt3-builds');

type DataRecord = { datadir?: string; recognised: boolean; rows: Record<string, number>; checks: { expected: boolean }[] };
const dataRecords = (file: string) =>
  readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"t":"data"'))
    .map((l) => JSON.parse(l) as DataRecord);

/** A DBT-3 file at SF 0.01 on the sandbox: the build factor's levels, 1 restart a cell, 2 queries of 2 executions (the first a warm-up). */
function dbt3File(name: string, levels: string[], edit: (d: ExperimentDoc['design']) => void = () => {}): string {
  const file = join(env.dir, `${name}.varlab.json`);
  const made = varlabSync(['new', file, '--template', 'dbt3', '--sf', '0.01', '--target', env.sshd.target, '--restarts', '1'], env.home);
  assert.equal(made.code, 0, made.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  doc.design.factors = [{ tunable: 'build', levels }] as ExperimentDoc['design']['factors'];
  doc.design.excludedCells = [];
  doc.design.restartsPerCell = 1;
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 2);
  doc.design.workload.repetitions = 2;
  doc.design.workload.warmup = 1;
  doc.design.idleSeconds = 0;
  edit(doc.design);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return file;
}

test('a DBT-3 design with builds A and B run --detach: the launch loads each build’s data directory, the runner measures both, a second launch recognises both', { timeout: 900_000 }, async () => {
  const file = dbt3File('dbt3-builds', ['A', 'B']);

  const launched = varlabSync(['run', file, '--detach', ...env.authArgs, '--trust'], env.home);
  assert.equal(launched.code, 0, launched.stderr + launched.stdout);
  // What B's first restart finds: its own data directory, loaded at the launch as A's is.
  const attached = varlabSync(['attach', file, ...env.authArgs], env.home);
  assert.equal(attached.code, 0, attached.stderr + attached.stdout);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const restarts = saved.results?.restarts ?? [];
  assert.deepEqual(
    restarts.map((r) => [r.cell, r.status, r.reason]),
    [
      ['build=A', 'ok', undefined],
      ['build=B', 'ok', undefined],
    ],
    `${attached.stderr}\n${JSON.stringify(saved.results?.log)}`,
  );
  for (const r of restarts) assert.deepEqual(r.queries.map((q) => q.values.length), [2, 2], `${r.cell}: every query measured on the loaded data`);

  // Each load says how far it is: the rows' lines twice, one load per data directory.
  assert.equal(launched.stderr.match(/DBT-3 data: loading rows \(\w+\) 0%/g)?.length, 2, launched.stderr);
  const loads = dataRecords(file);
  assert.deepEqual(
    loads.map((r) => [r.datadir, r.recognised, r.rows.lineitem, r.checks.every((c) => c.expected)]),
    [
      ['A', false, 60341, true],
      ['B', false, 60341, true],
    ],
    'one data step per build’s data directory, each loaded and checked',
  );

  // Run again from scratch: both data directories are there, recognised, not loaded again.
  const again = varlabSync(['run', file, '--detach', '--fresh', ...env.authArgs, '--trust'], env.home);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.deepEqual(
    // (run again from scratch: a new journal, the earlier one kept aside)
    dataRecords(file)
      .slice(-2)
      .map((r) => [r.datadir, r.recognised]),
    [
      ['A', true],
      ['B', true],
    ],
  );
  const done = varlabSync(['attach', file, ...env.authArgs], env.home);
  assert.equal(done.code, 0, done.stderr + done.stdout);
});

test('a DBT-3 design with a setup script: the data step first, then the script, attached (build A) as detached (build B), so a script may index the DBT-3 tables', { timeout: 900_000 }, async () => {
  // A database of its own: loaded here, not recognised from the test above.
  const withScript = (d: ExperimentDoc['design']) => {
    d.workload.database = 'dbt3_setup';
    d.workload.setupSql = 'CREATE INDEX varlab_by_quantity ON lineitem (l_quantity)';
    // Two restarts: the second is an ordinary one, what the set-up of the first is measured against.
    d.restartsPerCell = 2;
  };
  const journal = (file: string) =>
    readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { t: string; at: number; datadir?: string; message?: string });
  const attachedFile = dbt3File('setup-attached', ['A'], withScript);
  const ran = varlabSync(['run', attachedFile, ...env.authArgs, '--trust'], env.home);
  assert.equal(ran.code, 0, ran.stderr + ran.stdout);
  const detachedFile = dbt3File('setup-detached', ['B'], withScript);
  const launched = varlabSync(['run', detachedFile, '--detach', ...env.authArgs, '--trust'], env.home);
  assert.equal(launched.code, 0, launched.stderr + launched.stdout);
  const attached = varlabSync(['attach', detachedFile, ...env.authArgs], env.home);
  assert.equal(attached.code, 0, attached.stderr + attached.stdout);
  for (const [file, build] of [
    [attachedFile, 'A'],
    [detachedFile, 'B'],
  ]) {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.deepEqual(
      doc.results!.restarts.map((r) => [r.cell, r.status]),
      [
        [`build=${build}`, 'ok'],
        [`build=${build}`, 'ok'],
      ],
      JSON.stringify(doc.results?.log),
    );
    const records = journal(file);
    const data = records.find((r) => r.t === 'data');
    const script = records.find((r) => r.t === 'log' && /setup script ran \(1 statements/.test(r.message ?? ''));
    assert.equal(data?.datadir, build);
    assert.ok(script, `${build}: the setup script ran (${JSON.stringify(records.filter((r) => r.t === 'log'))})`);
    assert.ok(data!.at <= script!.at, `${build}: the data step (${data!.at}) before the setup script (${script!.at})`);
    // The file keeps the data step, and the time said for the next run counts its load as the data
    // directory's own, once, where the detached launch ran it too (outside the runner's restart).
    assert.deepEqual(doc.results!.dataSteps?.map((d) => [d.datadir, d.recognised]), [[build, false]]);
    const costs = measuredCosts(doc);
    assert.deepEqual(costs.loadSeconds, { [build]: doc.results!.dataSteps![0].ms / 1000 }, `${build}: ${JSON.stringify(costs)}`);
    // Every step counted once: the time said after the run ("from the run of DATE") for a rerun of the
    // same design there is the time the run took, from its start (a detached launch's, with its mysqld
    // start and stop around the load) to its end, less the load the rerun recognises (and the waits
    // between restarts, a save, which it does not count).
    const took = (doc.results!.finishedAt! - doc.results!.startedAt!) / 1000;
    const said = learnedEstimate(doc).estimate.seconds;
    const load = costs.loadSeconds![build];
    assert.ok(Math.abs(said - (took - load)) <= 0.05 * took, `${build}: said ${said.toFixed(1)} s after the run, which took ${took.toFixed(1)} s with a load of ${load.toFixed(1)} s (${JSON.stringify(costs)})`);
  }
});
