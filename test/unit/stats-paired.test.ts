// Issue 21: a design run in rounds compares each cell with the baseline in pairs within rounds, shows
// the unpaired (Welch) interval beside it with the variance ratio, and says one of three verdicts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, restartRounds, tidyFromExperiment } from '../../src/common/stats/index.js';
import { analysisJson, analysisText } from '../../src/common/export/analysis-output.js';
import { buildPlan } from '../../src/common/plan.js';
import { BASELINE, CONTENDER, roundsExperiment } from '../fixtures/rounds-experiment.js';

const analysed = (doc: ReturnType<typeof roundsExperiment>, targetEffectPct = 5) => analyze(tidyFromExperiment(doc), { baseline: BASELINE, warmup: 1, targetEffectPct });

test('every restart knows its round, derived from the file as the plan gave it (old files too)', () => {
  for (const order of ['interleaved', 'random'] as const) {
    const doc = roundsExperiment({ rounds: 6, order, between: 0.03, shared: 0.5, effectPct: 0, cells: 3 });
    const rounds = restartRounds(doc)!;
    for (const p of buildPlan(doc.design)) assert.equal(rounds.get(`\u0000${p.seq}`), p.round, `${order} restart ${p.seq}`);
  }
  assert.equal(restartRounds(roundsExperiment({ rounds: 3, order: 'blocked', between: 0.03, shared: 0.5, effectPct: 0 })), null);
});

test('rounds complete: the comparison is paired, with the Welch interval beside it and the variance ratio', () => {
  // Drift shared by the round is most of the spread: pairing removes it.
  const a = analysed(roundsExperiment({ rounds: 10, between: 0.04, shared: 0.8, effectPct: 0, seed: 3 }));
  const c = analysisJson(a).comparisons.find((x) => x.cell === CONTENDER)!;
  assert.equal(c.pairing, 'paired');
  assert.match(c.pairing_reason, /rounds, each holding every cell once: 10 rounds hold both cells/);
  assert.equal(c.paired!.rounds, 10);
  assert.equal(c.df, 9);
  assert.equal(c.ci_low_pct, c.paired!.ci_low_pct);
  assert.ok(c.unpaired.ci_low_pct !== null && c.unpaired.ci_high_pct !== null);
  assert.ok(c.variance_ratio !== null && c.variance_ratio < 0.5, `variance ratio ${c.variance_ratio}`);
  assert.ok(c.unpaired.ci_high_pct! - c.unpaired.ci_low_pct! > c.ci_high_pct! - c.ci_low_pct!);
  assert.equal(a.pairing.paired, 1);
  const text = analysisText(a, { name: 't', cells: 2, queries: 1, executions: 100 }).join('\n');
  assert.match(text, /Paired within rounds: the restarts ran in rounds, each holding every cell once.*variance paired\/unpaired: median 0\.\d\d over 1 comparison/);
  assert.match(text, /unpaired interval/);
});

test('a blocked design is compared unpaired, and says why', () => {
  const c = analysed(roundsExperiment({ rounds: 6, order: 'blocked', between: 0.03, shared: 0.5, effectPct: 0 })).comparisons[0];
  assert.equal(c.pairing, 'unpaired');
  assert.match(c.pairing_reason, /blocked order/);
  assert.equal(c.paired, null);
  assert.equal(c.variance_ratio, null);
});

test('three verdicts: differs, equivalent within ±E %, inconclusive with what it could have seen', () => {
  const differs = analysed(roundsExperiment({ rounds: 10, between: 0.01, shared: 0.5, effectPct: 8 })).comparisons[0];
  assert.equal(differs.verdict, 'differs');
  const same = analysed(roundsExperiment({ rounds: 10, between: 0.01, shared: 0.5, effectPct: 0 })).comparisons[0];
  assert.equal(same.verdict, 'equivalent');
  assert.equal(same.equivalence!.margin_pct, 5);
  assert.ok(same.equivalence!.p_adjusted! <= 0.05);
  const text = analysisText(analysed(roundsExperiment({ rounds: 10, between: 0.01, shared: 0.5, effectPct: 0 })), { name: 't', cells: 2, queries: 1, executions: 100 }).join('\n');
  assert.match(text, /equivalent within ±5 %/);
  // Noisy and short: neither.
  const unsure = analysed(roundsExperiment({ rounds: 4, between: 0.2, shared: 0.2, effectPct: 0 })).comparisons[0];
  assert.equal(unsure.verdict, 'inconclusive');
  assert.ok(unsure.detectable_pct! > 5);
});

