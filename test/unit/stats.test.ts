// The analysis engine against cases worked out by hand, against constants computed independently with
// scipy (the script is quoted beside them), and against a naive implementation written here from the
// definitions of issues 5 and 12 (objects per row, textbook formulas, its own t distribution).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  TidyBuilder,
  TidyError,
  analyze,
  meanGroups,
  minimumDetectableEffect,
  adjustPValues,
  differSummary,
  optimalRepetitions,
  restartsForTarget,
  suggestPlan,
  measuredCosts,
  plannedSeconds,
  learnedEstimate,
  tidyFromExperiment,
  type Analysis,
  type TidyData,
} from '../../src/common/stats/index.js';
import { seededRandom } from '../../src/common/plan.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';

type Row = { cell: string; restart: string; query: string; rep: number; value: number };

function build(rows: Row[]): TidyData {
  const b = new TidyBuilder();
  for (const r of rows) b.add(r.cell, r.query, r.restart, r.rep, r.value);
  return b.build();
}

function rowsOf(cell: string, query: string, restarts: number[][]): Row[] {
  return restarts.flatMap((vals, r) => vals.map((value, i) => ({ cell, query, restart: String(r + 1), rep: i + 1, value })));
}

const close = (actual: number | null, expected: number, rel = 1e-9, what = '') => {
  assert.ok(actual !== null, `${what}: expected ${expected}, got null`);
  const tol = rel * Math.max(1, Math.abs(expected));
  assert.ok(Math.abs(actual - expected) <= tol, `${what}: expected ${expected}, got ${actual}`);
};

test("the seeds' sysbench starts: within-restart CoV about 0.24% against between-restart CoV about 6.6%", () => {
  const data = build(
    rowsOf('mysql-5.6', 'tps', [
      [330.7, 332.44, 332.55, 332.79, 333.45],
      [302.72, 302.49, 303.13, 303.11, 302.29],
    ]),
  );
  const [q] = analyze(data).cells[0].queries;
  assert.equal(q.n_restarts, 2);
  assert.equal(q.reps_per_restart, 5);
  assert.equal(q.within_cov_pct!.toFixed(2), '0.24');
  assert.equal(q.between_cov_pct!.toFixed(1), '6.6');
  // "10% worse performance": the spread between the best and the worst start.
  assert.equal(q.spread_pct!.toFixed(1), '9.8');
});

test('a small unbalanced case worked out by hand', () => {
  // Restart 1: 10, 12 (mean 11, SS 2). Restart 2: 14, 16, 18 (mean 16, SS 8). N = 5, n = 2.
  // MSW = 10 / 3. Means 11, 16: mean 13.5, s² = 12.5. Grand mean of executions 70 / 5 = 14.
  // MSB = 2·9 + 3·4 = 30. n0 = (5 − 13/5) / 1 = 2.4. σ²between = (30 − 10/3) / 2.4 = 100/9.
  // icc = (100/9) / (100/9 + 30/9) = 10/13. spread = 5 / 11.
  // MDE at n = 2, ν = 2: (t(.975, 2) + t(.8, 2)) · √(2 · 12.5 / 2) / 13.5, t(.975,2) = 4.302653, t(.8,2) = 1.060660.
  const data = build(rowsOf('c', 'q', [[10, 12], [14, 16, 18]]));
  const [q] = analyze(data).cells[0].queries;
  assert.equal(q.n_restarts, 2);
  close(q.reps_per_restart, 2.5, 1e-12, 'reps_per_restart');
  close(q.mean, 13.5, 1e-12, 'mean');
  close(q.sigma_within, Math.sqrt(10 / 3), 1e-12, 'sigma_within');
  close(q.within_cov_pct, (100 * Math.sqrt(10 / 3)) / 13.5, 1e-12, 'within_cov_pct');
  close(q.between_cov_pct, (100 * Math.sqrt(12.5)) / 13.5, 1e-12, 'between_cov_pct');
  close(q.sigma_between, 10 / 3, 1e-12, 'sigma_between');
  close(q.icc, 10 / 13, 1e-12, 'icc');
  close(q.spread_pct, 500 / 11, 1e-12, 'spread_pct');
  // Two restarts carry no MDE and no plan: the reason says how many more it takes.
  assert.equal(q.mde_pct, null);
  assert.equal(q.restarts_for_target, null);
  assert.equal(q.null_reasons?.mde_pct, 'needs 1 more restart (3 per cell)');
  assert.deepEqual(Object.keys(q.null_reasons ?? {}).sort(), ['mde_pct', 'restarts_for_target', 'suggested_warmup']);
  assert.equal(q.null_reasons?.suggested_warmup, 'fewer than 5 executions per restart');
});

