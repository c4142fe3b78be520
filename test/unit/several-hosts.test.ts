// One design on several hosts: the file names its hosts (design.targets), each host has its own
// order and journal, and the results of all hosts are folded into the one file tagged with their host.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, Results } from '../../src/common/experiment/types.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { buildPlan, designHosts, hostDesign, resultHosts } from '../../src/common/plan.js';
import { severalHostsResults } from '../../src/common/records.js';
import { hostJournalPath, journalPath, runJournals } from '../../src/node/engine/journal.js';
import { groupOutcome } from '../../src/node/runs/group.js';
import { CANCELLED_MESSAGE, hostWhy } from '../../src/common/events.js';
import type { RunOutcome } from '../../src/node/engine/run.js';

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
const A = 'ssh://root@db1:22';
const B = 'db2';

test('a file names several hosts with targets (target first); a wrong list is refused with its path', () => {
  const doc = quickstart();
  doc.design.target = A;
  doc.design.targets = [A, B];
  assert.deepEqual(checkExperiment(doc).problems, []);
  assert.deepEqual(designHosts(doc.design), [A, B]);
  const bad = (targets: string[], target = A) => {
    const d = quickstart();
    d.design.target = target;
    d.design.targets = targets;
    return checkExperiment(d).problems.join('\n');
  };
  assert.match(bad([A, A]), /design\.targets\[1\]: "ssh:\/\/root@db1:22" appears twice/);
  assert.match(bad([B, A]), /design\.targets: the first host must be design\.target/);
  assert.match(bad([A, 'two words']), /design\.targets\[1\]: /);
  assert.match(bad([A]), /design\.targets/);
});

test('each host runs the same cells in its own order, reproducible from the seed', () => {
  const d = quickstart().design;
  d.order = 'random';
  d.targets = [A, B];
  d.target = A;
  const a = buildPlan(hostDesign(d, A));
  const b = buildPlan(hostDesign(d, B));
  assert.deepEqual(a.map((p) => p.cell).sort(), b.map((p) => p.cell).sort());
  assert.notDeepEqual(a.map((p) => p.cell), b.map((p) => p.cell));
  assert.deepEqual(buildPlan(hostDesign(d, B)), b);
  assert.equal(hostDesign(d, B).target, B);
  assert.equal(hostDesign(d, B).targets, undefined);
});

test('one journal per host beside the file; one host keeps the one journal', () => {
  const file = '/x/q.varlab.json';
  assert.deepEqual(runJournals(file, { target: A }), [{ host: A, path: journalPath(file) }]);
  const several = runJournals(file, { target: A, targets: [A, B] });
  assert.deepEqual(
    several.map((j) => j.host),
    [A, B],
  );
  assert.match(several[0].path, /^\/x\/q\.varlab\.journal\.root@db1_22-[0-9a-f]{8}\.jsonl$/);
  assert.match(several[1].path, /^\/x\/q\.varlab\.journal\.db2-[0-9a-f]{8}\.jsonl$/);
  // A target made of unsafe characters stays inside the folder.
  assert.match(hostJournalPath(file, 'ssh://../../etc/passwd'), /^\/x\/q\.varlab\.journal\.\.\._\.\._etc_passwd-[0-9a-f]{8}\.jsonl$/);
});

test("the hosts' results fold into one, each restart tagged with its host, and the file stays valid", () => {
  const restart = (seq: number, cell: string) => ({ seq, cell, status: 'ok' as const, startedAt: seq, finishedAt: seq + 1, checks: [], queries: [{ query: 'Q1 pricing summary', unit: 'ms', source: 'profiling' as const, values: [1, 2, 3] }] });
  const doc = quickstart();
  doc.design.target = A;
  doc.design.targets = [A, B];
  const cells = buildPlan(doc.design).map((p) => p.cell);
  const a: Results = { startedAt: 10, finishedAt: 50, restarts: [restart(2, cells[1]), restart(1, cells[0])], discarded: [{ seq: 3, cell: cells[2], reason: 'x', at: 5 }] };
  const b: Results = { startedAt: 5, restarts: [restart(1, cells[3])] };
  const merged = severalHostsResults([
    { host: A, results: a },
    { host: B, results: b },
  ]);
  assert.deepEqual(
    merged.restarts.map((r) => [r.host, r.seq]),
    [
      [A, 1],
      [A, 2],
      [B, 1],
    ],
  );
  assert.equal(merged.startedAt, 5);
  assert.equal(merged.finishedAt, undefined, 'not finished until every host is');
  assert.deepEqual(merged.discarded, [{ seq: 3, cell: cells[2], reason: 'x', at: 5, host: A }]);
  doc.results = merged;
  assert.deepEqual(checkExperiment(doc).problems, []);
  assert.deepEqual(resultHosts(doc.design, merged.restarts), [A, B]);
});

