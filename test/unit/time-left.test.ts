// The Run view's time left (new-user notes: "the time left jumps"): the estimate each finished restart
// brings is counted down between them, never below what the restarts after the current one take, held
// while paused; and the estimate leaves out the first restart's one-off set-up, so it does not leap up
// after the first restart and creep back down. Before a restart finishes, a detached run's follower
// says it at the costs measured so far, as the attached engine does. Both add what the run costs once,
// as the estimate before Run does (stats/planner.ts timeLeftMs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Design, ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import type { RunEvent } from '../../src/common/events.js';
import { buildPlan, estimatePlan, perRestartMs } from '../../src/common/plan.js';
import { dataLoadSeconds } from '../../src/common/dbt3/scale.js';
import { learnedCosts, learnedEstimate, loadCost, measuredCosts, resumeEstimate, runPoint, timeLeftMs, withLoadsSoFar, type Costs } from '../../src/common/stats/planner.js';
import { recordsOfRestart, type JournalRecord } from '../../src/common/records.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { Follower } from '../../src/node/detach/follower.js';
import { detachedRun } from '../../src/node/detach/runs.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { headerRecord, journalPath } from '../../src/node/engine/journal.js';

test('the time left counts down between estimates, stops at what the later restarts take, and holds while paused', () => {
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 10, done: 0, cells: ['a'], queries: ['q'], warmup: 0 }]);
  // 4 of 10 done, 60 s left: 10 s per restart, 50 s after the current one.
  live.apply([{ type: 'progress', at: 1_000, done: 4, planned: 10, remainingMs: 60_000 }]);
  assert.equal(live.remainingNow(1_000), 60_000);
  assert.equal(live.remainingNow(4_000), 57_000, 'counted down');
  assert.equal(live.remainingNow(30_000), 50_000, 'a slow restart: held at what the 5 after it take');
  // Paused at 5 s: held there; resumed 20 s later, it goes on from where it stopped.
  live.apply([{ type: 'state', at: 5_000, state: 'paused' }]);
  assert.equal(live.remainingNow(15_000), 56_000);
  live.apply([{ type: 'state', at: 25_000, state: 'running' }]);
  assert.equal(live.remainingNow(26_000), 55_000);
  // The next estimate replaces it.
  live.apply([{ type: 'progress', at: 30_000, done: 5, planned: 10, remainingMs: 45_000 }]);
  assert.equal(live.remainingNow(30_000), 45_000);
});

test("the time per restart leaves out the first restart's set-up; before any restart, the design's estimate", () => {
  const design = (JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc).design;
  assert.equal(perRestartMs([], design), estimatePlan(design, 1).perRestartSeconds * 1000);
  // A first restart of 40 s of which 30 s set-up, then two of 10 s: 10 s each, not 20.
  assert.equal(perRestartMs([{ ms: 40_000, steps: { setup: 30_000 } }, { ms: 10_000 }, { ms: 10_000 }], design), 10_000);
  // Its second start after the set-up (4 s of stop, idle, start and verify, twice) is one-off too: right
  // after that first restart, 14 s each, as the next one took, not 18.
  const first = { ms: 48_000, steps: { stop: 1_000, idle: 4_000, start: 2_000, verify: 1_000, setup: 30_000, measure: 6_000 } };
  assert.equal(perRestartMs([first], design), 14_000);
  assert.equal(perRestartMs([first, { ms: 14_000, steps: { stop: 500, idle: 2_000, start: 1_000, verify: 500, measure: 6_000 } }], design), 14_000);
});

