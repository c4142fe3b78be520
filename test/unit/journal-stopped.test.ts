// Stop when answered in the journal (issue 21): the engine journals `stopped-answered` at the look that
// answers; a journal with it is complete (a finished run, never one to resume), its results say at
// which round and why, and the Run view's fold and the several-host file carry it too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildPlan } from '../../src/common/plan.js';
import { eventOf, isComplete, readJournalText, recordOf, recordsOfRestart, remainingRestarts, restorePending, resultsFromJournal, severalHostsResults, type JournalRecord } from '../../src/common/records.js';
import { stopCheck, lookText } from '../../src/common/stats/replay.js';
import { problemsBeforeSave } from '../../src/common/experiment/validate.js';
import { headerRecord, inspectJournal } from '../../src/node/engine/journal.js';
import { roundsExperiment } from '../fixtures/rounds-experiment.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { exportContext } from '../../src/common/export/context.js';
import { markdownReport } from '../../src/common/export/markdown.js';
import { comparisonsFigure } from '../../src/common/figures/build.js';
import { roundsLeft, ruleBaseline, ruleVerdictsFor } from '../../src/common/stats/replay.js';
import { DEFAULTS, targetEffectOf } from '../../src/common/stats/analysis.js';

/** A run of a large effect with a rule of at most 10 rounds, journaled as the engine does up to its stop. */
function stoppedJournal() {
  const doc = roundsExperiment({ rounds: 10, between: 0.02, shared: 0.25, effectPct: 20 });
  doc.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 10 };
  const all = doc.results!.restarts;
  // What the engine does: after each restart, the check; the first that says stop ends the run.
  let upTo = 0;
  let check = stopCheck({ ...doc, results: { restarts: [] } });
  while (upTo < all.length && !check.stop) check = stopCheck({ ...doc, results: { restarts: all.slice(0, ++upTo) } });
  assert.ok(check.stop, 'a 20 % effect at 2 % noise is answered within 10 rounds');
  const records: JournalRecord[] = [headerRecord(doc.design), ...all.slice(0, upTo).flatMap((r) => recordsOfRestart(r, doc.design.workload.warmup))];
  const stop: JournalRecord = { t: 'stopped-answered', at: 5, round: check.result!.stopped_round!, because: check.result!.stopped_because };
  return { doc, records, stop, upTo, check };
}

