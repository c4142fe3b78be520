// The Run view timeline's x axis (the execution number): with headroom while the run is followed, never
// past the run's planned end when that is known, and ending with the data once the run has ended or
// saved results are shown (a finished run of 480 executions was drawn on an axis to 2,000).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../src/common/events.js';
import type { RestartResult } from '../../src/common/experiment/types.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { roomFor, timelineX, timelineY, timelineYClipped, xEndNote, xStillShown } from '../../src/browser/views/run/timeline-axis.js';

const CELLS = ['a', 'b', 'c', 'd'];
/** 48 restarts of 10 executions of Q1 (2 warm-ups): 480 executions in the whole run. */
const PLANNED = 48;
const PER_RESTART = 10;

function restart(seq: number, executions = PER_RESTART): RunEvent[] {
  const cell = CELLS[(seq - 1) % CELLS.length];
  const out: RunEvent[] = [{ type: 'restart-started', at: seq, seq, cell }];
  for (let i = 0; i < executions; i++) out.push({ type: 'execution', at: seq, seq, cell, query: 'Q1', rep: i + 1, warmup: i < 2, value: 1 + i / 100, unit: 'ms', source: 'profiling' });
  if (executions === PER_RESTART) out.push({ type: 'restart-finished', at: seq, seq, cell, status: 'ok' });
  return out;
}

function started(): LiveRun {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: PLANNED, done: 0, cells: CELLS, queries: ['Q1'], warmup: 2 }]);
  return live;
}

const xOf = (live: LiveRun) => timelineX(live.series.get('Q1')?.y.length ?? 0, live.following, live.plannedExecutions('Q1'));

test('a run that has ended: the x axis ends with its last execution, not with room for more', () => {
  const live = started();
  for (let seq = 1; seq <= PLANNED; seq++) live.apply(restart(seq));
  live.apply([{ type: 'run-finished', at: 99, state: 'finished' }]);
  assert.equal(live.series.get('Q1')!.y.length, 480);
  assert.deepEqual(xOf(live), { range: [0, 481], end: 'data' });
  for (const state of ['failed', 'cancelled'] as const) {
    const cut = started();
    for (let seq = 1; seq <= 12; seq++) cut.apply(restart(seq));
    cut.apply([{ type: 'run-finished', at: 99, state }]);
    assert.deepEqual(xOf(cut).range, [0, 121], `a run ${state} after 120 executions`);
  }
});

test('saved results (folded as the Run view folds them from a file): the x axis ends with the data', () => {
  const live = started();
  const restarts: RestartResult[] = Array.from({ length: PLANNED }, (_, k) => ({
    seq: k + 1,
    cell: CELLS[k % CELLS.length],
    status: 'ok',
    startedAt: k,
    finishedAt: k + 1,
    checks: [],
    queries: [{ query: 'Q1', unit: 'ms', source: 'profiling', values: Array.from({ length: PER_RESTART }, (_, i) => 1 + i / 100) }],
  }));
  live.apply([{ type: 'history', at: 0, warmup: 2, restarts }, { type: 'run-finished', at: 0, state: 'finished' }]);
  assert.equal(live.series.get('Q1')!.y.length, 480);
  assert.deepEqual(xOf(live), { range: [0, 481], end: 'data' });
});

test('while the run is followed: room for 4 times what is there, up to the planned end once a restart has told how many executions one has', () => {
  const live = started();
  live.apply(restart(1, 6));
  assert.equal(live.plannedExecutions('Q1'), 0, 'no restart has finished: the run length is not known');
  assert.deepEqual(xOf(live), { range: [0, 100], end: 'room' });
  live.apply([{ type: 'restart-finished', at: 1, seq: 1, cell: 'a', status: 'ok' }]);
  for (let seq = 2; seq <= 5; seq++) live.apply(restart(seq));
  assert.equal(live.plannedExecutions('Q1'), 480);
  assert.deepEqual(xOf(live), { range: [0, 200], end: 'room' }, '50 executions: room for 200, short of the planned end');
  for (let seq = 6; seq <= 15; seq++) live.apply(restart(seq));
  assert.deepEqual(xOf(live), { range: [0, 481], end: 'planned' }, '150 executions: the axis spans the planned run (not 600)');
  live.apply([{ type: 'state', at: 20, state: 'paused' }]);
  assert.equal(xOf(live).end, 'planned', 'a paused run goes on');
  // Many more planned than there are: headroom, as before.
  assert.deepEqual(timelineX(480, true, 100_000), { range: [0, 2000], end: 'room' });
  assert.deepEqual(timelineX(480, true, 480), { range: [0, 481], end: 'planned' }, 'the last execution in, the run not yet said finished');
  assert.equal(roomFor(100_001), 500_000);
});

test('an axis longer than the data says why in its title', () => {
  assert.equal(xEndNote('data'), '');
  assert.match(xEndNote('planned'), /planned run/);
  assert.match(xEndNote('room'), /executions to come/);
});