test("a live run's check after each restart: the same rule, only on complete rounds, stopping where the replay does", async () => {
  const { stopCheck } = await import('../../src/common/stats/replay.js');
  const doc = roundsExperiment({ rounds: 30, between: 0.03, shared: 0.5, effectPct: 8, seed: 4 });
  doc.design.stopping = { effect: 3, alpha: 0.05, power: 0.8, maxRestartsPerCell: 30 };
  const all = doc.results!.restarts;
  const whole = stopCheck(doc);
  assert.equal(whole.stop, true);
  const at = whole.result!.stopped_round!;
  assert.ok(at < 30);
  let first: number | null = null;
  for (let n = 1; n <= all.length && first === null; n++) {
    const check = stopCheck({ ...doc, results: { ...doc.results!, restarts: all.slice(0, n) } });
    assert.equal(check.completeRounds, Math.floor(n / 2));
    if (check.stop) first = n;
  }
  // Two cells a round: it stops after the restart that completes the round the replay stopped at.
  assert.equal(first, 2 * at);
  const blocked = stopCheck({ ...doc, design: { ...doc.design, order: 'blocked' } });
  assert.equal(blocked.stop, false);
  assert.match(blocked.why, /blocked order has no rounds/);
});

test('results from several hosts: a round pairs restarts of one host only', () => {
  const doc = roundsExperiment({ rounds: 6, between: 0.03, shared: 0.5, effectPct: 0 });
  const second = roundsExperiment({ rounds: 6, between: 0.03, shared: 0.5, effectPct: 0, seed: 9 });
  doc.design.target = 'ssh://db1';
  doc.design.targets = ['ssh://db1', 'ssh://db2'];
  doc.results!.restarts = [...doc.results!.restarts.map((r) => ({ ...r, host: 'ssh://db1' })), ...second.results!.restarts.map((r) => ({ ...r, host: 'ssh://db2' }))];
  const a = analyze(tidyFromExperiment(doc), { baseline: `${BASELINE},host=ssh://db1`, warmup: 1 });
  const same = a.comparisons.find((c) => c.cell === `${CONTENDER},host=ssh://db1`)!;
  assert.equal(same.pairing, 'paired');
  const other = a.comparisons.find((c) => c.cell === `${BASELINE},host=ssh://db2`)!;
  assert.equal(other.pairing, 'unpaired');
  assert.match(other.pairing_reason, /ran on different hosts \(ssh:\/\/db2, ssh:\/\/db1\)/);
});

test('restart means in an exact ratio: differences equal but for rounding are "all equal", never a point interval with p ≈ 0', async () => {
  const { pairedLogRatio } = await import('../../src/common/stats/paired.js');
  const { ratioOfMeans } = await import('../../src/common/stats/ratio.js');
  const xs = [0.3, 0.7, 1.9, 13, 101.7];
  // log(1.08·x) − log(x) differs from x to x in its last bits only (in V8 here; Chromium's may round otherwise).
  const p = pairedLogRatio(xs.map((x) => [x * 1.08, x] as const), 0.05);
  assert.equal(p.why, 'the within-round differences are all equal: an interval would be a point');
  assert.equal(p.p_value, null);
  assert.ok(Math.abs(p.effect_pct! - 8) < 1e-9);
  // Welch: every restart mean of each cell the same but for rounding.
  const w = ratioOfMeans([0.1 + 0.2, 0.3, 0.30000000000000004], [1.1 * 3, 3.3, 3.3000000000000003], 0.05);
  assert.equal(w.why, 'no variation between restarts in either cell: an interval would be a point');
  // A real spread, however small, still makes an interval.
  const small = pairedLogRatio(xs.map((x, i) => [x * 1.08 * (1 + 1e-7 * i), x] as const), 0.05);
  assert.equal(small.why, undefined);
  assert.ok(small.p_value! < 0.05);
});