test('a journal stopped when answered is complete: nothing left to run, its results say the round and why', () => {
  const { doc, records, stop, upTo, check } = stoppedJournal();
  const plan = buildPlan(doc.design);
  assert.ok(upTo < plan.length, `stopped after ${upTo} of ${plan.length} restarts`);
  assert.equal(upTo, 2 * check.result!.stopped_round!, 'it stops on the restart that completes the look round');
  assert.match(check.result!.stopped_because, /^every comparison decided at round \d+: \d+ (differs?|equivalent|inconclusive)/);
  assert.equal(check.result!.comparisons[0].verdict, 'differs');

  const before = readJournalText(records.map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(isComplete(before), false, 'without the stop record the journal is one to resume');
  const state = readJournalText([...records, stop, { t: 'host-left', at: 6, ok: true }, { t: 'run-finished', at: 7, state: 'finished' }].map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(isComplete(state), true);
  assert.equal(restorePending(state), false);
  assert.deepEqual(remainingRestarts(plan, state), []);
  const results = resultsFromJournal(state);
  assert.deepEqual(results.stopped, [{ at: 5, round: check.result!.stopped_round!, because: check.result!.stopped_because }]);
  // The file with it is a valid experiment file.
  assert.deepEqual(problemsBeforeSave({ ...doc, results }), []);

  // Beside the file, it reads as a finished run (a run of it again is "already finished", not a resume).
  const dir = mkdtempSync(join(tmpdir(), 'varlab-stopped-'));
  try {
    const file = join(dir, 'x.varlab.json');
    writeFileSync(join(dir, 'x.varlab.journal.jsonl'), [...records, stop].map((r) => JSON.stringify(r)).join('\n') + '\n');
    assert.equal(inspectJournal(file, doc.design).kind, 'resume', 'the host is not restored yet: a run finishes that');
    writeFileSync(join(dir, 'x.varlab.journal.jsonl'), [...records, stop, { t: 'host-left', at: 6, ok: true }].map((r) => JSON.stringify(r)).join('\n') + '\n');
    assert.equal(inspectJournal(file, doc.design).kind, 'complete');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('restarts a detached runner finished after the look that stopped it are not results: the file holds the rounds up to the stop, the rest are discarded with why', () => {
  const { doc, records, stop, upTo, check } = stoppedJournal();
  const round = check.result!.stopped_round!;
  // The runner went on for one more round and a half before the follower's stop reached it: those
  // restarts' records came in with the look's round, and the stop was journaled after them.
  const ahead = doc.results!.restarts.slice(upTo, upTo + 3);
  assert.equal(ahead.length, 3);
  const imported = [...records, ...ahead.flatMap((r) => recordsOfRestart(r, doc.design.workload.warmup)), stop, { t: 'run-finished', at: 7, state: 'finished' } as JournalRecord];
  const state = readJournalText(imported.map((r) => JSON.stringify(r)).join('\n'));
  const results = resultsFromJournal(state);
  assert.equal(results.restarts.length, 2 * round);
  assert.deepEqual(results.restarts.map((r) => r.seq), doc.results!.restarts.slice(0, upTo).map((r) => r.seq).sort((a, b) => a - b));
  assert.deepEqual(results.discarded!.map((d) => d.seq), ahead.map((r) => r.seq));
  for (const d of results.discarded!) assert.match(d.reason, new RegExp(`^measured after the look at round ${round} stopped the run`));
  assert.deepEqual(problemsBeforeSave({ ...doc, results }), []);
  // A run that stopped nothing (no stop record) keeps every restart it finished.
  const running = readJournalText([...records, ...ahead.flatMap((r) => recordsOfRestart(r, doc.design.workload.warmup))].map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(resultsFromJournal(running).restarts.length, upTo + 3);
});

test('the stop is an event the Run view folds, and a several-host file keeps each host\'s stop', () => {
  const { stop } = stoppedJournal();
  const e = eventOf(stop, () => undefined)!;
  assert.equal(e.type, 'stopped-answered');
  assert.deepEqual(recordOf(e), stop);
  const one = { restarts: [], stopped: [{ at: 5, round: 4, because: 'every comparison decided at round 4' }] };
  const merged = severalHostsResults([
    { host: 'ssh://a', results: one },
    { host: 'ssh://b', results: { restarts: [] } },
  ]);
  assert.deepEqual(merged.stopped, [{ ...one.stopped[0], host: 'ssh://a' }]);
});

test('each look is told with its boundary, every comparison against it, and the rounds left at most', () => {
  const doc = roundsExperiment({ rounds: 10, between: 0.05, shared: 0.25, effectPct: 0, seed: 3 });
  doc.design.stopping = { effect: 1, alpha: 0.05, power: 0.8, maxRestartsPerCell: 10 };
  const check = stopCheck({ ...doc, results: { restarts: doc.results!.restarts.slice(0, 6) } });
  assert.equal(check.stop, false);
  const lines = lookText(check.result!);
  assert.match(lines[0], /^look at round 3 of at most 10 \(stop when answered, target ±1 %\): boundary \|Z\| ≥ \d+\.\d\d$/);
  assert.match(lines[1], /^ {2}aslr=off \/ Q1 pricing summary: [+−]\d+\.\d\d %, repeated 95 % interval \[[+−]\d+\.\d\d %, [+−]\d+\.\d\d %\], repeated 90 % interval \[[+−]\d+\.\d\d %, [+−]\d+\.\d\d %\], \|Z\| \d+\.\d\d: undecided$/);
  assert.equal(lines[2], '  going on: at most 7 more rounds');
});

test('the Run view folds the rule, each look and the stop from the events a run sends', () => {
  const { doc, check } = stoppedJournal();
  const r = check.result!;
  const live = new LiveRun();
  live.apply([
    { type: 'run-started', at: 1, planned: 20, done: 0, cells: ['aslr=on', 'aslr=off'], queries: ['Q1 pricing summary'], warmup: 1, stopping: doc.design.stopping },
    { type: 'look', at: 2, look: r.looks[r.looks.length - 1], comparisons: r.comparisons, max_rounds: r.max_rounds, effect_pct: r.effect_pct, rounds_left: roundsLeft(r), stopped_because: r.stopped_because },
    { type: 'stopped-answered', at: 3, round: r.stopped_round!, because: r.stopped_because },
  ]);
  assert.deepEqual(live.stopping, doc.design.stopping);
  assert.equal(live.look?.look.round, r.stopped_round);
  assert.deepEqual(live.stopped, { round: r.stopped_round, because: r.stopped_because });
  assert.match(live.log.at(-1)!.message, /^stopped when answered at round \d+: every comparison decided at round \d+: \d+ (differs?|equivalent|inconclusive)/);
});

test('the Markdown report of a run stopped when answered names the rule, the look it stopped at and each verdict with its repeated interval', () => {
  const { doc, records, stop } = stoppedJournal();
  const state = readJournalText([...records, stop].map((r) => JSON.stringify(r)).join('\n'));
  const saved = { ...doc, results: resultsFromJournal(state) };
  const md = markdownReport(exportContext(saved));
  const round = (stop as { round: number }).round;
  assert.match(md, /## Stop when answered\n\nRule: group-sequential, Lan–DeMets O’Brien–Fleming-type α spending .*; target ±5 %, α 0.05 over all looks, at most 10 rounds, looks at rounds 3, 4, 5, 7, 8, 9, 10\./);
  assert.ok(md.includes(`**The run stopped at round ${round}: every comparison decided at round ${round}: `), md);
  assert.match(md, new RegExp(`\\| aslr=off \\| Q1 pricing summary \\| differs \\| ${round} \\| \\+\\d+\\.\\d+ % \\| \\[\\+\\d+\\.\\d+, \\+\\d+\\.\\d+\\] % \\| \\[\\+\\d+\\.\\d+, \\+\\d+\\.\\d+\\] % \\|`));
  assert.ok(md.includes('these fixed-sample intervals, p-values and verdicts do not allow for the looks'), 'the naive intervals are flagged');
  // The comparisons table says its verdicts are fixed-sample ones and gives the rule's beside each row, as the Analysis view.
  assert.ok(md.includes("| cell | query | effect | 95% interval | p | adjusted p | fixed-sample verdict (not valid under the rule) | the rule's verdict |"), md);
  const table = md.slice(md.indexOf('## Comparisons with the baseline'), md.indexOf('## Stop when answered'));
  assert.match(table, new RegExp(`\\| aslr=off \\| Q1 pricing summary \\| .* \\| differs \\(round ${round}\\) \\| paired \\| \\[\\+\\d+\\.\\d+, \\+\\d+\\.\\d+\\] % \\| \\d\\.\\d\\d \\|`));
  // As the Analysis view, the pairing, the unpaired (Welch) interval and the variance ratio beside each row.
  assert.ok(table.includes("| the rule's verdict | pairing | unpaired (Welch) 95% interval | variance paired/unpaired |"), table);
  assert.ok(!/^\*\*/m.test(table.split('\n').find((l) => l.includes('differ')) ?? ''), 'the fixed-sample summary is not in bold');
  // The comparisons figure says it too, and names the paired interval its bars are.
  const figure = comparisonsFigure(exportContext(saved))!;
  assert.match((figure.layout.title as { text: string }).text.replace(/<br>/g, ' '), /fixed-sample, not valid under the stopping rule: 1 of 1 comparison differs/);
  assert.match(String((figure.layout.xaxis as { title: { text: string } }).title.text), /log scale; 95% CI, paired t within rounds\)/);
  // A design without a rule has no such section.
  assert.ok(!markdownReport(exportContext({ ...saved, design: { ...saved.design, stopping: undefined } })).includes('## Stop when answered'));
});

test("the rule's replay takes the report's baseline when it can, says so, and keeps the run's own stop", () => {
  const { doc, records, stop } = stoppedJournal();
  const state = readJournalText([...records, stop].map((r) => JSON.stringify(r)).join('\n'));
  const saved = { ...doc, results: resultsFromJournal(state) };
  assert.deepEqual(ruleBaseline(saved), { baseline: 'aslr=on', runs: 'aslr=on', asRun: true });
  assert.deepEqual(ruleBaseline(saved, 'aslr=off'), { baseline: 'aslr=off', runs: 'aslr=on', asRun: false });
  // On several hosts the table's baseline names its host; the rule of each host takes the cell.
  assert.deepEqual(ruleBaseline(saved, 'aslr=off,host=ssh://b'), { baseline: 'aslr=off', runs: 'aslr=on', asRun: false });
  assert.equal(ruleBaseline(saved, 'aslr=maybe').baseline, 'aslr=on');
  const md = markdownReport(exportContext(saved, { baseline: 'aslr=off' }));
  assert.ok(md.includes('Against aslr=off, the report\'s baseline: the rule replayed on these results. The run took its looks against aslr=on, its first cell; where it stopped is the run\'s.'), md);
  assert.match(md, new RegExp(`\\*\\*The run stopped at round ${stop.t === 'stopped-answered' ? stop.round : 0}: .*\\*\\* Against aslr=off: the rule would have stopped at round \\d+: `));
  assert.match(md, /\| aslr=on \| Q1 pricing summary \| differs \|/);
  // The Analysis view's column beside the fixed-sample table: the rule's verdict where it compares with the same baseline.
  const beside = ruleVerdictsFor(saved, 'aslr=off')!;
  assert.equal(beside.get('aslr=on\u0000Q1 pricing summary')?.verdict, 'differs');
  assert.equal(ruleVerdictsFor({ ...saved, design: { ...saved.design, stopping: undefined } }, 'aslr=on'), null);
});

test("a run stopped when answered is analysed and reported at its rule's target effect, not the default 1 %", () => {
  const { doc, records, stop } = stoppedJournal();
  const state = readJournalText([...records, stop].map((r) => JSON.stringify(r)).join('\n'));
  const saved = { ...doc, results: resultsFromJournal(state) };
  assert.equal(targetEffectOf(saved.design), 5);
  assert.equal(targetEffectOf({ ...saved.design, stopping: undefined }), DEFAULTS.targetEffectPct);
  // The export (the Markdown report, the CSVs, the figures) and the app's Analysis start from it: the
  // fixed-sample equivalence test and the planning table speak of the ±E the rule's verdicts do.
  const ctx = exportContext(saved);
  assert.equal(ctx.analysis.settings.targetEffectPct, 5);
  assert.ok(ctx.analysis.comparisons.every((c) => !c.equivalence || c.equivalence.margin_pct === 5));
  assert.match(markdownReport(ctx), /restarts for 5%/);
  // An explicit choice still wins, and a design without a rule keeps the default.
  assert.equal(exportContext(saved, { targetEffectPct: 2 }).analysis.settings.targetEffectPct, 2);
  assert.equal(exportContext({ ...saved, design: { ...saved.design, stopping: undefined } }).analysis.settings.targetEffectPct, DEFAULTS.targetEffectPct);
});
