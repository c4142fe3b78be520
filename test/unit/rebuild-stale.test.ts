// A file that holds as many restarts as its journal but not all the journal knows of them: the run's
// last save (before a full disk stopped the final one) came before a record that follows a restart's
// end, such as its step times written after a periodic save, or its host noise read at the next call.
// Running or opening the file rebuilds it from the journal; a file equal to its journal is left alone.
// (CI at 0cd678c, fault row disk-full-at-final-save: "the file's results differ from its journal (2
// restarts in the file, 2 in the journal)".)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { resultsFromJournal, type JournalRecord } from '../../src/common/records.js';
import { rebuildFromJournal } from '../../src/node/documents/rebuild.js';
import { headerRecord, journalPath, JournalWriter, readJournal } from '../../src/node/engine/journal.js';
import { tinyQuickstart } from '../fixtures/tiny-quickstart.js';

test('as many restarts as the journal but not all it knows of them: rebuilt from the journal; then left alone', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-rebuild-stale-'));
  try {
    const file = join(dir, 'stale.varlab.json');
    const d = tinyQuickstart(1);
    const query = d.design.workload.queries[0].name;
    const t0 = 1_700_000_000_000;
    const records: JournalRecord[] = [headerRecord(d.design, t0)];
    for (const [seq, cell] of [[1, 'aslr=on'], [2, 'aslr=off']] as const) {
      records.push({ t: 'restart-started', at: t0 + seq, seq, cell });
      for (const rep of [1, 2]) records.push({ t: 'execution', at: t0 + seq, seq, query, rep, warmup: false, value: 10 * seq + rep, unit: 'ms', source: 'performance_schema' });
      records.push({ t: 'restart-finished', at: t0 + 100 + seq, seq, cell, status: 'ok', steps: { start: 900 + seq, measure: 40 } });
    }
    records.push({ t: 'run-finished', at: t0 + 500, state: 'finished' });
    const w = new JournalWriter(journalPath(file));
    w.appendAll(records);
    w.close();
    // The file's last save: both restarts, the second without what the journal has of it.
    const whole = resultsFromJournal(readJournal(journalPath(file))!, 'interrupted before it finished');
    const stale = whole.restarts.map((r) => (r.seq === 2 ? { ...r, steps: undefined } : r)).map((r) => JSON.parse(JSON.stringify(r)));
    writeFileSync(file, JSON.stringify({ ...d, results: { restarts: stale } }));

    const said = await rebuildFromJournal(file);
    assert.match(said ?? '', /held its 2 restarts without all their journal has of them \(its last save did not reach the disk\): rebuilt from /);
    const after = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.deepEqual(after.results!.restarts.map((r) => r.steps), [{ start: 901, measure: 40 }, { start: 902, measure: 40 }]);
    assert.equal(await rebuildFromJournal(file), null, 'a file equal to its journal is left alone');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
