// The planner says when a target is out of reach, naming the between-restart CoV and what brings it
// down, instead of suggesting tens of thousands of restarts; with too few restarts it makes no plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, COV_REDUCERS, minimumDetectableEffect, PLAN_LIMITS, plannedSeconds, suggestPlan, tidyFromExperiment } from '../../src/common/stats/index.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

test('an absurd target: out of reach at the named between-restart CoV, with what reduces it and what a day resolves', () => {
  const doc = finishedQuickstart(3);
  const a = analyze(tidyFromExperiment(doc), { warmup: 1 });
  const plan = suggestPlan(doc, a, 0.01);
  assert.equal(plan.restartsPerCell, null, 'no number of restarts past the bound');
  assert.ok(plan.outOfReach, 'the target is flagged as out of reach');
  const { restartsPerDay, mdePct: dayMde, covPct, reducers, text } = plan.outOfReach!;
  assert.deepEqual(reducers, COV_REDUCERS);
  assert.deepEqual([...reducers], ['ASLR off', 'preload (scan every table and index after each start)', 'NUMA binding (numactl)', 'a quieter host']);
  const worstCov = Math.max(...plan.queries.map((q) => q.mde.cov_pct!));
  assert.equal(covPct, worstCov);
  assert.match(text, new RegExp(`a 0\\.01% effect is out of reach on this host at the measured between-restart CoV of ${worstCov.toFixed(2)}% \\(more than ${PLAN_LIMITS.restarts.toLocaleString('en-US')} restarts per cell\\); what reduces that CoV: ASLR off`));
  assert.ok(plannedSeconds(doc.design, restartsPerDay, plan.repetitions, plan.costs) <= 86400, 'the day plan fits in a day');
  assert.ok(plannedSeconds(doc.design, restartsPerDay + 1, plan.repetitions, plan.costs) > 86400, 'and is the largest that does');
  const means = (query: string) => a.restarts.filter((r) => r.query === query).map((r) => r.means);
  // For the comparison the restarts are planned for: this interleaved run is paired within rounds, at each query's measured variance ratio.
  assert.ok(plan.queries.every((q) => q.varianceRatio !== null));
  const worst = Math.max(...plan.queries.map((q) => minimumDetectableEffect(means(q.query), { definition: 'pooled', alpha: 0.05, power: 0.8, restarts: restartsPerDay, paired: { varianceRatio: q.varianceRatio! } }).pct!));
  assert.equal(dayMde, worst);
  assert.ok(dayMde! > 0.01);

  const reasonable = suggestPlan(doc, a, 5);
  assert.equal(reasonable.outOfReach, null, 'a 5% target is within reach: no warning');
  assert.ok(reasonable.restartsPerCell! >= 3 && reasonable.restartsPerCell! <= PLAN_LIMITS.restarts);
});

test('two restarts per cell: no plan, no MDE, and it says how many more restarts it takes', () => {
  const doc = finishedQuickstart();
  const a = analyze(tidyFromExperiment(doc), { warmup: 1 });
  const plan = suggestPlan(doc, a, 5);
  assert.equal(plan.restartsPerCell, null);
  assert.equal(plan.outOfReach, null, 'out of reach is a verdict too: not from two restarts');
  for (const q of plan.queries) {
    assert.equal(q.mde.pct, null);
    assert.equal(q.restartsNeeded, null);
    assert.equal(q.reasons.restartsNeeded, 'needs 1 more restart (3 per cell)');
  }
  assert.ok(plan.reasons.includes('no number of restarts: needs 1 more restart (3 per cell) (all 5 queries)'), plan.reasons.join(' | '));
});
