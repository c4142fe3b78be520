// A design on several hosts whose last save did not reach the disk: each host's journal holds more than
// the file has of that host. Opening or running the file rebuilds every host's restarts from its own
// journal, each with its host, and keeps the file's hosts and seed (each journal has its host's own);
// a run of what the file missed (run --missing) on some of the hosts is rebuilt as its part, after
// each host's earlier restarts, the earlier runs kept. Before, a several-host file was never rebuilt.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Design, ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { hostDesign } from '../../src/common/plan.js';
import type { JournalRecord } from '../../src/common/records.js';
import { rebuildFromJournal } from '../../src/node/documents/rebuild.js';
import { headerRecord, hostJournalPath, JournalWriter } from '../../src/node/engine/journal.js';
import { tinyQuickstart } from '../fixtures/tiny-quickstart.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-rebuild-hosts-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const [A, B] = ['ssh://a.example', 'ssh://b.example'];
const T0 = 1_700_000_000_000;

function doc(): ExperimentDoc {
  const d = tinyQuickstart(1);
  d.design.target = A;
  d.design.targets = [A, B];
  delete d.design.serverProfile;
  return d;
}
const query = doc().design.workload.queries[0].name;

/** A host's restart as the file holds it. */
const restart = (host: string, seq: number, cell: string, part?: number): RestartResult => ({
  seq,
  cell,
  host,
  status: 'ok',
  startedAt: T0 + seq * 10,
  finishedAt: T0 + seq * 10 + 5,
  checks: [],
  ...(part ? { part } : {}),
  queries: [{ query, unit: 'ms', source: 'performance_schema', values: [seq, seq + 0.5] }],
});

/** A host's journal of `design` (its host's design): these restarts, as the engine writes them. */
function journal(file: string, host: string, design: Design, cells: string[], grows?: { part: number }): void {
  const records: JournalRecord[] = [headerRecord(hostDesign(design, host), T0, grows)];
  cells.forEach((cell, i) => {
    const seq = i + 1;
    records.push({ t: 'restart-started', at: T0 + seq * 10, seq, cell });
    for (const rep of [1, 2]) records.push({ t: 'execution', at: T0 + seq * 10 + rep, seq, query, rep, warmup: false, value: seq + (rep - 1) * 0.5, unit: 'ms', source: 'performance_schema' });
    records.push({ t: 'restart-finished', at: T0 + seq * 10 + 5, seq, cell, status: 'ok' });
  });
  records.push({ t: 'run-finished', at: T0 + 1000, state: 'finished' });
  const w = new JournalWriter(hostJournalPath(file, host));
  w.appendAll(records);
  w.close();
}

test("a several-host run's lost save is rebuilt from every host's journal, each restart with its host, the file's hosts and seed kept", async () => {
  const file = join(dir, 'hosts.varlab.json');
  const d = doc();
  const cells = ['aslr=on', 'aslr=off'];
  journal(file, A, d.design, cells);
  journal(file, B, d.design, cells);
  // The last save took A's two restarts and B's first.
  writeFileSync(file, JSON.stringify({ ...d, results: { restarts: [restart(A, 1, cells[0]), restart(A, 2, cells[1]), restart(B, 1, cells[0])] } }));

  const said = await rebuildFromJournal(file);
  assert.match(said ?? '', /held 3 of the 4 restarts its journals have \(its last save did not reach the disk\): rebuilt from /);
  const rebuilt = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual([rebuilt.design.target, rebuilt.design.targets, rebuilt.design.seed], [A, [A, B], d.design.seed], "the file's hosts and seed");
  assert.deepEqual(
    rebuilt.results!.restarts.map((r) => [r.host, r.seq, r.cell, r.queries[0].values]),
    [
      [A, 1, cells[0], [1, 1.5]],
      [A, 2, cells[1], [2, 2.5]],
      [B, 1, cells[0], [1, 1.5]],
      [B, 2, cells[1], [2, 2.5]],
    ],
  );
  assert.equal(await rebuildFromJournal(file), null, 'whole now: nothing more to rebuild');
});

test('a run of what a several-host file missed, on one of its hosts, is rebuilt as its part after that host\'s earlier restarts', async () => {
  const file = join(dir, 'grown.varlab.json');
  // The first run measured aslr=on on both hosts (aslr=off left out); A's journal is still that run's.
  const d = doc();
  d.design.excludedCells = ['aslr=off'];
  journal(file, A, d.design, ['aslr=on']);
  const first = [restart(A, 1, 'aslr=on'), restart(B, 1, 'aslr=on')];
  // Grown: aslr=off back in, run on B alone (A had measured it some other way: its cell is in the file).
  const grown: ExperimentDoc = { ...d, design: { ...d.design, excludedCells: [], restartsPerCell: 2 } };
  const run = { ...grown.design, excludedCells: ['aslr=on'], restartsPerCell: 2 };
  journal(file, B, run, ['aslr=off', 'aslr=off'], { part: 2 });
  // The last save took B's first restart of run 2.
  writeFileSync(file, JSON.stringify({ ...grown, results: { restarts: [...first, restart(B, 2, 'aslr=off', 2)] } }));

  const said = await rebuildFromJournal(file);
  assert.match(said ?? '', /held 1 of the 2 restarts its journal has of the run of what it missed \(run 2; .*\): rebuilt from .*, its 2 earlier restarts kept/);
  const rebuilt = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(rebuilt.design, grown.design, "the file's design, not the run's");
  assert.deepEqual(
    rebuilt.results!.restarts.map((r) => [r.host, r.seq, r.cell, r.part ?? 1]),
    [
      [A, 1, 'aslr=on', 1],
      [B, 1, 'aslr=on', 1],
      [B, 2, 'aslr=off', 2],
      [B, 3, 'aslr=off', 2],
    ],
  );
  assert.equal(await rebuildFromJournal(file), null, 'whole now');
});
