// Ctrl-C on `npm run varlab -- run …` reaches npm and node together (and npm may forward it again):
// signals in quick succession are one interrupt, which cancels cleanly (mysqld stopped, exit 130).
// Running the same command again resumes with one "resuming" line, without replaying last time's discard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { keepCells, quickstartCopy, runEnvForTests, running, varlabRun } from './run-env.js';
import { CLI } from '../fixtures/cli.js';

const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=off,numa=default'];

const env = runEnvForTests();


function plainRun(args: string[]): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [...CLI, 'run', ...args], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdout.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, stderr })));
}

test('two SIGINTs at once cancel once: exit 130, mysqld stopped; the next run resumes with one line', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'sigint', (d) => keepCells(d, CELLS));
  const args = [file, '--target', env.sshd.target, ...env.authArgs, '--restarts', '2', '--repetitions', '3', '--warmup', '0'];
  const run = varlabRun(args, env.varlabHome);
  await run.waitFor((e) => e.type === 'execution' && e.seq === 2);
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  const mysqld = Number(readFileSync(pidFile, 'utf8').trim());
  assert.ok(mysqld > 0 && running(mysqld), 'the sandbox mysqld runs during the run');

  // What a terminal's Ctrl-C (to the process group) plus npm's forwarding deliver: the same signal twice.
  run.child.kill('SIGINT');
  run.child.kill('SIGINT');
  const code = await run.exit;
  assert.equal(code, 130, run.stderr());
  assert.match(run.stderr(), /cancelled after \d+ of 4 restarts/);
  assert.doesNotMatch(run.stderr(), /interrupted twice/);
  assert.equal(running(mysqld), false, `mysqld ${mysqld} was stopped by the cancel`);
  assert.equal(existsSync(pidFile) && running(Number(readFileSync(pidFile, 'utf8').trim() || 0)), false, 'no mysqld is left running');

  const again = await plainRun(args);
  assert.equal(again.code, 0, again.stderr);
  const resuming = again.stderr.split('\n').filter((l) => /resuming/.test(l));
  assert.equal(resuming.length, 1, `one resume line:\n${again.stderr}`);
  assert.match(resuming[0], /1 of 4 restarts already done/);
  assert.doesNotMatch(again.stderr, /discarded/, "last time's discard is not printed again");
  assert.match(again.stderr, /finished: 4 of 4 restarts/);
});
