// Experiment files as written and read on disk: one restart per line, any JSON layout read back the
// same in pieces, bad JSON named by line and column, and the file untouched by a failed write.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExperimentJsonReader, experimentText, NotJson } from '../../src/common/experiment/text.js';
import { readExperimentFile, saveExperimentFile, writeExperimentFile } from '../../src/node/files.js';
import { finishedQuickstart, QUOTED_QUERY } from '../fixtures/export-experiment.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-file-'));
  process.env.VARLAB_HOME = join(dir, 'home');
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Read `text` through the reader in chunks of `size` bytes. */
function readInChunks(text: string, size: number): unknown {
  const bytes = new TextEncoder().encode(text);
  const r = new ExperimentJsonReader();
  for (let i = 0; i < bytes.length; i += size) r.push(bytes.subarray(i, i + size));
  return r.end();
}

/** A finished experiment whose strings hold everything a scanner could trip on. */
function awkward(): ExperimentDoc {
  const doc = finishedQuickstart();
  doc.description = 'brackets ] } [ { , : and a "restarts": [1, 2] key in a string, a backslash \\" and ünïcödé ✓';
  doc.results!.timerNote = '"results": {"restarts": []}';
  doc.results!.restarts[0].reason = 'a reason with "restarts": [ and \\\\';
  return doc;
}

test('written: indented design, one line per restart, and JSON that reads back equal', () => {
  const doc = awkward();
  const text = [...experimentText(doc)].join('');
  assert.deepEqual(JSON.parse(text), JSON.parse(JSON.stringify(doc)));
  const lines = text.split('\n');
  const restartLines = lines.filter((l) => l.startsWith('      {"seq":'));
  assert.equal(restartLines.length, doc.results!.restarts.length);
  assert.ok(lines.includes('  "design": {'), 'the design stays indented for people');
  assert.ok(text.endsWith('\n    ]\n  }\n}\n'));
  // No results, and results without restarts or without anything but restarts.
  const { results: _, ...bare } = doc;
  assert.deepEqual(JSON.parse([...experimentText(bare as ExperimentDoc)].join('')), JSON.parse(JSON.stringify(bare)));
  for (const results of [{ restarts: [] }, { startedAt: 5, restarts: [] }, { restarts: doc.results!.restarts.slice(0, 1) }]) {
    const d = { ...bare, results } as ExperimentDoc;
    assert.deepEqual(JSON.parse([...experimentText(d)].join('')), JSON.parse(JSON.stringify(d)));
  }
});

test('read in pieces: any layout and any chunk size gives what JSON.parse gives', () => {
  const doc = awkward();
  const expected = JSON.parse(JSON.stringify(doc));
  const { results, ...design } = doc;
  const layouts = [
    [...experimentText(doc)].join(''),
    JSON.stringify(doc),
    JSON.stringify(doc, null, 2),
    JSON.stringify(doc, null, '\t').replace(/\n/g, '\r\n'),
    // results first, restarts first within them, nested "restarts" keys inside a restart
    JSON.stringify({ results: { restarts: results!.restarts, host: results!.host, startedAt: results!.startedAt, finishedAt: results!.finishedAt }, ...design }),
  ];
  for (const text of layouts) {
    for (const size of [1, 3, 7, 64, 1 << 20]) {
      assert.deepEqual(readInChunks(text, size), JSON.parse(text), `chunks of ${size}`);
    }
  }
  assert.deepEqual(readInChunks(layouts[0], 5), expected);
  // A restart that holds a "restarts" key of its own, and a design that names results.
  const odd = JSON.parse(JSON.stringify(doc));
  odd.results.restarts[1].preload = { restarts: [{ x: 1 }], results: { restarts: [] } };
  odd.design.workload.queries[0].name = 'results';
  const text = JSON.stringify(odd);
  assert.deepEqual(readInChunks(text, 11), odd);
});

