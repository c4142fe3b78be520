// What a design edit does to a file's results (common/experiment/carry.ts): names follow, removed
// cells and queries leave whole, added cells are said missing, and a change of what a restart
// measures keeps nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { carryResults, grownResults, missingRestarts, nextPart } from '../../src/common/experiment/carry.js';
import { analyze } from '../../src/common/stats/analysis.js';
import { restartRounds, tidyFromExperiment } from '../../src/common/stats/tidy.js';
import type { Design, ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';

const design = (): Design => {
  const d = (JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc).design;
  return {
    ...d,
    factors: [
      { tunable: 'aslr', levels: ['on', 'off'] },
      { tunable: 'ahi', levels: ['on', 'off'] },
    ],
    excludedCells: [],
    restartsPerCell: 1,
    workload: { ...d.workload, queries: [{ name: 'Q1', sql: 'SELECT 1' }, { name: 'Q2', sql: 'SELECT 2' }] },
  };
};
const restart = (seq: number, cell: string): RestartResult => ({
  seq,
  cell,
  status: 'ok',
  startedAt: seq,
  finishedAt: seq,
  checks: [],
  queries: ['Q1', 'Q2'].map((query) => ({ query, unit: 'ms', source: 'profiling' as const, values: [1, 2] })),
});
const doc = (): ExperimentDoc => ({
  format: 'varlab-experiment',
  version: 3,
  name: 'x',
  design: design(),
  results: { restarts: [restart(1, 'aslr=on,ahi=on'), restart(2, 'aslr=on,ahi=off'), restart(3, 'aslr=off,ahi=on'), restart(4, 'aslr=off,ahi=off')] },
});

test('factors in another order: the same cells under their new ids, nothing removed or missing', () => {
  const d = design();
  const c = carryResults(doc(), { ...d, factors: [d.factors[1], d.factors[0]] });
  assert.deepEqual(c.blocking, []);
  assert.deepEqual(c.kept.restarts.map((r) => r.cell), ['ahi=on,aslr=on', 'ahi=off,aslr=on', 'ahi=on,aslr=off', 'ahi=off,aslr=off']);
  assert.equal(c.removed.restarts.length, 0);
  assert.deepEqual(c.missing, []);
});

test('a query removed: its timings leave every restart, into the removed results; a query renamed keeps its name in the results', () => {
  const d = design();
  const c = carryResults(doc(), { ...d, workload: { ...d.workload, queries: [{ name: 'first', sql: 'SELECT 1' }] } });
  assert.deepEqual(c.blocking, []);
  assert.deepEqual(c.renamed, ['query Q1 → first']);
  assert.deepEqual(c.kept.restarts.map((r) => r.queries.map((q) => q.query)), [['first'], ['first'], ['first'], ['first']]);
  assert.deepEqual(c.removed.restarts.map((r) => [r.seq, r.queries.map((q) => q.query)]), [[1, ['Q2']], [2, ['Q2']], [3, ['Q2']], [4, ['Q2']]]);
  assert.equal(c.removedRestarts, 0);
  assert.equal(c.trimmedRestarts, 4);
});

test('a cell left out and a level added: the cell leaves whole, the new cells are missing', () => {
  const d = design();
  const c = carryResults(doc(), { ...d, factors: [d.factors[0], { tunable: 'ahi', levels: ['on', 'off'] }], excludedCells: ['aslr=off,ahi=off'], restartsPerCell: 2 });
  assert.deepEqual(c.removed.restarts.map((r) => r.cell), ['aslr=off,ahi=off']);
  assert.deepEqual(c.missing.map((m) => [m.cell, m.need]), [['aslr=on,ahi=on', 1], ['aslr=on,ahi=off', 1], ['aslr=off,ahi=on', 1]]);
  assert.deepEqual(missingRestarts({ ...d, restartsPerCell: 1 }, doc().results!.restarts), []);
});

test('what changes how a restart measures blocks carrying: SQL, a query added, repetitions, a factor added', () => {
  const d = design();
  const blocked = (after: Design) => carryResults(doc(), after).blocking;
  assert.deepEqual(blocked({ ...d, workload: { ...d.workload, queries: [{ name: 'Q1', sql: 'SELECT 11' }, d.workload.queries[1]] } }), ['query Q1: SQL changed']);
  assert.deepEqual(blocked({ ...d, workload: { ...d.workload, queries: [...d.workload.queries, { name: 'Q3', sql: 'SELECT 3' }] } }), ['query Q3 added: the old restarts did not run it']);
  assert.deepEqual(blocked({ ...d, workload: { ...d.workload, repetitions: d.workload.repetitions + 1 } }), [`repetitions: ${d.workload.repetitions} → ${d.workload.repetitions + 1}`]);
  assert.deepEqual(blocked({ ...d, factors: [...d.factors, { tunable: 'preload', levels: ['on'] }] }), ['factor preload added: every cell changes']);
});

test('a grown run joins the file: its restarts after the old ones, marked with their part, in rounds of their own; Analysis compares a cell only with cells of its own run unless asked, and says why', () => {
  const d = design();
  const old = doc().results!;
  const run = { startedAt: 50, finishedAt: 60, restarts: [restart(1, 'aslr=on,ahi=on'), restart(2, 'aslr=off,ahi=off')] };
  assert.equal(nextPart(old), 2);
  const joined = grownResults(old, run, 2);
  assert.deepEqual(joined.restarts.map((r) => [r.seq, r.cell, r.part]), [
    [1, 'aslr=on,ahi=on', undefined],
    [2, 'aslr=on,ahi=off', undefined],
    [3, 'aslr=off,ahi=on', undefined],
    [4, 'aslr=off,ahi=off', undefined],
    [5, 'aslr=on,ahi=on', 2],
    [6, 'aslr=off,ahi=off', 2],
  ]);
  assert.equal(joined.finishedAt, 60);
  // Saved again with the same run's results: replaced, not added twice.
  assert.equal(grownResults(joined, run, 2).restarts.length, 6);

  // A cell measured only in the later run is never paired with an older one.
  const twoRuns: ExperimentDoc = { ...doc(), design: { ...d, restartsPerCell: 5 }, results: { restarts: [] } };
  const values = (base: number, i: number) => [base + i, base + i + 0.5];
  let seq = 0;
  for (let i = 0; i < 5; i++) for (const [cell, base] of [['aslr=on,ahi=on', 10], ['aslr=on,ahi=off', 11 + (i % 2) * 0.3]] as const) twoRuns.results!.restarts.push({ ...restart(++seq, cell), queries: [{ query: 'Q1', unit: 'ms', source: 'profiling', values: values(base, i) }] });
  for (let i = 0; i < 5; i++) twoRuns.results!.restarts.push({ ...restart(++seq, 'aslr=off,ahi=on'), part: 2, queries: [{ query: 'Q1', unit: 'ms', source: 'profiling', values: values(12, i) }] });
  const rounds = restartRounds(twoRuns)!;
  assert.deepEqual([1, 2, 11, 15].map((s) => rounds.get(`\u0000${s}`)), [1, 1, 6, 10], 'the later run has rounds 6 to 10');
  const a = analyze(tidyFromExperiment(twoRuns), { baseline: 'aslr=on,ahi=on', warmup: 0 });
  const byCell = new Map(a.comparisons.filter((c) => c.query === 'Q1').map((c) => [c.cell, c]));
  assert.equal(byCell.get('aslr=on,ahi=off')!.pairing, 'paired', 'two cells of the same run pair by round');
  // By default a cell of the later run is compared only with cells of its own run: not with the baseline, and says why.
  const later = byCell.get('aslr=off,ahi=on')!;
  assert.equal(later.effect_pct, null);
  assert.equal(later.verdict, null);
  assert.match(later.pairing_reason, /^aslr=off,ahi=on was measured in run 2 and aslr=on,ahi=on in run 1 of this grown design \(run --missing\): compared only with cells measured in the same run/);
  assert.match(later.null_reasons!.effect_pct!, /^not compared: .*drift between the runs.*analyze --across-runs/);
  assert.match(a.summary!, /^\d of 1 comparison differs/, 'the comparison not made is not in the family');
  // Asked for: compared across runs, unpaired, the reason said.
  const across = analyze(tidyFromExperiment(twoRuns), { baseline: 'aslr=on,ahi=on', warmup: 0, acrossRuns: true }).comparisons.find((c) => c.query === 'Q1' && c.cell === 'aslr=off,ahi=on')!;
  assert.equal(across.pairing, 'unpaired');
  assert.match(across.pairing_reason, /in run 1 of this grown design \(run --missing\): compared across runs as asked, unpaired/);
  assert.ok(across.effect_pct !== null && across.effect_pct > 0 && across.verdict !== null, 'compared, unpaired');
  // A baseline of the later run: the old cells are the ones not compared.
  const fromLater = analyze(tidyFromExperiment(twoRuns), { baseline: 'aslr=off,ahi=on', warmup: 0 });
  assert.ok(fromLater.comparisons.every((c) => c.effect_pct === null && /^not compared/.test(c.null_reasons!.effect_pct!)));
  // Cells measured in both runs pair with either.
  const both: ExperimentDoc = structuredClone(twoRuns);
  for (let i = 0; i < 5; i++) both.results!.restarts.push({ ...restart(++seq, 'aslr=on,ahi=on'), part: 2, queries: [{ query: 'Q1', unit: 'ms', source: 'profiling', values: values(10, i) }] });
  const withBoth = analyze(tidyFromExperiment(both), { baseline: 'aslr=on,ahi=on', warmup: 0 }).comparisons.filter((c) => c.query === 'Q1');
  assert.deepEqual(withBoth.map((c) => [c.cell, c.pairing]).sort(), [['aslr=off,ahi=on', 'paired'], ['aslr=on,ahi=off', 'paired']]);
});

test("a grown run's data steps join the file's (a new build's data directory set up by run --missing), once however often the run saves", () => {
  const old = { startedAt: 0, restarts: [restart(1, 'aslr=on,ahi=on')], dataSteps: [{ at: 10, ms: 300_000, datadir: 'A', recognised: false }] };
  const run = { startedAt: 1_000, restarts: [restart(1, 'aslr=off,ahi=on')], dataSteps: [{ at: 2_000, ms: 290_000, datadir: 'C', recognised: false }] };
  const joined = grownResults(old, run, 2);
  assert.deepEqual(joined.dataSteps, [...old.dataSteps, ...run.dataSteps]);
  // Saved again with the same run: this run's are not there twice.
  assert.deepEqual(grownResults(joined, run, 2).dataSteps, joined.dataSteps);
});
