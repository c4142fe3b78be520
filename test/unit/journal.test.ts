import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { isComplete, readJournalText, remainingRestarts, resultsFromJournal, type JournalRecord } from '../../src/common/records.js';
import { headerRecord, journalPath, JournalWriter, planHash, readJournal } from '../../src/node/engine/journal.js';

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));

function small() {
  const doc = quickstart();
  doc.design.restartsPerCell = 2;
  doc.design.workload.repetitions = 3;
  doc.design.workload.warmup = 1;
  return doc.design;
}

/** The records one finished restart leaves. */
function restart(seq: number, cell: string, queries: string[], reps: number, finish = true): JournalRecord[] {
  const out: JournalRecord[] = [{ t: 'restart-started', at: 1000 + seq, seq, cell }];
  out.push({ t: 'checks', at: 1000 + seq, seq, checks: [{ tunable: 'aslr', level: 'on', ok: true, observed: 'personality 0x0' }] });
  for (const q of queries)
    for (let rep = 1; rep <= reps; rep++)
      out.push({ t: 'execution', at: 1000 + seq, seq, query: q, rep, warmup: rep === 1, value: seq * 10 + rep, client: seq * 10 + rep + 0.5, unit: 'ms', source: 'profiling' });
  if (finish) out.push({ t: 'restart-finished', at: 2000 + seq, seq, cell, status: 'ok' });
  return out;
}

const lines = (records: JournalRecord[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

test('the journal sits beside the experiment file', () => {
  assert.equal(journalPath('/x/quick.varlab.json'), '/x/quick.varlab.journal.jsonl');
});

test('reading a journal rebuilds every finished restart with its values in order', () => {
  const design = small();
  const plan = buildPlan(design);
  const queries = plan[0].queries;
  const records = [headerRecord(design), ...plan.slice(0, 3).flatMap((p) => restart(p.seq, p.cell, queries, 3))];
  const state = readJournalText(lines(records));
  assert.equal(state.restarts.length, 3);
  assert.equal(state.header?.planned, 32);
  const first = state.restarts[0];
  assert.equal(first.cell, plan[0].cell);
  assert.deepEqual(first.queries.map((q) => q.query), queries);
  assert.deepEqual(first.queries[0].values, [11, 12, 13]);
  assert.deepEqual(first.queries[0].client, [11.5, 12.5, 13.5]);
  assert.equal(first.checks[0].observed, 'personality 0x0');
  assert.deepEqual(remainingRestarts(plan, state)[0].seq, 4);
  assert.equal(isComplete(state), false);
});

test('an interrupted restart is discarded and its seq is where the resume starts', () => {
  const design = small();
  const plan = buildPlan(design);
  const q = plan[0].queries;
  const records = [headerRecord(design), ...restart(1, plan[0].cell, q, 3), ...restart(2, plan[1].cell, q, 2, false)];
  const state = readJournalText(lines(records));
  assert.deepEqual(state.restarts.map((r) => r.seq), [1]);
  assert.deepEqual(state.interrupted.map((r) => r.seq), [2]);
  assert.equal(remainingRestarts(plan, state)[0].seq, 2);
  const results = resultsFromJournal(state);
  assert.deepEqual(results.discarded?.map((d) => d.seq), [2]);
  // Nothing of the interrupted restart leaks into the results.
  assert.deepEqual(results.restarts.map((r) => r.seq), [1]);
});

test('a restart run again after a discard appears exactly once, with the values of the rerun', () => {
  const design = small();
  const plan = buildPlan(design);
  const q = plan[0].queries;
  const rerun = restart(2, plan[1].cell, q, 3).map((r) => (r.t === 'execution' ? { ...r, value: r.value + 1000 } : r));
  const records: JournalRecord[] = [
    headerRecord(design),
    ...restart(1, plan[0].cell, q, 3),
    ...restart(2, plan[1].cell, q, 2, false),
    { t: 'restart-discarded', at: 5, seq: 2, cell: plan[1].cell, reason: 'SSH connection dropped' },
    ...rerun,
  ];
  const state = readJournalText(lines(records));
  assert.deepEqual(state.restarts.map((r) => r.seq), [1, 2]);
  assert.deepEqual(state.restarts[1].queries[0].values, [1021, 1022, 1023]);
  assert.deepEqual(state.discarded, [{ seq: 2, cell: plan[1].cell, reason: 'SSH connection dropped', at: 5 }]);
  assert.deepEqual(state.interrupted, []);
});

test('a torn last line (crash mid-write) is skipped and the rest is kept', () => {
  const design = small();
  const plan = buildPlan(design);
  const text = lines([headerRecord(design), ...restart(1, plan[0].cell, plan[0].queries, 3)]) + '{"t":"restart-started","at":1,"se';
  const state = readJournalText(text);
  assert.equal(state.skippedLines, 1);
  assert.equal(state.restarts.length, 1);
});

test('the writer appends after a torn line on a fresh line, and the file reads back', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-journal-'));
  try {
    const path = join(dir, 'x.varlab.journal.jsonl');
    const design = small();
    const plan = buildPlan(design);
    const w = new JournalWriter(path);
    w.append(headerRecord(design));
    for (const r of restart(1, plan[0].cell, plan[0].queries, 3)) w.append(r);
    w.sync();
    w.close();
    appendFileSync(path, '{"t":"restart-sta');
    const w2 = new JournalWriter(path);
    for (const r of restart(2, plan[1].cell, plan[0].queries, 3)) w2.append(r);
    w2.close();
    const state = readJournal(path)!;
    assert.deepEqual(state.restarts.map((r) => r.seq), [1, 2]);
    assert.equal(state.skippedLines, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the plan hash changes with the plan, not with the target or idle time', () => {
  const a = small();
  const b = { ...small(), target: 'ssh://root@127.0.0.1:2222', idleSeconds: 0 };
  assert.equal(planHash(a), planHash(b));
  const c = { ...small(), restartsPerCell: 3 };
  assert.notEqual(planHash(a), planHash(c));
});

test('a journal with every planned restart finished is complete', () => {
  const design = small();
  design.excludedCells = buildPlan(design).map((p) => p.cell).filter((c, i, all) => all.indexOf(c) === i).slice(1);
  const plan = buildPlan(design);
  assert.equal(plan.length, 2);
  const state = readJournalText(lines([headerRecord(design), ...plan.flatMap((p) => restart(p.seq, p.cell, p.queries, 2))]));
  assert.equal(isComplete(state), true);
  assert.deepEqual(remainingRestarts(plan, state), []);
});
