// The Run view's interval plots draw a long sysbench run within their pixel columns (src/browser/views/run/intervals.ts):
// ten restarts of 5 × 300 one-second intervals (the second field note's design) become at most two
// points per column, every restart's slowest and fastest interval among them, each point a real interval.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { drawnInterval, INTERVAL_COLUMNS } from '../../src/browser/views/run/intervals.js';
import type { IntervalTrace } from '../../src/browser/views/run/live.js';
import { seededRandom } from '../../src/common/plan.js';

function restart(seq: number, start: number, n: number): IntervalTrace {
  const r = seededRandom(seq);
  const x = Array.from({ length: n }, (_, i) => start + i + 1);
  // Steady around 1000 tps, with one stall (a checkpoint) somewhere in the restart.
  const stall = Math.floor(r() * n);
  const tps = x.map((_, i) => (i === stall ? 12 : 1000 + r() * 20));
  return { seq, cell: 'aslr=on', start, runStart: start, x, tps, qps: tps.map((v) => v * 14), latencyMs: tps.map((v) => 1000 / v), rep: x.map((_, i) => 1 + Math.floor(i / 300)), percentile: 95 };
}

test('ten restarts of 1,500 intervals: at most two points per column in all, each restart keeps its stall and its peak, every point real', () => {
  const traces = Array.from({ length: 10 }, (_, i) => restart(i + 1, i * 1500, 1500));
  const total = traces.reduce((n, t) => n + t.x.length, 0);
  let drawn = 0;
  for (const t of traces) {
    const d = drawnInterval(t, t.tps, total);
    drawn += d.x.length;
    assert.equal(Math.min(...d.y), Math.min(...t.tps), `restart ${t.seq}: its stall is drawn`);
    assert.equal(Math.max(...d.y), Math.max(...t.tps), `restart ${t.seq}: its peak is drawn`);
    for (let k = 0; k < d.x.length; k++) {
      const i = t.x.indexOf(d.x[k]);
      assert.ok(i >= 0 && t.tps[i] === d.y[k] && t.rep[i] === d.rep[k], 'a drawn point is a real interval, with its own run number');
    }
  }
  assert.ok(drawn <= 2 * INTERVAL_COLUMNS + 2 * traces.length, `${drawn} points drawn`);
  assert.ok(drawn >= INTERVAL_COLUMNS, `${drawn} points: the columns are used`);
});

test('a short run is drawn exactly: every interval, in order', () => {
  const t = restart(1, 0, 60);
  const d = drawnInterval(t, t.tps, 60);
  assert.deepEqual(d.x, t.x);
  assert.deepEqual(d.y, t.tps);
});