test('the time left holds what the run costs once, as the estimate before Run does: all of it before the first restart, then its end (stop, restore)', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const design: Design = { ...doc.design, factors: [], excludedCells: [], restartsPerCell: 4, idleSeconds: 0, workload: { ...doc.design.workload, queries: doc.design.workload.queries.slice(0, 1), repetitions: 3, warmup: 1 } };
  const query = buildPlan(design)[0].queries[0];
  // A measured run: 2 s from its start to the first restart (probe, the busy-host sample), restarts of
  // 5 s, and 1.5 s from the last restart's end to the run's (mysqld stopped, the host restored).
  const restarts: RestartResult[] = [1, 2, 3, 4].map((seq) => ({
    seq,
    cell: buildPlan(design)[seq - 1].cell,
    status: 'ok',
    startedAt: 2_000 + (seq - 1) * 5_000,
    finishedAt: 2_000 + seq * 5_000,
    checks: [],
    queries: [{ query, unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }],
    steps: { measure: 300 },
  }));
  const measured: ExperimentDoc = { ...doc, design, results: { startedAt: 0, finishedAt: 23_500, restarts } };
  const costs = measuredCosts(measured);
  assert.equal(costs.runSeconds, 3.5);
  assert.equal(costs.runEndSeconds, 1.5);
  const per = perRestartMs([], learnedCosts(measured).design);
  // Before the first restart: the whole run, the very time the Designer, the Plan view and `plan` say.
  const first = timeLeftMs(design, costs, per, runPoint(design));
  assert.ok(Math.abs(first.remainingMs - learnedEstimate(measured, 4).estimate.seconds * 1000) <= 1, `${first.remainingMs} ms against ${learnedEstimate(measured, 4).estimate.seconds * 1000}`);
  assert.equal(first.remainingMs, 4 * 5_000 + 3_500);
  // Once restarts have begun, the start is behind: the restarts left and the end; after the last, the end alone.
  assert.deepEqual(timeLeftMs(design, costs, per, runPoint(design, restarts.slice(0, 2), new Set([1, 2]))), { remainingMs: 2 * 5_000 + 1_500, endMs: 1_500 });
  assert.deepEqual(timeLeftMs(design, costs, per, runPoint(design, restarts, new Set([1, 2, 3, 4]))), { remainingMs: 1_500, endMs: 1_500 });
  // Nothing measured: nothing added once (the design's estimates have no such cost).
  assert.deepEqual(timeLeftMs(design, measuredCosts({ design, results: undefined }), 3_000, runPoint(design, restarts.slice(0, 2))), { remainingMs: 6_000, endMs: 0 });

  // The Run view counts the restarts' part down and keeps the end: 4 of 10 done, 10 s per restart and 1.5 s at the end.
  const live = new LiveRun();
  live.apply([{ type: 'run-started', at: 0, planned: 10, done: 0, cells: ['a'], queries: ['q'], warmup: 0 }]);
  live.apply([{ type: 'progress', at: 1_000, done: 4, planned: 10, remainingMs: 61_500, endMs: 1_500 }]);
  assert.equal(live.remainingNow(4_000), 58_500, 'counted down');
  assert.equal(live.remainingNow(30_000), 51_500, 'a slow restart: held at what the 5 after it take, and the end');
  live.apply([{ type: 'progress', at: 40_000, done: 10, planned: 10, remainingMs: 1_500, endMs: 1_500 }]);
  assert.equal(live.remainingNow(40_500), 1_000, 'after the last restart, the end counts down');
});

