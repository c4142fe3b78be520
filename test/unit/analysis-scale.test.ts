// Analysis that stays near-linear in restarts and cells (issue 13: 20,000 restarts in one cell took 52 s,
// as bimodality detection tried every partition afresh and the grouping of reasons copied its lists).
// Figures are `npm run bench -- analysis-scale`; these tests check the answers at that size, with a
// test timeout as a guard against the quadratic versions (which take most of a minute).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, groupReasons, meanGroups, TidyBuilder, type MeanGroup } from '../../src/common/stats/index.js';
import { seededRandom } from '../../src/common/plan.js';

/** The definition meanGroups implements, written the direct (quadratic) way: the reference for its answers. */
function referenceGroups(labels: string[], means: number[], seWithin: number, factor = 6, minGapPct = 0.5, minGroup = 2): MeanGroup[] | null {
  const n = means.length;
  if (n < 2 * minGroup) return null;
  const order = means.map((_, i) => i).sort((a, b) => means[a] - means[b]);
  const sorted = order.map((i) => means[i]);
  const minGap = (Math.abs(sorted.reduce((s, x) => s + x, 0) / n) * minGapPct) / 100;
  const gapsByWidth = Array.from({ length: n - 1 }, (_, i) => i + 1).sort((a, b) => sorted[b] - sorted[b - 1] - (sorted[a] - sorted[a - 1]));
  let cuts: number[] = [];
  for (let k = 1; k < n; k++) {
    const trial = gapsByWidth.slice(0, k).sort((a, b) => a - b);
    const bounds = [0, ...trial, n];
    if (bounds.some((b, g) => g > 0 && b - bounds[g - 1] < minGroup)) continue;
    let ss = 0;
    for (let g = 0; g + 1 < bounds.length; g++) {
      const part = sorted.slice(bounds[g], bounds[g + 1]);
      const m = part.reduce((s, x) => s + x, 0) / part.length;
      ss += part.reduce((s, x) => s + (x - m) ** 2, 0);
    }
    const df = n - bounds.length + 1;
    const narrowest = Math.min(...trial.map((i) => sorted[i] - sorted[i - 1]));
    const scale = Math.max(df > 0 ? Math.sqrt(ss / df) : 0, seWithin) * ((n - 1) / (n - 1 - k));
    if (narrowest > factor * scale && narrowest >= minGap && narrowest > 0) cuts = trial;
  }
  if (!cuts.length) return null;
  const bounds = [0, ...cuts, n];
  return bounds.slice(1).map((b, g) => {
    const idx = order.slice(bounds[g], b);
    const vals = idx.map((i) => means[i]);
    return { count: idx.length, mean: vals.reduce((s, x) => s + x, 0) / idx.length, min: vals[0], max: vals[vals.length - 1], restarts: idx.sort((x, y) => x - y).map((i) => labels[i]) };
  });
}

test('bimodality by sorting gives the same groups as trying every partition (3,000 random cells: levels, ties, scales)', () => {
  const random = seededRandom(7);
  let flagged = 0;
  for (let t = 0; t < 3000; t++) {
    const n = 2 + Math.floor(random() * 30);
    const levels = 1 + Math.floor(random() * 4);
    const base = [1, 300, 1e6, 0.001][t % 4];
    const means = Array.from({ length: n }, () => base * (1 + Math.floor(random() * levels) * 0.05 + (random() - 0.5) * 0.01));
    if (t % 7 === 0) for (let i = 0; i < n; i += 3) means[i] = means[0];
    const se = random() < 0.3 ? 0 : base * 0.0005;
    const minGroup = 1 + (t % 3);
    const labels = means.map((_, i) => `r${i}`);
    const expected = referenceGroups(labels, means, se, 6, 0.5, minGroup);
    if (expected) flagged++;
    assert.deepEqual(meanGroups(labels, means, se, { minGroup }), expected, `case ${t}: ${JSON.stringify(means)}`);
  }
  assert.ok(flagged > 1000, 'the cases include many separated levels');
});

test('20,000 restarts in one cell: the good and bad starts are found', { timeout: 30_000 }, () => {
  const random = seededRandom(1);
  const b = new TidyBuilder();
  const n = 20_000;
  for (let r = 1; r <= n; r++) for (let rep = 1; rep <= 10; rep++) b.add('aslr=on', 'Q1', String(r), rep, (r % 3 ? 302 : 330) * (1 + (random() - 0.5) * 0.01));
  const a = analyze(b.build('ms'), { warmup: 2 });
  assert.equal(a.bimodal.length, 1);
  assert.deepEqual(
    a.bimodal[0].groups.map((g) => [g.count, Math.round(g.mean)]),
    [
      [n - Math.floor(n / 3), 302],
      [Math.floor(n / 3), 330],
    ],
  );
});

test('grouping 20,000 reasons says each reason once, with its names in order', { timeout: 30_000 }, () => {
  const items = Array.from({ length: 20_000 }, (_, i) => ({ name: `c${i}`, reason: i % 2 ? 'no steady state' : 'too few executions' }));
  const text = groupReasons(items, 40_000, 'cells');
  const [first, second] = text.split('; ');
  assert.ok(first.startsWith('c0, c2, c4') && first.endsWith('c19998: too few executions'));
  assert.ok(second.startsWith('c1, c3') && second.endsWith('c19999: no steady state'));
  assert.equal(groupReasons(items.slice(0, 2).map((x) => ({ ...x, reason: 'same' })), 2, 'cells'), 'same (all 2 cells)');
});

test('10,000 cells with too few restarts: one analysis, the ranking says why once', { timeout: 60_000 }, () => {
  const random = seededRandom(2);
  const b = new TidyBuilder();
  const cells = 10_000;
  for (let c = 0; c < cells; c++) for (let r = 1; r <= 2; r++) for (let rep = 1; rep <= 3; rep++) b.add(`v=${c}`, 'Q1', String(r), rep, 1 + random());
  const a = analyze(b.build('ms'), { warmup: 0, baseline: 'v=0' });
  assert.equal(a.cells.length, cells);
  assert.equal(a.ranking.most_stable, null);
  assert.match(a.ranking.reason!, /^no ranking: every cell needs \d+ more restarts? \(\d+ per cell\)$/);
  assert.equal(a.comparisons.length, cells - 1);
});
