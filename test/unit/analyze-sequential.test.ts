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

test('results from several hosts: the rule is replayed on each host\'s own rounds, as the run stopped each host', () => {
  // Two hosts' runs of the same design: db1 sees an 8 % effect, db2 none. Each host's replay must be the
  // replay of that host's restarts alone (the host is a block; rounds never pair across hosts).
  const one = roundsExperiment({ rounds: 20, between: 0.03, shared: 0.5, effectPct: 8, seed: 4 });
  const two = roundsExperiment({ rounds: 20, between: 0.005, shared: 0.5, effectPct: 0, seed: 5 });
  const alone = (d: typeof one, name: string) => {
    d.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 20 };
    return JSON.parse(varlab(write(name, JSON.stringify(d)), '--until-answered', '--json').out).sequential;
  };
  const [db1, db2] = [alone(one, 'db1.varlab.json'), alone(two, 'db2.varlab.json')];
  const doc = structuredClone(one);
  doc.design.target = 'ssh://db1';
  doc.design.targets = ['ssh://db1', 'ssh://db2'];
  doc.results!.restarts = [...one.results!.restarts.map((r) => ({ ...r, host: 'ssh://db1' })), ...two.results!.restarts.map((r) => ({ ...r, host: 'ssh://db2' }))];
  const file = write('hosts.varlab.json', JSON.stringify(doc));
  const r = varlab(file, '--until-answered', '--json');
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out).sequential;
  assert.deepEqual(s.hosts.map((h: { host: string }) => h.host), ['ssh://db1', 'ssh://db2']);
  for (const [h, own] of [[s.hosts[0], db1], [s.hosts[1], db2]]) {
    assert.deepEqual(h.comparisons, own.comparisons);
    assert.equal(h.stopped_round, own.stopped_round);
    assert.deepEqual(h.looks, own.looks);
  }
  assert.equal(s.hosts[0].comparisons[0].verdict, 'differs');
  assert.equal(s.hosts[1].comparisons[0].verdict, 'equivalent');
  assert.equal(s.stopped_round, Math.max(db1.stopped_round, db2.stopped_round));
  assert.match(s.stopped_because, /^ssh:\/\/db1: stopped at round \d+: .*; ssh:\/\/db2: stopped at round \d+: /);
  // A baseline named with its host names the cell each host's rule compares with.
  const other = JSON.parse(varlab(file, '--until-answered', '--baseline', `${CONTENDER},host=ssh://db2`, '--json').out).sequential;
  assert.deepEqual(other.hosts.map((h: { comparisons: { baseline: string; cell: string }[] }) => [h.comparisons[0].baseline, h.comparisons[0].cell]), [[CONTENDER, BASELINE], [CONTENDER, BASELINE]]);
  const text = varlab(file, '--until-answered').out;
  assert.match(text, /Stop when answered \(replayed on the recorded rounds of ssh:\/\/db1, which stopped on its own\)/);
  assert.match(text, /Stop when answered \(replayed on the recorded rounds of ssh:\/\/db2, which stopped on its own\)/);
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

test('--max-restarts with --until-answered is the rule\'s maximum per cell, not the file-size limit', () => {
  // 2 cells × 12 restarts = 24 scheduled restarts; the rule's maximum of 6 per cell once refused the file
  // ("24 restarts … more than the limit of 6"): the same flag also raised (here: lowered) the size limit.
  const file = write('max.varlab.json', JSON.stringify(roundsExperiment({ rounds: 12, between: 0.03, shared: 0.5, effectPct: 0, seed: 7 })));
  const r = varlab(file, '--until-answered', '--effect', '5', '--max-restarts', '6', '--json');
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).sequential.max_rounds, 6);
});

test('a file run with its stopping rule: plain analyze says the fixed-sample comparisons are not valid under the rule and gives the rule\'s verdicts, as the app and the report do', () => {
  const doc = roundsExperiment({ rounds: 12, between: 0.005, shared: 0.5, effectPct: 0, seed: 5 });
  doc.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 12 };
  const file = write('ruled.varlab.json', JSON.stringify(doc));
  const r = varlab(file);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /Fixed-sample, not valid under the rule: \d+ of 1 comparison/);
  assert.match(r.out, /Note: the run looked at its results as they came \(stop when answered\): these fixed-sample intervals, p-values and verdicts do not allow for the looks and overstate the evidence/);
  assert.match(r.out, /fixed-sample verdict/);
  assert.match(r.out, /Stop when answered \(replayed on the recorded rounds\)/);
  assert.match(r.out, /: equivalent within ±5 %, effect/);
  // --json has the rule's section too, the same as with --until-answered.
  const j = JSON.parse(varlab(file, '--json').out);
  assert.deepEqual(j.sequential, JSON.parse(varlab(file, '--until-answered', '--json').out).sequential);
  // A file without a rule is not told about one.
  delete doc.design.stopping;
  const plain = varlab(write('plain.varlab.json', JSON.stringify(doc)));
  assert.doesNotMatch(plain.out, /not valid under the rule|Stop when answered/);
  assert.equal(JSON.parse(varlab(write('plain2.varlab.json', JSON.stringify(doc)), '--json').out).sequential, undefined);
});
