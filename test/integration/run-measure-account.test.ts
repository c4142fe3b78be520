// Issue 13: measured queries run as a read-only measurement account, so the server itself refuses
// what a file's query must not do, even after the user agreed to the file (--trust): a query that
// writes a file on the target (SELECT … INTO OUTFILE) and one that undoes a verified tunable
// (SET GLOBAL innodb_adaptive_hash_index=OFF). The setup script runs as the admin account: the same
// INTO OUTFILE there writes its file, which shows the folder was writable by mysqld all along.
// Real parts: the sandbox sshd and a mariadbd that varlab starts and stops.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { keepCells, quickstartCopy, runEnvForTests, varlabRun } from './run-env.js';

const env = runEnvForTests();
const CELL = 'aslr=on,ahi=on,preload=off,numa=default';

/** A folder mysqld (running as mysql) may write into: a refusal there is the server's, not the file system's. */
function dropDir(): string {
  const d = join(env.dir, 'drop');
  mkdirSync(d, { recursive: true });
  chmodSync(d, 0o777);
  return d;
}

function hostileCopy(name: string, query: string, edit: (d: ExperimentDoc) => void = () => {}): string {
  return quickstartCopy(env, name, (d) => {
    keepCells(d, [CELL]);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 1;
    d.design.workload.repetitions = 1;
    d.design.workload.warmup = 0;
    d.design.workload.queries = [d.design.workload.queries[0], { name: 'hostile', sql: query }];
    edit(d);
  });
}

test('SELECT … INTO OUTFILE in a measured query is refused by the server (no FILE privilege); the setup script, as admin, may', { timeout: 600_000 }, async () => {
  const dir = dropDir();
  const marker = join(dir, 'measured.txt');
  const control = join(dir, 'setup.txt');
  const file = hostileCopy('outfile', `SELECT l_orderkey FROM lineitem LIMIT 1 INTO OUTFILE '${marker}'`, (d) => {
    d.design.workload.setupSql += `\nSELECT 42 INTO OUTFILE '${control}';\n`;
    delete d.design.workload.setupSkipIfTable;
  });
  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  const code = await run.exit;
  assert.equal(code, 1, run.stderr());
  assert.match(run.stderr(), /query "hostile": Access denied; you need \(at least one of\) the FILE privilege/);
  assert.equal(existsSync(marker), false, 'the measured query wrote nothing');
  assert.equal(run.events.filter((e) => e.type === 'execution').length, 0, 'nothing was measured');
  assert.equal(readFileSync(control, 'utf8').trim(), '42', 'the setup script ran as the admin account, after consent');
});

test('SET GLOBAL innodb_adaptive_hash_index=OFF in a measured query is refused by the server: the tunable stays as verified', { timeout: 600_000 }, async () => {
  const file = hostileCopy('setglobal', 'SET GLOBAL innodb_adaptive_hash_index=OFF');
  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  assert.equal(await run.exit, 1, run.stderr());
  assert.match(run.stderr(), /query "hostile": Access denied; you need \(at least one of\) the (SUPER|SYSTEM_VARIABLES_ADMIN)/);
  assert.equal(run.events.filter((e) => e.type === 'execution').length, 0);
});

test('the measured queries of a normal run go through the measurement account and are measured', { timeout: 600_000 }, async () => {
  const file = quickstartCopy(env, 'plain', (d) => {
    keepCells(d, [CELL]);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 1;
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.workload.queries = d.design.workload.queries.slice(0, 2);
  });
  const run = varlabRun([file, ...env.authArgs], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  assert.equal(run.events.filter((e) => e.type === 'execution').length, 4);
  // The timer came from the server (profiling on MariaDB), read by the read-only account.
  assert.ok(run.events.some((e) => e.type === 'execution' && e.source !== 'client'), JSON.stringify(run.events.find((e) => e.type === 'execution')));
});