test("a data directory's set-up is counted once per build in a run when the setup script runs again; with a skip table, a rerun skips it and it is not", () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const design: Design = {
    ...doc.design,
    factors: [{ tunable: 'build', levels: ['A', 'B'] }],
    excludedCells: [],
    restartsPerCell: 3,
    idleSeconds: 0,
    workload: { ...doc.design.workload, queries: doc.design.workload.queries.slice(0, 1), repetitions: 3, warmup: 1, setupSql: 'CREATE TABLE t (a INT)' },
  };
  delete design.workload.setupSkipIfTable;
  const plan = buildPlan(design);
  const query = plan[0].queries[0];
  // Restarts of 5 s; the first of each build set up its data directory: 12 s more (the script, a second start).
  const firstOfBuild = new Set(plan.filter((p) => p.restartOfCell === 1).map((p) => p.seq));
  let at = 0;
  const restarts: RestartResult[] = plan.map((p) => {
    const wall = firstOfBuild.has(p.seq) ? 17_000 : 5_000;
    const r: RestartResult = { seq: p.seq, cell: p.cell, status: 'ok', startedAt: at, finishedAt: at + wall, checks: [], queries: [{ query, unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }], steps: { measure: 300, ...(firstOfBuild.has(p.seq) ? { setup: 11_000 } : {}) } };
    at += wall;
    return r;
  });
  const measured: ExperimentDoc = { ...doc, design, results: { startedAt: 0, finishedAt: at, restarts } };
  const costs = measuredCosts(measured);
  assert.equal(costs.restartSeconds, 5 - 0.3, 'the median restart leaves the set-ups out');
  assert.equal(costs.setupSeconds, 12);
  // 6 restarts of 5 s, and two data directories set up at 12 s each: the time the run took.
  assert.equal(Math.round(learnedEstimate(measured).estimate.seconds * 1000), at);
  assert.equal(at, 6 * 5_000 + 2 * 12_000);
  // The time left before the first restart says the same (engine/run.ts adds onceSeconds as the estimate does).
  const per = perRestartMs([], learnedCosts(measured).design);
  assert.equal(timeLeftMs(design, costs, per, runPoint(design)).remainingMs, at);
  // With a skip table, a rerun on that host finds it and skips the script: the set-up is not counted.
  const skipping: ExperimentDoc = { ...measured, design: { ...design, workload: { ...design.workload, setupSkipIfTable: 't' } } };
  assert.equal(Math.round(learnedEstimate(skipping).estimate.seconds * 1000), 6 * 5_000);
  // Two restarts a build: half the restarts set a data directory up; an ordinary restart is still 5 s.
  const two: Design = { ...design, restartsPerCell: 2 };
  let at2 = 0;
  const twoRestarts: RestartResult[] = buildPlan(two).map((p) => {
    const wall = p.restartOfCell === 1 ? 17_000 : 5_000;
    const r: RestartResult = { seq: p.seq, cell: p.cell, status: 'ok', startedAt: at2, finishedAt: at2 + wall, checks: [], queries: [{ query, unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }], steps: { measure: 300, ...(p.restartOfCell === 1 ? { setup: 11_000 } : {}) } };
    at2 += wall;
    return r;
  });
  const measuredTwo: ExperimentDoc = { ...doc, design: two, results: { startedAt: 0, finishedAt: at2, restarts: twoRestarts } };
  assert.equal(measuredCosts(measuredTwo).setupSeconds, 12);
  assert.equal(Math.round(learnedEstimate(measuredTwo).estimate.seconds * 1000), at2, `4 restarts: ${at2} ms, not every one a set-up`);
  // Without the build factor, one data directory (the design's 3 restarts of its one cell).
  const one: ExperimentDoc = { ...measured, design: { ...design, factors: [] } };
  assert.equal(Math.round(learnedEstimate(one).estimate.seconds * 1000), 3 * 5_000 + 12_000);
});

/**
 * Two builds A and B, 3 restarts each, one query; a measured run whose restarts took 5 s, the first
 * of each build `setUpMs` more (its data directory's set-up; per build when given so), from 2 s after
 * the run's start; the first `upTo` restarts of it (an unfinished run), or all and an end 1.5 s after the last.
 */
function twoBuilds(over: (d: Design) => Design, order: Design['order'], setUpMs: number | Record<string, number>, upTo?: number): ExperimentDoc {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const workload = { ...doc.design.workload, queries: doc.design.workload.queries.slice(0, 1), repetitions: 3, warmup: 1, setupSql: 'CREATE TABLE IF NOT EXISTS t (a INT)' };
  delete workload.setupSkipIfTable;
  const design = over({ ...doc.design, factors: [{ tunable: 'build', levels: ['A', 'B'] }], excludedCells: [], restartsPerCell: 3, idleSeconds: 0, order, workload });
  const plan = buildPlan(design);
  const seen = new Set<string>();
  let at = 2_000;
  const restarts = plan.slice(0, upTo).map((p): RestartResult => {
    const setsUp = !seen.has(p.levels.build);
    seen.add(p.levels.build);
    const extra = setsUp ? (typeof setUpMs === 'number' ? setUpMs : setUpMs[p.levels.build]) : 0;
    const wall = 5_000 + extra;
    const r: RestartResult = { seq: p.seq, cell: p.cell, status: 'ok', startedAt: at, finishedAt: at + wall, checks: [], queries: [{ query: p.queries[0], unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }], steps: { measure: 300, ...(setsUp ? { setup: extra - 1_000 } : {}) } };
    at += wall;
    return r;
  });
  return { ...doc, design, results: { startedAt: 0, ...(upTo === undefined ? { finishedAt: at + 1_500 } : {}), restarts } };
}
const asIs = (d: Design) => d;

