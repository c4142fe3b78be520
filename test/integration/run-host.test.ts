// The host layer inside a run, through `varlab run` over the sandbox sshd: a cell bound to a CPU list
// (`cpubind=0,2` on a host with three CPUs or more, `0,1` on a two-CPU machine such as the build host:
// the same comma) runs, is verified and comes out whole in the saved file, the CSV and the figures;
// the profile's own options are read back beside the factors; a query the server refuses is named
// before anything is measured, or with its restart when it fails only there; a start that will fail
// again is not retried; and `varlab run --dry-run` prints the very scripts the run then sends to the
// target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { exportContext } from '../../src/common/export/index.js';
import { buildFigures } from '../../src/common/figures/index.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer, type HostLayer } from '../../src/node/engine/hostlayer.js';
import { RunService } from '../../src/node/runs/service.js';
import { runEnvForTests, shortQuickstartCopy, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
/** A CPU list with a comma that this host has. */
const CPUS = availableParallelism() > 2 ? '0,2' : '0,1';
const CPUS_OBSERVED = CPUS === '0,2' ? '0,2' : '0-1';

/** A short copy: ASLR on/off × CPUs none/a list, one restart per cell, two repetitions. */
function cpuListCopy(name: string, edit: (d: ExperimentDoc) => void = () => {}): string {
  const factors = [
    { tunable: 'aslr', levels: ['on', 'off'] },
    { tunable: 'cpubind', levels: ['none', CPUS] },
  ];
  return shortQuickstartCopy(env, name, { factors, restartsPerCell: 1, repetitions: 2, warmup: 0 }, edit);
}

test(`a cpubind=${CPUS} cell round-trips through the run, the saved file, the CSV and the figures`, { timeout: 600_000 }, async () => {
  const file = cpuListCopy('cpus');
  const run = varlabRun([file, ...env.authArgs], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const bound = doc.results!.restarts.filter((r) => r.cell.endsWith(`cpubind=${CPUS}`));
  assert.equal(bound.length, 2);
  for (const r of bound) {
    assert.deepEqual(r.checks.find((c) => c.tunable === 'cpubind'), { tunable: 'cpubind', level: CPUS, ok: true, observed: `Cpus_allowed_list ${CPUS_OBSERVED}` });
    // The sandbox's own options, read back on the live server beside the factors.
    assert.ok(r.options?.some((o) => o.tunable === 'innodb_buffer_pool_size' && o.ok), JSON.stringify(r.options));
  }
  const out = join(env.dir, 'cpus-export');
  const exported = varlabSync(['export', file, '--csv', out], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  for (const csv of ['executions.csv', 'restarts.csv', 'summary.csv']) {
    const rows = parse(readFileSync(join(out, csv), 'utf8'), { columns: true }) as Record<string, string>[];
    assert.deepEqual([...new Set(rows.map((r) => r.cpubind))].sort(), [CPUS, 'none'], csv);
    for (const r of rows.filter((x) => x.cell)) assert.equal(r.cpubind, r.cell.endsWith(`cpubind=${CPUS}`) ? CPUS : 'none', `${csv}: ${r.cell}`);
  }
  const analysis = varlabSync(['analyze', file, '--json'], env.varlabHome);
  assert.equal(analysis.code, 0, analysis.stderr);
  assert.ok(analysis.stdout.includes(`"aslr=off,cpubind=${CPUS}"`), analysis.stdout.slice(0, 400));
  // The figures the export draws and the Analysis view shows, from the file the run wrote: the
  // CoV-by-level bars name the whole CPU list.
  const cov = buildFigures(exportContext(doc)).find((f) => f.id === 'cov-levels');
  const bars = cov?.data.find((d) => d.name === 'cpubind') as { x: string[] } | undefined;
  assert.deepEqual(bars?.x, ['cpubind=none', `cpubind=${CPUS}`]);
});

test('a query the server refuses is named, with its message, before anything is measured', { timeout: 300_000 }, async () => {
  const file = cpuListCopy('badquery', (d) => {
    d.design.factors = [{ tunable: 'aslr', levels: ['on'] }];
    d.design.workload.queries[1] = { name: 'typo', sql: 'SELECT no_such_column FROM lineitem' };
  });
  // --trust: the test wrote this query (a file's own SQL is asked about first).
  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(await run.exit, 1);
  assert.match(run.stderr(), /a query fails on the server, so nothing was measured: query "typo": Unknown column 'no_such_column' in '[^']+'/);
  assert.equal(run.events.filter((e) => e.type === 'execution').length, 0);
  assert.equal(run.events.filter((e) => e.type === 'restart-started').length, 1, 'not retried');
});

test('a query the server refuses only at a later restart (under its cell\'s sql_mode) names itself and its restart; the restart before it is kept', { timeout: 300_000 }, async () => {
  // The first restart's check passes ("x" is a string); at restart 2, under ANSI_QUOTES, "x" is a column.
  const file = cpuListCopy('latequery', (d) => {
    d.design.factors = [{ tunable: 'variable', name: 'sql_mode', levels: ['STRICT_TRANS_TABLES', 'ANSI_QUOTES'] }];
    d.design.order = 'blocked';
    d.design.workload.queries[1] = { name: 'quoted', sql: 'SELECT "x"' };
  });
  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(await run.exit, 1);
  assert.match(run.stderr(), /restart 2 \(sql_mode=ANSI_QUOTES\): query "quoted" failed on the server: Unknown column 'x' in '[^']+'\. The run stopped there; the restarts measured before it are kept/);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.results!.restarts.map((r) => [r.seq, r.status]), [[1, 'ok']]);
});

test('a start that will fail the same way is not retried, and says why once', { timeout: 300_000 }, async () => {
  const file = cpuListCopy('badoption', (d) => {
    d.design.factors = [{ tunable: 'variable', name: 'innodb_no_such_setting', levels: ['1'] }];
  });
  // --trust: a variable that is not a known tuning variable is asked about first.
  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(await run.exit, 1);
  assert.equal(run.events.filter((e) => e.type === 'restart-started').length, 1, 'one attempt');
  const said = run.stderr().split("unknown variable 'innodb-no-such-setting=1'").length - 1;
  assert.ok(said >= 1 && said <= 4, `the cause is said, not repeated per retry: ${run.stderr()}`);
});

test('the idle time comes before each start, with mysqld stopped: a restart is verified only after it, and measures right away', { timeout: 300_000 }, async () => {
  const IDLE = 3;
  const file = cpuListCopy('idle', (d) => {
    d.design.factors = [{ tunable: 'aslr', levels: ['on'] }];
    d.design.restartsPerCell = 2;
    d.design.idleSeconds = IDLE;
  });
  const run = varlabRun([file, ...env.authArgs], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  const at = (type: string, seq: number) => run.events.find((e) => e.type === type && (e as { seq?: number }).seq === seq)?.at ?? NaN;
  // The last restart (the first one also runs the setup between two starts, each after its idle).
  for (const seq of [1, 2]) {
    const started = at('restart-started', seq);
    const verified = at('tunables-verified', seq);
    const measured = at('execution', seq);
    assert.ok(verified - started >= IDLE * 1000, `restart ${seq}: verified ${verified - started} ms after it began, before its idle time was over`);
    assert.ok(measured - verified < IDLE * 1000, `restart ${seq}: the first execution ${measured - verified} ms after the verify: an idle between them`);
  }
});

test('`varlab run --dry-run` prints the very restart scripts the run sends to the target, one per cell', { timeout: 600_000 }, async () => {
  const file = cpuListCopy('dryrun', (d) => {
    d.design.workload.repetitions = 1;
  });
  const dry = varlabSync(['run', file, '--dry-run', ...env.authArgs], env.varlabHome);
  assert.equal(dry.code, 0, dry.stderr);
  const printed = dry.stdout.split('# one remote call on the target:\n').length - 1;
  assert.equal(printed, 4, `one script per cell: ${dry.stdout.slice(0, 400)}`);

  // The same file run in this process, through a host layer that keeps every command sent to the target.
  const sent: string[] = [];
  const base = defaultHostLayer();
  const host: HostLayer = {
    ...base,
    async openTarget(target, o) {
      const session = await base.openTarget(target, o);
      return { ...session, exec: (cmd, eo) => (sent.push(cmd), session.exec(cmd, eo)) };
    },
  };
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host });
  const started = await service.start({ file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, consent: async () => {} });
  const outcome = await started.done;
  assert.equal(outcome.state, 'finished', outcome.message);
  // Restart scripts are those that wait for mysqld; the rest is the probe, the lock, the stop and the restore.
  const restarts = [...new Set(sent.filter((c) => c.includes('# wait until mysqld listens')))];
  assert.equal(restarts.length, 4, 'one script per cell, each computed once');
  for (const script of restarts) assert.ok(dry.stdout.includes(`# one remote call on the target:\n${script}`), `the dry run printed what ran:\n${script}`);
  assert.ok(restarts.some((c) => c.includes(`taskset -c ${CPUS} `)), 'the CPU list reached the command whole');
});
