// What a file's journal says of its detached run, without any connection: the run service refuses a
// second run and a design edit while it goes on, and lets both be once its end is in the journal;
// the one-line status reads the same in the CLI and the app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { eventOf, JournalFold, type JournalRecord } from '../../src/common/records.js';
import { buildPlan } from '../../src/common/plan.js';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { openRestart, runSoFar } from '../../src/node/runs/snapshot.js';
import { detachedRun, refuseWhileDetached } from '../../src/node/detach/runs.js';
import { describeDetached } from '../../src/node/detach/status.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { headerRecord, journalPath } from '../../src/node/engine/journal.js';
import { RunService } from '../../src/node/runs/service.js';

const RUN = 'c0ffee00-0000-4000-8000-000000000001';

test('a detached run in the journal keeps other runs and design edits off the file until its end is in', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-detach-journal-'));
  try {
    const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
    const file = join(dir, 'x.varlab.json');
    writeFileSync(file, JSON.stringify(doc));
    const lines: JournalRecord[] = [
      headerRecord(doc.design),
      { t: 'detached', at: 1, runId: RUN, target: 'ssh://bench1', auth: { identity: '/home/me/.ssh/id_ed25519' }, dir: `/var/lib/varlab/mysqld-3306-0123456789/runs/${RUN}`, supervisor: 'systemd' },
      { t: 'imported', at: 2, offset: 4096 },
    ];
    writeFileSync(journalPath(file), lines.map((l) => JSON.stringify(l) + '\n').join(''));
    const d = detachedRun(file);
    assert.equal(d?.offset, 4096);
    assert.equal(d?.ended, false);
    assert.deepEqual(d?.auth, { identity: '/home/me/.ssh/id_ed25519' });
    assert.throws(() => refuseWhileDetached(file), /a detached run of it goes on on ssh:\/\/bench1 .*varlab attach/);
    const runs = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }) });
    assert.match((await runs.busyWith(file)) ?? '', /a detached run of it is going on \(on ssh:\/\/bench1\)/);

    writeFileSync(journalPath(file), JSON.stringify({ t: 'run-finished', at: 3, state: 'cancelled', message: 'cancelled; run again to resume' }) + '\n', { flag: 'a' });
    assert.equal(detachedRun(file)?.ended, true);
    assert.doesNotThrow(() => refuseWhileDetached(file));
    assert.equal(await runs.busyWith(file), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the one-line status', () => {
  const base = { target: 'ssh://bench1', planned: 32, imported: false };
  assert.equal(describeDetached({ ...base, state: 'running', done: 6, current: 7 }), 'detached on ssh://bench1, running restart 7 of 32');
  assert.equal(describeDetached({ ...base, state: 'finished', done: 32 }), 'finished on ssh://bench1: 32 of 32 restarts; varlab attach brings the results into the file');
  assert.equal(describeDetached({ ...base, state: 'failed', done: 3, message: 'mysqld did not start', imported: true }), 'failed on ssh://bench1: 3 of 32 restarts (mysqld did not start)');
});

test('following again a detached run whose restart was open in the local journal: that restart finishes in the view too (its mean, its count)', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const design = doc.design;
  const warmup = design.workload.warmup;
  const first = buildPlan(design)[0];
  const query = first.queries[0];
  const exec = (rep: number): JournalRecord => ({ t: 'execution', at: 10 + rep, seq: 1, query, rep, warmup: rep <= warmup, value: 100 + rep, unit: 'ms', source: 'performance_schema' });
  // An earlier follower (killed since) brought in restart 1's start and its first executions.
  const local: JournalRecord[] = [
    headerRecord(design, 1),
    { t: 'detached', at: 1, runId: RUN, target: 'ssh://bench1', dir: `/var/lib/varlab/mysqld-3306-0123456789/runs/${RUN}`, supervisor: 'setsid' },
    { t: 'log', at: 2, level: 'info', message: 'the runner started on ssh://bench1 (pid 4242)' },
    { t: 'timer', at: 2, source: 'profiling', why: 'performance_schema is off' },
    { t: 'restart-started', at: 2, seq: 1, cell: first.cell },
    { t: 'checks', at: 3, seq: 1, checks: [] },
    exec(1),
    exec(2),
    { t: 'imported', at: 13, offset: 2048 },
  ];
  const fold = new JournalFold();
  for (const r of local) fold.apply(r);
  const live = new LiveRun();
  live.apply([...runSoFar(fold.state(), 5, 13), ...openRestart(fold)]);
  // The target journal from that offset: the rest of restart 1, its end, and restart 2's start.
  const later: JournalRecord[] = [exec(3), exec(4), exec(5), { t: 'restart-finished', at: 20, seq: 1, cell: first.cell, status: 'ok' }, { t: 'restart-started', at: 21, seq: 2, cell: first.cell }];
  for (const r of later) {
    fold.apply(r);
    const e = eventOf(r, (seq) => fold.cellOf(seq));
    if (e) live.apply([e]);
  }
  live.apply([{ type: 'progress', at: 22, done: 1, planned: 5, remainingMs: 0 }]);
  assert.equal(live.done, 1);
  assert.equal(live.executions, 5, 'every execution of restart 1 once');
  assert.deepEqual(live.restarts.map((r) => r.seq), [1], 'restart 1 finished in the view as it did on the target');
  assert.equal(live.restartMeans(query).length, 1);
  assert.equal(live.restartMeans(query)[0].n, 5 - warmup);
  assert.equal(live.current?.seq, 2);
  assert.ok(live.plannedExecutions(query) > 0, 'the timeline knows the planned end');
  // What the run said before this follower (the local journal's log lines) is in the view too.
  assert.ok(live.log.some((l) => l.message === 'the runner started on ssh://bench1 (pid 4242)'), JSON.stringify(live.log));
  // The run's timer too: the view following again shows the note a first follower showed (it showed none).
  assert.match(JSON.stringify(live.timerNote), /performance_schema is off/);
});

test('following a detached run with a stopping rule, the Run view hears the rule, its last look and the stop from the start', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const design = { ...doc.design, stopping: { effect: 5, alpha: 0.05, power: 0.8, maxRestartsPerCell: 8 } };
  const look: Extract<JournalRecord, { t: 'look' }> = {
    t: 'look',
    at: 30,
    look: { round: 3, fraction: 3 / 8, boundary_z: 3.1, comparisons: [] },
    comparisons: [],
    max_rounds: 8,
    effect_pct: 5,
    rounds_left: 0,
    stopped_because: 'every comparison decided at round 3: 1 differs',
  };
  const fold = new JournalFold();
  for (const r of [
    headerRecord(design, 1),
    { t: 'detached', at: 1, runId: RUN, target: 'ssh://bench1', dir: `/var/lib/varlab/mysqld-3306-0123456789/runs/${RUN}`, supervisor: 'setsid' },
    look,
    { t: 'stopped-answered', at: 31, round: 3, because: 'every comparison decided at round 3: 1 differs' },
  ] satisfies JournalRecord[])
    fold.apply(r);
  const live = new LiveRun();
  live.apply([...runSoFar(fold.state(), 16, 32), ...openRestart(fold)]);
  assert.deepEqual(live.stopping, design.stopping);
  assert.equal(live.look?.look.round, 3);
  assert.deepEqual(live.stopped, { round: 3, because: 'every comparison decided at round 3: 1 differs' });
});
