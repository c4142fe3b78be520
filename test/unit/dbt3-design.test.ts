// The DBT-3 template as a design: valid, the data step named in consent and counted once in the
// plan's estimate, sized to the SF; a bad SF in a file named where it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dbt3Queries } from '../../src/common/dbt3/queries.js';
import { bufferPoolMb, dbt3Template, sizeOption } from '../../src/common/dbt3/template.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { dataLoadSeconds } from '../../src/common/dbt3/scale.js';
import { learnedEstimate } from '../../src/common/stats/planner.js';
import { commandsNeedingConsent } from '../../src/common/trust.js';

test('the template is the first field note: ASLR x AHI x preload, 20 executions keeping the last 10, the 22 queries', () => {
  const doc = dbt3Template({ sf: 0.01 });
  const checked = checkExperiment(doc);
  assert.ok(checked.doc, checked.problems.join('; '));
  assert.deepEqual(doc.design.factors.map((f) => `${f.tunable}:${f.levels.join('/')}`), ['aslr:on/off', 'ahi:on/off', 'preload:off/on']);
  assert.deepEqual([doc.design.workload.repetitions, doc.design.workload.warmup], [20, 10]);
  assert.deepEqual(doc.design.workload.queries.map((q) => q.name), Array.from({ length: 22 }, (_, i) => `Q${i + 1}`));
  assert.deepEqual(doc.design.workload.data, { kind: 'dbt3', sf: 0.01, seed: 20170116 });
});

test('sized to the SF: estimates, buffer pool (4G at SF 1, 32G at SF 10), and Q11 FRACTION = 0.0001 / SF', () => {
  const small = learnedEstimate(dbt3Template({ sf: 0.01 })).estimate;
  const big = learnedEstimate(dbt3Template({ sf: 1 })).estimate;
  assert.ok(big.perRestartSeconds > small.perRestartSeconds * 10);
  assert.ok(dataLoadSeconds(1) > dataLoadSeconds(0.01) && dataLoadSeconds(0.01) > 0);
  assert.equal(big.seconds, big.restarts * big.perRestartSeconds + dataLoadSeconds(1), 'the data step counted once');
  assert.deepEqual([0.01, 0.1, 1, 10].map((sf) => sizeOption(bufferPoolMb(sf))), ['256M', '512M', '4G', '32G']);
  assert.match(dbt3Queries(1).find((q) => q.name === 'Q11')!.sql, /\* 0\.0001 FROM/);
  assert.match(dbt3Queries(0.01).find((q) => q.name === 'Q11')!.sql, /\* 0\.01 FROM/);
});

test('consent names the data step: the tables it creates, where rows come from, nothing left on the target', () => {
  const item = commandsNeedingConsent(dbt3Template({ sf: 0.1, database: 'tpch' })).find((i) => i.kind === 'data');
  assert.ok(item);
  assert.equal(item.where, 'design.workload.data');
  assert.match(item.command, /creates database tpch \(if missing\) with the DBT-3 tables region, nation, part, supplier, partsupp, customer, orders, lineitem at scale factor 0\.1/);
  assert.match(item.command, /marker tables varlab_dbt3 and varlab_dbt3_chunks/);
  assert.match(item.command, /no file is written on the target/);
});

test('consent lists the data step before a setup script of the design, in the order a run does them, and says so', () => {
  const doc = dbt3Template({ sf: 0.01 });
  doc.design.workload.setupSql = 'CREATE INDEX i ON lineitem (l_quantity)';
  const items = commandsNeedingConsent(doc).filter((i) => i.kind === 'data' || i.kind === 'setup-sql');
  assert.deepEqual(
    items.map((i) => [i.kind, i.summary]),
    [
      ['data', 'the DBT-3 data step: run once before the first restart as the admin account of the server profile'],
      ['setup-sql', 'a setup script run once in database dbt3 as the admin account of the server profile, after the DBT-3 data step'],
    ],
  );
});

test('a file whose scale factor is out of range is refused, naming the field', () => {
  const doc = dbt3Template({ sf: 1 });
  doc.design.workload.data!.sf = 20;
  const checked = checkExperiment(doc);
  assert.equal(checked.doc, null);
  assert.ok(checked.problems.some((p) => p.includes('design.workload.data.sf') || p.includes('data/sf')), checked.problems.join('; '));
});
