// Cancel ends within a bounded time even when mysqld is killed underneath the run (the field case:
// SIGTERM printed "cancelling…" and then nothing for 30 s): the restart in progress is given up at
// once, mysqld is stopped, the host restored, and the process says what it did, in one line, and exits 130.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { RunEngine } from '../../src/node/engine/run.js';
import { hostTree, keepCells, quickstartCopy, runEnvForTests, running, shortQuickstartCopy, varlabRun } from './run-env.js';

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

/** A signal waits for the process (held by SIGSTOP, it is not taken until SIGCONT): /proc's pending masks. */
function pending(pid: number, signal: number): boolean {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const bit = 1n << BigInt(signal - 1);
  return ['SigPnd', 'ShdPnd'].some((k) => (BigInt(`0x${new RegExp(`^${k}:\\s*(\\w+)`, 'm').exec(status)?.[1] ?? '0'}`) & bit) !== 0n);
}

test('a cancel while a restart’s one remote call is still on the target (the last mysqld slow to stop): the host is restored after that call, so no mysqld of it is left and THP is put back', { timeout: 300_000 }, async () => {
  const { paths, thp } = hostTree(env, 'tree-held-call');
  const path = shortQuickstartCopy(env, 'held-call', { factors: [{ tunable: 'thp', levels: ['never'] }], restartsPerCell: 2, repetitions: 2, warmup: 0 }, (d: ExperimentDoc) => {
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    // The engine runs the file's own profile (a `varlab run` would take the registered one).
    const { sandboxDir: _d, createdAt: _c, ...profile } = env.profile as ServerProfile & { sandboxDir?: string; createdAt?: number };
    d.design.serverProfile = { ...profile, target: env.sshd.target };
  });
  const doc = JSON.parse(readFileSync(path, 'utf8')) as ExperimentDoc;
  let held = 0;
  const engine = new RunEngine({
    path,
    doc,
    auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile },
    prompt: async () => ({ accept: true }),
    host: defaultHostLayer(paths),
    onEvent: (e) => {
      // Restart 1 has measured: its mysqld is held before restart 2's call stops it, so that call waits on it.
      if (e.type === 'restart-finished' && e.seq === 1 && !held) {
        held = Number(readFileSync(pidFile(), 'utf8').trim());
        process.kill(held, 'SIGSTOP');
      }
    },
  });
  let ended = false;
  const done = engine.run().finally(() => (ended = true));
  // Restart 2's call has sent its SIGTERM (waiting while mysqld is held): the call is on the target.
  while (!held || !pending(held, 15)) {
    if (ended) assert.fail(`the run ended before restart 2's call stopped mysqld: ${(await done).message}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(readFileSync(thp, 'utf8').trim(), 'never', 'restart 1 set THP');
  engine.cancel();
  // Held longer than the engine once waited for a restart given up on (10 s) before it stopped mysqld
  // and restored the host beside that call, which then set the host and started mysqld after them.
  await new Promise((r) => setTimeout(r, 15_000));
  process.kill(held, 'SIGCONT');
  const out = await done;
  assert.equal(out.state, 'cancelled', out.message);
  assert.equal(out.restoreProblem, undefined);
  assert.equal(mysqldLeft(), false, 'no mysqld is left running');
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise', 'THP put back');
  // The journal keeps what was measured, and the restart given up on is discarded.
  const journal = readFileSync(path.replace(/\.json$/, '.journal.jsonl'), 'utf8');
  assert.match(journal, /"t":"restart-finished","at":\d+,"seq":1,"cell":"[^"]+","status":"ok"/);
  assert.match(journal, /"t":"restart-discarded","at":\d+,"seq":2,"cell":"[^"]+","reason":"cancelled during this restart"/);
  assert.match(journal, /"t":"run-finished","at":\d+,"state":"cancelled"/);
});
