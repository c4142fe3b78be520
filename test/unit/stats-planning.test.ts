// The planner says when a target is out of reach, instead of suggesting tens of thousands of restarts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, mdePct, plannedSeconds, suggestPlan, tidyFromExperiment, PLAN_LIMITS } from '../../src/common/stats/index.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

test('an absurd target: out of reach, with the effect a day of running can resolve', () => {
  const doc = finishedQuickstart();
  const a = analyze(tidyFromExperiment(doc), { warmup: 1 });
  const plan = suggestPlan(doc, a, 0.1);
  assert.ok(plan.restartsPerCell! > PLAN_LIMITS.restarts, `suggested ${plan.restartsPerCell}`);
  assert.ok(plan.outOfReach, 'the target is flagged as out of reach');
  const { restartsPerDay, mdePct: dayMde } = plan.outOfReach!;
  assert.ok(plannedSeconds(doc.design, restartsPerDay, plan.repetitions, plan.costs) <= 86400, 'the day plan fits in a day');
  assert.ok(plannedSeconds(doc.design, restartsPerDay + 1, plan.repetitions, plan.costs) > 86400, 'and is the largest that does');
  const worst = Math.max(...plan.queries.map((q) => mdePct(q.s2!, q.mean!, restartsPerDay, 0.05, 0.8)));
  assert.equal(dayMde, worst);
  assert.ok(dayMde! > 0.1);
  assert.ok(suggestPlan(doc, a, 0.001).outOfReach, 'beyond a million restarts: out of reach too');

  const reasonable = suggestPlan(doc, a, 5);
  assert.equal(reasonable.outOfReach, null, 'a 5% target is within reach: no warning');
});
