// Steady state per restart (issue 12, point 5): change points by binary segmentation, checked against a
// brute-force search written here from the definition, and the classes of Barrett et al. (flat, warm-up,
// slowdown, no steady state) on restarts whose shape is known; false alarms on flat noise at the seeds'
// noise levels stay rare. Seeded: the same draws every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, bestSplit, changePoints, classifyRestart, classifySeries, noiseSigma, TidyBuilder } from '../../src/common/stats/index.js';
import { analysisJson, analysisText } from '../../src/common/export/analysis-output.js';
import { seededRandom } from '../../src/common/plan.js';

const random = seededRandom(2017);
const z = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
/** n executions at `level` with a within-restart CoV of `cov`. */
const noisy = (n: number, level: number, cov: number) => Array.from({ length: n }, () => level * (1 + cov * z()));

test('the best split agrees with a brute-force search of the cost Σ(x − mean)² on random data', () => {
  const ss = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    return xs.reduce((a, x) => a + (x - m) ** 2, 0);
  };
  for (let trial = 0; trial < 50; trial++) {
    const n = 5 + Math.floor(random() * 60);
    const jump = Math.floor(random() * n);
    const xs = Array.from({ length: n }, (_, i) => 1000 + (i >= jump ? 3 : 0) + z());
    const prefix = new Float64Array(n + 1);
    const mean = xs.reduce((a, b) => a + b, 0) / n;
    xs.forEach((x, i) => (prefix[i + 1] = prefix[i] + x - mean));
    const [k, gain] = bestSplit(prefix, 0, n);
    let bestK = -1;
    let bestGain = -Infinity;
    for (let j = 1; j < n; j++) {
      const g = ss(xs) - ss(xs.slice(0, j)) - ss(xs.slice(j));
      if (g > bestGain) [bestK, bestGain] = [j, g];
    }
    assert.equal(k, bestK, `n ${n}`);
    assert.ok(Math.abs(gain - bestGain) <= 1e-6 * Math.max(1, bestGain), `${gain} vs ${bestGain}`);
  }
});

test('noise from successive differences; change points of clean steps found where they are', () => {
  // |differences| all 1: median 1, σ = 1 / (√2 · 0.6744897501960817).
  const sigma = noiseSigma([0, 1, 0, 1, 0, 1]);
  assert.ok(Math.abs(sigma - 1 / (Math.SQRT2 * 0.6744897501960817)) < 1e-12);
  assert.equal(noiseSigma([5, 5, 5], 0.25), 0.25, 'identical values: the floor');
  const steps = [...noisy(40, 100, 0.001), ...noisy(30, 110, 0.001), ...noisy(50, 95, 0.001)];
  assert.deepEqual(changePoints(steps, noiseSigma(steps)), [40, 70]);
  assert.deepEqual(changePoints(noisy(300, 100, 0.001), 0.1), [], 'flat noise at its own σ: no change');
});

test('classes of restarts whose shape is known', () => {
  const steady = (n: number, level = 100) => noisy(n, level, 0.001);
  assert.deepEqual(classifyRestart([140, 125, 110, ...steady(37)]), { kind: 'warmup', discard: 3, changepoints: [1, 2, 3] });
  // The seeds: with the adaptive hash index on, several executions before timings settle.
  const ahi = [150, 140, 130, 120, 110, 104, ...steady(34)];
  assert.equal(classifyRestart(ahi).kind, 'warmup');
  assert.equal(classifyRestart(ahi).discard, 6);
  // "Less than 1% especially if you remove the first run, which can be seen as warmup."
  assert.deepEqual(classifyRestart([120, ...steady(19)]).discard, 1);
  assert.deepEqual(classifyRestart(steady(30)), { kind: 'flat', discard: 0, changepoints: [] });
  const slow = classifyRestart([...steady(30), ...steady(20, 110)]);
  assert.equal(slow.kind, 'slowdown');
  assert.equal(slow.discard, 30);
  // Still changing at the end: a trend, or a step in the last quarter.
  assert.equal(classifyRestart(Array.from({ length: 30 }, (_, i) => 100 + i * i)).kind, 'none');
  assert.equal(classifyRestart([...steady(36), ...steady(4, 90)]).kind, 'none');
  // Throughput: rising is a warm-up, falling a slowdown.
  assert.equal(classifyRestart([280, 300, ...steady(20, 330)], { higherIsBetter: true }).kind, 'warmup');
  assert.equal(classifyRestart([...steady(20, 330), ...steady(20, 302)], { higherIsBetter: true }).kind, 'slowdown');
  // A hiccup of the host (two slow executions amid steady ones) is an outlier, not a state.
  assert.equal(classifyRestart([...steady(20), 130, 128, ...steady(20)]).kind, 'flat');
  // A shift within the tolerance (1% of the steady mean) is the same steady state.
  assert.equal(classifyRestart([...steady(20, 100.5), ...steady(20, 100)]).kind, 'flat');
  assert.equal(classifyRestart([...steady(20, 100.5), ...steady(20, 100)], { tolerancePct: 0.1 }).kind, 'warmup');
  assert.deepEqual(classifyRestart([1, 2, 3, 4]), { kind: null, discard: null, changepoints: [] }, 'too short to classify');
});

