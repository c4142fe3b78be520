// A finished experiment is not run again unasked (its results would be replaced): `varlab run` on a
// finished file says so and leaves it alone; --dry-run lists every command per cell; --fresh keeps a
// copy of the file with its results and the old journal before starting over; run.start refuses
// without fresh: true.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { createBackend } from '../../src/node/backend.js';
import { assertComplete } from './run-journal-check.js';
import { keepCells, quickstartCopy, runEnvForTests, varlabRun } from './run-env.js';
import { CLI } from '../fixtures/cli.js';
import { learnedEstimate } from '../../src/common/stats/planner.js';

const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=on,numa=interleave'];

const env = runEnvForTests({ varlabHome: true });

/** `varlab run` without --events, the way a user runs it: both streams and the exit status. */
function varlabPlain(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...CLI, 'run', ...args], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
}

test('a finished file is left alone unless --fresh; --fresh keeps the old results beside it; run.start needs fresh: true', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'done', (d) => keepCells(d, CELLS));
  const journal = file.replace(/\.json$/, '.journal.jsonl');
  const target = ['--target', env.sshd.target, ...env.authArgs];
  const first = varlabRun([file, ...target, '--restarts', '1', '--repetitions', '2', '--warmup', '0'], env.varlabHome);
  assert.equal(await first.exit, 0, first.stderr());
  const finishedText = readFileSync(file, 'utf8');
  const journalText = readFileSync(journal, 'utf8');
  const oldResults = (JSON.parse(finishedText) as ExperimentDoc).results!;
  assert.equal(oldResults.restarts.length, 2);

  // Again, the same command: nothing runs, the file and its journal are untouched, the user is told how to run it anew.
  const again = varlabPlain([file, ...target]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already finished \(2 of 2 restarts\); nothing to run\. To run it again from scratch, pass --fresh \(the current results are kept in (\S+\.results-\S+\.varlab\.json)\)/);
  const keptAs = /kept in (\S+\.results-\S+\.varlab\.json)\)/.exec(again.stdout)![1];
  assert.doesNotMatch(again.stderr, /running|1 of 2|restart 1/);
  assert.equal(readFileSync(file, 'utf8'), finishedText, 'the finished file is not touched');
  assert.equal(readFileSync(journal, 'utf8'), journalText, 'its journal is not touched');

  // --dry-run --fresh: every command each cell would run on the host, once per cell; still nothing touched.
  const dry = varlabPlain([file, ...target, '--dry-run', '--fresh']);
  assert.equal(dry.code, 0, dry.stderr);
  for (const cell of CELLS) assert.match(dry.stdout, new RegExp(`== cell ${cell.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: restarts \\d`));
  assert.match(dry.stdout, /randomize_va_space/, 'the ASLR command is listed');
  assert.match(dry.stdout, /numactl --interleave/, 'the NUMA wrapper is listed');
  assert.match(dry.stdout, /mariadbd|mysqld/, 'the server start is listed');
  assert.match(dry.stdout, /would start from scratch/);
  // Its time at the costs the finished run measured, and said so (the design's estimates are the quickstart's guesses).
  assert.match(dry.stdout, /^.*: 2 restarts on .*, about \d+ s \(costs from the run of \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/m);
  assert.match(dry.stdout, /dry run: nothing was run/);
  for (const block of dry.stdout.split('== cell ').slice(1)) assert.equal(block.split('# one remote call on the target').length, 2, 'one script per cell: its restart is one remote call');
  assert.equal(readFileSync(file, 'utf8'), finishedText);

  // The API: run.check names where the results would be kept; run.start without fresh is refused.
  const backend = createBackend({ transport: 'websocket' });
  const check = await backend.call('run.check', { path: file });
  assert.ok(check.ok && check.value.finished && check.value.keepResultsAs === keptAs, JSON.stringify(check));
  const refused = await backend.call('run.start', { path: file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile } });
  assert.ok(!refused.ok && refused.code === 'already-finished' && /already finished \(2 of 2 restarts\)/.test(refused.message), JSON.stringify(refused));
  await backend.dispose();
  assert.equal(readFileSync(file, 'utf8'), finishedText);

  // --fresh: says where the old results are, keeps a copy of the file and the old journal, then runs the whole plan.
  const fresh = varlabRun([file, ...target, '--fresh'], env.varlabHome);
  assert.equal(await fresh.exit, 0, fresh.stderr());
  assert.ok(fresh.stderr().includes(`the results of the finished run are kept in ${keptAs}`), fresh.stderr());
  assert.match(fresh.stderr(), /running 2 restarts on .*, about \d+ s \(costs from the run of \d{4}-\d\d-\d\d \d\d:\d\d UTC\); results into /);
  assert.equal(fresh.events.filter((e) => e.type === 'restart-started').length, 2, 'the whole plan ran again');
  // Its first time left is the time said before it ran, at the costs of the run it replaces (not the design's estimates).
  const said = learnedEstimate(JSON.parse(finishedText) as ExperimentDoc, 2).estimate.seconds * 1000;
  const firstLeft = fresh.events.find((e) => e.type === 'progress');
  assert.ok(firstLeft?.type === 'progress' && Math.abs(firstLeft.remainingMs - said) <= 1, `first time left ${firstLeft?.type === 'progress' ? firstLeft.remainingMs : '?'} ms, said ${said} ms`);
  assert.deepEqual((JSON.parse(readFileSync(keptAs, 'utf8')) as ExperimentDoc).results, oldResults, 'the copy holds the old results');
  const archived = readdirSync(dirname(file)).filter((f) => f !== basename(journal) && f.startsWith(basename(journal, '.jsonl') + '.') && f.endsWith('.jsonl'));
  assert.equal(archived.length, 1, 'the old journal is archived');
  assert.equal(readFileSync(`${dirname(file)}/${archived[0]}`, 'utf8'), journalText);
  assertComplete(file, journal, 1, 2);
  assert.ok(existsSync(keptAs));
});
