// Issue 21: paired comparisons within rounds, equivalence by two one-sided tests, and the
// group-sequential stopping rule, checked against published boundaries, a hand-worked example and a
// seeded A/A simulation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { obrienFlemingBoundaries, spendingBoundaries, crossingProbability } from '../../src/common/stats/boundaries.js';
import { pairedLogRatio, tost } from '../../src/common/stats/paired.js';
import { lookSchedule, pairedUpTo, replaySequential } from '../../src/common/stats/sequential.js';
import { seededRandom, simulateRounds } from '../../src/common/stats/simulate.js';
import { pnorm, qnorm } from '../../src/common/stats/normal.js';

const near = (x: number | null, y: number, tol: number, what: string) => assert.ok(x !== null && Math.abs(x - y) <= tol, `${what}: ${x} is not ${y} ± ${tol}`);

test('the normal distribution holds its digits in the tails the early looks use', () => {
  near(qnorm(0.975), 1.959963985, 1e-9, 'z 0.975');
  near(qnorm(1e-6), -4.753424309, 1e-8, 'z 1e-6');
  near(pnorm(-4.4828) * 1e6, 3.6835, 1e-3, '1 − Φ(4.4828), ×1e6');
});

test("O'Brien–Fleming boundaries for four equally spaced looks at two-sided α = 0.05: 4.048, 2.862, 2.337, 2.024 (Jennison & Turnbull, table 2.3)", () => {
  const b = obrienFlemingBoundaries(4, 0.05);
  [4.048, 2.862, 2.337, 2.024].forEach((v, k) => near(b[k], v, 0.0015, `look ${k + 1}`));
  near(b[0] / b[3], 2, 1e-9, 'c₁ / c₄ = √4');
});

test('Lan–DeMets O’Brien–Fleming-type spending at the same looks: 4.333, 2.963, 2.359, 2.014, spending exactly α', () => {
  const t = [0.25, 0.5, 0.75, 1];
  const b = spendingBoundaries(t, 0.05);
  [4.333, 2.963, 2.359, 2.014].forEach((v, k) => near(b[k], v, 0.0015, `look ${k + 1}`));
  near(crossingProbability(b, t), 0.05, 1e-6, 'type I error over the four looks');
  // One look is the fixed design.
  near(spendingBoundaries([1], 0.05)[0], 1.96, 0.001, 'a single look');
});

test('the paired interval against a hand-worked example', () => {
  // Log differences within rounds 0.02, 0.04, 0.00, 0.02: mean 0.02, s² = 0.0008 / 3, se = √(s² / 4) = 0.0081650,
  // t(0.975, 3) = 3.182446, half-width 0.025985: interval e^(0.02 ± 0.025985) − 1 = −0.5967 % … +4.7059 %;
  // T = 0.02 / 0.0081650 = 2.4495, two-sided p (df 3) = 0.0917.
  const base = [100, 110, 90, 100];
  const d = [0.02, 0.04, 0, 0.02];
  const pairs = base.map((b, i) => [b * Math.exp(d[i]), b] as const);
  const r = pairedLogRatio(pairs, 0.05);
  assert.equal(r.rounds, 4);
  assert.equal(r.df, 3);
  near(r.effect_pct, 2.0201, 1e-4, 'effect %');
  near(r.se, 0.008165, 1e-6, 'se');
  near(r.ci_low_pct, -0.5967, 1e-3, 'low %');
  near(r.ci_high_pct, 4.7059, 1e-3, 'high %');
  near(r.p_value, 0.0917, 1e-3, 'p');
  assert.match(pairedLogRatio(pairs.slice(0, 1), 0.05).why ?? '', /two rounds/);
});

test('TOST: equivalent exactly when the (1 − 2α) interval lies inside ±E %', () => {
  // est 0, se 0.01, df 10, E 5 %: margins log 0.95 = −0.05129, log 1.05 = +0.04879; p = P(T₁₀ < −4.879) ≈ 3.2e-4.
  const eq = tost(0, 0.01, 10, 5, 0.05);
  assert.ok(eq.p_value < 0.001 && eq.p_value > 1e-4, `p ${eq.p_value}`);
  assert.ok(eq.ci_low_pct > -5 && eq.ci_high_pct < 5);
  // est 0.04: the upper test fails, p = P(T₁₀ < −0.879) ≈ 0.2.
  const no = tost(0.04, 0.01, 10, 5, 0.05);
  near(no.p_value, 0.2, 0.01, 'p at 0.04');
  assert.ok(no.ci_high_pct > 5);
  for (const est of [-0.06, -0.03, 0, 0.02, 0.0345, 0.036, 0.05]) {
    const t = tost(est, 0.01, 10, 5, 0.05);
    assert.equal(t.p_value <= 0.05, t.ci_low_pct > -5 && t.ci_high_pct < 5, `est ${est}`);
  }
});

