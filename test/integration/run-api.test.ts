// The run through the API contract, as the UI drives it: run.start, numbered batches pushed as
// 'run.batch', pause and resume between restarts, run.events replaying what a client missed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventBatch } from '../../src/common/api.js';
import type { RunEvent } from '../../src/common/events.js';
import { createBackend } from '../../src/node/backend.js';
import { keepCells, quickstartCopy, runEnvForTests } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });

test('run.start streams numbered batches; pause holds between restarts; run.events replays them all', { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'api', (d) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=off,numa=default']);
    d.design.restartsPerCell = 2;
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.target = env.sshd.target;
  });
  const backend = createBackend({ transport: 'websocket' });
  const batches: EventBatch[] = [];
  let finished: () => void;
  const done = new Promise<void>((r) => (finished = r));
  let pauseSeen = false;
  backend.on('run.batch', (b) => {
    batches.push(b);
    for (const e of b.events) {
      if (e.type === 'state' && e.state === 'paused') {
        pauseSeen = true;
        // While paused no new restart starts; resume a little later.
        setTimeout(() => void backend.call('run.resume', { runId: b.runId }), 1500);
      }
      if (e.type === 'run-finished') finished();
    }
  });
  const started = await backend.call('run.start', { path: file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile } });
  assert.ok(started.ok, started.ok ? '' : started.message);
  const runId = started.value.runId;
  const paused = await backend.call('run.pause', { runId });
  assert.ok(paused.ok && paused.value.state === 'paused');
  const again = await backend.call('run.start', { path: file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile } });
  assert.ok(!again.ok && again.code === 'busy', 'a second run of the same file is refused while the first runs');
  await done;

  assert.deepEqual(batches.map((b) => b.seq), batches.map((_, i) => i + 1), 'batches numbered 1, 2, 3 … with no gap');
  const events: RunEvent[] = batches.flatMap((b) => b.events);
  assert.equal(events.filter((e) => e.type === 'execution').length, 4 * 5 * 2);
  assert.ok(pauseSeen);
  // Between "paused" and "running" at most the restart in progress finishes; none starts.
  const pausedAt = events.findIndex((e) => e.type === 'state' && e.state === 'paused');
  const resumedAt = events.findIndex((e) => e.type === 'state' && e.state === 'running');
  assert.ok(pausedAt >= 0 && resumedAt > pausedAt);
  assert.equal(events.slice(pausedAt, resumedAt).filter((e) => e.type === 'restart-started').length, 0);
  const last = events.at(-1);
  assert.ok(last?.type === 'run-finished' && last.state === 'finished', JSON.stringify(last));

  const replay = await backend.call('run.events', { runId, afterSeq: 2 });
  assert.ok(replay.ok);
  assert.deepEqual(replay.value.map((b) => b.seq), batches.slice(2).map((b) => b.seq));
  const status = await backend.call('run.status', {});
  assert.ok(status.ok && status.value.some((s) => s.runId === runId && s.state === 'finished' && s.lastSeq === batches.length));

  const opened = await backend.call('experiment.open', { path: file });
  assert.ok(opened.ok && opened.value.doc.results?.restarts.length === 4 && opened.value.unfinishedRun === undefined);
  await backend.dispose();
});
