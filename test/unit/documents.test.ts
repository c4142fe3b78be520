// The document service: the file on disk is the truth. Saves are based on a revision; a file's
// measurements are never dropped unasked (labels-only edits keep them; design edits ask, and the
// chosen copy holds them); every change of an open file reaches the clients once, with its cause;
// writes leave no temporary files behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, type DocumentChanged } from '../../src/common/api.js';
import { measurementsIn } from '../../src/common/experiment/changes.js';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { expandCells } from '../../src/common/plan.js';
import { isComplete, recordsOfRestart } from '../../src/common/records.js';
import { headerRecord, journalPath, readJournal } from '../../src/node/engine/journal.js';
import { DocumentService } from '../../src/node/documents/service.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-docs-'));
  process.env.VARLAB_HOME = join(dir, 'home');
});
// A watcher's write can still be landing as the last test ends (seen once, two files at a time on a busy
// machine: ENOTEMPTY): retry the removal instead of failing the file on its clean-up.
after(() => rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));

function restart(seq: number, cell: string): RestartResult {
  return { seq, cell, status: 'ok', startedAt: 1000 + seq, finishedAt: 2000 + seq, checks: [], queries: [{ query: 'Q1 pricing summary', unit: 'ms', source: 'profiling', values: [10, 11, 12] }] };
}

/** Two cells of the quickstart, as results name them. */
const [A, B] = expandCells(quickstart().design).map((c) => c.id);

function withResults(): ExperimentDoc {
  const doc = quickstart();
  doc.results = { startedAt: 1000, finishedAt: 3000, restarts: [restart(1, A), restart(2, B), restart(3, A)] };
  return doc;
}

