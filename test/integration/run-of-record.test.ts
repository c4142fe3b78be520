// `varlab run` does what the user asked: after fixing a failing query, the run says the design changed
// and --fresh runs the new SQL (no "run the same command again" loop); one run per target across
// processes (a second CLI is refused naming the running file, and the first still finishes; a run
// from another varlab home meets the lock on the target itself); --target beats a profile saved in
// the file, and a run never writes a registered profile into the file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { assertComplete } from './run-journal-check.js';
import { keepCells, quickstartCopy, runEnvForTests, varlabRun } from './run-env.js';
import { CLI } from '../fixtures/cli.js';

const CELL = 'aslr=on,ahi=on,preload=off,numa=default';
const OTHER = 'aslr=off,ahi=off,preload=off,numa=default';

const env = runEnvForTests();

function varlabPlain(args: string[], home = env.varlabHome): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...CLI, 'run', ...args], { env: { ...process.env, VARLAB_HOME: home }, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

// --trust: these files' own SQL (a broken query, its fix) was written by the test itself.
const target = () => ['--target', env.sshd.target, ...env.authArgs, '--trust'];
const readDoc = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as ExperimentDoc;

test('a failing query, fixed in the file: run says what changed and --fresh runs the new SQL', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'fixme', (d) => {
    keepCells(d, [CELL]);
    d.design.restartsPerCell = 1;
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.workload.queries = [
      { name: 'Q1 pricing summary', sql: d.design.workload.queries[0].sql },
      { name: 'Q6 broken', sql: 'SELECT no_such_column FROM lineitem' },
    ];
  });
  const failed = varlabPlain([file, ...target()]);
  assert.equal(failed.code, 1, failed.stderr);
  assert.match(failed.stderr, /no_such_column/);
  assert.doesNotMatch(failed.stderr, /run the same command again to resume/, 'a failure that repeats is not sold as resumable');
  assert.match(failed.stderr, /fix the cause first/);

  // The user fixes the query and runs the same command: told what changed, and the two ways on; nothing runs.
  const doc = readDoc(file);
  doc.design.workload.queries[1].sql = 'SELECT SUM(l_quantity) FROM lineitem WHERE l_discount > 0.05';
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const told = varlabPlain([file, ...target()]);
  assert.equal(told.code, 2, told.stderr);
  assert.match(told.stderr, /the design changed since its unfinished run started \(0 of 1 restarts done\): query Q6 broken: SQL changed/);
  assert.match(told.stderr, /--fresh/);
  assert.match(told.stderr, /--resume/);
  assert.doesNotMatch(told.stderr, /no_such_column/, 'the old SQL did not run again');

  // --fresh: the new SQL runs, the file holds its measurements; the failed attempt's journal is kept aside.
  const fresh = varlabRun([file, ...target(), '--fresh'], env.varlabHome);
  assert.equal(await fresh.exit, 0, fresh.stderr());
  const q6 = fresh.events.filter((e) => e.type === 'execution' && e.query === 'Q6 broken');
  assert.equal(q6.length, 2, 'the fixed query ran, twice');
  const journal = file.replace(/\.json$/, '.journal.jsonl');
  const saved = assertComplete(file, journal, 1, 2);
  assert.equal(saved.design.workload.queries[1].sql, doc.design.workload.queries[1].sql);
  const header = JSON.parse(readFileSync(journal, 'utf8').split('\n')[0]);
  assert.equal(header.design.workload.queries[1].sql, doc.design.workload.queries[1].sql, 'the journal is of the new design');
  assert.ok(
    readdirSync(dirname(file)).some((f) => /^fixme\.varlab\.journal\..+\.jsonl$/.test(f)),
    'the failed run\'s journal is archived beside it',
  );
});

test('a second varlab run on a busy target is refused naming the running file; the first still finishes', { timeout: 400_000 }, async () => {
  const first = quickstartCopy(env, 'first', (d) => {
    keepCells(d, [CELL, OTHER]);
    d.design.restartsPerCell = 2;
    d.design.workload.repetitions = 3;
    d.design.workload.warmup = 0;
    // Long enough to be still running when the three refused runs reach the target: at load 15 it once
    // finished first, and the last of them ran. An idle waits without taking the CPU the others need.
    d.design.idleSeconds = 4;
  });
  const second = quickstartCopy(env, 'second', (d) => keepCells(d, [CELL]));
  const run = varlabRun([first, ...target()], env.varlabHome);
  try {
    await busyTarget(first, second, run);
  } finally {
    // A failed assertion must not leave the first run holding the target for the next test.
    if (run.child.exitCode === null) run.child.kill('SIGTERM');
    await run.exit;
  }
});