test('Holm and Benjamini–Hochberg adjusted p-values, worked out by hand (as R’s p.adjust gives them)', () => {
  // p = 0.01, 0.04, 0.03, 0.005 (and one comparison without a p). Sorted: 0.005, 0.01, 0.03, 0.04, m = 4.
  // Holm: 4·0.005 = 0.02; 3·0.01 = 0.03; 2·0.03 = 0.06; 1·0.04 = 0.04 → kept monotone: 0.06.
  // BH, from the largest: 4·0.04/4 = 0.04; 4·0.03/3 = 0.04; 4·0.01/2 = 0.02; 4·0.005/1 = 0.02.
  const ps = [0.01, 0.04, null, 0.03, 0.005];
  const holm = adjustPValues(ps, 'holm');
  const bh = adjustPValues(ps, 'bh');
  [0.03, 0.06, null, 0.06, 0.02].forEach((want, i) => (want === null ? assert.equal(holm[i], null) : close(holm[i], want, 1e-12, `holm ${i}`)));
  [0.02, 0.04, null, 0.04, 0.02].forEach((want, i) => (want === null ? assert.equal(bh[i], null) : close(bh[i], want, 1e-12, `bh ${i}`)));
  assert.deepEqual(adjustPValues([0.9, 0.8], 'holm'), [1, 1], 'capped at 1');
  assert.equal(differSummary(holm, 0.05, 'holm'), '2 of 4 comparisons differ after Holm adjustment (α = 0.05)');
  assert.equal(differSummary(bh, 0.05, 'bh'), '4 of 4 comparisons differ after Benjamini–Hochberg adjustment (α = 0.05)');
});

test('the pooled MDE leaves out cells with fewer than 3 restarts, and counts them', () => {
  const m = minimumDetectableEffect([[10, 12, 14, 12], [20, 24, 28, 24, 22], [5]], { definition: 'pooled', alpha: 0.05, power: 0.8 });
  assert.equal(m.cells, 2);
  assert.equal(m.left_out, 1);
  assert.equal(m.restarts, 4, 'the fewest restarts of the cells it rests on');
  // Pooled CoV² weighted by degrees of freedom: means 12 (SS 8) and 23.6 (SS 35.2): (3 · (√(8/3)/12)² + 4 · (√(35.2/4)/23.6)²) / 7.
  const cov1 = Math.sqrt(8 / 3) / 12;
  const cov2 = Math.sqrt(35.2 / 4) / 23.6;
  close(m.cov_pct, 100 * Math.sqrt((3 * cov1 ** 2 + 4 * cov2 ** 2) / 7), 1e-12, 'pooled CoV');
  const none = minimumDetectableEffect([[1, 2], [3, 4]], { definition: 'pooled', alpha: 0.05, power: 0.8 });
  assert.equal(none.pct, null);
  assert.equal(none.reason, 'needs 1 more restart (3 per cell)');
});

test('the MDE of a cell of three restarts, against scipy', () => {
  // Restart means 10, 12, 14: CoV = 2 / 12. ν = 2 (3 − 1) = 4, δ = (t(.975, 4) + t(.8, 4)) · CoV · √(2/3),
  // MDE = 100 (e^δ − 1). scipy: t.ppf(.975, 4) = 2.7764451051977934, t.ppf(.8, 4) = 0.9409645772351816,
  // 100 * expm1(d) = 65.84366518127247.
  const [q] = analyze(build(rowsOf('c', 'q', [[10], [12], [14]]))).cells[0].queries;
  close(q.mde_pct, 65.84366518127247, 1e-9, 'mde_pct');
  const d = (2.7764451051977934 + 0.9409645772351816) * (2 / 12) * Math.sqrt(2 / 3);
  close(q.mde_pct, 100 * Math.expm1(d), 1e-9, 'mde_pct by the formula');
  const pooled = minimumDetectableEffect([[10, 12, 14], [20, 24, 28]], { definition: 'pooled', alpha: 0.05, power: 0.8 });
  close(pooled.pct, 65.84366518127247, 1e-9, 'pooled over two cells of the same CoV');
  assert.equal(pooled.definition, 'pooled');
  assert.throws(() => minimumDetectableEffect([[1, 2, 3], [1, 2, 3]], { definition: 'per-cell', alpha: 0.05, power: 0.8 }), /a per-cell MDE takes one cell/);
});

test('warm-up drops repetitions 1..W of every restart', () => {
  // With W = 1 the slow first executions (100) go; what is left is 10, 12 and 14, 16, 18 as above.
  const data = build(rowsOf('c', 'q', [[100, 10, 12], [100, 14, 16, 18]]));
  const [q] = analyze(data, { warmup: 1 }).cells[0].queries;
  close(q.mean, 13.5, 1e-12, 'mean');
  close(q.icc, 10 / 13, 1e-12, 'icc');
  const [all] = analyze(data).cells[0].queries;
  assert.ok(all.within_cov_pct! > 100, 'without the warm-up dropped, the slow first executions dominate');
});

