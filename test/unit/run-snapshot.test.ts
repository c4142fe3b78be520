// A tab that attaches mid-run starts from one snapshot of the run: built from the engine's fold in
// memory while the run goes on, it must say what the journal on disk says (same restarts, the open
// restart's executions, the discarded ones gone), and the Run view folds it into the same timeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { JournalFold, type JournalRecord } from '../../src/common/records.js';
import { headerRecord } from '../../src/node/engine/journal.js';
import { snapshotBatch } from '../../src/node/runs/snapshot.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { readFileSync } from 'node:fs';

test('a snapshot from the fold in memory says what the journal says, and the view folds it once', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const plan = buildPlan(doc.design);
  const records: JournalRecord[] = [headerRecord(doc.design, 1)];
  const run = (i: number, reps: number, end: 'finished' | 'discarded' | 'open') => {
    const { seq, cell } = plan[i];
    records.push({ t: 'restart-started', at: 10 + i, seq, cell });
    for (let rep = 1; rep <= reps; rep++) for (const q of plan[i].queries) records.push({ t: 'execution', at: 10 + i, seq, query: q, rep, warmup: rep <= doc.design.workload.warmup, value: rep + i, unit: 'ms', source: 'performance_schema' });
    if (end === 'finished') records.push({ t: 'restart-finished', at: 11 + i, seq, cell, status: 'ok' });
    if (end === 'discarded') records.push({ t: 'restart-discarded', at: 11 + i, seq, cell, reason: 'SSH connection dropped' });
  };
  run(0, 30, 'finished');
  run(1, 30, 'finished');
  run(2, 12, 'discarded');
  run(2, 7, 'open');
  const fold = new JournalFold();
  for (const r of records) fold.apply(r);
  const dir = mkdtempSync(join(tmpdir(), 'varlab-snapshot-'));
  try {
    const file = join(dir, 'run.journal');
    writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const fromDisk = snapshotBatch('r', 9, file, 'running');
    const fromMemory = snapshotBatch('r', 9, fold, 'running');
    const noTimes = (b: typeof fromDisk) => JSON.parse(JSON.stringify(b.events, (k, v) => (k === 'at' ? 0 : v)));
    assert.deepEqual(noTimes(fromMemory), noTimes(fromDisk));
    assert.equal(fromMemory.snapshot, true);
    const live = new LiveRun();
    live.apply(fromMemory.events);
    const q = plan[0].queries[0];
    assert.equal(live.series.get(q)!.y.length, 30 + 30 + 7, 'two finished restarts and the open one; the discarded attempt is not there');
    assert.equal(live.current?.seq, plan[2].seq);
    assert.equal(live.restartMeans(q).length, 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
