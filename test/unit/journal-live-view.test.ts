// The Run view's live fold of engine events: what it shows must match what the journal keeps
// (discarded restarts out, warm-ups out of the means), and 100,000 executions must fold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunEvent } from '../../src/common/events.js';
import { LiveRun, restartColour } from '../../src/browser/views/run/live.js';
import { endedWords } from '../../src/common/event-line.js';

const A = 'aslr=on';
const B = 'aslr=off';

function restart(seq: number, cell: string, values: number[], warmup = 0, end: 'ok' | 'discard' = 'ok'): RunEvent[] {
  const out: RunEvent[] = [{ type: 'restart-started', at: seq, seq, cell }];
  values.forEach((value, i) => out.push({ type: 'execution', at: seq, seq, cell, query: 'Q1', rep: i + 1, warmup: i < warmup, value, unit: 'ms', source: 'profiling' }));
  out.push(end === 'ok' ? { type: 'restart-finished', at: seq, seq, cell, status: 'ok' } : { type: 'restart-discarded', at: seq, seq, cell, reason: 'SSH connection dropped' });
  return out;
}

test('restart means exclude warm-ups and discarded attempts; a rerun counts once', () => {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 4, done: 0, cells: [A, B], queries: ['Q1'], warmup: 1 }]);
  live.apply(restart(1, A, [100, 10, 12], 1));
  live.apply(restart(2, B, [50, 20, 22], 1, 'discard'));
  live.apply(restart(2, B, [60, 21, 23], 1));
  const means = live.restartMeans('Q1');
  assert.deepEqual(means.map((m) => [m.seq, m.cell, m.mean, m.n]), [[1, A, 11, 2], [2, B, 22, 2]]);
  assert.ok(Math.abs(means[0].sd - Math.SQRT2) < 1e-12);
  const s = live.series.get('Q1')!;
  assert.deepEqual(s.y, [100, 10, 12, 60, 21, 23], "a discarded restart's executions leave the timeline");
  assert.equal(live.executions, 6, 'and the count of executions');
  assert.equal(s.seq.length, 6, 'execution numbers 1..6 of the query, without gaps');
  assert.match(live.log.at(-1)!.message, /restart 2 aslr=off discarded: SSH connection dropped/);
  assert.equal(live.mde('Q1'), null, 'no MDE before a cell has 2 restarts');
});

test('between-restart spread per cell and the MDE follow the restarts as they accumulate', () => {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 6, done: 0, cells: [A, B], queries: ['Q1'], warmup: 0 }]);
  const a = [10, 11, 12];
  const b = [20, 22, 24];
  let seq = 0;
  for (let i = 0; i < 3; i++) {
    live.apply(restart(++seq, A, [a[i]]));
    live.apply(restart(++seq, B, [b[i]]));
  }
  const spread = live.spreadByCell('Q1');
  assert.deepEqual(spread.get(A)!.map((p) => p.restarts), [2, 3]);
  assert.ok(Math.abs(spread.get(A)![1].cvPct - 100 * (1 / 11)) < 1e-9);
  const mde = live.mde('Q1')!;
  assert.equal(mde.restartsPerCell, 3);
  assert.ok(mde.pct > 0 && Number.isFinite(mde.pct));
});

test('100,000 executions fold into the timeline and the means', () => {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 100, done: 0, cells: [A, B], queries: ['Q1'], warmup: 0 }]);
  for (let seq = 1; seq <= 100; seq++) live.apply(restart(seq, seq % 2 ? A : B, Array.from({ length: 1000 }, (_, i) => 10 + (i % 7))));
  assert.equal(live.executions, 100_000);
  assert.equal(live.series.get('Q1')!.y.length, 100_000);
  assert.equal(live.restartMeans('Q1').length, 100);
  assert.equal(live.spreadByCell('Q1').get(A)!.length, 49);
});

test('on resume the restarts of the earlier process arrive as history and count like live ones', () => {
  const live = new LiveRun();
  live.apply([
    { type: 'run-started', at: 0, planned: 4, done: 2, cells: [A, B], queries: ['Q1'], warmup: 1 },
    {
      type: 'history',
      at: 0,
      warmup: 1,
      restarts: [
        { seq: 1, cell: A, status: 'ok', startedAt: 0, finishedAt: 1, checks: [], queries: [{ query: 'Q1', unit: 'ms', source: 'profiling', values: [99, 10, 12] }] },
        { seq: 2, cell: B, status: 'ok', startedAt: 1, finishedAt: 2, checks: [], queries: [{ query: 'Q1', unit: 'ms', source: 'profiling', values: [99, 20, 22] }] },
      ],
    },
  ]);
  live.apply(restart(3, A, [99, 14, 16], 1));
  assert.deepEqual(live.restartMeans('Q1').map((m) => [m.seq, m.mean]), [[1, 11], [2, 21], [3, 15]]);
  assert.equal(live.series.get('Q1')!.y.length, 9);
  assert.deepEqual(live.spreadByCell('Q1').get(A)!.map((p) => p.restarts), [2]);
});