test('values that cannot be computed are null with a reason, never NaN', () => {
  const one = analyze(build(rowsOf('c', 'q', [[5, 6, 7]])), { baseline: 'c' });
  const [q] = one.cells[0].queries;
  assert.equal(q.n_restarts, 1);
  assert.equal(q.mean, 6);
  for (const f of ['between_cov_pct', 'sigma_between', 'icc', 'spread_pct'] as const) {
    assert.equal(q[f], null, f);
    assert.match(q.null_reasons![f]!, /only one restart/);
  }
  for (const f of ['mde_pct', 'restarts_for_target'] as const) {
    assert.equal(q[f], null, f);
    assert.equal(q.null_reasons![f], 'needs 2 more restarts (3 per cell)');
  }
  assert.equal(one.cells[0].spread_avg_pct, null);
  assert.match(one.cells[0].null_reasons!.spread_avg_pct!, /two restarts/);

  const singles = analyze(build(rowsOf('c', 'q', [[5], [6], [7]])));
  const [s] = singles.cells[0].queries;
  assert.equal(s.sigma_within, null);
  assert.match(s.null_reasons!.sigma_within!, /single execution/);
  assert.equal(s.between_cov_pct!.toFixed(3), (100 / 6).toFixed(3));

  const gone = analyze(build(rowsOf('c', 'q', [[5, 6], [6, 7]])), { warmup: 5 });
  const [g] = gone.cells[0].queries;
  assert.equal(g.n_restarts, 0);
  assert.equal(g.mean, null);
  assert.match(g.null_reasons!.mean!, /no executions left after the warm-up/);
  assert.ok(!JSON.stringify([one, singles, gone]).includes('NaN'));
  const text = JSON.stringify([one, singles, gone], (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? 'BAD' : v));
  assert.ok(!text.includes('BAD'));
});

test('comparisons: the ratio of restart means with a log-scale Welch interval, against scipy', () => {
  // Baseline restart means 10, 12, 14 (mean 12, s² 4); cell means 13, 15, 17 (mean 15, s² 4). R = 1.25.
  // v₁ = 4 / (3 · 15²), v₀ = 4 / (3 · 12²), se = √(v₁ + v₀), ν = (v₁ + v₀)² / (v₁²/2 + v₀²/2).
  // scipy (numpy 1.x / scipy 1.x), with lr = log(15/12):
  //   se = 0.12322818340454907, ν = 3.8161180476730987, t.ppf(.975, ν) = 2.8300114406856545
  //   100 * expm1(lr ∓ t·se) = −11.80268075947169, +77.15957961701882; 2 * t.sf(lr/se, ν) = 0.14785390715254618
  //   at 99%: −30.463591357122105, +124.70243006431643
  const rows = [...rowsOf('base', 'q', [[10], [12], [14]]), ...rowsOf('new', 'q', [[13], [15], [17]])];
  const a = analyze(build(rows), { baseline: 'base' });
  assert.equal(a.comparisons.length, 1);
  const [c] = a.comparisons;
  assert.equal(c.cell, 'new');
  assert.equal(c.baseline, 'base');
  close(c.effect_pct, 25, 1e-12, 'effect');
  close(c.df, 3.8161180476730987, 1e-12, 'df');
  close(c.ci_low_pct, -11.80268075947169, 1e-9, 'ci_low');
  close(c.ci_high_pct, 77.15957961701882, 1e-9, 'ci_high');
  close(c.p_value, 0.14785390715254618, 1e-9, 'p');
  // One comparison: its adjusted p is its p, and it cannot tell 25% from noise with three restarts.
  close(c.p_adjusted, 0.14785390715254618, 1e-9, 'p adjusted');
  assert.equal(c.adjustment, 'holm');
  assert.equal(c.verdict, 'inconclusive');
  assert.equal(a.summary, '0 of 1 comparison differs after Holm adjustment (α = 0.05)');
  // The interval follows α: 99% when α is 0.01.
  const [c99] = analyze(build(rows), { baseline: 'base', alpha: 0.01 }).comparisons;
  close(c99.ci_low_pct, -30.463591357122105, 1e-9, 'ci_low 99%');
  close(c99.ci_high_pct, 124.70243006431643, 1e-9, 'ci_high 99%');
});

