// Faults that end well (issue 13.5), on files alone: a run whose final stop and restore did not finish
// is not "already finished" (the next run finishes the restore); a file shorter than its journal is
// rebuilt from it when opened or run; temporary files a killed writer left are removed. The same
// faults, injected into real runs, are test/integration/faults.test.ts.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { readJournalText, restorePending, resultsFromJournal, type JournalRecord } from '../../src/common/records.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { headerRecord, inspectJournal, journalPath } from '../../src/node/engine/journal.js';
import { writeExperimentFile } from '../../src/node/files.js';
import { finishedRun } from '../../src/node/runs/prepare.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-faults-unit-'));
process.env.VARLAB_HOME = join(dir, 'home');
after(() => rmSync(dir, { recursive: true, force: true }));

function design() {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.excludedCells = buildPlan(doc.design)
    .map((p) => p.cell)
    .filter((c, i, all) => all.indexOf(c) === i)
    .slice(2);
  doc.design.restartsPerCell = 1;
  doc.design.workload.repetitions = 2;
  doc.design.workload.warmup = 0;
  return doc;
}

/** A journal of every planned restart finished, and how the run left its host. */
function journal(doc: ExperimentDoc, end: JournalRecord[]): JournalRecord[] {
  const plan = buildPlan(doc.design);
  const records: JournalRecord[] = [headerRecord(doc.design)];
  for (const p of plan) {
    records.push({ t: 'restart-started', at: 1000 + p.seq, seq: p.seq, cell: p.cell }, { t: 'checks', at: 1000 + p.seq, seq: p.seq, checks: [] });
    for (const q of p.queries) for (let rep = 1; rep <= 2; rep++) records.push({ t: 'execution', at: 1000 + p.seq, seq: p.seq, query: q, rep, warmup: false, value: p.seq + rep, unit: 'ms', source: 'profiling' });
    records.push({ t: 'restart-finished', at: 2000 + p.seq, seq: p.seq, cell: p.cell, status: 'ok' });
  }
  return [...records, ...end];
}

const write = (path: string, records: JournalRecord[]) => writeFileSync(journalPath(path), records.map((r) => JSON.stringify(r)).join('\n') + '\n');

test('all measured but the host not put back: not finished; the next run resumes to finish the restore', async () => {
  const doc = design();
  const path = join(dir, 'restore.varlab.json');
  const state = readJournalText(journal(doc, []).map((r) => JSON.stringify(r)).join('\n'));
  await writeExperimentFile(path, { ...doc, results: resultsFromJournal(state) });

  const problem = 'the host may not be as it was found: the connection to ssh://x dropped';
  write(path, journal(doc, [{ t: 'host-left', at: 3000, ok: false, problem }, { t: 'run-finished', at: 3001, state: 'failed', message: problem }]));
  assert.equal(await finishedRun(path), null, 'a later run is not told "already finished"');
  assert.equal(inspectJournal(path, doc.design).kind, 'resume');

  // Killed after the last restart, before the restore: no end recorded at all.
  write(path, journal(doc, []));
  assert.equal(await finishedRun(path), null);

  write(path, journal(doc, [{ t: 'host-left', at: 3000, ok: true }, { t: 'run-finished', at: 3001, state: 'finished' }]));
  assert.ok(await finishedRun(path), 'restored: finished');
  assert.equal(inspectJournal(path, doc.design).kind, 'complete');
  // A journal written before host-left was recorded: its finished run restored the host.
  const old = readJournalText(journal(doc, [{ t: 'run-finished', at: 3001, state: 'finished' }]).map((r) => JSON.stringify(r)).join('\n'));
  assert.equal(old.restarts.length, 2);
  assert.equal(restorePending(old), false);
});

test('a file shorter than its journal (its last save did not reach the disk) is rebuilt when opened', async () => {
  const doc = design();
  const path = join(dir, 'short.varlab.json');
  const records = journal(doc, [{ t: 'host-left', at: 3000, ok: true }, { t: 'run-finished', at: 3001, state: 'finished' }]);
  write(path, records);
  const full = resultsFromJournal(readJournalText(records.map((r) => JSON.stringify(r)).join('\n')));
  // The file holds the first restart only, as the save before the disk filled left it.
  await writeExperimentFile(path, { ...doc, results: { ...full, restarts: full.restarts.slice(0, 1) } });
  const docs = new DocumentService();
  try {
    const opened = await docs.open(path);
    assert.equal(opened.doc.results?.restarts.length, full.restarts.length);
    assert.deepEqual(opened.doc.results?.restarts, full.restarts);
    assert.match(opened.notices.join('\n'), /held 1 of the 2 restarts its journal has .*rebuilt from/);
  } finally {
    docs.dispose();
  }
});

test('a file whose restarts are not its journal\'s is left alone', async () => {
  const doc = design();
  const path = join(dir, 'other.varlab.json');
  const records = journal(doc, []);
  write(path, records);
  const full = resultsFromJournal(readJournalText(records.map((r) => JSON.stringify(r)).join('\n')));
  const other = { ...full.restarts[0], cell: full.restarts[1].cell };
  await writeExperimentFile(path, { ...doc, results: { ...full, restarts: [other] } });
  const docs = new DocumentService();
  try {
    const opened = await docs.open(path);
    assert.equal(opened.doc.results?.restarts.length, 1);
  } finally {
    docs.dispose();
  }
});

test('temporary files a killed writer left beside a file are removed by the next write', async () => {
  const path = join(dir, 'tmp.varlab.json');
  // pid 2^22+1 is above any pid_max default: no such process.
  const stale = join(dir, `.tmp.varlab.json.${2 ** 22 + 1}.0badc0de.tmp`);
  const live = join(dir, `.tmp.varlab.json.${process.pid}.0badc0de.tmp`);
  writeFileSync(stale, '');
  writeFileSync(live, '');
  await writeExperimentFile(path, design());
  assert.equal(existsSync(stale), false, 'the dead writer\'s temporary file is gone');
  assert.equal(existsSync(live), true, 'a live writer\'s is left to it');
  rmSync(live);
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), []);
});
