// Stop when answered (issue 21): the words, the intervals shown and the verdict agree. "differs" is read
// from the repeated 1 − α/m interval (it leaves out 0, |Z| ≥ the boundary); "equivalent" from the
// repeated 1 − 2α/m interval (two one-sided tests: inside ±E %). A run once showed "equivalent" beside
// the 95 % interval [−3.97 %, +50.77 %] against ±50 %: the decision used the 90 % one, not shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { replaySequential, type RoundSeries, type StoppingSettings } from '../../src/common/stats/sequential.js';
import { lookText, sequentialText, stopCheck } from '../../src/common/stats/replay.js';
import { normalDraws, seededRandom } from '../../src/common/stats/simulate.js';
import { exportContext } from '../../src/common/export/context.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { BASELINE, CONTENDER, EQUIVALENT_MEANS, equivalentExperiment, roundsExperiment } from '../fixtures/rounds-experiment.js';
import { analyze } from '../../src/common/stats/analysis.js';
import { tidyFromExperiment } from '../../src/common/stats/tidy.js';
import { fmtVerdict } from '../../src/common/export/format.js';

const { [BASELINE]: BASE, [CONTENDER]: CELL } = EQUIVALENT_MEANS;
const RULE: StoppingSettings = { effectPct: 50, alpha: 0.05, power: 0.8, maxRounds: 6 };

/** The numbers of the first interval after `name` in a line: `name [+9.59 %, +49.43 %]`. */
function intervalAfter(line: string, name: string): [number, number] {
  const at = line.indexOf(name);
  assert.ok(at >= 0, `"${name}" in: ${line}`);
  const m = /^\s*\[([+−])(\d+\.\d+) %, ([+−])(\d+\.\d+) %\]/.exec(line.slice(at + name.length));
  assert.ok(m, `an interval after "${name}" in: ${line}`);
  const v = (s: string, x: string) => (s === '−' ? -1 : 1) * Number(x);
  return [v(m[1], m[2]), v(m[3], m[4])];
}

test('an "equivalent" verdict shows the interval it was read from, named as the equivalence test’s, and it lies inside ±E', () => {
  const series: RoundSeries[] = [
    { cell: 'A', query: 'q', means: BASE },
    { cell: 'B', query: 'q', means: CELL },
  ];
  const r = replaySequential(series, 'A', RULE);
  const c = r.comparisons[0];
  assert.equal(c.verdict, 'equivalent');
  assert.equal(c.decided_round, 3);
  assert.deepEqual(r.levels, { differs_pct: 95, equivalent_pct: 90 });
  // The 95 % interval reaches past +50 %: it is not the one equivalence is read from.
  assert.ok(c.rci_high_pct! > 50, `95 % interval ${c.rci_low_pct}..${c.rci_high_pct}`);
  assert.ok(c.eq_low_pct! > -50 && c.eq_high_pct! < 50, `90 % interval ${c.eq_low_pct}..${c.eq_high_pct}`);

  // `analyze --until-answered`: the line of an equivalent comparison names the 90 % interval inside ±50 %.
  const text = sequentialText(r);
  assert.ok(text.some((l) => l.includes('equivalent within ±50 % when the repeated 90 % interval lies inside ±50 %')), text.join('\n'));
  const line = text.find((l) => l.includes('B / q: equivalent within ±50 %'))!;
  const [lo, hi] = intervalAfter(line, 'repeated 90 % interval');
  assert.ok(lo > -50 && hi < 50, line);
  assert.match(line, /the repeated 90 % interval \[\+9\.59, \+49\.43\] % lies inside ±50 % at round 3/);
  // The look printed by `varlab run`.
  const look = lookText(r).join('\n');
  const [llo, lhi] = intervalAfter(look, 'repeated 90 % interval');
  assert.ok(llo > -50 && lhi < 50, look);
});