test('two noisy restarts: no interval below −100 %, no ranking, no MDE', () => {
  // Restart means that differ tenfold within a cell: a difference-of-means interval would run far below −100 %.
  const rows = [
    ...rowsOf('base', 'q', [[10, 10.1], [100, 100.2]]),
    ...rowsOf('new', 'q', [[5, 5.1], [60, 60.3]]),
    ...rowsOf('other', 'q', [[1, 1.01], [30, 30.1]]),
  ];
  const a = analyze(build(rows), { baseline: 'base' });
  for (const c of a.comparisons) {
    assert.ok(c.ci_low_pct! > -100, `${c.cell}: ${c.ci_low_pct}`);
    assert.ok(c.ci_high_pct! > c.ci_low_pct!);
    assert.ok(c.ci_low_pct! < c.effect_pct! && c.effect_pct! < c.ci_high_pct!);
    assert.equal(c.detectable_pct, null);
    assert.equal(c.null_reasons?.detectable_pct, 'needs 1 more restart (3 in both cells)');
  }
  assert.equal(a.ranking.most_stable, null);
  assert.equal(a.ranking.reason, 'no ranking: every cell needs 1 more restart (3 per cell)');
  for (const q of a.cells.flatMap((c) => c.queries)) assert.equal(q.mde_pct, null);
  for (const m of a.mde) assert.equal(m.mde.pct, null);
  assert.equal(a.bimodal.length, 0);
  assert.equal(a.bimodal_unjudged.length, 3);
  assert.equal(a.bimodal_unjudged[0].reason, 'needs 2 more restarts (4 per cell, two per level)');
});

test('a comparison that cannot be made says why', () => {
  const rows = [...rowsOf('base', 'q', [[10], [12]]), ...rowsOf('new', 'q', [[13]]), ...rowsOf('new', 'only-new', [[1], [2]])];
  const a = analyze(build(rows), { baseline: 'base' });
  const q = a.comparisons.find((c) => c.query === 'q')!;
  close(q.effect_pct, 100 * (13 - 11) / 11, 1e-12, 'effect');
  assert.equal(q.p_value, null);
  assert.match(q.null_reasons!.p_value!, /two restarts in each cell/);
  const o = a.comparisons.find((c) => c.query === 'only-new')!;
  assert.equal(o.effect_pct, null);
  assert.match(o.null_reasons!.effect_pct!, /baseline has no executions of only-new/);
});

test('a cell of 10 restarts whose means fall 7 and 3 into two levels is flagged as bimodal', () => {
  const random = seededRandom(7);
  const noise = () => (random() - 0.5) * 0.6;
  const levels = [330, 330, 302, 330, 330, 302, 330, 330, 302, 330];
  const restarts = levels.map((l) => Array.from({ length: 5 }, () => l + noise()));
  // The other cell: one level, with more restart-to-restart noise than the first has within a level.
  const steady = levels.map(() => { const level = 330 + noise() * 5; return Array.from({ length: 5 }, () => level + noise()); });
  const a = analyze(build([...rowsOf('ahi=on', 'tps', restarts), ...rowsOf('ahi=off', 'tps', steady)]));
  assert.equal(a.bimodal.length, 1);
  const [flag] = a.bimodal;
  assert.equal(flag.cell, 'ahi=on');
  assert.deepEqual(flag.groups.map((g) => g.count), [3, 7]);
  assert.deepEqual(flag.groups[0].restarts, ['3', '6', '9']);
  assert.equal(Math.round(flag.groups[0].mean), 302);
  assert.equal(Math.round(flag.groups[1].mean), 330);
});

test('unimodal restart means are not flagged (2000 random cells: a rare false alarm at most)', () => {
  const random = seededRandom(42);
  const gauss = () => {
    let s = 0;
    for (let i = 0; i < 12; i++) s += random();
    return s - 6;
  };
  let flagged = 0;
  for (let trial = 0; trial < 2000; trial++) {
    const means = Array.from({ length: 10 }, () => 100 + 2 * gauss());
    if (meanGroups(means.map(String), means, 0.05)) flagged++;
  }
  // Ten random means now and then look like two clusters to any rule; at most 1 in 500 may be flagged.
  assert.ok(flagged <= 4, `${flagged} of 2000 unimodal cells flagged`);
  // Evenly spaced means are one level, not ten.
  const even = Array.from({ length: 10 }, (_, i) => 100 + i);
  assert.equal(meanGroups(even.map(String), even, 0), null);
});

test('three levels are three groups', () => {
  const means = [100, 100.2, 99.9, 110, 110.1, 120, 119.8, 120.1];
  const g = meanGroups(means.map((_, i) => `r${i}`), means, 0.01)!;
  assert.deepEqual(g.map((x) => x.count), [3, 2, 3]);
});

