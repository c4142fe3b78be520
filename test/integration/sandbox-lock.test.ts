// A sandbox is never changed under a run (real sandbox sshd and mariadbd). While `varlab run` measures
// on it (held still with SIGSTOP, so the check cannot race its end), `sandbox stop`, `start`, `remove`
// and `create --replace` are refused, naming the run's file, and leave its mysqld running; the run then
// ends with every restart measured. Before, each of them went ahead: stop and remove stopped the run's
// mysqld and put the host's settings back under it, and remove deleted its data directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { alive, runEnvForTests, shortQuickstartCopy, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests();

test('while a run measures on the sandbox, sandbox stop, start, remove and create --replace are refused naming its file, and the run ends whole', { timeout: 600_000 }, async () => {
  const file = shortQuickstartCopy(env, 'held', { factors: [{ tunable: 'ahi', levels: ['on', 'off'] }], restartsPerCell: 1, repetitions: 3, warmup: 0 });
  const run = varlabRun([file, ...env.authArgs, '--trust'], env.varlabHome);
  await run.waitFor((e) => e.type === 'execution');
  process.kill(run.child.pid!, 'SIGSTOP');
  const mysqld = Number(readFileSync(env.profile.pidFile!, 'utf8').trim());
  try {
    for (const [action, ...more] of [['stop'], ['remove'], ['start', '--set', 'ahi=off'], ['create', '--replace', '--dir', env.dir]]) {
      const r = varlabSync(['sandbox', action, env.sshd.target, ...env.authArgs, ...more], env.varlabHome);
      assert.notEqual(r.code, 0, `sandbox ${action} went ahead under the run: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /held\.varlab\.json is running there /, `sandbox ${action}: ${r.stderr}`);
      assert.ok(alive(mysqld), `sandbox ${action} stopped the run's mysqld (pid ${mysqld})`);
      assert.ok(existsSync(env.profile.datadir), `sandbox ${action} removed the run's data directory`);
    }
  } finally {
    process.kill(run.child.pid!, 'SIGCONT');
  }
  assert.equal(await run.exit, 0, run.stderr());
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.results!.restarts.map((r) => [r.cell, r.status]).sort(), [
    ['ahi=off', 'ok'],
    ['ahi=on', 'ok'],
  ]);
});
