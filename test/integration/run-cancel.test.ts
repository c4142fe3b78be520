// Cancel ends within a bounded time even when mysqld is killed underneath the run (the field case:
// SIGTERM printed "cancelling…" and then nothing for 30 s): the restart in progress is given up at
// once, mysqld is stopped, the host restored, and the process says what it did, in one line, and exits 130.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepCells, quickstartCopy, runEnvForTests, running, varlabRun } from './run-env.js';

const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=off,numa=default'];

const env = runEnvForTests();
const pidFile = () => env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
/** The mysqld the profile's pid file names, if it still runs. */
const mysqldLeft = () => (existsSync(pidFile()) ? running(Number(readFileSync(pidFile(), 'utf8').trim() || 0)) : false);

test('mysqld killed underneath mid-restart, then SIGTERM: the run ends at once, says what it did, and leaves no mysqld', { timeout: 180_000 }, async () => {
  const file = quickstartCopy(env, 'killed-under', (d) => keepCells(d, CELLS));
  const run = varlabRun([file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '2', '--repetitions', '40', '--warmup', '0'], env.varlabHome);
  await run.waitFor((e) => e.type === 'execution' && e.seq === 2);
  const mysqld = Number(readFileSync(pidFile(), 'utf8').trim());
  process.kill(mysqld, 'SIGKILL');
  run.child.kill('SIGTERM');
  const code = await run.exit;
  assert.equal(code, 130, run.stderr());
  assert.match(run.stderr(), /cancelling \(SIGTERM\)/);
  // How it ended, in one line (it was three: the service's "cancelled 1 run:", the file's line, then the outcome's).
  const ended = run.stderr().split('\n').filter((l) => /cancelled/.test(l) && !/discarded/.test(l));
  assert.deepEqual(ended, ['cancelled after 1 of 4 restarts: mysqld stopped and the host restored; run the same command again to resume'], run.stderr());
  assert.equal(mysqldLeft(), false, 'no mysqld is left running');
  // The journal says the interrupted restart was discarded: a later run resumes from restart 2.
  const journal = readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8');
  assert.match(journal, /"t":"restart-discarded","at":\d+,"seq":2/);
  assert.match(journal, /"t":"run-finished","at":\d+,"state":"cancelled"/);
});

test('Ctrl-C while the first restart starts mysqld: the restart given up on does no new work (no setup script after it), is discarded, and no mysqld is left', { timeout: 180_000 }, async () => {
  const file = quickstartCopy(env, 'cancel-setup', (d) => {
    keepCells(d, CELLS.slice(0, 1));
    d.design.idleSeconds = 0;
    d.design.workload.database = 'varlab_cancel_setup';
    d.design.workload.setupSql = 'CREATE TABLE IF NOT EXISTS cancel_setup (a INT)';
    delete d.design.workload.setupSkipIfTable;
    d.design.workload.queries = [{ name: 'Q1', sql: 'SELECT 1' }];
  });
  const run = varlabRun([file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '1', '--repetitions', '2', '--warmup', '0', '--trust'], env.varlabHome);
  // The restart has begun: its mysqld is starting (one remote call of a second or more), its setup script comes next.
  await run.waitFor((e) => e.type === 'restart-started');
  run.child.kill('SIGINT');
  assert.equal(await run.exit, 130, run.stderr());
  // Once mysqld has started, the attempt sees the cancel before its next step: the setup script never runs (it once ran, then was said before the discard).
  const said = run.events.flatMap((e) => (e.type === 'restart-discarded' ? ['discarded'] : e.type === 'log' && /setup script ran/.test(e.message) ? ['setup'] : []));
  assert.deepEqual(said, ['discarded'], run.stderr());
  assert.equal(mysqldLeft(), false, 'no mysqld is left running');
});