test('the timeline numbers executions per query without gaps, colours restarts discretely, and says why the MDE and CV are missing', () => {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 4, done: 0, cells: [A, B], queries: ['Q1', 'Q2'], warmup: 0 }]);
  const two: RunEvent[] = [{ type: 'restart-started', at: 1, seq: 1, cell: A }];
  for (const query of ['Q1', 'Q2']) for (let rep = 1; rep <= 3; rep++) two.push({ type: 'execution', at: 1, seq: 1, cell: A, query, rep, warmup: false, value: rep, unit: 'ms', source: 'profiling' });
  two.push({ type: 'restart-finished', at: 1, seq: 1, cell: A, status: 'ok' });
  live.apply(two);
  live.apply(restart(2, B, [5, 6, 7]));
  assert.deepEqual(live.series.get('Q1')!.y, [1, 2, 3, 5, 6, 7], 'Q1 executions 1..6, no gaps');
  assert.deepEqual(live.series.get('Q2')!.y, [1, 2, 3]);
  const colours = live.series.get('Q1')!.seq.map(restartColour);
  assert.equal(new Set(colours.slice(0, 3)).size, 1, 'one colour per restart');
  assert.notEqual(colours[0], colours[3], 'the next restart has another colour');
  assert.match(live.labelOf(live.series.get('Q1')!.seq[3]), /restart 2 · aslr=off/);
  assert.equal(live.mde('Q1'), null);
  assert.equal(live.mdeWhy('Q1'), 'needs 2 more restarts (3 per cell)');
  assert.match(live.spreadWhy('Q1')!, /needs at least 2 restarts of a cell/);
  live.apply(restart(3, A, [2, 3, 4]));
  assert.equal(live.spreadWhy('Q1'), null, 'cell A has 2 restarts: the CV has a point');
});

test('how a run ended is said with its state once', () => {
  // The runner's cancel message already begins with the state: not "cancelled: cancelled; …".
  assert.equal(endedWords('cancelled', 'cancelled; run again to resume'), 'cancelled; run again to resume');
  assert.equal(endedWords('cancelled', 'cancelled on h1 after 1 of 3 restarts: stopped'), 'cancelled on h1 after 1 of 3 restarts: stopped');
  assert.equal(endedWords('failed', 'SSH connection dropped'), 'failed: SSH connection dropped');
  // Only the whole word counts as the state said.
  assert.equal(endedWords('failed', 'failedover host'), 'failed: failedover host');
  assert.equal(endedWords('cancelled'), 'cancelled');
  assert.equal(endedWords('finished', ''), 'finished');

  const live = new LiveRun();
  live.apply([{ type: 'run-finished', at: 5, state: 'cancelled', message: 'cancelled; run again to resume' }]);
  assert.equal(live.log.at(-1)?.message, 'run cancelled; run again to resume');
});

test('the DBT-3 data step in the live view: its phase, fraction and time left while it runs; its outcome in the log after', () => {
  const live = new LiveRun();
  live.apply([{ type: 'data-progress', at: 1, phase: 'rows', table: 'lineitem', fraction: 0.456, remainingMs: 70_000 }]);
  assert.deepEqual(live.data, { text: 'DBT-3 data: loading rows (lineitem) 45%, 1 min 10 s left', fraction: 0.456 });
  live.apply([
    {
      type: 'data',
      at: 2,
      database: 'dbt3',
      sf: 0.01,
      seed: 1,
      source: 'generator',
      recognised: false,
      resumedChunks: 0,
      rows: { orders: 15000, lineitem: 60341 },
      ms: 4000,
      method: 'load-data-local',
      checks: [{ query: 'Q1', rows: 4, checksum: 'x', expected: true, ms: 3 }],
    },
  ]);
  assert.equal(live.data, undefined);
  assert.equal(live.log.at(-1)?.message, 'DBT-3 SF 0.01 in dbt3: 75,341 rows loaded in 4 s by LOAD DATA LOCAL INFILE; 1 query gave its expected result');
});