function file(name: string, doc: ExperimentDoc): string {
  const path = join(dir, `${name}.varlab.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

const onDisk = (path: string): ExperimentDoc => JSON.parse(readFileSync(path, 'utf8'));
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const refusal = (code: string) => (e: unknown) => e instanceof ApiError && e.code === code;

test('open gives the revision of the bytes on disk; a save based on an older revision is refused unless the user overwrites', async () => {
  const docs = new DocumentService();
  const path = file('rev', quickstart());
  const opened = await docs.open(path);
  assert.equal(opened.revision, sha(path));
  const edited = { ...opened.doc, design: { ...opened.doc.design, restartsPerCell: 3 } };
  const saved = await docs.save({ path, doc: edited, baseRevision: opened.revision });
  assert.equal(saved.revision, sha(path), 'the revision returned is the one now on disk');
  // Another program writes the file: a save based on the old revision must not silently replace it.
  writeFileSync(path, JSON.stringify({ ...edited, name: 'changed elsewhere' }, null, 2));
  await assert.rejects(docs.save({ path, doc: edited, baseRevision: saved.revision }), refusal('conflict'));
  assert.equal(onDisk(path).name, 'changed elsewhere');
  await docs.save({ path, doc: edited, baseRevision: saved.revision, choice: 'overwrite' });
  assert.equal(onDisk(path).name, edited.name);
  await docs.dispose();
});

test('a file with results keeps them when only its name or description change', async () => {
  const docs = new DocumentService();
  const path = file('labels', withResults());
  const opened = await docs.open(path);
  // The client's copy is older (no results): still, only its labels reach the file.
  const stale = { ...quickstart(), name: 'AHI on a busy box', description: 'notes for the team' };
  const saved = await docs.save({ path, doc: stale, baseRevision: opened.revision });
  const now = onDisk(path);
  assert.equal(now.name, 'AHI on a busy box');
  assert.equal(now.description, 'notes for the team');
  assert.deepEqual(measurementsIn(now), { restarts: 3, executions: 9 }, 'every measurement is still in the file');
  assert.deepEqual(saved.doc.results, withResults().results, 'the saved document (what the UI shows) has them too');
  await docs.dispose();
});

test('a design edit to a file with results asks; keeping the old results puts them in the named copy', async () => {
  const docs = new DocumentService();
  const path = file('design', withResults());
  writeFileSync(path.replace(/\.json$/, '.journal.jsonl'), '{"t":"host","at":1,"host":{}}\n');
  const opened = await docs.open(path);
  const edited = { ...opened.doc, design: { ...opened.doc.design, workload: { ...opened.doc.design.workload, repetitions: 7 } } };
  let stake;
  try {
    await docs.save({ path, doc: edited, baseRevision: opened.revision });
    assert.fail('saved without asking');
  } catch (e) {
    assert.ok(e instanceof ApiError && e.code === 'results-at-stake', String(e));
    stake = e.details!.resultsAtStake!;
  }
  assert.equal(stake.restarts, 3);
  assert.equal(stake.executions, 9);
  assert.deepEqual(stake.changes, [`repetitions: ${withResults().design.workload.repetitions} → 7`]);
  assert.match(stake.keepResultsAs, /design\.results-.*\.varlab\.json$/);
  assert.equal(measurementsIn(onDisk(path)).restarts, 3, 'nothing written before the user chose');

  const saved = await docs.save({ path, doc: edited, baseRevision: opened.revision, choice: 'keep-results-copy' });
  assert.equal(onDisk(path).design.workload.repetitions, 7);
  assert.equal(onDisk(path).results, undefined, 'the file starts afresh with the new design');
  assert.deepEqual(onDisk(stake.keepResultsAs).results, withResults().results, 'the copy holds every measurement');
  assert.match(saved.note ?? '', /kept in .*results-.*\.varlab\.json \(its journal in .*journal\..*\.jsonl\)/);
  assert.equal(existsSync(path.replace(/\.json$/, '.journal.jsonl')), false, 'the old journal is archived, not left to resume');
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temporary file is left behind',
  );
  await docs.dispose();
});

/** A finished run of the two cells A and B, one restart each, with the journal it wrote. */
function finished(name: string): string {
  const doc = quickstart();
  doc.design = { ...doc.design, restartsPerCell: 1, excludedCells: expandCells(doc.design).slice(2).map((c) => c.id) };
  doc.results = { startedAt: 1000, finishedAt: 3000, restarts: [restart(1, A), restart(2, B)] };
  const path = file(`${name}-${Math.random().toString(16).slice(2, 8)}`, doc);
  const records = [headerRecord(doc.design, 1), ...doc.results.restarts.flatMap((r) => recordsOfRestart(r, doc.design.workload.warmup)), { t: 'run-finished', at: 4000, state: 'finished' }, { t: 'host-left', at: 4001, ok: true }];
  writeFileSync(journalPath(path), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

const renameQ1 = (d: ExperimentDoc): ExperimentDoc => ({ ...d, design: { ...d.design, workload: { ...d.design.workload, queries: d.design.workload.queries.map((q, i) => (i === 0 ? { ...q, name: 'Q1 renamed' } : q)) } } });
/** The quickstart's last factor (numa) without its second level: cell B (…,numa=interleave) goes. */
const removeLevel = (d: ExperimentDoc): ExperimentDoc => ({ ...d, design: { ...d.design, factors: d.design.factors.map((f, i) => (i === 3 ? { ...f, levels: f.levels.slice(0, 1) } : f)), excludedCells: d.design.excludedCells.filter((c) => !c.endsWith('numa=interleave')) } });

test('a renamed query of a finished file is renamed in its results and its journal: saved without asking, reopened under the new name', async () => {
  const docs = new DocumentService();
  const path = finished('renamed');
  const journal = journalPath(path);
  const opened = await docs.open(path);
  // The client's document still holds the old results, which name the old query.
  const saved = await docs.save({ path, doc: renameQ1(opened.doc), baseRevision: opened.revision });
  assert.match(saved.note ?? '', /renamed in the results: query Q1 pricing summary → Q1 renamed/);
  const reopened = await docs.open(path);
  assert.deepEqual(measurementsIn(reopened.doc), { restarts: 2, executions: 6 }, 'every measurement is still in the file');
  assert.deepEqual(
    reopened.doc.results!.restarts.map((r) => r.queries.map((q) => q.query)),
    [['Q1 renamed'], ['Q1 renamed']],
  );
  const records = readFileSync(journal, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(records[0].design.workload.queries[0].name, 'Q1 renamed', 'the journal header names the new query');
  assert.deepEqual([...new Set(records.filter((r) => r.t === 'execution').map((r) => r.query))], ['Q1 renamed'], 'and so do its executions');
  // The journal still reads as this file's finished run: nothing to resume, nothing rebuilt.
  assert.equal(reopened.unfinishedRun, undefined);
  assert.equal(isComplete(readJournal(journal)!), true);
  await docs.dispose();
});

test('a removed level asks, naming the restarts it removes; the copy holds exactly those, the file the rest', async () => {
  const docs = new DocumentService();
  const path = finished('trimmed');
  const before = onDisk(path);
  const opened = await docs.open(path);
  let stake;
  try {
    await docs.save({ path, doc: removeLevel(opened.doc), baseRevision: opened.revision });
    assert.fail('saved without asking');
  } catch (e) {
    assert.ok(e instanceof ApiError && e.code === 'results-at-stake', String(e));
    stake = e.details!.resultsAtStake!;
  }
  assert.equal(stake.restarts, 1, 'one restart (of cell B) is removed');
  assert.deepEqual(stake.moving, { restarts: 1, trimmed: 0, staying: 1 });
  assert.match(stake.changes.join(), /factor numa: levels default, interleave → default/);
  const saved = await docs.save({ path, doc: removeLevel(opened.doc), baseRevision: opened.revision, choice: 'keep-results-copy' });
  assert.deepEqual(onDisk(path).results!.restarts.map((r) => [r.seq, r.cell]), [[1, A]], 'the file keeps the restarts of the cells that stay');
  const copy = onDisk(stake.keepResultsAs);
  assert.deepEqual(copy.results!.restarts.map((r) => [r.seq, r.cell]), [[2, B]], 'the copy holds exactly the removed restart');
  assert.deepEqual(copy.design, before.design, 'with the design it was measured with');
  assert.match(saved.note ?? '', /1 restart moved to .*results-.*; 1 stay here/);
  assert.equal(existsSync(journalPath(path)), false, 'the journal of the old design is archived, not left to resume or rebuild');
  await docs.dispose();
});

test('Undo after the results went to a copy does not put them back into the file', async () => {
  const docs = new DocumentService();
  const path = file(`undo-${Math.random().toString(16).slice(2, 8)}`, withResults());
  const opened = await docs.open(path);
  const edited = { ...opened.doc, design: { ...opened.doc.design, workload: { ...opened.doc.design.workload, repetitions: 9 } } };
  const saved = await docs.save({ path, doc: edited, baseRevision: opened.revision, choice: 'keep-results-copy' });
  assert.equal(onDisk(path).results, undefined);
  // Undo: the client holds the document as it was, results and all, and saves it.
  await docs.save({ path, doc: opened.doc, baseRevision: saved.revision });
  assert.equal(onDisk(path).design.workload.repetitions, opened.doc.design.workload.repetitions, 'the design is undone');
  assert.equal(onDisk(path).results, undefined, 'the results stay in the copy only');
  await docs.dispose();
});

test('a level added to a finished file keeps its results and says what the new cells need', async () => {
  const docs = new DocumentService();
  const path = finished('grown');
  const before = onDisk(path);
  const opened = await docs.open(path);
  const grown = { ...opened.doc, design: { ...opened.doc.design, factors: opened.doc.design.factors.map((f, i) => (i === 3 ? { ...f, levels: [...f.levels, 'bind:0'] } : f)) } };
  const saved = await docs.save({ path, doc: grown, baseRevision: opened.revision });
  assert.deepEqual(onDisk(path).results, before.results, 'every restart stays, under the same cells');
  assert.match(saved.note ?? '', /8 cells need 1 restart each .*varlab run FILE --missing/);
  await docs.dispose();
});

test('a design edit is refused while a run writes into the file; labels still go through', async () => {
  const docs = new DocumentService({ busy: async () => 'a run of it is going on (on local)' });
  const path = file('busy', withResults());
  const opened = await docs.open(path);
  await assert.rejects(docs.save({ path, doc: { ...opened.doc, design: { ...opened.doc.design, seed: 9 } }, baseRevision: opened.revision, choice: 'keep-results-copy' }), refusal('busy'));
  await docs.save({ path, doc: { ...opened.doc, name: 'renamed mid-run' }, baseRevision: opened.revision });
  assert.equal(onDisk(path).name, 'renamed mid-run');
  await docs.dispose();
});

test('every change of an open file reaches the clients once, with its cause; a run keeps the labels on disk', async () => {
  const changes: DocumentChanged[] = [];
  const docs = new DocumentService({ emit: (c) => changes.push(c), settleMs: 50 });
  const path = file('watch', quickstart());
  const opened = await docs.open(path);
  const until = async (n: number) => {
    for (let i = 0; i < 200 && changes.length < n; i++) await new Promise((r) => setTimeout(r, 25));
  };

  await docs.save({ path, doc: { ...opened.doc, name: 'saved here' }, baseRevision: opened.revision });
  await until(1);
  // Another program: a new revision, told as external.
  writeFileSync(path, JSON.stringify({ ...onDisk(path), name: 'written by an editor' }, null, 2));
  await until(2);
  // A run saving results: the label the editor wrote stays.
  await docs.writeRunResults(path, quickstart(), { restarts: [restart(1, A)] });
  await until(3);
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    changes.map((c) => c.cause),
    ['save', 'external', 'run'],
    'each change once: the watcher does not repeat what this process wrote',
  );
  assert.equal(changes[1].doc?.name, 'written by an editor');
  assert.equal(changes[2].revision, sha(path));
  assert.equal(onDisk(path).name, 'written by an editor');
  assert.equal(measurementsIn(onDisk(path)).restarts, 1);
  await docs.dispose();
});

test('a file saved under a new path (Save As of the quickstart, of a dropped file) is watched: a run saving into it reaches the clients', async () => {
  const changes: DocumentChanged[] = [];
  const docs = new DocumentService({ emit: (c) => changes.push(c), settleMs: 50 });
  const path = join(dir, 'saved-as.varlab.json');
  // Never opened: the client held the quickstart, then saved it here.
  const saved = await docs.save({ path, doc: quickstart(), baseRevision: null });
  await docs.writeRunResults(path, quickstart(), { restarts: [restart(1, A), restart(2, B)] });
  for (let i = 0; i < 200 && !changes.some((c) => c.cause === 'run'); i++) await new Promise((r) => setTimeout(r, 25));
  const run = changes.find((c) => c.cause === 'run');
  assert.ok(run, `the run's save was told: ${JSON.stringify(changes.map((c) => c.cause))}`);
  assert.notEqual(run.revision, saved.revision);
  assert.equal(measurementsIn(run.doc).restarts, 2, 'with the results the run wrote');
  await docs.dispose();
});
