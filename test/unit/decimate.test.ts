// Decimation of what plots draw (src/browser/plot/decimate.ts): bounded by the pixel columns, every
// column's minimum and maximum kept, exact when a (zoomed) range holds few enough points, and the
// streaming form draws what a decimation from scratch draws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decimate, PER_COLUMN, StreamDecimator } from '../../src/browser/plot/decimate.js';
import { seededRandom } from '../../src/common/plan.js';

function noisy(n: number, seed = 3): number[] {
  const r = seededRandom(seed);
  return Array.from({ length: n }, (_, i) => 10 + Math.sin(i / 500) + r() * (i % 997 === 0 ? 40 : 1));
}

/** The min and max of every column the way a reader sees them: over the points in each column. */
function envelope(y: number[], idx: number[], from: number, to: number, columns: number) {
  const width = (to - from) / columns;
  const lo = new Array(columns).fill(Infinity);
  const hi = new Array(columns).fill(-Infinity);
  for (const i of idx) {
    const c = Math.min(columns - 1, Math.floor((i - from) / width));
    lo[c] = Math.min(lo[c], y[i]);
    hi[c] = Math.max(hi[c], y[i]);
  }
  return { lo, hi };
}

test('beyond a few points per column: the drawn points are bounded by the columns and keep every column minimum and maximum', () => {
  const y = noisy(100_000);
  const columns = 800;
  const idx = decimate(y, 0, y.length, columns);
  assert.ok(idx.length <= 2 * columns, `${idx.length} points for ${columns} columns`);
  assert.ok(idx.every((i, k) => k === 0 || i > idx[k - 1]), 'in index order, each once');
  const all = envelope(y, y.map((_, i) => i), 0, y.length, columns);
  const drawn = envelope(y, idx, 0, y.length, columns);
  assert.deepEqual(drawn.lo, all.lo, 'every column minimum is drawn');
  assert.deepEqual(drawn.hi, all.hi, 'every column maximum is drawn');
  assert.equal(Math.max(...idx.map((i) => y[i])), Math.max(...y), 'the outliers stay');
});

test('zoomed into a range with few points per column: every point of the range, exactly', () => {
  const y = noisy(100_000);
  const columns = 800;
  const from = 51_234;
  const to = from + columns * PER_COLUMN;
  assert.deepEqual(decimate(y, from, to, columns), Array.from({ length: to - from }, (_, k) => from + k));
  // A wider zoom is decimated again, within its own range only.
  const wide = decimate(y, 10_000, 30_000, columns);
  assert.ok(wide.length <= 2 * columns && wide[0] >= 10_000 && wide.at(-1)! < 30_000);
});

test('values that are not finite are never drawn; an empty range draws nothing', () => {
  assert.deepEqual(decimate([1, NaN, 3, Infinity], 0, 4, 10), [0, 2]);
  assert.deepEqual(decimate([1, 2, 3], 2, 2, 10), []);
  assert.deepEqual(decimate([NaN, NaN, NaN, NaN, NaN, NaN], 0, 6, 1, 2), []);
});

test('streaming: appended buckets and the tail draw the column envelope of everything so far, bounded by the columns', () => {
  const y = noisy(120_000, 9);
  const columns = 500;
  const d = new StreamDecimator(columns);
  let drawn: number[] = [];
  let tail: number[] = [];
  let rebuilds = 0;
  const seen: number[] = [];
  for (let n = 0; n < y.length; ) {
    n = Math.min(y.length, n + 1 + ((n * 7919) % 1500));
    seen.length = 0;
    for (let i = 0; i < n; i++) seen.push(y[i]);
    const u = d.update(seen);
    if (u.rebuilt) {
      rebuilds++;
      drawn = d.drawn();
    } else drawn.push(...u.added);
    tail = u.tail;
    assert.ok(drawn.length + tail.length <= columns * PER_COLUMN + 2, `${drawn.length} drawn at n=${n}`);
  }
  assert.deepEqual(drawn, d.drawn(), 'appending gives what a fresh decimation gives');
  assert.ok(rebuilds <= 10, `the bucket doubled ${rebuilds} times, not on every update`);
  const shown = [...drawn, ...tail];
  assert.equal(Math.min(...shown.map((i) => y[i])), Math.min(...y));
  assert.equal(Math.max(...shown.map((i) => y[i])), Math.max(...y));
  // Each bucket's min and max are drawn: the envelope over buckets is exact.
  const b = d.bucket;
  for (let start = 0; start + b <= d.covered; start += b * 37) {
    const inBucket = drawn.filter((i) => i >= start && i < start + b).map((i) => y[i]);
    const values = y.slice(start, start + b);
    assert.equal(Math.min(...inBucket), Math.min(...values));
    assert.equal(Math.max(...inBucket), Math.max(...values));
  }
});

test('streaming: every point is drawn while there are few per column; a series that shrank starts over', () => {
  const d = new StreamDecimator(100);
  const y = noisy(300);
  const u = d.update(y);
  assert.deepEqual([...d.drawn(), ...u.tail].sort((a, b) => a - b), y.map((_, i) => i));
  const shrunk = d.update(y.slice(0, 50));
  assert.equal(shrunk.rebuilt, true);
  assert.deepEqual([...d.drawn(), ...shrunk.tail].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
});
