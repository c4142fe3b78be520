// Event batches: numbered from 1, nothing lost or repeated, replayable after any seq.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EventBatch } from '../../src/common/api.js';
import type { RunEvent } from '../../src/common/events.js';
import { EventBatcher } from '../../src/node/engine/batcher.js';

const log = (i: number): RunEvent => ({ type: 'log', at: i, level: 'info', message: String(i) });

test('batches are numbered from 1 and carry every event once, in order', async () => {
  const seen: EventBatch[] = [];
  const b = new EventBatcher('r1', (x) => seen.push(x), 5, 4);
  for (let i = 0; i < 10; i++) b.push(log(i));
  // 4 + 4 flushed by size; the last 2 wait for the interval.
  assert.deepEqual(seen.map((x) => x.seq), [1, 2]);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(seen.map((x) => x.seq), [1, 2, 3]);
  assert.deepEqual(seen.flatMap((x) => x.events.map((e) => (e.type === 'log' ? e.message : ''))), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  assert.equal(b.lastSeq, 3);
});

test('a client that reconnects gets exactly the batches after the last it saw', () => {
  const b = new EventBatcher('r1', () => {}, 1000, 1);
  for (let i = 0; i < 5; i++) b.push(log(i));
  assert.deepEqual(b.after(0)!.map((x) => x.seq), [1, 2, 3, 4, 5]);
  assert.deepEqual(b.after(3)!.map((x) => x.seq), [4, 5]);
  assert.deepEqual(b.after(5), []);
});

test('only the latest batches stay in memory: asking for older ones says so (the run is rebuilt from the journal)', () => {
  const b = new EventBatcher('r1', () => {}, 1000, 1, 3);
  for (let i = 0; i < 10; i++) b.push(log(i));
  assert.deepEqual(b.after(7)!.map((x) => x.seq), [8, 9, 10]);
  assert.equal(b.after(6), null, 'batch 7 is gone: the caller must rebuild');
  assert.deepEqual(b.after(10), []);
});