test("the time left holds the set-up of each build its run has not reached yet, not only before the first restart", () => {
  // Run again (--fresh) at the costs of its first run: restarts of 5 s, a set-up of 12 s a build, 2 s before the first restart and 1.5 s after the last.
  const measured = twoBuilds(asIs, 'interleaved', 12_000);
  const { design } = measured;
  const costs = measuredCosts(measured);
  assert.deepEqual([costs.restartSeconds + 0.3, costs.setupSeconds, costs.runSeconds, costs.runEndSeconds], [5, 12, 3.5, 1.5]);
  const done = measured.results!.restarts;
  assert.notEqual(buildPlan(design)[0].levels.build, buildPlan(design)[1].levels.build, 'round 1 holds both builds');
  const left = (n: number) => timeLeftMs(design, costs, 5_000, runPoint(design, done.slice(0, n), new Set(done.slice(0, n).map((r) => r.seq))));
  // Before the first restart: the whole run, as said before Run.
  assert.equal(left(0).remainingMs, Math.round(learnedEstimate(measured).estimate.seconds * 1000));
  assert.equal(left(0).remainingMs, 6 * 5_000 + 2 * 12_000 + 3_500);
  // After the first (A set up): 5 restarts, B's set-up still ahead, and the end. It said 5 × 5 s + 1.5 s, 12 s short.
  assert.deepEqual(left(1), { remainingMs: 5 * 5_000 + 12_000 + 1_500, endMs: 13_500 });
  // After the second (B set up too): the restarts and the end.
  assert.deepEqual(left(2), { remainingMs: 4 * 5_000 + 1_500, endMs: 1_500 });
});

test('resuming a run is charged the set-ups it makes again: the builds its restarts left reach, not every build', () => {
  // Blocked, cut after A's 3 restarts: only B's restarts are left, and only B's data directory is set up again.
  const unfinished = twoBuilds(asIs, 'blocked', 12_000, 3);
  const { design } = unfinished;
  assert.deepEqual(buildPlan(design).map((p) => p.levels.build), ['A', 'A', 'A', 'B', 'B', 'B']);
  const said = resumeEstimate(unfinished);
  assert.equal(said.estimate.restarts, 3);
  // 3 restarts of 5 s, B's set-up, and the 2 s before the first restart (the run's end is not measured yet). It said 41 s: A's set-up too.
  assert.equal(Math.round(said.estimate.seconds * 1000), 3 * 5_000 + 12_000 + 2_000);
  // The resumed run's first time left says the same (engine/run.ts: a new process, nothing set up in it yet).
  const learned = learnedCosts(unfinished);
  const resumed = runPoint(design, unfinished.results!.restarts);
  assert.equal(timeLeftMs(design, learned.costs, perRestartMs([], learned.design), resumed).remainingMs, 29_000);
  // Interleaved and cut after 3: both builds have restarts left. A resume is a new process and runs the
  // setup script again in each (engine/restart.ts keeps what it set up per process): both are counted.
  const interleaved = twoBuilds(asIs, 'interleaved', 12_000, 3);
  assert.equal(Math.round(resumeEstimate(interleaved).estimate.seconds * 1000), 3 * 5_000 + 2 * 12_000 + 2_000);
  // With a skip table the script is skipped where it ran: nothing is counted, as before any run.
  const skipping = twoBuilds((d) => ({ ...d, workload: { ...d.workload, setupSkipIfTable: 't' } }), 'blocked', 12_000, 3);
  assert.equal(Math.round(resumeEstimate(skipping).estimate.seconds * 1000), 3 * 5_000 + 2_000);
});

const dbt3 = (setupSql: string) => (d: Design): Design => ({ ...d, workload: { ...d.workload, setupSql, data: { kind: 'dbt3', sf: 1 } } });