async function busyTarget(first: string, second: string, run: ReturnType<typeof varlabRun>): Promise<void> {
  await run.waitFor((e) => e.type === 'execution');

  // Another file, same target, same varlab home: refused before anything runs, naming the running file.
  const other = varlabPlain([second, ...target()]);
  assert.equal(other.code, 1, other.stderr);
  assert.match(other.stderr, new RegExp(`is busy: ${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is running on ${env.sshd.target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  // The same file again: refused too.
  const same = varlabPlain([first, ...target()]);
  assert.equal(same.code, 1, same.stderr);
  assert.match(same.stderr, /is busy/);

  // From another varlab home (another user or machine sharing nothing but the target): the lock on the target refuses it.
  const home2 = join(env.dir, 'home2');
  mkdirSync(home2, { recursive: true });
  const foreign = quickstartCopy(env, 'foreign', (d) => {
    keepCells(d, [CELL]);
    d.design.target = env.sshd.target;
    // The registered profile as a file holds it (the registry's own bookkeeping left out).
    const { sandboxDir: _dir, createdAt: _at, ...profile } = env.profile as typeof env.profile & { sandboxDir?: string; createdAt?: number };
    d.design.serverProfile = { ...profile, target: env.sshd.target };
  });
  const elsewhere = varlabPlain([foreign, ...env.authArgs, '--trust'], home2);
  assert.equal(elsewhere.code, 1, elsewhere.stderr);
  assert.match(elsewhere.stderr, new RegExp(`is busy: ${first.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is running there`));

  // The refused runs touched nothing: the first one finishes with no restart disturbed.
  assert.equal(await run.exit, 0, run.stderr());
  assert.equal(run.events.filter((e) => e.type === 'restart-discarded').length, 0, 'nothing disturbed the first run');
  assert.ok(run.events.filter((e) => e.type === 'restart-finished').every((e) => e.type === 'restart-finished' && e.status === 'ok'));
  assertComplete(first, first.replace(/\.json$/, '.journal.jsonl'), 2, 3);

  // Once it ended, the lock is gone: the second file runs.
  const after = varlabPlain([second, ...target(), '--restarts', '1', '--repetitions', '2', '--warmup', '0']);
  assert.equal(after.code, 0, after.stderr);
}

test('--target wins over a profile saved in the file; a run does not write the registered profile into it', { timeout: 300_000 }, async () => {
  // A file whose saved profile is for `local` and points nowhere useful.
  const file = quickstartCopy(env, 'saved-profile', (d) => {
    keepCells(d, [CELL]);
    d.design.target = 'local';
    d.design.serverProfile = { target: 'local', kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/not-here/data', socket: '/srv/not-here/s.sock', port: 1, user: 'root', extraArgs: [], sudo: false };
  });
  const dry = varlabPlain([file, ...target(), '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`profile registered for ${env.sshd.target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  assert.ok(dry.stdout.includes(`--datadir=${env.profile.datadir}`), dry.stdout);
  assert.doesNotMatch(dry.stdout, /not-here/, "the file's profile for local is not used on another target");

  const ran = varlabPlain([file, ...target(), '--restarts', '1', '--repetitions', '2', '--warmup', '0']);
  assert.equal(ran.code, 0, ran.stderr);
  const after = readDoc(file);
  assert.equal(after.results?.restarts.length, 1);
  assert.deepEqual(after.design.serverProfile, { target: 'local', kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/not-here/data', socket: '/srv/not-here/s.sock', port: 1, user: 'root', extraArgs: [], sudo: false }, "the file keeps its own profile, not the registered one");

  // The case from the field: a file run with the registered profile names no profile afterwards, so another target is not given this one.
  const plain = quickstartCopy(env, 'no-profile', (d) => {
    keepCells(d, [CELL]);
    delete d.design.serverProfile;
  });
  assert.equal(varlabPlain([plain, ...target(), '--restarts', '1', '--repetitions', '2', '--warmup', '0']).code, 0);
  assert.equal(readDoc(plain).design.serverProfile, undefined);
  const elsewhere = varlabPlain([plain, '--target', 'ssh://db.invalid', '--fresh', '--dry-run']);
  assert.equal(elsewhere.code, 2, elsewhere.stdout);
  assert.match(elsewhere.stderr, /no server profile for ssh:\/\/db\.invalid/);
  assert.doesNotMatch(elsewhere.stdout + elsewhere.stderr, new RegExp(env.profile.datadir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
});
