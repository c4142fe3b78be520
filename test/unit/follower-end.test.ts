// A detached run's follower tells the run's end only once the file holds its results, as the attached
// engine does (engine/run.ts): a view that reads "finished" (and a test that then reads the file) finds
// the file whole. Before, the end was told as it was brought in, and the file was written after it:
// on a loaded machine, run-stop-live's detached journey read a file with no `stopped` (or with a
// restart still "running on the target") while the view already said "Stopped at round N". A file
// that cannot take the results makes the end a failure saying so, never "finished".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Design, ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import type { RunEvent } from '../../src/common/events.js';
import { buildPlan } from '../../src/common/plan.js';
import { recordsOfRestart, type JournalRecord } from '../../src/common/records.js';
import { Follower } from '../../src/node/detach/follower.js';
import { detachedRun } from '../../src/node/detach/runs.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { headerRecord, journalPath } from '../../src/node/engine/journal.js';

/** A file whose detached run ended on its target (and was cleaned up there) with 2 restarts, not brought in yet. */
function endedRun(dir: string, name: string): string {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  const design: Design = {
    ...doc.design,
    target: 'ssh://bench1',
    factors: [],
    excludedCells: [],
    restartsPerCell: 2,
    workload: { ...doc.design.workload, queries: doc.design.workload.queries.slice(0, 1), repetitions: 3, warmup: 1 },
    serverProfile: { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/sb/data', socket: '/srv/sb/mysqld.sock', port: 23306, osUser: 'mysql', user: 'root', errorLog: '/srv/sb/error.log', pidFile: '/srv/sb/mysqld.pid', extraArgs: [], sudo: true, target: 'ssh://bench1' },
  };
  const plan = buildPlan(design);
  const query = plan[0].queries[0];
  const restart = (seq: number): RestartResult => ({
    seq,
    cell: plan[seq - 1].cell,
    status: 'ok',
    startedAt: 1_000_000 + seq * 10_000,
    finishedAt: 1_000_000 + seq * 10_000 + 9_000,
    checks: [],
    queries: [{ query, unit: 'ms', source: 'performance_schema', values: [100, 100, 100] }],
  });
  const file = join(dir, `${name}.varlab.json`);
  writeFileSync(file, JSON.stringify({ ...doc, design }));
  const run = 'c0ffee00-0000-4000-8000-000000000001';
  const records: JournalRecord[] = [
    headerRecord(design, 1_000_000),
    { t: 'detached', at: 1_000_001, runId: run, target: 'ssh://bench1', dir: `/var/lib/varlab/mysqld-3306-0123456789/runs/${run}`, supervisor: 'setsid' },
    { t: 'host', at: 1_000_002, host: { target: 'ssh://bench1' } as unknown as HostFingerprint },
    ...[restart(1), restart(2)].flatMap((r) => recordsOfRestart(r, design.workload.warmup)),
    { t: 'run-finished', at: 1_100_000, state: 'finished' },
    { t: 'target-cleaned', at: 1_100_001 },
  ];
  writeFileSync(journalPath(file), records.map((r) => JSON.stringify(r) + '\n').join(''));
  return file;
}

const restartsIn = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc).results?.restarts.length ?? 0;

test('the end of a detached run is told once the file holds its results, not before', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-follower-end-'));
  try {
    const file = endedRun(dir, 'ended');
    // What the file held at the moment each end was told.
    const told: { state: string; restarts: number }[] = [];
    const onEvent = (e: RunEvent) => {
      if (e.type === 'run-finished') told.push({ state: e.state, restarts: restartsIn(file) });
    };
    const out = await new Follower(detachedRun(file)!, { documents: new DocumentService(), prompt: async () => ({ accept: false }), onEvent }).run();
    assert.equal(out.state, 'finished', out.message);
    assert.deepEqual(told, [{ state: 'finished', restarts: 2 }], 'told once, with both restarts in the file by then');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file that cannot take the results: the end is a failure saying so, never "finished"', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-follower-end-'));
  try {
    const file = endedRun(dir, 'unwritable');
    const documents = new DocumentService();
    documents.writeRunResults = async () => {
      throw new Error('ENOSPC: no space left on device');
    };
    const told: RunEvent[] = [];
    const out = await new Follower(detachedRun(file)!, { documents, prompt: async () => ({ accept: false }), onEvent: (e) => e.type === 'run-finished' && told.push(e) }).run();
    assert.equal(out.state, 'failed');
    assert.equal(told.length, 1, JSON.stringify(told));
    assert.equal(told[0].type === 'run-finished' && told[0].state, 'failed');
    assert.match(told[0].type === 'run-finished' ? (told[0].message ?? '') : '', /results are safe in .*could not be written.*ENOSPC/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