test('planner: restarts for a target, optimal repetitions', () => {
  // A between-restart CoV of 2%: the MDE at n, by the formula with the test's own t distribution.
  const mde = (n: number) => 100 * Math.expm1((naiveTq(0.975, 2 * (n - 1)) + naiveTq(0.8, 2 * (n - 1))) * 0.02 * Math.sqrt(2 / n));
  const n = restartsForTarget(2, 1, 0.05, 0.8)!;
  assert.ok(mde(n) <= 1, `mde(${n}) = ${mde(n)}`);
  assert.ok(mde(n - 1) > 1, `mde(${n - 1}) = ${mde(n - 1)}`);
  // Large n: close to the normal approximation 2 · (1.96 + 0.8416)² · CoV² / log(1.01)² ≈ 63.4.
  assert.ok(Math.abs(n - (2 * (1.959964 + 0.841621) ** 2 * 0.02 ** 2) / Math.log(1.01) ** 2) < 3, `n = ${n}`);
  assert.equal(restartsForTarget(0, 1, 0.05, 0.8), 3, 'never fewer than 3 restarts per cell');
  // Past the bound there is no number: the target is out of reach.
  assert.equal(restartsForTarget(20, 0.1, 0.05, 0.8), null);
  // ⌈√((60 s / 0.1 s) · 4 / 1)⌉ = ⌈48.99⌉ = 49.
  assert.equal(optimalRepetitions(60, 0.1, 4, 1).value, 49);
  const none = optimalRepetitions(60, 0.1, 4, 0);
  assert.equal(none.value, null);
  assert.match(none.reason!, /σ between is 0, whatever the CoV of the means/);
});

test('an experiment file: only restarts with status ok count, values warm-up first', () => {
  const doc: ExperimentDoc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  const restart = (seq: number, cell: string, status: 'ok' | 'failed', values: number[]) => ({
    seq,
    cell,
    status,
    startedAt: 0,
    finishedAt: 1000,
    checks: [],
    queries: [{ query: 'Q1', unit: 'ms', source: 'client' as const, values }],
  });
  doc.results = {
    restarts: [restart(1, 'A', 'ok', [9, 1, 2]), restart(2, 'A', 'failed', [999, 999, 999]), restart(3, 'A', 'ok', [9, 3, 4])],
  };
  const data = tidyFromExperiment(doc);
  assert.equal(data.values.length, 6);
  const [q] = analyze(data, { warmup: 1 }).cells[0].queries;
  assert.equal(q.n_restarts, 2);
  assert.equal(q.mean, 2.5);
});

test('the planner: costs from the journal, restarts for the target, Kalibera-Jones repetitions, total time', () => {
  const doc: ExperimentDoc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  doc.design.workload.warmup = 1;
  const restart = (seq: number, values: number[]) => ({
    seq,
    cell: 'A',
    status: 'ok' as const,
    startedAt: 0,
    finishedAt: 10_000,
    checks: [],
    queries: [{ query: 'q', unit: 'ms', source: 'client' as const, values }],
  });
  doc.results = { restarts: [restart(1, [10, 10, 12]), restart(2, [10, 14, 16]), restart(3, [10, 12, 14])] };
  // Kept: 10, 12 and 14, 16 and 12, 14. MSW = 2; restart means 11, 15, 13: mean 13, s² 4, MSB = 2 · 8 / 2 = 8,
  // n0 = 2, σ²between = (8 − 2) / 2 = 3; between-restart CoV 2/13.
  // An execution: 108 ms / 9 = 12 ms. A restart: 10 s less its executions and the idle time it holds
  // (counted once, by estimatePlan): the median of 9.968, 9.960, 9.964, less 2 s idle.
  const idle = doc.design.idleSeconds;
  assert.equal(idle, 2);
  const costs = measuredCosts(doc);
  assert.equal(costs.source, 'journal');
  close(costs.executionSeconds, 0.012, 1e-12, 'execution');
  close(costs.restartSeconds, 9.964 - idle, 1e-12, 'restart');
  // The measured restarts planned again take what they took: 10 s each (the median one), not 10 s + idle.
  const one = { ...doc.design, factors: [], workload: { ...doc.design.workload, queries: [{ name: 'q', sql: 'SELECT 1' }] } };
  close(plannedSeconds(one, 1, 3, costs), 9.964 - idle + idle + 3 * 0.012, 1e-9, 'one restart as measured');
  const a = analyze(tidyFromExperiment(doc), { warmup: 1 });
  const plan = suggestPlan(doc, a, 5);
  const [q] = plan.queries;
  close(q.mde.cov_pct, 200 / 13, 1e-12, 'pooled CoV');
  assert.equal(q.mde.restarts, 3);
  assert.equal(q.mde.definition, 'pooled');
  assert.equal(q.restartsNeeded, restartsForTarget(200 / 13, 5, 0.05, 0.8));
  // ⌈√((7.964 / 0.012) · 2 / 3)⌉ = ⌈21.03⌉ = 22, plus the warm-up of 1.
  assert.equal(q.optimalRepetitions, 22);
  assert.equal(plan.restartsPerCell, q.restartsNeeded);
  assert.equal(plan.repetitions, 23);
  assert.equal(plan.seconds, plannedSeconds(doc.design, plan.restartsPerCell!, 23, costs));
  // 16 cells × n restarts × (7.964 s + idle + 4 queries × 23 × 12 ms).
  const perRestart = 9.964 - idle + idle + doc.design.workload.queries.length * 23 * 0.012;
  close(plan.seconds, 16 * plan.restartsPerCell! * perRestart, 1e-9, 'seconds');
});

