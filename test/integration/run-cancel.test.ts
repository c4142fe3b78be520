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


test('mysqld killed underneath mid-restart, then SIGTERM: the run ends at once, says what it did, and leaves no mysqld', { timeout: 180_000 }, async () => {
  const file = quickstartCopy(env, 'killed-under', (d) => keepCells(d, CELLS));
  const run = varlabRun([file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '2', '--repetitions', '40', '--warmup', '0'], env.varlabHome);
  await run.waitFor((e) => e.type === 'execution' && e.seq === 2);
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  const mysqld = Number(readFileSync(pidFile, 'utf8').trim());
  process.kill(mysqld, 'SIGKILL');
  run.child.kill('SIGTERM');
  const code = await run.exit;
  assert.equal(code, 130, run.stderr());
  assert.match(run.stderr(), /cancelling \(SIGTERM\)/);
  // How it ended, in one line (it was three: the service's "cancelled 1 run:", the file's line, then the outcome's).
  const ended = run.stderr().split('\n').filter((l) => /cancelled/.test(l) && !/discarded/.test(l));
  assert.deepEqual(ended, ['cancelled after 1 of 4 restarts: mysqld stopped and the host restored; run the same command again to resume'], run.stderr());
  const left = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim() || 0) : 0;
  assert.equal(running(left), false, 'no mysqld is left running');
  // The journal says the interrupted restart was discarded: a later run resumes from restart 2.
  const journal = readFileSync(file.replace(/\.json$/, '.journal.jsonl'), 'utf8');
  assert.match(journal, /"t":"restart-discarded","at":\d+,"seq":2/);
  assert.match(journal, /"t":"run-finished","at":\d+,"state":"cancelled"/);
});
