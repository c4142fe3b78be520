// "Most stable" is a test (issue 25, item 4): Brown–Forsythe against values computed independently,
// and its A/A rate (cells that are the same) at most α in simulation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../src/common/plan.js';
import { brownForsythe, stabilityTest } from '../../src/common/stats/stability.js';

test('Brown–Forsythe: the F and p of a hand-worked example, and of scipy', () => {
  // By hand: medians 3 and 2.5; deviations [2,1,0,1,7] (mean 2.2) and [.5,.5,.5,.5,.5,1.5] (mean 2/3);
  // within sum of squares 30.8 + 5/6 = 31.633 on 9 df; t = (2.2 − 2/3) / √(31.633/9 · (1/5 + 1/6)) = 1.3507; F = t² = 1.8243.
  // scipy 1.17.1: stats.levene([1,2,3,4,10], [2,2,2,3,3,4], center='median') → statistic 1.8243126736277426, pvalue 0.20977920536911318.
  const r = brownForsythe([1, 2, 3, 4, 10], [2, 2, 2, 3, 3, 4])!;
  assert.ok(Math.abs(r.F - 1.8243126736277426) < 1e-9, String(r.F));
  assert.ok(Math.abs(r.p - 0.20977920536911318) < 1e-6, String(r.p));
  assert.deepEqual([r.df1, r.df2], [1, 9]);
  // scipy 1.17.1: stats.levene(np.log([10.2,10.5,9.9,10.1,10.4]), np.log([9.0,11.5,10.0,12.2,8.7]), center='median') → 8.83814334509499, 0.01779214800715801.
  const logs = (xs: number[]) => xs.map(Math.log);
  const s = brownForsythe(logs([10.2, 10.5, 9.9, 10.1, 10.4]), logs([9.0, 11.5, 10.0, 12.2, 8.7]))!;
  assert.ok(Math.abs(s.F - 8.83814334509499) < 1e-9, String(s.F));
  assert.ok(Math.abs(s.p - 0.01779214800715801) < 1e-6, String(s.p));
  assert.equal(brownForsythe([1], [1, 2]), null, 'one value: no test');
});

test('a cell is named only when it scatters less than every other on every query, after adjustment; else what would settle it is said', () => {
  const tight = [10.2, 10.5, 9.9, 10.1, 10.4];
  const wide = [9.0, 11.5, 10.0, 12.2, 8.7];
  const cells = new Map<string, Map<string, number[]>>([
    ['A', new Map([['Q1', tight]])],
    ['B', new Map([['Q1', wide]])],
  ]);
  const one = stabilityTest('A', ['A', 'B'], (c) => cells.get(c)!, 0.05, 'holm');
  assert.equal(one.cell, 'A', one.said);
  assert.match(one.said, /Brown–Forsythe/);
  // A third cell as wide: two tests, Holm doubles the smaller p (0.0178 → 0.036): still shown.
  cells.set('C', new Map([['Q1', wide.map((x) => x * 2)]]));
  assert.equal(stabilityTest('A', ['A', 'B', 'C'], (c) => cells.get(c)!, 0.05, 'holm').cell, 'A');
  // A fourth, as tight as A: A is not shown to beat it, so no cell is named, and why is said.
  cells.set('D', new Map([['Q1', tight.map((x) => x + 0.01)]]));
  const none = stabilityTest('A', ['A', 'B', 'C', 'D'], (c) => cells.get(c)!, 0.05, 'holm');
  assert.equal(none.cell, null);
  assert.match(none.said, /^no cell is shown to be more stable yet: A has the smallest spread, but .* against D on Q1 .*more restarts per cell would settle it/);
});

test('A/A: cells drawn alike are named "most stable" in at most α of experiments', () => {
  const random = seededRandom(25);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  for (const n of [5, 10]) {
    const runs = 400;
    let named = 0;
    for (let i = 0; i < runs; i++) {
      const cells = ['a', 'b', 'c', 'd'];
      const data = new Map(cells.map((c) => [c, new Map(['Q1', 'Q2'].map((q) => [q, Array.from({ length: n }, () => 100 * Math.exp(0.05 * normal()))]))]));
      // The candidate as the analysis picks it: the smallest spread (here, of Q1's log means).
      const sd = (xs: number[]) => {
        const l = xs.map(Math.log);
        const m = l.reduce((a, b) => a + b, 0) / l.length;
        return l.reduce((s, x) => s + (x - m) ** 2, 0);
      };
      const candidate = [...cells].sort((x, y) => sd(data.get(x)!.get('Q1')!) - sd(data.get(y)!.get('Q1')!))[0];
      if (stabilityTest(candidate, cells, (c) => data.get(c)!, 0.05, 'holm').cell) named++;
    }
    assert.ok(named / runs <= 0.05, `${n} restarts per cell: named in ${named} of ${runs}`);
  }
});