test('the planner\'s costs as a rerun takes them: an execution at its measuring loop\'s wall time, and what a run costs once (npm run bench -- plan-check)', () => {
  const doc: ExperimentDoc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  const idle = doc.design.idleSeconds;
  assert.equal(idle, 2);
  // Each restart: 10 s of wall time, 2 s of it idle; its loop ran 3 executions in 600 ms, which the
  // server timed at 12 ms each (the client's round trip and the recording are the rest of the 200 ms).
  const restart = (seq: number, steps?: { measure: number }) => ({
    seq,
    cell: 'A',
    status: 'ok' as const,
    startedAt: seq * 20_000,
    finishedAt: seq * 20_000 + 10_000,
    checks: [],
    queries: [{ query: 'q', unit: 'ms', source: 'performance_schema' as const, values: [12, 12, 12] }],
    ...(steps ? { steps: { idle: 2000, start: 1000, ...steps } } : {}),
  });
  // The run began 3 s before its first restart (the host reached and probed) and ended 1.5 s after its last (stopped, restored).
  doc.results = { startedAt: 17_000, finishedAt: 3 * 20_000 + 10_000 + 1_500, restarts: [1, 2, 3].map((k) => restart(k, { measure: 600 })) };
  const costs = measuredCosts(doc);
  close(costs.executionSeconds, 0.2, 1e-12, 'an execution: the loop\'s 600 ms over its 3, not the server\'s 12 ms');
  close(costs.restartSeconds, 10 - idle - 0.6, 1e-12, 'a restart: the wall time less the idle time and the loop');
  close(costs.runSeconds, 3 + 1.5, 1e-12, 'a run, once');
  // Two restarts of 3 executions, planned again: 2 × (7.4 s + 2 s idle + 3 × 0.2 s), plus the 4.5 s once.
  const one = { ...doc.design, factors: [], workload: { ...doc.design.workload, queries: [{ name: 'q', sql: 'SELECT 1' }] } };
  close(plannedSeconds(one, 2, 3, costs), 2 * (7.4 + 2 + 0.6) + 4.5, 1e-9, 'planned');
  // The same design planned again takes what the run took, from its start to its end, less the waits between restarts.
  const same = { ...one, restartsPerCell: 3, workload: { ...one.workload, repetitions: 3 } };
  close(learnedEstimate({ design: same, results: doc.results }).estimate.seconds, (doc.results.finishedAt! - doc.results.startedAt!) / 1000 - 2 * 10, 1e-9, 'the same run');
  // More repetitions cost the loop's time each: 10 executions are 2 s, not 120 ms.
  close(plannedSeconds(one, 1, 10, costs) - plannedSeconds(one, 1, 3, costs), 7 * 0.2, 1e-9, 'seven more executions');

  // A file from before the steps were recorded: the timings, as before, and no once-cost without the run's dates.
  const old = measuredCosts({ design: doc.design, results: { restarts: [1, 2, 3].map((k) => restart(k)) } });
  close(old.executionSeconds, 0.012, 1e-12, 'an execution from the timings');
  close(old.restartSeconds, 10 - idle - 0.036, 1e-12, 'a restart');
  assert.equal(old.runSeconds, 0);

  // A benchmark command's timings are tps, no durations: its loop's wall time still gives the costs.
  const tps = measuredCosts({ design: doc.design, results: { restarts: [1, 2, 3].map((k) => ({ ...restart(k, { measure: 6000 }), queries: [{ query: 'tps', unit: 'tps', source: 'sysbench' as const, values: [500, 510, 505] }] })) } });
  assert.equal(tps.source, 'journal');
  close(tps.executionSeconds, 2, 1e-12, 'a run of the command');
  close(tps.restartSeconds, 10 - idle - 6, 1e-12, 'a restart around it');
});

test('tidy records: a bad field names the line and what is wrong', () => {
  const b = new TidyBuilder();
  b.addRecord(['c', '1', 'q', '1', '1.5'], 2);
  assert.throws(() => b.addRecord(['c', '1', 'q', '2', 'abc'], 14), (e: TidyError) => e.message === 'line 14: value "abc" is not a number');
  assert.throws(() => b.addRecord(['c', '1', 'q', '0', '1'], 15), /line 15: rep "0" is not a whole number from 1/);
  assert.throws(() => b.addRecord(['c', '1', 'q'], 16), /line 16: expected 5 fields/);
  b.addRecord(['c', '1', 'q', '1', '2'], 17);
  assert.throws(() => b.build(), /line 17: rep 1 appears twice for cell "c", restart "1", query "q" \(first on line 2\)/);
});

