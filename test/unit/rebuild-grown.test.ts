// A run of what a file missed (run --missing) whose last save did not reach the disk: its journal
// holds that run alone (part 2), the file the first run and part of this one. Opening or running the
// file rebuilds this run's restarts from the journal after the first run's, which stay as they were,
// and the file keeps its own design (the run's leaves the complete cells out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import type { JournalRecord } from '../../src/common/records.js';
import { rebuildFromJournal } from '../../src/node/documents/rebuild.js';
import { headerRecord, journalPath, JournalWriter } from '../../src/node/engine/journal.js';
import { tinyQuickstart } from '../fixtures/tiny-quickstart.js';

const OLD = ['aslr=on', 'aslr=off'];
const NEW = 'aslr=on,thp=never';

const doc = (): ExperimentDoc => tinyQuickstart(2);

const restart = (seq: number, cell: string, part?: number): RestartResult => ({
  seq,
  cell,
  status: 'ok',
  startedAt: 1_700_000_000_000 + seq,
  finishedAt: 1_700_000_000_500 + seq,
  checks: [],
  ...(part ? { part } : {}),
  queries: [{ query: doc().design.workload.queries[0].name, unit: 'ms', source: 'performance_schema', values: [seq, seq + 0.5] }],
});

test("a grown run's lost save is rebuilt from its journal: its restarts after the first run's, which stay, in the file's design", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-rebuild-grown-'));
  try {
    const file = join(dir, 'grown.varlab.json');
    // The first run: 2 cells × 2 restarts. The design then grows a factor level: thp=never for aslr=on.
    const d = doc();
    const first = [restart(1, OLD[0]), restart(2, OLD[1]), restart(3, OLD[0]), restart(4, OLD[1])];
    d.design.factors.push({ tunable: 'thp', levels: ['madvise', 'never'] });
    const grown: ExperimentDoc = { ...d, design: { ...d.design, excludedCells: ['aslr=off,thp=never'] }, results: { restarts: first.map((r) => ({ ...r, cell: `${r.cell},thp=madvise` })) } };
    // The run of what is missing: the new cell alone, twice; the file saved its first restart only.
    const run = { ...grown.design, excludedCells: ['aslr=on,thp=madvise', 'aslr=off,thp=madvise', 'aslr=off,thp=never'] };
    const query = d.design.workload.queries[0].name;
    const records: JournalRecord[] = [headerRecord(run, 1_700_000_100_000, { part: 2 })];
    for (const seq of [1, 2]) {
      records.push({ t: 'restart-started', at: 1_700_000_100_000 + seq, seq, cell: NEW });
      for (const rep of [1, 2]) records.push({ t: 'execution', at: 1_700_000_100_000 + seq, seq, query, rep, warmup: false, value: 10 * seq + rep, unit: 'ms', source: 'performance_schema' });
      records.push({ t: 'restart-finished', at: 1_700_000_100_100 + seq, seq, cell: NEW, status: 'ok' });
    }
    records.push({ t: 'run-finished', at: 1_700_000_100_500, state: 'finished' });
    const w = new JournalWriter(journalPath(file));
    w.appendAll(records);
    w.close();
    writeFileSync(file, JSON.stringify({ ...grown, results: { restarts: [...grown.results!.restarts, { ...restart(5, NEW, 2), queries: [{ query, unit: 'ms', source: 'performance_schema', values: [11, 12] }] }] } }));

    const said = await rebuildFromJournal(file);
    assert.match(said ?? '', /held 1 of the 2 restarts its journal has of the run of what it missed \(run 2; its last save did not reach the disk\): rebuilt from .*, its 4 earlier restarts kept/);
    const after = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.deepEqual(after.design, grown.design, "the file's design, not the run's");
    assert.deepEqual(after.results!.restarts.slice(0, 4), grown.results!.restarts, 'the first run as it was');
    assert.deepEqual(
      after.results!.restarts.slice(4).map((r) => [r.seq, r.cell, r.part, r.queries[0].values]),
      [
        [5, NEW, 2, [11, 12]],
        [6, NEW, 2, [21, 22]],
      ],
    );
    // Whole now: nothing more to rebuild.
    assert.equal(await rebuildFromJournal(file), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
