// What the run tests assert about a finished run: read back from the journal and the saved file,
// the way a user (or `varlab analyze`) would see them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';

export interface JournalCount {
  /** seq → how many restart-finished records */
  finished: Map<number, number>;
  discarded: { seq: number; reason: string }[];
  /** `seq|query|rep` → executions recorded for the attempt that finished */
  executions: Map<string, number>;
}

/** Count the journal's records line by line (not through the engine's own reader). */
export function countJournal(path: string): JournalCount {
  const finished = new Map<number, number>();
  const discarded: JournalCount['discarded'] = [];
  const executions = new Map<string, number>();
  let attempt = new Map<number, string[]>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (r.t === 'restart-started') attempt.set(r.seq, []);
    if (r.t === 'execution') attempt.get(r.seq)?.push(`${r.seq}|${r.query}|${r.rep}`);
    if (r.t === 'restart-discarded') {
      discarded.push({ seq: r.seq, reason: r.reason });
      attempt.delete(r.seq);
    }
    if (r.t === 'restart-finished') {
      finished.set(r.seq, (finished.get(r.seq) ?? 0) + 1);
      for (const k of attempt.get(r.seq) ?? []) executions.set(k, (executions.get(k) ?? 0) + 1);
      attempt.delete(r.seq);
    }
  }
  attempt = new Map();
  return { finished, discarded, executions };
}

/** Every planned restart finished exactly once, every execution of it recorded exactly once, and the file holds them all. */
export function assertComplete(file: string, journal: string, restartsPerCell: number, reps: number): ExperimentDoc {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.design.restartsPerCell, restartsPerCell, 'the overrides are written into the saved design');
  assert.equal(doc.design.workload.repetitions, reps);
  const plan = buildPlan(doc.design);
  const queries = doc.design.workload.queries.map((q) => q.name);
  const j = countJournal(journal);
  for (const p of plan) {
    assert.equal(j.finished.get(p.seq), 1, `restart ${p.seq} finished exactly once in the journal`);
    for (const q of queries) for (let rep = 1; rep <= reps; rep++) assert.equal(j.executions.get(`${p.seq}|${q}|${rep}`), 1, `restart ${p.seq} ${q} rep ${rep} recorded once`);
  }
  assert.equal(j.finished.size, plan.length);
  const results = doc.results!;
  assert.deepEqual(
    results.restarts.map((r) => r.seq),
    plan.map((p) => p.seq),
  );
  for (const r of results.restarts) {
    assert.equal(r.status, 'ok', `restart ${r.seq}: ${r.reason ?? ''}`);
    assert.equal(r.cell, plan[r.seq - 1].cell);
    assert.deepEqual(r.queries.map((q) => q.query), queries);
    for (const q of r.queries) assert.equal(q.values.length, reps);
  }
  return doc;
}
