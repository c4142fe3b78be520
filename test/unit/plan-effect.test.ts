// `varlab plan FILE [--effect E] [--from EARLIER]` as a user runs it (issue 21): restarts per cell,
// repetitions, warm-up and time from the variance components and costs a run measured, in the one
// planning table the Analysis view's Planning panel and the Markdown report show too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliFixture } from '../fixtures/cli.js';
import { roundsExperiment } from '../fixtures/rounds-experiment.js';
import { exportContext } from '../../src/common/export/context.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { learnedCosts, learnedEstimate, measuredVarianceRatio, planningTable } from '../../src/common/stats/planner.js';
import { analyze, tidyFromExperiment } from '../../src/common/stats/index.js';
import { restartsForTarget } from '../../src/common/stats/mde.js';
import { buildPlan, perRestartMs } from '../../src/common/plan.js';

const { dir, varlab } = cliFixture('plan');

test('plan --effect from an earlier run says which run, and gives restarts, repetitions, warm-up and time', () => {
  const earlier = join(dir(), 'earlier.varlab.json');
  // Each restart took 9 s of wall time, 2 s of it idle: 5 executions of ~100 ms leave ~6.5 s of restart cost.
  writeFileSync(earlier, JSON.stringify(roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 })));
  const r = varlab('examples/quickstart.varlab.json', '--effect', '5', '--from', earlier);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /plan for a 5% effect, from the run of 2026-11-26 10:00 UTC/);
  assert.match(r.out, /\n {2}query +MDE now \(pooled over cells\) +restarts per cell +between-restart CoV \(pooled\) +variance paired\/unpaired \(measured\) +restarts needed for 5% +optimal repetitions per restart\n/);
  assert.match(r.out, /\n {2}Q1 pricing summary +\d+\.\d\d% +10 +\d+\.\d\d% +\d\.\d\d +\d+ +\d+\n/);
  assert.match(r.out, /\n {2}Restarts needed are for the comparison paired within rounds, as Analysis makes it for the interleaved order \(paired t, df = restarts − 1\)/);
  assert.match(r.out, /To see a 5% change in every query: \d+ restarts per cell and \d+ repetitions per restart \(1 warm-up \+ \d+ measured\), about \d+ min \d\d s for 16 cells/);
  assert.match(r.out, /Costs measured in the run of 2026-11-26 10:00 UTC: a restart 6\.\d s beyond its executions and the idle time, .* idle 2 s per restart \(counted once\)/);
  const none = varlab('examples/quickstart.varlab.json', '--effect', '5');
  assert.equal(none.code, 2);
  assert.match(none.err, /no measured run to plan from: run it first, or give --from EARLIER\.varlab\.json/);
  assert.match(varlab('examples/quickstart.varlab.json', '--from', earlier).err, /--from: goes with --effect E/);
});

