// Durability: the SSH connection cut in the middle of a restart, and the `varlab run` process
// killed mid-run. Either way the run completes with every planned restart exactly once and every
// execution of it recorded exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { RunEvent } from '../../src/common/events.js';
import { assertComplete, countJournal } from './run-journal-check.js';
import { keepCells, quickstartCopy, runEnvForTests, sshdSessions, varlabRun, varlabSync } from './run-env.js';

const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=on,numa=interleave'];

const env = runEnvForTests();

const isExecutionOf = (seq: number) => (e: RunEvent) => e.type === 'execution' && e.seq === seq;

test('cutting the SSH connection mid-restart: the restart is discarded, varlab reconnects and the run completes with nothing lost or duplicated', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'cut', (d) => keepCells(d, CELLS));
  const run = varlabRun([file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '3', '--repetitions', '3', '--warmup', '1'], env.varlabHome);
  // In the middle of restart 3: some of its executions are in, others are not.
  await run.waitFor(isExecutionOf(3));
  const sessions = sshdSessions(env.sshd.pid);
  assert.ok(sessions.length >= 1, 'varlab holds an SSH session');
  for (const pid of sessions) process.kill(pid, 'SIGKILL');

  const code = await run.exit;
  assert.equal(code, 0, run.stderr());
  const discarded = run.events.filter((e) => e.type === 'restart-discarded');
  assert.equal(discarded.length, 1);
  assert.equal(discarded[0].type === 'restart-discarded' && discarded[0].seq, 3);
  assert.ok(run.events.some((e) => e.type === 'log' && /reconnected/.test(e.message)));

  const journal = file.replace(/\.json$/, '.journal.jsonl');
  const doc = assertComplete(file, journal, 3, 3);
  assert.deepEqual(doc.results!.discarded?.map((d) => d.seq), [3], 'the discard is recorded in the file');
  assert.deepEqual(countJournal(journal).discarded.map((d) => d.seq), [3]);
});

test('killing varlab run mid-run: a second varlab run on the same file says it resumes and completes the plan', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'killed', (d) => keepCells(d, CELLS));
  const args = [file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '2', '--repetitions', '3', '--warmup', '0'];
  const first = varlabRun(args, env.varlabHome);
  await first.waitFor(isExecutionOf(2));
  first.child.kill('SIGKILL');
  await first.exit;
  const before = countJournal(file.replace(/\.json$/, '.journal.jsonl'));
  assert.deepEqual([...before.finished.keys()], [1], 'restart 1 was finished before the kill');

  // Its dry run gives the time of the restarts left, not the whole plan's (it said "4 restarts …, about" the four's).
  const dry = varlabSync(['run', ...args, '--dry-run'], env.varlabHome);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /: 4 restarts on .*\), 3 left to run, about \d+ (s|min \d+ s) for those/, dry.stdout);

  // Same command again (the file now holds the overrides, but the options repeat them: same plan).
  const second = varlabRun(args, env.varlabHome);
  const code = await second.exit;
  assert.equal(code, 0, second.stderr());
  assert.match(second.stderr(), /resuming .*killed\.varlab\.json: 1 of 4 restarts already done/);
  // The second process does not measure restart 1 again.
  assert.equal(second.events.filter((e) => e.type === 'restart-started' && e.seq === 1).length, 0);
  const journal = file.replace(/\.json$/, '.journal.jsonl');
  const doc = assertComplete(file, journal, 2, 3);
  assert.deepEqual(doc.results!.discarded?.map((d) => d.seq), [2]);
  assert.match(doc.results!.discarded![0].reason, /interrupted/);
  // And a resumed file is still one experiment: the restarts of both processes, in plan order.
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).results.restarts.length, 4);
});
