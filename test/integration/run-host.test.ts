// The host layer inside a run, through `varlab run` over the sandbox sshd: a `cpubind=0,2` cell runs,
// is verified and comes out whole in the saved file, the CSV and the figures; the profile's own
// options are read back beside the factors; a query the server refuses is named before anything is
// measured; and a start that will fail again is not retried.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { quickstartCopy, runEnvForTests, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests();

/** A short copy: ASLR on/off × CPUs none/0,2, one restart per cell, two repetitions. */
function cpuListCopy(name: string, edit: (d: ExperimentDoc) => void = () => {}): string {
  return quickstartCopy(env, name, (d) => {
    d.design.factors = [
      { tunable: 'aslr', levels: ['on', 'off'] },
      { tunable: 'cpubind', levels: ['none', '0,1'] },
    ];
    d.design.excludedCells = [];
    d.design.restartsPerCell = 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 2);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.target = env.sshd.target;
    edit(d);
  });
}

test('a cpubind=0,1 cell round-trips through the run, the saved file, the CSV and the figures', { timeout: 600_000 }, async () => {
  const file = cpuListCopy('cpus');
  const run = varlabRun([file, ...env.authArgs], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const bound = doc.results!.restarts.filter((r) => r.cell.endsWith('cpubind=0,1'));
  assert.equal(bound.length, 2);
  for (const r of bound) {
    assert.deepEqual(r.checks.find((c) => c.tunable === 'cpubind'), { tunable: 'cpubind', level: '0,1', ok: true, observed: 'Cpus_allowed_list 0-1' });
    // The sandbox's own options, read back on the live server beside the factors.
    assert.ok(r.options?.some((o) => o.tunable === 'innodb_buffer_pool_size' && o.ok), JSON.stringify(r.options));
  }
  const out = join(env.dir, 'cpus-export');
  const exported = varlabSync(['export', file, '--csv', out], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  const rows = parse(readFileSync(join(out, 'restarts.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  assert.deepEqual([...new Set(rows.map((r) => r.cpubind))].sort(), ['0,1', 'none']);
  const analysis = varlabSync(['analyze', file, '--json'], env.varlabHome);
  assert.equal(analysis.code, 0, analysis.stderr);
  assert.match(analysis.stdout, /"aslr=off,cpubind=0,1"/);
});

test('a query the server refuses is named, with its message, before anything is measured', { timeout: 300_000 }, async () => {
  const file = cpuListCopy('badquery', (d) => {
    d.design.factors = [{ tunable: 'aslr', levels: ['on'] }];
    d.design.workload.queries[1] = { name: 'typo', sql: 'SELECT no_such_column FROM lineitem' };
  });
  const run = varlabRun([file, ...env.authArgs], env.varlabHome);
  assert.equal(await run.exit, 1);
  assert.match(run.stderr(), /a query fails on the server, so nothing was measured: query "typo": Unknown column 'no_such_column' in '[^']+'/);
  assert.equal(run.events.filter((e) => e.type === 'execution').length, 0);
  assert.equal(run.events.filter((e) => e.type === 'restart-started').length, 1, 'not retried');
});

test('a start that will fail the same way is not retried, and says why once', { timeout: 300_000 }, async () => {
  const file = cpuListCopy('badoption', (d) => {
    d.design.factors = [{ tunable: 'variable', name: 'innodb_no_such_setting', levels: ['1'] }];
  });
  const run = varlabRun([file, ...env.authArgs], env.varlabHome);
  assert.equal(await run.exit, 1);
  assert.equal(run.events.filter((e) => e.type === 'restart-started').length, 1, 'one attempt');
  const said = run.stderr().split("unknown variable 'innodb-no-such-setting=1'").length - 1;
  assert.ok(said >= 1 && said <= 4, `the cause is said, not repeated per retry: ${run.stderr()}`);
});