/**
 * An attached DBT-3 run of builds A and B: each build's first restart set its data directory up, the
 * data step's load inside it (A's 290 s, B's 250 s, ending 1 s before the restart's end) and 10 s more
 * (the second start; the setup script when there is one): 300 s and 260 s beyond an ordinary restart.
 */
function attachedDbt3(setupSql: string, order: Design['order'], upTo?: number): ExperimentDoc {
  const doc = twoBuilds(dbt3(setupSql), order, { A: 300_000, B: 260_000 }, upTo);
  const load: Record<string, number> = { A: 290_000, B: 250_000 };
  doc.results!.dataSteps = doc.results!.restarts.filter((r) => r.steps?.setup !== undefined).map((r) => ({ at: r.finishedAt - 1_000, ms: load[r.cell.replace('build=', '')], datadir: r.cell.replace('build=', ''), recognised: false }));
  return doc;
}

test("a DBT-3 data step's load is counted once per data directory, at the time measured there; the rest of the set-up where it happens", () => {
  for (const setupSql of ['', 'CREATE TABLE IF NOT EXISTS extra (a INT)']) {
    const measured = attachedDbt3(setupSql, 'interleaved');
    const { design } = measured;
    const costs = measuredCosts(measured);
    // The set-up split: each build's load as measured there, and what the set-up took beyond it (300 − 290, 260 − 250).
    assert.deepEqual(costs.loadSeconds, { A: 290, B: 250 });
    assert.equal(costs.setupSeconds, 10);
    const took = measured.results!.finishedAt! - measured.results!.startedAt!;
    assert.equal(took, 6 * 5_000 + 300_000 + 260_000 + 3_500);
    // Said before a rerun on that host: the run's time less the loads (the data is there: the rerun
    // recognises it) and, without a script, less the second start that only a load brings.
    const rerun = 6 * 5_000 + (setupSql ? 2 * 10_000 : 0) + 3_500;
    assert.deepEqual(costs.dataThere, ['A', 'B']);
    assert.equal(Math.round(learnedEstimate(measured).estimate.seconds * 1000), rerun, `setup script ${JSON.stringify(setupSql)}`);
    // The rerun's first time left says the same; after its first restart (A), B's set-up is still ahead where the script runs.
    const learned = learnedCosts(measured);
    const per = perRestartMs([], learned.design);
    assert.equal(timeLeftMs(design, learned.costs, per, runPoint(design)).remainingMs, rerun);
    const first = measured.results!.restarts.slice(0, 1);
    assert.equal(timeLeftMs(design, learned.costs, 5_000, runPoint(design, first, new Set([first[0].seq]))).remainingMs, 5 * 5_000 + (setupSql ? 10_000 : 0) + 1_500);
    // Where the data is not there (a new host: no data step there), every step once: the time the run took,
    // each build's own load, not their mean twice, nor a load in the set-up again. After A's first restart,
    // B's load and set-up are still ahead.
    const elsewhere = { ...costs, dataThere: undefined };
    assert.equal(timeLeftMs(design, elsewhere, per, runPoint(design)).remainingMs, took);
    assert.equal(timeLeftMs(design, elsewhere, 5_000, runPoint(design, first, new Set([first[0].seq]))).remainingMs, 5 * 5_000 + 260_000 + 1_500);
    // Blocked, resumed after A A A B: both directories are loaded, a resume recognises the loads. The setup
    // script runs again in B's with its second start (10 s), never the load again; without a script, nothing.
    // It said 2 × 5 s + 280 s + 2 s with the script: the load in the set-up, counted again.
    const resumed = attachedDbt3(setupSql, 'blocked', 4);
    assert.equal(Math.round(resumeEstimate(resumed).estimate.seconds * 1000), 2 * 5_000 + (setupSql ? 10_000 : 0) + 2_000);
    // Blocked, resumed after A A: A is loaded (its script again, 10 s), B is not: its load, at A's 290 s
    // (the only load the file measured, the same rows), and 10 s.
    const cut = attachedDbt3(setupSql, 'blocked', 2);
    assert.equal(Math.round(resumeEstimate(cut).estimate.seconds * 1000), 4 * 5_000 + (setupSql ? 10_000 : 0) + 290_000 + 10_000 + 2_000);
  }
  // No run measured yet: the data step's estimate, once for each build's data directory.
  const fresh = twoBuilds(dbt3(''), 'interleaved', 0);
  const planned = learnedEstimate({ design: fresh.design, results: undefined }).estimate;
  assert.equal(planned.seconds, 6 * planned.perRestartSeconds + 2 * dataLoadSeconds(1));
  // A run that recognised both loads (a rerun on that host) measured no load, and says none for the next
  // run there; a load elsewhere is the last measured (a file's data steps of an earlier run), else the estimate.
  const again = attachedDbt3('', 'interleaved');
  for (const d of again.results!.dataSteps!) Object.assign(d, { recognised: true, ms: 400 });
  assert.equal(measuredCosts(again).loadSeconds, undefined);
  assert.equal(Math.round(learnedEstimate(again).estimate.seconds * 1000), 6 * 5_000 + 3_500);
  assert.equal(loadCost(again.design, measuredCosts(again), 'A'), dataLoadSeconds(1));
  again.results!.dataSteps!.unshift({ at: -1_000, ms: 280_000, datadir: 'A', recognised: false });
  assert.deepEqual(measuredCosts(again).loadSeconds, { A: 280 });
  // B, never loaded in this file: the mean of the loads measured (the same rows).
  assert.equal(loadCost(again.design, measuredCosts(again), 'B'), 280);
  // The design's scale factor changed since: those data steps were of another data set, the run loads anew.
  for (const d of again.results!.dataSteps!) Object.assign(d, { sf: 0.1, database: again.design.workload.database });
  assert.deepEqual([measuredCosts(again).dataThere, measuredCosts(again).loadSeconds], [undefined, undefined]);
  // Each build: the data step's estimate and the rest of the set-up this synthetic run measured (its set-up restarts' 300 s and 260 s, no load in them).
  assert.equal(Math.round(learnedEstimate(again).estimate.seconds * 1000), 6 * 5_000 + 3_500 + 2 * (dataLoadSeconds(1) * 1000 + 280_000));
});