test('the planned end becomes known, or changes, while no execution of the query arrives: the axis drawn is no longer the one to show', () => {
  // A short run: 4 restarts of 10 executions, so that the planned end (40) falls inside the room (100).
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 4, done: 0, cells: CELLS, queries: ['Q1'], warmup: 2 }]);
  live.apply(restart(1).filter((e) => e.type !== 'restart-finished'));
  // Drawn as the timeline draws: the executions there, the run as it stands (Drawn's x, end and n).
  let n = live.series.get('Q1')!.y.length;
  let drawn = xOf(live);
  const holds = () => xStillShown(drawn, n, live.following, live.plannedExecutions('Q1'));
  assert.deepEqual(drawn, { range: [0, 100], end: 'room' });
  assert.ok(holds());

  // Restart 1 finishes: no execution arrives, but one restart now tells the run's length.
  live.apply([{ type: 'restart-finished', at: 1, seq: 1, cell: 'a', status: 'ok' }]);
  assert.equal(live.series.get('Q1')!.y.length, n, 'no execution arrived');
  assert.equal(holds(), false, 'the axis (and its title, "room for the executions to come") is drawn again, to the planned end');
  assert.deepEqual(xOf(live), { range: [0, 41], end: 'planned' });
  drawn = xOf(live);
  assert.ok(holds(), 'drawn again: it holds');

  // Executions arriving inside the axis are painted onto it: it is not drawn again for them.
  live.apply(restart(2, 5));
  assert.ok(holds());
  // Nor when a restart that did not finish ok tells nothing new.
  live.apply([{ type: 'restart-finished', at: 2, seq: 2, cell: 'b', status: 'failed', reason: 'mysqld died' }]);
  assert.ok(holds());

  // A follower attaching again learns of more restarts planned, still with no execution arriving.
  n = live.series.get('Q1')!.y.length;
  drawn = xOf(live);
  live.apply([{ type: 'progress', at: 3, done: 2, planned: 6, remainingMs: 0 }]);
  assert.equal(holds(), false, 'the planned end moved: drawn again');
  assert.deepEqual(xOf(live), { range: [0, 61], end: 'planned' });

  // The run ends: drawn again, to the data.
  drawn = xOf(live);
  live.apply([{ type: 'run-finished', at: 4, state: 'cancelled' }]);
  assert.equal(holds(), false);
});

test('the y axis: headroom while the run is followed, the data with a small margin once it has ended or is zoomed', () => {
  const y = [10, 12, 11, 14, 99];
  const idx = [0, 1, 2, 3];
  assert.deepEqual(timelineY(y, idx, true), [9, 15], 'a quarter of the spread (4) above and below');
  assert.deepEqual(timelineY(y, idx, false), [9.8, 14.2], 'as an autorange would pad it');
  assert.deepEqual(timelineY(y, [], false), [0, 1]);
  assert.deepEqual(timelineY([5, 5], [0, 1], false), [4.75, 5.25], 'one value: a margin around it');
});

test('the y axis beside cold warm-ups: ranged on the measured executions, every warm-up beyond it counted, not only those drawn', () => {
  // Three restarts of 3 executions, the first of each a warm-up 300 times slower; one near warm-up (12.5) stays on the axis.
  const y = [3000, 10, 12, 3300, 11, 14, 12.5, 10.5, 11];
  const warm = [true, false, false, true, false, false, true, false, false];
  const warmAt = [0, 3, 6];
  const all = y.map((_, i) => i);
  const { range, clip } = timelineYClipped(y, warm, all, false, warmAt, 0, y.length);
  assert.ok(range[0] < 10 && range[1] > 14 && range[1] < 20, `the measured 10–14 and a band for the triangles: ${range}`);
  assert.deepEqual({ below: clip?.below, above: clip?.above, count: clip?.count }, { below: null, above: 3300, count: 2 });
  assert.ok(clip!.edges[1] > 14 && clip!.edges[1] < range[1], 'the triangles inside the band at the top');
  // Decimated: one of the cold ones not drawn, still counted; counted only within the executions shown.
  assert.equal(timelineYClipped(y, warm, [0, 1, 2, 4, 5, 6, 7, 8], false, warmAt, 0, y.length).clip?.count, 2);
  assert.equal(timelineYClipped(y, warm, all, false, warmAt, 1, y.length).clip?.count, 1);
  // The full range (no warm-up flagged), or warm-ups near the rest: timelineY's axis.
  assert.deepEqual(timelineYClipped(y, [], all, false, [], 0, y.length), { range: timelineY(y, all, false), clip: null });
  const near = [13, 10, 12, 11];
  assert.deepEqual(timelineYClipped(near, [true, false, false, false], [0, 1, 2, 3], true, [0], 0, 4), { range: timelineY(near, [0, 1, 2, 3], true), clip: null });
});
