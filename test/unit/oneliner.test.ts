// The one-liner `varlab run --query … --factor …`: the experiment its command line makes, the name of
// the file it writes, and the hyperfine-style summary printed after the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RestartResult } from '../../src/common/experiment/types.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { buildPlan } from '../../src/common/plan.js';
import { analyze, tidyFromExperiment } from '../../src/common/stats/index.js';
import { oneLinerDoc, oneLinerFileName, oneLinerSummary, parseFactor } from '../../src/common/templates/oneliner.js';

test('the command line becomes an experiment: its factors, its queries as Q1, Q2, restarts in interleaved rounds', () => {
  const doc = oneLinerDoc({ queries: ['SELECT 1', 'SELECT 2'], factors: ['ahi=on,off', 'aslr = on, off'], restarts: 3, target: 'ssh://db1' });
  assert.deepEqual(doc.design.factors, [
    { tunable: 'ahi', levels: ['on', 'off'] },
    { tunable: 'aslr', levels: ['on', 'off'] },
  ]);
  assert.deepEqual(doc.design.workload.queries, [
    { name: 'Q1', sql: 'SELECT 1' },
    { name: 'Q2', sql: 'SELECT 2' },
  ]);
  assert.equal(doc.design.restartsPerCell, 3);
  assert.equal(doc.design.order, 'interleaved');
  assert.equal(doc.design.target, 'ssh://db1');
  assert.deepEqual(checkExperiment(doc).problems, []);
  // A level the tunable does not have is named by the experiment's own rules.
  assert.match(checkExperiment(oneLinerDoc({ queries: ['SELECT 1'], factors: ['ahi=on,sideways'] })).problems.join('\n'), /sideways/);
});

test('a --factor that is not TUNABLE=L1,L2, a factor given twice, or none at all is refused with what to write', () => {
  assert.throws(() => parseFactor('ahi'), /--factor: expected TUNABLE=LEVEL,LEVEL\[,…\] \(e\.g\. ahi=on,off\), got "ahi"/);
  assert.throws(() => parseFactor('ahi=on'), /expected TUNABLE=LEVEL,LEVEL/);
  assert.throws(() => parseFactor('ahi=on,,off'), /expected TUNABLE=LEVEL,LEVEL/);
  assert.throws(() => oneLinerDoc({ queries: ['SELECT 1'], factors: ['ahi=on,off', 'ahi=off,on'] }), /ahi is given twice/);
  assert.throws(() => oneLinerDoc({ queries: ['SELECT 1'], factors: [] }), /give at least one, e\.g\. --factor ahi=on,off/);
});

test('the file a one-liner writes is named by the time it ran', () => {
  assert.equal(oneLinerFileName(new Date(2026, 10, 26, 8, 5, 9)), 'varlab-run-20261126-080509.varlab.json');
});

test('the summary: each cell\'s mean ± sd of restart means, and "B is r ± s times faster than A" with the verdict', () => {
  const doc = oneLinerDoc({ queries: ['SELECT SUM(x) FROM t'], factors: ['ahi=on,off'], restarts: 4, repetitions: 3, warmup: 1 });
  // ahi=on restarts average 10 ms (9.9, 10.1, 9.9, 10.1); ahi=off 8 ms (7.9, 8.1, …): off is 1.25 times faster.
  const restarts: RestartResult[] = buildPlan(doc.design).map((p) => {
    const base = p.cell === 'ahi=on' ? 10 : 8;
    const v = base + (p.restartOfCell % 2 ? -0.1 : 0.1);
    return { seq: p.seq, cell: p.cell, status: 'ok', startedAt: p.seq, finishedAt: p.seq + 1, checks: [], queries: [{ query: 'Q1', unit: 'ms', source: 'performance_schema', values: [v * 2, v, v] }] };
  });
  doc.results = { restarts };
  const a = analyze(tidyFromExperiment(doc), { warmup: 1, baseline: 'ahi=on' });
  const text = oneLinerSummary(a, doc.design.workload.queries, { Q1: 'ms' }).join('\n');
  assert.match(text, /^Q1: SELECT SUM\(x\) FROM t$/m);
  assert.match(text, /mean ± sd of restart means \(4 restarts; warm-up 1 dropped in each\)/);
  assert.match(text, /^ {2}ahi=on {3}10\.00 ms ± 0\.1155 ms$/m);
  assert.match(text, /^ {2}ahi=off {2}8\.000 ms ± 0\.1155 ms$/m);
  assert.match(text, /^ {2}ahi=off is 1\.25 ± 0\.02 times faster than ahi=on; differs \(change −20\.00 %, 95% interval \[/m);
  // Throughput: higher is faster.
  const tps = oneLinerSummary(a, doc.design.workload.queries, { Q1: 'tps' }).join('\n');
  assert.match(tps, /ahi=off is 1\.25 ± 0\.02 times slower than ahi=on/);
});

test('the summary of a one-liner run until answered gives the rule\'s verdict with its repeated interval, not the fixed-sample one', async () => {
  const { BASELINE, CONTENDER, roundsExperiment } = await import('../fixtures/rounds-experiment.js');
  const doc = roundsExperiment({ rounds: 12, between: 0.005, shared: 0.5, effectPct: 0, seed: 5 });
  doc.design.stopping = { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 12 };
  const a = analyze(tidyFromExperiment(doc), { warmup: 1, baseline: BASELINE });
  const text = oneLinerSummary(a, doc.design.workload.queries, {}, doc).join('\n');
  assert.match(text, new RegExp(`${CONTENDER} is \\d\\.\\d\\d ± \\d\\.\\d\\d times (faster|slower) than ${BASELINE}; stop when answered: equivalent within ±5 % \\(round \\d+; change [+−]\\d\\.\\d\\d %, repeated 95 % interval \\[[−+]\\d+\\.\\d\\d, \\+\\d+\\.\\d\\d\\] %\\)$`, 'm'));
  assert.doesNotMatch(text, /two one-sided tests|95% interval/);
});
