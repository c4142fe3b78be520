// A DBT-3 design run detached (issue 23): the runner on the target has no generator, so the data step
// runs at the launch, over varlab's own connection (mysqld started as the first restart's cell starts
// it, the rows loaded and checked, mysqld stopped), then the runner measures. `run --detach` prints the
// data step's progress, the local journal holds its record, and `attach` brings the measurements into
// the file. A second launch recognises the data. The real sandbox sshd and mariadbd.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { runEnvForTests, shortDbt3, varlabSync } from './run-env.js';

const env = runEnvForTests();

const dataRecords = (file: string) =>
  readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.includes('"t":"data"'))
    .map((l) => JSON.parse(l) as { recognised: boolean; rows: Record<string, number>; checks: { expected: boolean }[] });

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
