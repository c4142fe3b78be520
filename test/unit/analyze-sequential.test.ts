// `varlab analyze FILE --until-answered` as a user runs it (issue 21): the stopping rule replayed on a
// recorded run, from the experiment file and from a tidy CSV, and design.stopping validated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cliFixture } from '../fixtures/cli.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { BASELINE, CONTENDER, roundsExperiment } from '../fixtures/rounds-experiment.js';

const { varlab, write } = cliFixture('analyze');

test('a real 8% effect: the replay stops "differs" before the maximum, and --json has verdict, pairing and sequential', () => {
  const file = write('effect.varlab.json', JSON.stringify(roundsExperiment({ rounds: 30, between: 0.03, shared: 0.5, effectPct: 8, seed: 4 })));
  const r = varlab(file, '--until-answered', '--effect', '3', '--baseline', BASELINE, '--json');
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  const c = j.comparisons.find((x: { cell: string }) => x.cell === CONTENDER);
  assert.equal(c.pairing, 'paired');
  assert.equal(c.verdict, 'differs');
  const s = j.sequential;
  assert.match(s.rule, /Lan–DeMets O’Brien–Fleming/);
  assert.equal(s.effect_pct, 3);
  assert.ok(s.stopped_round < 30, `stopped at ${s.stopped_round}`);
  assert.match(s.stopped_because, /every comparison decided at round/);
  assert.equal(s.looks[s.looks.length - 1].round, s.stopped_round);
  assert.equal(s.comparisons[0].verdict, 'differs');
  // Without --baseline, the design's first cell (as the app's Analysis and the run's stop rule take it), not
  // the first in code-point order (aslr=off): the same comparisons, the same signs.
  const byDefault = JSON.parse(varlab(file, '--until-answered', '--effect', '3', '--json').out);
  assert.deepEqual(byDefault.comparisons.map((x: { baseline: string; cell: string }) => [x.baseline, x.cell]), [[BASELINE, CONTENDER]]);
  assert.deepEqual(byDefault.sequential, s);
  const text = varlab(file, '--until-answered', '--effect', '3', '--baseline', BASELINE).out;
  assert.match(text, /Stop when answered \(replayed on the recorded rounds\)/);
  assert.match(text, new RegExp(`${CONTENDER} / .*: differs, effect \\+\\d\\.\\d\\d %, repeated 95 % interval \\[\\+\\d+\\.\\d\\d %, \\+\\d+\\.\\d\\d %\\], repeated 90 % interval \\[\\+`));
});

test('design.stopping gives the rule its effect; a tidy CSV replays with restart k of every cell as round k', () => {
  const doc = roundsExperiment({ rounds: 12, between: 0.005, shared: 0.5, effectPct: 0, seed: 5 });
  doc.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 12 };
  const file = write('same.varlab.json', JSON.stringify(doc));
  const j = JSON.parse(varlab(file, '--until-answered', '--json').out);
  assert.equal(j.sequential.effect_pct, 5);
  assert.equal(j.sequential.max_rounds, 12);
  assert.equal(j.sequential.comparisons[0].verdict, 'equivalent');
  // The same restarts as a tidy CSV from another tool: no round column.
  const rows = ['cell,restart,query,rep,value'];
  for (const r of doc.results!.restarts) r.queries[0].values.forEach((v, i) => rows.push(`${r.cell},${r.seq},q,${i + 1},${v}`));
  const csv = write('same.csv', rows.join('\n') + '\n');
  const k = JSON.parse(varlab(csv, '--until-answered', '--effect', '5', '--max-restarts', '12', '--warmup', '1', '--json').out);
  assert.equal(k.sequential.comparisons[0].verdict, 'equivalent');
  assert.equal(k.sequential.stopped_round, j.sequential.stopped_round);
  assert.match(k.comparisons[0].pairing_reason, /restart k of every cell is taken as round k/);
});

test('bad options and a blocked design are refused with what and where', () => {
  const file = write('blocked.varlab.json', JSON.stringify(roundsExperiment({ rounds: 6, order: 'blocked', between: 0.03, shared: 0.5, effectPct: 0 })));
  const r = varlab(file, '--until-answered', '--effect', '3');
  assert.equal(r.code, 2);
  assert.match(r.err, /--until-answered: .*blocked\.varlab\.json did not run in rounds/);
  const e = varlab(file, '--until-answered');
  assert.match(e.err, /--until-answered: give the target effect with --effect E/);
  assert.match(varlab(file, '--effect', '3').err, /--effect: goes with --until-answered/);
  const doc = roundsExperiment({ rounds: 3, between: 0.03, shared: 0.5, effectPct: 0 });
  (doc.design as unknown as Record<string, unknown>).stopping = { effect: 0, alpha: 0.05, power: 1.5, maxRestartsPerCell: 2 };
  const problems = checkExperiment(doc).problems.join('\n');
  assert.match(problems, /design\.stopping\.effect: expected more than 0/);
  assert.match(problems, /design\.stopping\.power: expected less than 1/);
  assert.match(problems, /design\.stopping\.maxRestartsPerCell: expected at least 3/);
});