// ---------------------------------------------------------------------------------------------
// The independent implementation: one object per row, formulas as written in the issue, and a t
// distribution integrated numerically (Simpson) and inverted by bisection.

function lgamma(x: number): number {
  // Lanczos approximation (g = 7, n = 9).
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61503916999185, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lgamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

function naiveTcdf(x: number, nu: number): number {
  const k = Math.exp(lgamma((nu + 1) / 2) - lgamma(nu / 2)) / Math.sqrt(nu * Math.PI);
  const pdf = (u: number) => k * Math.pow(1 + (u * u) / nu, -(nu + 1) / 2);
  const ax = Math.abs(x);
  const steps = 2000;
  const h = ax / steps;
  let s = pdf(0) + pdf(ax);
  for (let i = 1; i < steps; i++) s += (i % 2 ? 4 : 2) * pdf(i * h);
  const half = (s * h) / 3;
  return x >= 0 ? 0.5 + half : 0.5 - half;
}

function naiveTq(p: number, nu: number): number {
  let lo = -100;
  let hi = 100;
  for (let i = 0; i < 64; i++) {
    const mid = (lo + hi) / 2;
    if (naiveTcdf(mid, nu) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const svar = (xs: number[]) => {
  const m = avg(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
};

function naiveQuery(rows: Row[], warmup: number, alpha: number, power: number, target: number) {
  const kept = rows.filter((r) => r.rep > warmup);
  const restarts = [...new Set(kept.map((r) => r.restart))];
  const groups = restarts.map((id) => kept.filter((r) => r.restart === id).map((r) => r.value));
  const n = groups.length;
  const N = kept.length;
  const means = groups.map(avg);
  const mean = avg(means);
  const msw = groups.reduce((a, g) => a + g.reduce((b, y) => b + (y - avg(g)) ** 2, 0), 0) / (N - n);
  const grand = avg(kept.map((r) => r.value));
  const msb = groups.reduce((a, g) => a + g.length * (avg(g) - grand) ** 2, 0) / (n - 1);
  const n0 = (N - groups.reduce((a, g) => a + g.length ** 2, 0) / N) / (n - 1);
  const vb = Math.max(0, (msb - msw) / n0);
  const s2 = svar(means);
  // The MDE of issue 12: the log-ratio test's δ at the between-restart CoV, as a change of 100 (e^δ − 1) %.
  const mde = (k: number) => 100 * (Math.exp((naiveTq(1 - alpha / 2, 2 * (k - 1)) + naiveTq(power, 2 * (k - 1))) * (Math.sqrt(s2) / mean) * Math.sqrt(2 / k)) - 1);
  // The smallest n ≥ 3 with mde(n) ≤ target is checked at the engine's answer rather than searched
  // (a linear search over hundreds of n with a numerical t would take minutes).
  const isSmallest = (k: number) => mde(k) <= target && (k === 3 || mde(k - 1) > target);
  return {
    n_restarts: n,
    reps_per_restart: N / n,
    mean,
    within_cov_pct: (100 * Math.sqrt(msw)) / mean,
    between_cov_pct: (100 * Math.sqrt(s2)) / mean,
    sigma_within: Math.sqrt(msw),
    sigma_between: Math.sqrt(vb),
    icc: vb / (vb + msw),
    spread_pct: (100 * (Math.max(...means) - Math.min(...means))) / Math.min(...means),
    mde_pct: mde(n),
    isSmallest,
    means,
  };
}

function randomRows(seed: number): Row[] {
  const random = seededRandom(seed);
  const rows: Row[] = [];
  for (const cell of ['b', 'a', 'c']) {
    for (const query of ['Q2', 'Q10', 'Q1']) {
      const base = 10 + random() * 100;
      const restarts = 3 + Math.floor(random() * 6);
      for (let r = 1; r <= restarts; r++) {
        const level = base * (1 + (random() - 0.5) * 0.1);
        const reps = 4 + Math.floor(random() * 8);
        for (let rep = 1; rep <= reps; rep++) {
          // A missing execution now and then: restarts with unequal counts.
          if (rep > 3 && random() < 0.1) continue;
          rows.push({ cell, restart: String(r), query, rep, value: level * (1 + (random() - 0.5) * 0.02) });
        }
      }
    }
  }
  // Any order in, the same analysis out.
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  return rows;
}

const T_FIELDS = new Set(['mde_pct', 'restarts_for_target', 'ci_low_pct', 'ci_high_pct', 'p_value']);

function assertAgrees(a: Analysis, rows: Row[], warmup: number, alpha: number, power: number, target: number, baseline: string) {
  const cells = [...new Set(rows.map((r) => r.cell))].sort();
  assert.deepEqual(a.cells.map((c) => c.cell), cells);
  const naiveMeans = new Map<string, number[]>();
  for (const c of a.cells) {
    const queries = [...new Set(rows.filter((r) => r.cell === c.cell).map((r) => r.query))].sort();
    assert.deepEqual(c.queries.map((q) => q.query), queries);
    const spreads: number[] = [];
    for (const q of c.queries) {
      const expected = naiveQuery(rows.filter((r) => r.cell === c.cell && r.query === q.query), warmup, alpha, power, target);
      naiveMeans.set(`${c.cell}/${q.query}`, expected.means);
      assert.ok(expected.isSmallest(q.restarts_for_target!), `${c.cell}/${q.query}: ${q.restarts_for_target} is not the smallest n reaching ${target}%`);
      spreads.push(expected.spread_pct);
      for (const [k, v] of Object.entries(expected)) {
        if (k === 'means' || k === 'isSmallest') continue;
        const got = q[k as keyof typeof q] as number;
        close(got, v as number, T_FIELDS.has(k) ? 1e-5 : 1e-6, `${c.cell}/${q.query} ${k}`);
      }
    }
    close(c.spread_avg_pct, avg(spreads), 1e-6, `${c.cell} spread_avg_pct`);
    close(c.spread_max_pct, Math.max(...spreads), 1e-6, `${c.cell} spread_max_pct`);
  }
  for (const cmp of a.comparisons) {
    const x = naiveMeans.get(`${cmp.cell}/${cmp.query}`)!;
    const y = naiveMeans.get(`${baseline}/${cmp.query}`)!;
    // The ratio of means on the log scale, by the delta method, with Welch–Satterthwaite df.
    const logR = Math.log(avg(x) / avg(y));
    const v1 = svar(x) / (x.length * avg(x) ** 2);
    const v2 = svar(y) / (y.length * avg(y) ** 2);
    const se = Math.sqrt(v1 + v2);
    const nu = (v1 + v2) ** 2 / (v1 ** 2 / (x.length - 1) + v2 ** 2 / (y.length - 1));
    const t = naiveTq(1 - alpha / 2, nu);
    close(cmp.effect_pct, 100 * (avg(x) / avg(y) - 1), 1e-6, 'effect_pct');
    close(cmp.ci_low_pct, 100 * (Math.exp(logR - t * se) - 1), 1e-5, 'ci_low_pct');
    close(cmp.ci_high_pct, 100 * (Math.exp(logR + t * se) - 1), 1e-5, 'ci_high_pct');
    const p = 2 * (1 - naiveTcdf(Math.abs(logR / se), nu));
    assert.ok(Math.abs(cmp.p_value! - p) <= 1e-5 * Math.max(p, 1e-2), `p_value: expected ${p}, got ${cmp.p_value}`);
  }
  // Holm over the family, by its definition: reject in order of p while p(j) ≤ α / (m − j + 1). The
  // adjusted p is the smallest α at which a comparison would be rejected that way.
  const ps = a.comparisons.map((c) => c.p_value!);
  const m = ps.length;
  const order = ps.map((_, i) => i).sort((i, j) => ps[i] - ps[j]);
  const rejectedAt = (level: number) => {
    const out = new Set<number>();
    for (let k = 0; k < m; k++) {
      if (ps[order[k]] > level / (m - k)) break;
      out.add(order[k]);
    }
    return out;
  };
  a.comparisons.forEach((c, i) => {
    assert.ok(c.p_adjusted! >= c.p_value! - 1e-15, 'an adjusted p is never smaller');
    assert.ok(rejectedAt(c.p_adjusted! * (1 + 1e-9)).has(i), `${c.cell}/${c.query}: rejected at its adjusted p`);
    if (c.p_adjusted! < 1) assert.ok(!rejectedAt(c.p_adjusted! * (1 - 1e-6)).has(i), `${c.cell}/${c.query}: not rejected below its adjusted p`);
    assert.equal(c.verdict, c.p_adjusted! <= alpha ? 'differs' : 'inconclusive');
  });
  assert.equal(a.comparisons.length, (cells.length - 1) * 3);
}

for (const [seed, warmup, alpha, power, target] of [
  [1, 0, 0.05, 0.8, 1],
  [2, 2, 0.05, 0.8, 2],
  [3, 3, 0.01, 0.9, 5],
  [4, 1, 0.1, 0.5, 3],
] as const) {
  test(`agrees with a naive implementation on random data (seed ${seed}, warm-up ${warmup}, α ${alpha}, power ${power})`, () => {
    const rows = randomRows(seed);
    const a = analyze(build(rows), { warmup, alpha, power, targetEffectPct: target, baseline: 'b' });
    assertAgrees(a, rows, warmup, alpha, power, target, 'b');
  });
}
