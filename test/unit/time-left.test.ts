// The Run view's time left (new-user notes: "the time left jumps"): the estimate each finished restart
// brings is counted down between them, never below what the restarts after the current one take, held
// while paused; and the estimate leaves out the first restart's one-off set-up, so it does not leap up
// after the first restart and creep back down.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { estimatePlan, perRestartMs } from '../../src/common/plan.js';
import { LiveRun } from '../../src/browser/views/run/live.js';

test('the time left counts down between estimates, stops at what the later restarts take, and holds while paused', () => {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 10, done: 0, cells: ['a'], queries: ['q'], warmup: 0 }]);
  // 4 of 10 done, 60 s left: 10 s per restart, 50 s after the current one.
  live.apply([{ type: 'progress', at: 1_000, done: 4, planned: 10, remainingMs: 60_000 }]);
  assert.equal(live.remainingNow(1_000), 60_000);
  assert.equal(live.remainingNow(4_000), 57_000, 'counted down');
  assert.equal(live.remainingNow(30_000), 50_000, 'a slow restart: held at what the 5 after it take');
  // Paused at 5 s: held there; resumed 20 s later, it goes on from where it stopped.
  live.apply([{ type: 'state', at: 5_000, state: 'paused' }]);
  assert.equal(live.remainingNow(15_000), 56_000);
  live.apply([{ type: 'state', at: 25_000, state: 'running' }]);
  assert.equal(live.remainingNow(26_000), 55_000);
  // The next estimate replaces it.
  live.apply([{ type: 'progress', at: 30_000, done: 5, planned: 10, remainingMs: 45_000 }]);
  assert.equal(live.remainingNow(30_000), 45_000);
});

test("the time per restart leaves out the first restart's set-up; before any restart, the design's estimate", () => {
  const design = (JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc).design;
  assert.equal(perRestartMs([], design), estimatePlan(design, 1).perRestartSeconds * 1000);
  // A first restart of 40 s of which 30 s set-up, then two of 10 s: 10 s each, not 20.
  assert.equal(perRestartMs([{ ms: 40_000, setupMs: 30_000 }, { ms: 10_000 }, { ms: 10_000 }], design), 10_000);
});