test('plan FILE of a file with a run: the time at the costs measured there (idle counted once: the run as it took), and the planning table the report has', () => {
  const file = join(dir(), 'ran.varlab.json');
  const doc = roundsExperiment({ rounds: 10, between: 0.03, shared: 0.5, effectPct: 0 });
  // The design's own estimates are far off (as the quickstart's were: 2 min 40 s estimated, 7 min 10 s taken).
  doc.design.estimates = { restartSeconds: 1, executionMs: 1 };
  writeFileSync(file, JSON.stringify(doc));
  const took = doc.results!.restarts.reduce((a, r) => a + (r.finishedAt - r.startedAt) / 1000, 0);
  assert.equal(took, 180, 'the fixture: 20 restarts of 9 s each, 2 s idle in each');
  // The run's end is 1 s after its last restart (mysqld stopped, the host restored): counted once.
  assert.equal(((doc.results!.finishedAt! - Math.max(...doc.results!.restarts.map((r) => r.finishedAt))) / 1000), 1);
  const learned = learnedEstimate(doc, buildPlan(doc.design).length);
  assert.ok(Math.abs(learned.estimate.seconds - (took + 1)) < 1, `the same design planned again takes what it took: ${learned.estimate.seconds} s against ${took + 1} s`);
  assert.equal(learned.basis, 'from the run of 2026-11-26 10:00 UTC');
  // The time left before a run's first restart (the engine's, on resume or run --missing): the same learned costs.
  assert.equal(perRestartMs([], learnedCosts(doc).design), learnedEstimate(doc, 1).estimate.perRestartSeconds * 1000);
  assert.ok(Math.abs(perRestartMs([], learnedCosts(doc).design) - 9_000) < 1_000, 'about the 9 s each restart took, not the design\'s 1 s');

  const r = varlab(file);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.split('\n');
  assert.equal(lines[0], 'Quickstart: ASLR x AHI x preload x NUMA: 20 restarts, interleaved order, about 3 min 01 s (costs from the run of 2026-11-26 10:00 UTC)');
  assert.equal(lines[1], 'planning the next run for a 1% effect (varlab plan FILE --effect E for another):');
  // The table's row is the Markdown report's row: one function makes both.
  const row = lines[3].trim().split(/ {2,}/);
  const md = markdownReport(exportContext(doc));
  assert.match(md, /## Planning the next run\n\n\| query \| MDE now \(pooled over cells\) \| restarts per cell \| between-restart CoV \(pooled\) \| variance paired\/unpaired \(measured\) \| restarts needed for 1% \| optimal repetitions per restart \|/);
  assert.ok(md.includes('Restarts needed are for the comparison paired within rounds'), md);
  assert.ok(md.includes(`| ${row.join(' | ')} |`), `${row.join(' | ')} in\n${md}`);
  const suggestion = lines.find((l) => l.startsWith('  To see a 1% change'))!.trim();
  assert.ok(md.includes(`**${suggestion}**`), md);
  assert.ok(md.includes('Costs measured in the run of 2026-11-26 10:00 UTC: a restart 6.'), md);
  // Then the schedule, as before.
  assert.match(r.out, /\n {1}1 {2}round 1 {2}aslr=on {2}\(1 queries\)\n/);

  // A file without a run: the design's estimates, said so, and no planning table.
  const fresh = varlab('examples/quickstart.varlab.json');
  assert.match(fresh.out.split('\n')[0], /: 80 restarts, interleaved order, about \d+ min \d\d s \(costs from the design’s estimates\)$/);
  assert.ok(!fresh.out.includes('planning the next run'));

  // With stop when answered the plan is a maximum, and the next run is planned for the rule's effect.
  writeFileSync(file, JSON.stringify({ ...doc, design: { ...doc.design, stopping: { effect: 3, alpha: 0.05, power: 0.8, maxRestartsPerCell: 10 } } }));
  const ruled = varlab(file).out.split('\n');
  assert.match(ruled[0], /^Quickstart: ASLR x AHI x preload x NUMA: at most 20 restarts, interleaved order, about /);
  assert.equal(ruled[1], 'planning the next run for a 3% effect (varlab plan FILE --effect E for another):');
});

test('a design in rounds is planned for the paired comparison at the variance ratio its run measured; a blocked one for Welch, and the plan says which', () => {
  // Drift shared by the round (shared 0.5): pairing removes about half of the variance of the difference.
  const doc = roundsExperiment({ rounds: 12, between: 0.05, shared: 0.5, effectPct: 0, seed: 3 });
  const a = analyze(tidyFromExperiment(doc), { warmup: 1, baseline: 'aslr=on' });
  const vr = measuredVarianceRatio(a.restarts, 'Q1 pricing summary', 0.05);
  assert.ok(vr.ratio !== null);
  // The same figure Analysis gives the comparison.
  assert.ok(Math.abs(vr.ratio - a.comparisons[0].variance_ratio!) < 1e-12, `${vr.ratio} against ${a.comparisons[0].variance_ratio}`);
  assert.ok(vr.ratio < 1, `ratio ${vr.ratio}`);
  const paired = planningTable(doc, a, 3);
  const q = paired.plan.queries[0];
  const cov = q.mde.cov_pct!;
  assert.equal(q.varianceRatio, vr.ratio);
  assert.equal(q.restartsNeeded, restartsForTarget(cov, 3, 0.05, 0.8, undefined, { varianceRatio: vr.ratio }));
  const unpaired = restartsForTarget(cov, 3, 0.05, 0.8)!;
  assert.ok(q.restartsNeeded! < unpaired, `paired ${q.restartsNeeded}, unpaired ${unpaired}`);
  assert.match(paired.pairing, /^Restarts needed are for the comparison paired within rounds/);
  // The same restarts planned for a blocked design: no rounds to pair within, Welch's count.
  const blocked = planningTable({ ...doc, design: { ...doc.design, order: 'blocked' } }, a, 3);
  assert.equal(blocked.plan.queries[0].restartsNeeded, unpaired);
  assert.equal(blocked.pairing, 'Restarts needed are for an unpaired comparison (Welch): the blocked order has no rounds to pair within');
  assert.ok(!blocked.columns.some((c) => c.label.startsWith('variance paired')));
  // With stop when answered: the rule's maximum for the same power, about 1.1 times the paired count.
  const ruled = planningTable({ ...doc, design: { ...doc.design, stopping: { effect: 3, alpha: 0.05, power: 0.8, maxRestartsPerCell: 12 } } }, a, 3);
  assert.ok(ruled.pairing.includes(`With stop when answered, set its maximum to about ${Math.ceil(1.1 * q.restartsNeeded!)} restarts per cell for the same power`), ruled.pairing);
});
