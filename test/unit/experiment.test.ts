import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checkExperiment, parseExperiment, problemsBeforeSave } from '../../src/common/experiment/validate.js';
import { buildPlan, expandCells } from '../../src/common/plan.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { designChanges, sameDesign } from '../../src/common/experiment/changes.js';

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));

test('the quickstart is valid and expands to 16 cells', () => {
  const r = checkExperiment(quickstart());
  assert.deepEqual(r.problems, []);
  assert.equal(expandCells(r.doc!.design).length, 16);
});

test('a factor with no levels is named by its JSON path', () => {
  const doc = quickstart();
  doc.design.factors[2].levels = [];
  assert.deepEqual(checkExperiment(doc).problems, ['design.factors[2].levels: expected at least 1 level']);
});

test('a level that could reach a shell is refused with its path', () => {
  const doc = quickstart();
  doc.design.factors[1].levels = ['on; touch /tmp/x'];
  const [p] = checkExperiment(doc).problems;
  assert.match(p, /^design\.factors\[1\]\.levels\[0\]: level "on; touch \/tmp\/x" is not valid for Adaptive hash index/);
});

test('a JSON syntax error names line and column', () => {
  const [p] = parseExperiment('{\n  "format": "varlab-experiment",\n  oops\n}').problems;
  assert.match(p, /line 3, column 3/);
});

test('a version 1 file is migrated on open', () => {
  const doc = quickstart() as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  doc.version = 1;
  doc.design.order = { kind: 'random', seed: 7 };
  doc.design.restarts = doc.design.restartsPerCell;
  delete doc.design.restartsPerCell;
  delete doc.design.seed;
  const r = checkExperiment(doc);
  assert.deepEqual(r.problems, []);
  assert.equal(r.doc!.design.order, 'random');
  assert.equal(r.doc!.design.seed, 7);
  assert.equal(r.notices.length, 1);
});

test('a password anywhere in the document is refused before saving', () => {
  const doc = quickstart() as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  doc.design.serverProfile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/tmp/d', socket: '/tmp/s', port: 3307, user: 'root', extraArgs: [], sudo: false, password: 'hunter2' };
  const [p] = problemsBeforeSave(doc);
  assert.match(p, /^refused to save: design\.serverProfile\.password /);
});

test('interleaved order rotates the cells each round; blocked runs a cell to its end', () => {
  const doc = quickstart();
  doc.design.factors = [{ tunable: 'aslr', levels: ['on', 'off'] }, { tunable: 'ahi', levels: ['on'] }, { tunable: 'preload', levels: ['off'] }, { tunable: 'numa', levels: ['default', 'interleave'] }];
  doc.design.restartsPerCell = 2;
  const cells = expandCells(doc.design).map((c) => c.id);
  const inter = buildPlan(doc.design, 'interleaved').map((s) => cells.indexOf(s.cell));
  assert.deepEqual(inter, [0, 1, 2, 3, 1, 2, 3, 0]);
  const blocked = buildPlan(doc.design, 'blocked').map((s) => cells.indexOf(s.cell));
  assert.deepEqual(blocked, [0, 0, 1, 1, 2, 2, 3, 3]);
});

test('random order is a seeded permutation per round', () => {
  const d = quickstart().design;
  const a = buildPlan(d, 'random').map((s) => s.cell);
  const b = buildPlan(d, 'random').map((s) => s.cell);
  assert.deepEqual(a, b);
  for (let r = 0; r < d.restartsPerCell; r++) assert.equal(new Set(a.slice(r * 16, r * 16 + 16)).size, 16);
  assert.notDeepEqual(buildPlan({ ...d, seed: d.seed + 1 }, 'random').map((s) => s.cell), a);
});

test('a version 2 file with a server profile is migrated: the profile names the target it was for', () => {
  const v2 = { ...quickstart(), version: 2 } as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  v2.design.target = 'ssh://db1';
  v2.design.serverProfile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/d', socket: '/srv/s.sock', port: 3307, user: 'root', extraArgs: [], sudo: false };
  const r = checkExperiment(v2);
  assert.deepEqual(r.problems, []);
  assert.equal(r.doc!.version, 3);
  assert.equal(r.doc!.design.serverProfile!.target, 'ssh://db1');
  assert.match(r.notices[0], /migrated from version 2: the server profile is now kept for its target \(ssh:\/\/db1\) only/);
  // Without a profile there is nothing to say.
  const plain = checkExperiment({ ...quickstart(), version: 2 });
  assert.equal(plain.doc!.version, 3);
  assert.deepEqual(plain.notices, []);
  // A version 3 file must name it.
  const missing = structuredClone(r.doc!) as unknown as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  delete missing.design.serverProfile.target;
  assert.match(checkExperiment(missing).problems.join('\n'), /design\.serverProfile\.target: required but missing/);
});

test('design changes are said in words; labels and notes are not design', () => {
  const a = quickstart();
  const b = structuredClone(a);
  b.name = 'renamed';
  b.description = 'notes';
  assert.equal(sameDesign(a, b), true);
  b.design.restartsPerCell = 9;
  b.design.workload.queries[1].sql = 'SELECT 1';
  b.design.workload.queries.push({ name: 'Q99', sql: 'SELECT 2' });
  b.design.factors[0].levels = ['on'];
  assert.equal(sameDesign(a, b), false);
  assert.deepEqual(designChanges(a.design, b.design), [
    'factor aslr: levels on, off → on',
    'restarts per cell: 5 → 9',
    `query ${a.design.workload.queries[1].name}: SQL changed`,
    'query Q99 added',
  ]);
  // Emptied by the user (''): no table, as an older file without the field; a table chosen before is a change.
  const none = structuredClone(a.design);
  delete none.workload.setupSkipIfTable;
  const emptied = structuredClone(a.design);
  emptied.workload.setupSkipIfTable = '';
  assert.deepEqual(designChanges(none, emptied), []);
  assert.deepEqual(designChanges(a.design, emptied), ['setup skipped when table exists: lineitem → (none)']);
});