test('flat noise at the seeds’ levels stays flat, and an 8-execution warm-up is found', () => {
  // Within-restart CoV 0.1% (the seeds' DBT-3 runs) and 3% (query 21 with preloading), 10 restarts per series.
  for (const [n, cov] of [[20, 0.001], [20, 0.03], [284, 0.001], [284, 0.03], [10, 0.03]] as const) {
    let flat = 0;
    let total = 0;
    for (let s = 0; s < 40; s++) {
      const restarts = Array.from({ length: 10 }, () => noisy(n, 50 + 100 * random(), cov));
      const series = classifySeries('c', 'q', restarts.map((_, i) => String(i + 1)), restarts);
      flat += series.steady.flat;
      total += 10;
    }
    assert.ok(flat / total >= 0.97, `${n} executions at CoV ${cov}: ${flat} of ${total} flat`);
  }
  let found = 0;
  for (let s = 0; s < 100; s++) {
    const values = [...Array.from({ length: 8 }, (_, j) => 100 * (1 + 0.04 * (8 - j))), ...noisy(32, 100, 0.003)];
    const r = classifyRestart(values);
    if (r.kind === 'warmup' && Math.abs(r.discard! - 8) <= 1) found++;
  }
  assert.ok(found >= 95, `${found} of 100 warm-ups of 8 executions found`);
});

test('a series: counts per class, consistency, and the warm-up that follows', () => {
  const steady = (n: number) => noisy(n, 100, 0.001);
  const warm = [[130, 110, ...steady(18)], [125, ...steady(19)], [140, 130, 120, ...steady(17)]];
  const s = classifySeries('ahi=on', 'Q1', ['1', '2', '3'], warm);
  assert.deepEqual(s.steady, { flat: 0, warmup: 3, slowdown: 0, none: 0 });
  assert.equal(s.consistent, true);
  assert.equal(s.suggested, 3);
  const mixed = classifySeries('ahi=on', 'Q1', ['1', '2'], [warm[0], steady(20)]);
  assert.deepEqual(mixed.steady, { flat: 1, warmup: 1, slowdown: 0, none: 0 });
  assert.equal(mixed.consistent, false);
  assert.equal(mixed.suggested, 2);
  const unsettled = classifySeries('c', 'Q1', ['1', '2'], [steady(20), Array.from({ length: 20 }, (_, i) => 100 + i * i)]);
  assert.equal(unsettled.suggested, null);
  assert.equal(unsettled.reason, '1 of 2 restarts reach no steady state');
  const short = classifySeries('c', 'Q1', ['1'], [[1, 2, 3]]);
  assert.equal(short.unclassified, 1);
  assert.equal(short.consistent, null);
  assert.equal(short.reason, 'fewer than 5 executions per restart');
});

test('analyze: steady counts and the suggested warm-up per cell and query, in the JSON too', () => {
  const b = new TidyBuilder();
  const add = (cell: string, restart: number, values: number[]) => values.forEach((v, i) => b.add(cell, 'Q1', String(restart), i + 1, v));
  for (let r = 1; r <= 4; r++) add('ahi=on', r, [150, 130, 115, 105, ...noisy(26, 100, 0.001)]);
  for (let r = 1; r <= 4; r++) add('ahi=off', r, r === 4 ? [130, ...noisy(29, 100, 0.001)] : noisy(30, 100, 0.001));
  const a = analyze(b.build('ms'));
  const on = a.cells.find((c) => c.cell === 'ahi=on')!.queries[0];
  const off = a.cells.find((c) => c.cell === 'ahi=off')!.queries[0];
  assert.deepEqual(on.steady, { flat: 0, warmup: 4, slowdown: 0, none: 0 });
  assert.equal(on.steady_consistent, true);
  assert.equal(on.suggested_warmup, 4);
  assert.deepEqual(off.steady, { flat: 3, warmup: 1, slowdown: 0, none: 0 });
  assert.equal(off.steady_consistent, false);
  assert.equal(off.suggested_warmup, 1);
  assert.equal(a.warmup.suggested, 4);
  assert.match(a.methods.steady, /binary segmentation/);
  const json = JSON.parse(JSON.stringify(analysisJson(a)));
  assert.deepEqual(json.cells[1].queries[0].steady, { flat: 0, warmup: 4, slowdown: 0, none: 0 });
  assert.equal(json.cells[1].queries[0].suggested_warmup, 4);
  // The text names the classes, the pairs that disagree, and each pair that is not all flat.
  const text = analysisText(a, { name: 'x', cells: 2, queries: 1, executions: 240 }).join('\n');
  assert.match(text, /Steady state per restart: 3 flat, 5 warm-up \(each query of each restart: 8\); 1 of 2 cell and query pairs inconsistent/);
  assert.match(text, /ahi=off +Q1 +3 flat, 1 warm-up +no +1/);
  assert.match(text, /ahi=on +Q1 +4 warm-up +yes +4/);
});
