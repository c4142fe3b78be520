// One restart policy for attached and detached runs (issue 26 R10, common/restart-policy.ts): the same
// design on a server that cannot start (its port taken) gives the same outcome with and without
// --detach: each failed start recorded as the restart's result with its cause, the run going on, and
// ended after three in a row with the same message. Before, a detached run ended at the first one and
// recorded no restart.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import type { JournalRecord } from '../../src/common/records.js';
import { RESTART_POLICY } from '../../src/common/restart-policy.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { keepCells, quickstartCopy, runEnvForTests, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
const CELL = 'aslr=on,ahi=on,preload=off,numa=default';
let held: Server | undefined;
after(() => held?.close());

function small(name: string): string {
  return quickstartCopy(env, name, (d) => {
    keepCells(d, [CELL]);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 5;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
  });
}

/** The restarts' endings in the journal, and the run's own ending. */
function outcome(file: string) {
  const records = readFileSync(journalPath(file), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as JournalRecord);
  const restarts = records.filter((r) => r.t === 'restart-finished').map((r) => r.t === 'restart-finished' && [r.seq, r.status, r.reason]);
  const measured = records.filter((r) => r.t === 'execution').length;
  return { restarts, measured };
}

test('mysqld that cannot start: attached and detached runs record each failed start and end after three in a row, alike', { timeout: 600_000 }, async () => {
  held = createServer();
  await new Promise<void>((resolve, reject) => {
    held!.once('error', reject);
    held!.listen({ port: env.profile.port, host: '127.0.0.1', exclusive: true }, resolve);
  });

  const attachedFile = small('attached');
  const attached = varlabSync(['run', attachedFile, ...env.authArgs], env.varlabHome);
  assert.notEqual(attached.code, 0, attached.stdout);
  const message = new RegExp(`mysqld failed to start for ${RESTART_POLICY.startFailuresInARow} restarts in a row; the last: mysqld on \\S+ did not start: .*(in use|already)`);
  assert.match(attached.stderr, message);

  const detachedFile = small('detached');
  const launched = varlabSync(['run', detachedFile, '--detach', ...env.authArgs], env.varlabHome);
  assert.equal(launched.code, 0, launched.stderr);
  const followed = varlabSync(['attach', detachedFile, ...env.authArgs], env.varlabHome);
  assert.notEqual(followed.code, 0, followed.stdout);
  assert.match(followed.stderr + followed.stdout, message, 'the detached run ends for the same reason, in the same words');

  const a = outcome(attachedFile);
  const d = outcome(detachedFile);
  // The first starts failed, recorded with their cause; the run ended at the next one, as the table says.
  assert.equal(a.restarts.length, RESTART_POLICY.startFailuresInARow - 1, JSON.stringify(a.restarts));
  assert.ok(a.restarts.every((r) => r && r[1] === 'failed' && /did not start/.test(String(r[2]))), JSON.stringify(a.restarts));
  assert.deepEqual(d.restarts, a.restarts, 'the detached run recorded the same restarts, the same way');
  assert.equal(a.measured + d.measured, 0);
});

test('a run whose every restart failed to start says "0 measured, 2 failed", not "finished … results saved", and exits 1, attached and detached', { timeout: 300_000 }, async () => {
  if (!held) {
    held = createServer();
    await new Promise<void>((resolve, reject) => {
      held!.once('error', reject);
      held!.listen({ port: env.profile.port, host: '127.0.0.1', exclusive: true }, resolve);
    });
  }
  // Two restarts: fewer than the failures in a row that end a run, so the plan runs to its end.
  const file = quickstartCopy(env, 'none-measured', (d) => {
    keepCells(d, [CELL]);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = RESTART_POLICY.startFailuresInARow - 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
  });
  const r = varlabSync(['run', file, ...env.authArgs], env.varlabHome);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /varlab run: finished 2 of 2 restarts in [^(]+ \(0 measured, 2 failed\): no restart measured anything/);
  assert.doesNotMatch(r.stderr, /^finished: /m);
  assert.equal(outcome(file).measured, 0);

  // Detached, the same: attach's end line says what was measured, and exits 1.
  const detached = quickstartCopy(env, 'none-measured-detached', (d) => {
    keepCells(d, [CELL]);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = RESTART_POLICY.startFailuresInARow - 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
  });
  const launched = varlabSync(['run', detached, '--detach', ...env.authArgs], env.varlabHome);
  assert.equal(launched.code, 0, launched.stderr);
  const followed = varlabSync(['attach', detached, ...env.authArgs], env.varlabHome);
  assert.equal(followed.code, 1, followed.stderr);
  assert.match(followed.stderr, /varlab attach: finished on \S+: 2 of 2 restarts \(0 measured, 2 failed\): no restart measured anything/);
  assert.doesNotMatch(followed.stderr, /^finished on .*results saved/m);
});