test('read in pieces: what is not JSON is refused, what JSON.parse accepts is accepted', () => {
  const good = '{"a":1,"results":{"restarts":[{"seq":1} , {"seq":2}\n]}}';
  assert.deepEqual(readInChunks(good, 2), JSON.parse(good));
  const bad = [
    '{"results":{"restarts":[{"seq":1} {"seq":2}]}}',
    '{"results":{"restarts":[{"seq":1},]}}',
    '{"results":{"restarts":[,{"seq":1}]}}',
    '{"results":{"restarts":[{"seq":1},,{"seq":2}]}}',
    '{"results":{"restarts":[{"seq":1}',
    '{"results":{"restarts":[{"seq":1]}}',
    '{"results":{"restarts":[1 2]}}',
    '{"results":{"restarts":[]}}}',
    '{"results":{"restarts":[]}',
    '',
  ];
  for (const text of bad) {
    assert.throws(() => JSON.parse(text), `JSON.parse accepts ${text}`);
    for (const size of [1, 4, 100]) assert.throws(() => readInChunks(text, size), NotJson, `${text} in chunks of ${size}`);
  }
  // Valid JSON, however odd: primitives as restarts, duplicate keys (the whole-text parse decides).
  for (const text of ['{"results":{"restarts":[1,"x",null,[2]]}}', '{"results":{"restarts":[1 ]}}', '{"results":{"restarts":["a"]}}']) {
    assert.deepEqual(readInChunks(text, 3), JSON.parse(text));
  }
  assert.throws(() => readInChunks('{"results":{"restarts":[1]},"results":{"restarts":[2]}}', 3), NotJson);
  assert.throws(() => readInChunks('{"results":{"restarts":[1],"restarts":[2]}}', 3), NotJson);
});

test('readExperimentFile: a written file reads back; bad JSON names line and column; a duplicate key reads as JSON.parse does', async () => {
  const doc = finishedQuickstart();
  const path = join(dir, 'done.varlab.json');
  await writeExperimentFile(path, doc);
  const r = await readExperimentFile(path);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.doc, JSON.parse(JSON.stringify(doc)));
  assert.ok(r.doc!.results!.restarts.some((x) => x.queries.some((q) => q.query === QUOTED_QUERY)));
  assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');

  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith('      {"seq":2,'));
  lines[at] = lines[at].replace('{"seq":2,', '{"seq":2 ');
  writeFileSync(path, lines.join('\n'));
  const broken = await readExperimentFile(path);
  assert.equal(broken.doc, null);
  assert.match(broken.problems[0], new RegExp(`^\\(document\\): not valid JSON at line ${at + 1}, column \\d+`));

  const dup = JSON.parse(text);
  const twice = JSON.stringify(dup).replace('"restarts":[', '"restarts":[],"restarts":[');
  writeFileSync(path, twice);
  assert.deepEqual((await readExperimentFile(path)).doc, dup);

  assert.match((await readExperimentFile(join(dir, 'none.json'))).problems[0], /cannot read .*none\.json: no such file/);
  assert.match((await readExperimentFile(dir)).problems[0], /cannot read .*: a folder, not a file/);
});

test("an emptied 'Skip the setup when this table exists' is saved as '' (the user chose no skip table) and reads back so; a file without the field still has none", async () => {
  const doc = finishedQuickstart();
  delete doc.results;
  doc.design.workload.setupSkipIfTable = '';
  const path = join(dir, 'declined.varlab.json');
  await saveExperimentFile(path, doc);
  const r = await readExperimentFile(path);
  assert.deepEqual(r.problems, []);
  assert.equal(r.doc!.design.workload.setupSkipIfTable, '', 'the choice is kept, not dropped nor refused');
  delete doc.design.workload.setupSkipIfTable;
  await saveExperimentFile(path, doc);
  assert.equal('setupSkipIfTable' in (await readExperimentFile(path)).doc!.design.workload, false, 'an older file: no choice made, so the Designer may propose one');
  // Still a table name when it is one.
  doc.design.workload.setupSkipIfTable = 'no such table';
  await assert.rejects(saveExperimentFile(path, doc), /setupSkipIfTable/);
});

test('saveExperimentFile writes the same layout and refuses an invalid document without touching the file', async () => {
  const doc = finishedQuickstart();
  const path = join(dir, 'saved.varlab.json');
  await saveExperimentFile(path, doc);
  const before = readFileSync(path, 'utf8');
  assert.equal(before, [...experimentText(doc)].join(''));
  const bad = JSON.parse(before) as ExperimentDoc;
  bad.design.restartsPerCell = 0;
  await assert.rejects(saveExperimentFile(path, bad), /design\.restartsPerCell/);
  assert.equal(readFileSync(path, 'utf8'), before);
});

test('the schema validator is compiled at build time: the committed code is what the schema compiles to, with no eval', async () => {
  const { GENERATED, validatorSource } = await import('../../scripts/schema-validator.js');
  const committed = readFileSync(GENERATED, 'utf8');
  assert.equal(committed, validatorSource(), `${GENERATED} is stale: run npm run build (or tsx scripts/schema-validator.ts)`);
  assert.doesNotMatch(committed, /\bnew Function\b|\beval\(|\brequire\(/);
});
