// What a file's journal says of its detached run, without any connection: the run service refuses a
// second run and a design edit while it goes on, and lets both be once its end is in the journal;
// the one-line status reads the same in the CLI and the app.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import type { JournalRecord } from '../../src/common/records.js';
import { describeDetached, detachedRun, refuseWhileDetached } from '../../src/node/detach/attach.js';
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