test("a first run's time left counts the builds not loaded yet at the load it has just measured, not the data step's estimate", () => {
  // No earlier run: the design's estimates. A's first restart loaded its data directory in 290 s.
  const run = attachedDbt3('', 'interleaved', 1);
  const { design } = run;
  const before = measuredCosts({ design, results: undefined });
  const first = run.results!.restarts;
  const at = runPoint(design, first, new Set([first[0].seq]), run.results!.dataSteps);
  // 5 restarts of 5 s left and B's load ahead: at A's 290 s (it said the estimate's 370 s before).
  assert.equal(dataLoadSeconds(1), 370);
  assert.equal(timeLeftMs(design, withLoadsSoFar(before, run.results!.dataSteps!), 5_000, at).remainingMs, 5 * 5_000 + 290_000);
  assert.equal(timeLeftMs(design, before, 5_000, at).remainingMs, 5 * 5_000 + 370_000);
  // Over a load an earlier run measured there too: this run's is the newer.
  assert.deepEqual(withLoadsSoFar({ ...before, loadSeconds: { A: 100, B: 120 } }, run.results!.dataSteps!).loadSeconds, { A: 290, B: 120 });
});

test("a detached DBT-3 run's loads at its launch are each data directory's load, counted once, as an attached run's load is; the launch's mysqld starts are in the run's start", () => {
  for (const setupSql of ['', 'CREATE TABLE IF NOT EXISTS extra (a INT)']) {
    // The launch loaded A's (290 s) then B's (250 s) data directory before the runner's first restart,
    // starting and stopping mysqld around each (1 s each: 2 s a directory), after 2 s of probing; the runner's
    // set-up of each (its script and second start, or the measuring account alone) is 10 s.
    const detached = twoBuilds(dbt3(setupSql), 'interleaved', 10_000);
    const r = detached.results!;
    const shift = 4_000 + 540_000;
    r.restarts = r.restarts.map((x) => ({ ...x, startedAt: x.startedAt + shift, finishedAt: x.finishedAt + shift }));
    r.finishedAt! += shift;
    r.dataSteps = [
      { at: 3_000 + 290_000, ms: 290_000, datadir: 'A', recognised: false },
      { at: 295_000 + 250_000, ms: 250_000, datadir: 'B', recognised: false },
    ];
    const costs = measuredCosts(detached);
    // The loads are the directories' own; the run's start keeps the 2 s before and the launch's 4 s of starts.
    assert.deepEqual([costs.loadSeconds, costs.setupSeconds, costs.runSeconds, costs.runEndSeconds], [{ A: 290, B: 250 }, 10, 7.5, 1.5]);
    const took = r.finishedAt! - r.startedAt!;
    assert.equal(took, 6_000 + 540_000 + 6 * 5_000 + 2 * 10_000 + 1_500);
    // Said before a rerun there: the launch recognises both, the runner sets up with the script as before
    // (without one and without a load, its set-up is not counted: the measuring account, a fraction of a
    // second in practice); elsewhere, the time it took.
    assert.equal(Math.round(learnedEstimate(detached).estimate.seconds * 1000), took - 540_000 - (setupSql ? 0 : 2 * 10_000));
    assert.equal(timeLeftMs(detached.design, { ...costs, dataThere: undefined }, 5_000, runPoint(detached.design)).remainingMs, took);
    // Its runner after its first restart (A set up): the launch loaded both (its data steps), so B's
    // set-up ahead is the runner's 10 s, not a load again. It said 5 × 5 s + 300 s + 1.5 s.
    const { design } = detached;
    const first = r.restarts.slice(0, 1);
    assert.equal(timeLeftMs(design, costs, 5_000, runPoint(design, first, new Set([first[0].seq]), r.dataSteps)).remainingMs, 5 * 5_000 + (setupSql ? 10_000 : 0) + 1_500);
  }
});

