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

/** A browser-mode page: its socket, the run batches it was sent, and a call. */
async function page(server: { port: number; token: string }) {
  const { WebSocket } = await import('ws');
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${server.token}`, { origin: `http://127.0.0.1:${server.port}` });
  await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
  const batches: EventBatch[] = [];
  const waiting = new Map<number, (r: { ok: boolean; value?: unknown; message?: string }) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    if (msg.event === 'run.batch') batches.push(msg.payload);
    else if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg.result);
  });
  let n = 0;
  const call = <T>(method: string, args: unknown) =>
    new Promise<{ ok: boolean; value?: T; message?: string }>((resolve) => {
      const id = ++n;
      waiting.set(id, resolve as never);
      ws.send(JSON.stringify({ id, method, args }));
    });
  return { ws, batches, call };
}

test("a run's batches go to the page that started it, and to another only once it follows the run", { timeout: 300_000 }, async () => {
  const file = quickstartCopy(env, 'follow', (d) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.restartsPerCell = 3;
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.target = env.sshd.target;
  });
  const { startServer } = await import('../../src/node/transport/websocket-server.js');
  const server = await startServer({ backend: createBackend({ transport: 'websocket' }) });
  const starter = await page(server);
  const other = await page(server);
  const ended = (p: { batches: EventBatch[] }) => p.batches.some((b) => b.events.some((e) => e.type === 'run-finished'));
  try {
    const started = await starter.call<{ runId: string }>('run.start', { path: file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile } });
    assert.ok(started.ok, started.message);
    const runId = started.value!.runId;
    // Until the other page asks for the run's events, it is sent none of them.
    for (const end = Date.now() + 120_000; !starter.batches.some((b) => b.events.some((e) => e.type === 'restart-finished')); ) {
      assert.ok(Date.now() < end, 'a restart finished');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(other.batches, [], 'a page that does not follow the run is sent none of its batches');
    const caught = await other.call<EventBatch[]>('run.events', { runId, afterSeq: 0 });
    assert.ok(caught.ok && caught.value!.length > 0, caught.message);
    for (const end = Date.now() + 240_000; !ended(starter) || !ended(other); ) {
      assert.ok(Date.now() < end, 'both pages saw the run end');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual(starter.batches.map((b) => b.seq), starter.batches.map((_, i) => i + 1), 'the starter saw every batch');
  } finally {
    starter.ws.close();
    other.ws.close();
    await server.close();
  }
});