test('a run on several hosts is finished only when every host is; a failed host is named with why', () => {
  const o = (state: RunOutcome['state'], done: number, message?: string): RunOutcome => ({ state, done, planned: 4, message, transient: false, resumed: false, path: '/x', journal: '/x.j' });
  const dir = mkdtempSync(join(tmpdir(), 'varlab-hosts-'));
  try {
    const doc = quickstart();
    writeFileSync(join(dir, 'q.varlab.json'), JSON.stringify(doc));
    const hosts = [A, B].map((target) => ({ target, doc, journal: hostJournalPath(join(dir, 'q.varlab.json'), target), done: false }));
    const end = groupOutcome({ path: '/x', hosts }, [
      { target: A, outcome: o('finished', 4) },
      { target: B, outcome: o('failed', 0, 'mysqld did not start') },
    ]);
    assert.equal(end.state, 'failed');
    assert.equal(end.done, 4);
    assert.equal(end.planned, 8);
    assert.equal(end.message, `failed on ${B} after 0 of 4 restarts: mysqld did not start; finished on ${A}`);
    assert.equal(groupOutcome({ path: '/x', hosts }, [{ target: A, outcome: o('finished', 4) }, { target: B, outcome: o('finished', 4) }]).state, 'finished');
    // A cancel is said once, with how to go on once, not "cancelled on B …: cancelled; run again to resume".
    const stopped = groupOutcome({ path: '/x', hosts }, [
      { target: A, outcome: o('finished', 4) },
      { target: B, outcome: o('cancelled', 1, CANCELLED_MESSAGE) },
    ]);
    assert.equal(stopped.message, `cancelled on ${B} after 1 of 4 restarts; finished on ${A}; run again to resume`);
    // What a cancelled host adds to the usual words is kept.
    assert.equal(hostWhy({ state: 'cancelled', message: `${CANCELLED_MESSAGE}; the runner ended before it put the host back` }), 'the runner ended before it put the host back');
    assert.equal(hostWhy({ state: 'failed', message: 'mysqld did not start' }), 'mysqld did not start');
    assert.equal(hostWhy({ state: 'finished', message: 'anything' }), '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the Run view keeps each host of a several-host run apart (both number their restarts from 1)', async () => {
  const { LiveRuns } = await import('../../src/browser/views/run/live.js');
  const runs = new LiveRuns();
  const started = (host: string) => ({ type: 'run-started' as const, at: 1, planned: 2, done: 0, cells: ['a'], queries: ['Q'], warmup: 0, host });
  const restart = (host: string, value: number) => [
    { type: 'restart-started' as const, at: 2, seq: 1, cell: 'a', host },
    { type: 'execution' as const, at: 3, seq: 1, cell: 'a', query: 'Q', rep: 1, warmup: false, value, unit: 'ms', source: 'profiling' as const, host },
    { type: 'restart-finished' as const, at: 4, seq: 1, cell: 'a', status: 'ok' as const, host },
  ];
  runs.apply([started(A), started(B), ...restart(A, 10), ...restart(B, 20), { type: 'run-finished', at: 5, state: 'finished', host: A }]);
  assert.deepEqual(runs.hosts, [A, B]);
  assert.deepEqual(runs.get(A).restarts.map((r) => r.queries[0].values), [[10]]);
  assert.deepEqual(runs.get(B).restarts.map((r) => r.queries[0].values), [[20]]);
  assert.equal(runs.get(A).state, 'finished');
  assert.equal(runs.active, true, 'B still runs');
  // The run's own end (no host) after each host said how it ended.
  runs.apply([{ type: 'run-finished', at: 6, state: 'failed', host: B }, { type: 'run-finished', at: 6, state: 'failed', message: 'failed on db2' }]);
  assert.equal(runs.active, false);
  assert.equal(runs.get().state, 'finished', 'the first host is shown by default');
});