/**
 * A detached run's follower, before any restart finishes while it looks (an attach to a run whose
 * earlier restarts an earlier attach brought in, a run --missing of a measured file, or a run again
 * from scratch followed by the process that launched it, AttachOptions.measured): the time left
 * at the costs measured there, as the attached engine says it (engine/run.ts), not the journal
 * header's design estimates. The run here has ended and its directory is gone from the target, so the
 * real follower runs to its end without a connection; its first progress event is the one looked at.
 */
test('a detached run\'s follower gives the time left before its first restart at the costs measured so far, not the design\'s estimates', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-time-left-'));
  try {
    const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
    const design: Design = {
      ...doc.design,
      target: 'ssh://bench1',
      factors: [],
      excludedCells: [],
      restartsPerCell: 5,
      idleSeconds: 2,
      workload: { ...doc.design.workload, queries: doc.design.workload.queries.slice(0, 1), repetitions: 3, warmup: 1 },
      // Far off, as the quickstart's were: about 3 s a restart.
      estimates: { restartSeconds: 1, executionMs: 1 },
      serverProfile: { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/sb/data', socket: '/srv/sb/mysqld.sock', port: 23306, osUser: 'mysql', user: 'root', errorLog: '/srv/sb/error.log', pidFile: '/srv/sb/mysqld.pid', extraArgs: [], sudo: true, target: 'ssh://bench1' },
    };
    const plan = buildPlan(design);
    const query = plan[0].queries[0];
    // Each restart measured: 9 s of wall time, 2 s of it idle, 3 executions in a loop of 300 ms. So 9 s each.
    const restart = (seq: number): RestartResult => ({
      seq,
      cell: plan[seq - 1].cell,
      status: 'ok',
      startedAt: 1_000_000 + seq * 10_000,
      finishedAt: 1_000_000 + seq * 10_000 + 9_000,
      checks: [],
      queries: [{ query, unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }],
      steps: { idle: 2_000, measure: 300 },
    });
    const host = { target: 'ssh://bench1' } as unknown as HostFingerprint;
    const firstLeft = async (name: string, restarts: RestartResult[], fileResults?: ExperimentDoc['results'], before?: ExperimentDoc['results'], recorded?: Costs) => {
      const file = join(dir, `${name}.varlab.json`);
      writeFileSync(file, JSON.stringify({ ...doc, design, ...(fileResults ? { results: fileResults } : {}) }));
      const run = 'c0ffee00-0000-4000-8000-00000000000' + restarts.length;
      const records: JournalRecord[] = [
        headerRecord(design, 1_000_000),
        { t: 'detached', at: 1_000_001, runId: run, target: 'ssh://bench1', dir: `/var/lib/varlab/mysqld-3306-0123456789/runs/${run}`, supervisor: 'setsid', ...(recorded ? { costs: recorded } : {}) },
        { t: 'host', at: 1_000_002, host },
        ...restarts.flatMap((r) => recordsOfRestart(r, design.workload.warmup)),
        { t: 'run-finished', at: 1_100_000, state: 'cancelled', message: 'cancelled; run again to resume' },
        { t: 'target-cleaned', at: 1_100_001 },
      ];
      writeFileSync(journalPath(file), records.map((r) => JSON.stringify(r) + '\n').join(''));
      const d = detachedRun(file)!;
      const events: RunEvent[] = [];
      const out = await new Follower(d, { documents: new DocumentService(), prompt: async () => ({ accept: false }), onEvent: (e) => events.push(e), ...(before ? { measured: () => before } : {}) }).run();
      assert.equal(out.state, 'cancelled', out.message);
      const progress = events.find((e): e is Extract<RunEvent, { type: 'progress' }> => e.type === 'progress');
      assert.ok(progress, JSON.stringify(events.map((e) => e.type)));
      return progress;
    };
    const designs = estimatePlan(design, 1).perRestartSeconds * 1000;
    assert.ok(Math.abs(designs - 3_003) < 1, `the design's estimate: ${designs} ms a restart`);

    // Two restarts brought in by an earlier attach: the 3 left at their 9 s each.
    const attachedAgain = await firstLeft('again', [restart(1), restart(2)]);
    assert.equal(attachedAgain.done, 2);
    assert.ok(Math.abs(attachedAgain.remainingMs - 3 * 9_000) <= 1, `3 restarts left at 9 s each, not ${attachedAgain.remainingMs} ms`);

    // None here yet, but the file's own results measured them (run --missing of a measured file): all 5 at 9 s.
    const grown = await firstLeft('grown', [], { startedAt: 1_000_000, restarts: [restart(1), restart(2)] });
    assert.equal(grown.done, 0);
    assert.ok(Math.abs(grown.remainingMs - 5 * 9_000) <= 1, `5 restarts at 9 s each, not ${grown.remainingMs} ms`);

    // Run again from scratch, detached and followed by the process that launched it: the launch replaced
    // the file's results with this run's (none yet); what the file held before is what the time starts from.
    const again = await firstLeft('fresh-again', [], undefined, { startedAt: 1_000_000, restarts: [restart(1), restart(2)] });
    assert.ok(Math.abs(again.remainingMs - 5 * 9_000) <= 1, `5 restarts at 9 s each, not ${again.remainingMs} ms`);

    // The same, launched by another process (`varlab run --detach --fresh`, then `varlab attach`): the
    // costs the launch recorded in the journal from the results it replaced. Before, the design's estimates.
    const measuredBefore = learnedCosts({ design, results: { startedAt: 1_000_000, restarts: [restart(1), restart(2)] } }).costs;
    assert.equal(measuredBefore.source, 'journal');
    const elsewhere = await firstLeft('fresh-elsewhere', [], undefined, undefined, measuredBefore);
    assert.ok(Math.abs(elsewhere.remainingMs - 5 * 9_000) <= 1, `5 restarts at 9 s each, not ${elsewhere.remainingMs} ms`);
    // A recorded figure that is no number (a journal from anyone's machine) is not used.
    const garbled = await firstLeft('fresh-garbled', [], undefined, undefined, { ...measuredBefore, restartSeconds: -1 });
    assert.ok(Math.abs(garbled.remainingMs - 5 * designs) <= 1, `${garbled.remainingMs} ms`);

    // Nothing measured anywhere: the design's estimates.
    const fresh = await firstLeft('fresh', []);
    assert.ok(Math.abs(fresh.remainingMs - 5 * designs) <= 1, `${fresh.remainingMs} ms`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