test('looks: at most ten, none before three rounds, the last at the maximum', () => {
  assert.deepEqual(lookSchedule(20), [3, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
  assert.deepEqual(lookSchedule(4), [3, 4]);
  assert.deepEqual(lookSchedule(100).length, 10);
});

test('1,000 simulated A/A runs of a 4-cell family with stopping: false "differs" in at most α plus its binomial margin', () => {
  const random = seededRandom(2026);
  const runs = 1000;
  const alpha = 0.05;
  let falseDiffers = 0;
  let early = 0;
  for (let i = 0; i < runs; i++) {
    const s = simulateRounds(['A', 'B', 'C', 'D'], 30, { between: 0.05, within: 0.001, reps: 10, shared: 0.25 }, {}, random);
    const r = replaySequential(s, 'A', { effectPct: 5, alpha, power: 0.8, maxRounds: 30 });
    assert.equal(r.comparisons.length, 3);
    if (r.comparisons.some((c) => c.verdict === 'differs')) falseDiffers++;
    if ((r.stopped_round ?? 30) < 30) early++;
  }
  const margin = 1.96 * Math.sqrt((alpha * (1 - alpha)) / runs);
  assert.ok(falseDiffers / runs <= alpha + margin, `false "differs" in ${falseDiffers} of ${runs}`);
  // The rule does stop early when nothing differs: that is its point.
  assert.ok(early > runs / 2, `only ${early} of ${runs} stopped before the maximum`);
});

test('a real effect stops "differs" before the maximum, with a repeated interval that holds it', () => {
  const random = seededRandom(7);
  const s = simulateRounds(['A', 'B'], 40, { between: 0.03, within: 0.001, reps: 10, shared: 0.25 }, { B: 6 }, random);
  const r = replaySequential(s, 'A', { effectPct: 3, alpha: 0.05, power: 0.8, maxRounds: 40 });
  const c = r.comparisons[0];
  assert.equal(c.verdict, 'differs');
  assert.ok(r.stopped_round !== null && r.stopped_round < 40, `stopped at ${r.stopped_round}`);
  assert.ok(c.rci_low_pct! > 0 && c.rci_high_pct! > c.rci_low_pct!);
  assert.match(r.stopped_because, /every comparison decided at round/);
});

test('data that end before a look say so, and nothing is decided', () => {
  const s = simulateRounds(['A', 'B'], 2, { between: 0.03, within: 0.001, reps: 10, shared: 0 }, {}, seededRandom(1));
  const r = replaySequential(s, 'A', { effectPct: 3, alpha: 0.05, power: 0.8, maxRounds: 20 });
  assert.equal(r.stopped_round, null);
  assert.match(r.stopped_because, /before the first look at round 3/);
  assert.equal(r.comparisons[0].decided_round, null);
});

test('a comparison stopped for futility is decided inconclusive, and the stop says so: "decided" is never read as "shown"', () => {
  // Restart-to-restart noise far above the target effect: by the first looks there is no chance to show 1 %.
  const s = simulateRounds(['A', 'B'], 20, { between: 0.2, within: 0.001, reps: 10, shared: 0 }, {}, seededRandom(3));
  const r = replaySequential(s, 'A', { effectPct: 1, alpha: 0.05, power: 0.8, maxRounds: 20 });
  assert.equal(r.comparisons[0].verdict, 'inconclusive');
  assert.ok(r.stopped_round !== null && r.stopped_round < 20, `stopped at ${r.stopped_round}`);
  assert.match(r.comparisons[0].because ?? '', /^futility at round/);
  assert.equal(r.stopped_because, `every comparison decided at round ${r.stopped_round}: 1 inconclusive (futility: too unlikely to show the effect by the maximum)`);
});

test("the comparisons follow the workload's query order (Q1, Q3, Q12), not the text order (Q1, Q12, Q3)", () => {
  const series = ['Q1', 'Q12', 'Q3'].flatMap((q, i) => simulateRounds(['A', 'B'], 6, { between: 0.03, within: 0.001, reps: 10, shared: 0.25 }, {}, seededRandom(20 + i), q));
  const r = replaySequential(series, 'A', { effectPct: 3, alpha: 0.05, power: 0.8, maxRounds: 6, queryOrder: ['Q1', 'Q3', 'Q12'] });
  assert.deepEqual(r.comparisons.map((c) => c.query), ['Q1', 'Q3', 'Q12']);
  assert.deepEqual(replaySequential(series, 'A', { effectPct: 3, alpha: 0.05, power: 0.8, maxRounds: 6 }).comparisons.map((c) => c.query), ['Q1', 'Q12', 'Q3'], 'without an order: code-point order');
});

test('an earlier run\'s variance is pooled with the current rounds\': s² = (df0·s0² + SS) / (df0 + n − 1) at df0 + n − 1', () => {
  // The hand-worked example above: d = 0.02, 0.04, 0, 0.02, SS = 0.0008, alone se 0.0081650 at df 3.
  // With s0 = 0.01 at df0 6: s² = (6 · 0.0001 + 0.0008) / 9 = 1.5556e-4, se = √(s² / 4) = 0.0062361, df 9.
  const base = [100, 110, 90, 100];
  const cell = base.map((b, i) => b * Math.exp([0.02, 0.04, 0, 0.02][i]));
  const alone = pairedUpTo(cell, base, 4);
  near(alone?.se ?? null, 0.008165, 1e-6, 'se alone');
  assert.equal(alone?.df, 3);
  const pooled = pairedUpTo(cell, base, 4, { sd: 0.01, df: 6 });
  near(pooled?.est ?? null, 0.02, 1e-12, 'estimate: the current rounds only');
  near(pooled?.se ?? null, 0.0062361, 1e-6, 'se pooled');
  assert.equal(pooled?.df, 9);
  // The rule uses it for the comparison it names, and only for that one.
  const series = [{ cell: 'A', query: 'q', means: base }, { cell: 'B', query: 'q', means: cell }];
  const settings = { effectPct: 3, alpha: 0.05, power: 0.8, maxRounds: 4 };
  const width = (r: ReturnType<typeof replaySequential>) => r.looks[0].comparisons[0].rci_high_pct! - r.looks[0].comparisons[0].rci_low_pct!;
  const without = replaySequential(series, 'A', settings);
  const other = replaySequential(series, 'A', { ...settings, prior: { comparisons: [{ cell: 'C', query: 'q', sd: 0.01, df: 6 }] } });
  const withPrior = replaySequential(series, 'A', { ...settings, prior: { comparisons: [{ cell: 'B', query: 'q', sd: 0.01, df: 6 }] } });
  assert.equal(width(other), width(without));
  assert.ok(width(withPrior) < 0.8 * width(without), `pooled ${width(withPrior)} against ${width(without)}`);
});

test('1,000 simulated A/A runs with the variance of an earlier run of 21 rounds pooled: false "differs" in at most α plus its binomial margin', () => {
  const random = seededRandom(2127);
  const runs = 1000;
  const alpha = 0.05;
  const components = { between: 0.03, within: 0.001, reps: 10, shared: 0.25 };
  let falseDiffers = 0;
  for (let i = 0; i < runs; i++) {
    const [ea, eb] = simulateRounds(['A', 'B'], 21, components, {}, random);
    const d = ea.means.map((x, r) => Math.log(eb.means[r] as number) - Math.log(x as number));
    const m = d.reduce((u, x) => u + x, 0) / d.length;
    const sd = Math.sqrt(d.reduce((u, x) => u + (x - m) ** 2, 0) / 20);
    const s = simulateRounds(['A', 'B'], 17, components, {}, random);
    const r = replaySequential(s, 'A', { effectPct: 2.7, alpha, power: 0.8, maxRounds: 17, prior: { comparisons: [{ cell: 'B', query: 'q', sd, df: 20 }] } });
    if (r.comparisons[0].verdict === 'differs') falseDiffers++;
  }
  const margin = 1.96 * Math.sqrt((alpha * (1 - alpha)) / runs);
  assert.ok(falseDiffers / runs <= alpha + margin, `false "differs" in ${falseDiffers} of ${runs}`);
});