test('the Markdown report and the Analysis data name both repeated intervals, and the equivalent row’s equivalence interval lies inside ±E', () => {
  const doc = equivalentExperiment();
  const check = stopCheck(doc);
  assert.equal(check.result?.comparisons[0].cell, CONTENDER);
  assert.equal(check.result?.comparisons[0].verdict, 'equivalent');
  const md = markdownReport(exportContext({ ...doc, results: { ...doc.results!, restarts: doc.results!.restarts.slice(0, 6), stopped: [{ at: 1, round: 3, because: check.result!.stopped_because }] } }));
  assert.match(md, /\| cell \| query \| verdict \| decided at round \| effect at that round \| repeated 95 % interval \| repeated 90 % interval \| why \|/);
  // The rule's own table (the comparisons table above it has the rule's verdict beside its rows too).
  const row = md.slice(md.indexOf('## Stop when answered')).split('\n').find((l) => l.startsWith(`| ${CONTENDER} |`) && l.includes('equivalent within ±50 %'));
  assert.ok(row, md);
  const cells = row.split('|').map((x) => x.trim());
  const m = /^\[([+−]\d+\.\d+), ([+−]\d+\.\d+)\] %$/.exec(cells[7]);
  assert.ok(m, row);
  const n = (s: string) => Number(s.replace('−', '-'));
  assert.ok(n(m[1]) > -50 && n(m[2]) < 50, row);
  assert.ok(md.includes('equivalent within ±50 % when the repeated 90 % interval lies inside ±50 %'), md);
});

test('at every look, each decision agrees with the intervals it shows (simulated runs, several comparisons)', () => {
  const z = normalDraws(seededRandom(11));
  let equivalent = 0;
  let differs = 0;
  for (let run = 0; run < 300; run++) {
    const cells = 2 + (run % 3);
    const effect = [0, 0.02, 0.06][run % 3];
    const rounds = 12;
    const drift = Array.from({ length: rounds }, () => 0.02 * z());
    const series: RoundSeries[] = Array.from({ length: cells }, (_, c) => ({
      cell: `c${c}`,
      query: 'q',
      means: drift.map((d) => 100 * (1 + (c === 1 ? effect : 0)) * (1 + d + 0.03 * z())),
    }));
    const r = replaySequential(series, 'c0', { effectPct: 5, alpha: 0.05, power: 0.8, maxRounds: rounds });
    for (const look of r.looks) {
      for (const c of look.comparisons) {
        if (c.z === null) continue;
        const leavesOutZero = c.rci_low_pct! > 0 || c.rci_high_pct! < 0;
        const inside = c.eq_low_pct! > -5 && c.eq_high_pct! < 5;
        assert.equal(c.decision === 'differs', leavesOutZero, `differs ⇔ the ${look.levels!.differs_pct} % interval leaves out 0: ${JSON.stringify(c)}`);
        if (c.decision === 'equivalent') assert.ok(inside, JSON.stringify(c));
        if (!leavesOutZero && inside) assert.equal(c.decision, 'equivalent', JSON.stringify(c));
        // The equivalence interval is the narrower one (1 − 2α/m against 1 − α/m).
        assert.ok(c.eq_low_pct! >= c.rci_low_pct! && c.eq_high_pct! <= c.rci_high_pct!);
        if (c.decision === 'equivalent') equivalent++;
        if (c.decision === 'differs') differs++;
      }
    }
  }
  assert.ok(equivalent > 10 && differs > 10, `both verdicts met: ${equivalent} equivalent, ${differs} differs`);
});

test('the fixed-sample "equivalent" is named by its test, with its p-value: the 95 % interval beside it may reach past ±E', () => {
  const doc = roundsExperiment({ rounds: 6, between: 0.03, shared: 0.5, effectPct: 1, seed: 4 });
  const a = analyze(tidyFromExperiment(doc), { baseline: BASELINE, warmup: 1, targetEffectPct: 5 });
  const c = a.comparisons[0];
  assert.equal(c.verdict, 'equivalent');
  assert.ok(c.ci_high_pct! > 5, `the 95 % interval ${c.ci_low_pct}..${c.ci_high_pct} reaches past +5 %`);
  // The two one-sided tests decide: for one comparison, the 90 % interval lies inside ±5 %.
  const used = c.paired!;
  assert.equal(c.pairing, 'paired');
  assert.ok(used.p_value !== null);
  assert.match(fmtVerdict(c), /^equivalent within ±5 % \(two one-sided tests, adjusted p = 0\.0\d\d\)$/);
  const md = markdownReport(exportContext(doc, { baseline: BASELINE, targetEffectPct: 5 }));
  assert.match(md, /\| equivalent within ±5 % \(two one-sided tests, adjusted p = 0\.0\d\d\) \|/);
});
