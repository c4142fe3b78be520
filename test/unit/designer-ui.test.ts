// The designer's pure logic, without a browser: exclusions carried across factor edits, the grid
// layout, level switches, .sql splitting, undo history and the store's dirty tracking, shortcuts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { expandCells } from '../../src/common/plan.js';
import { addFactor, addLevel, carryExclusions, moveFactor, removeFactor, toggleCell, toggleLevel } from '../../src/browser/views/designer/edits.js';
import { cellCountText, gridLayout } from '../../src/browser/views/designer/grid.js';
import { designProblems, numberProblem } from '../../src/browser/views/designer/problems.js';
import { queriesFromSql, setupTable, splitSql, withSetupSql } from '../../src/browser/views/designer/sql.js';
import { emptyHistory, recordEdit, redo, undo } from '../../src/browser/store/history.js';
import { fileSlug, suggestedPath } from '../../src/browser/store/doc.js';
import { useApp } from '../../src/browser/store/index.js';
import { commandFor, shortcutLabel } from '../../src/browser/components/shortcuts.js';

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'quickstart.varlab.json'), 'utf8'));
const A = 'aslr=on,ahi=on,preload=off,numa=default';

test('an excluded cell stays excluded when factors are reordered or added, and goes when its level goes', () => {
  const d = toggleCell(quickstart().design, A);
  assert.deepEqual(d.excludedCells, [A]);
  assert.deepEqual(moveFactor(d, 0, 1).excludedCells, ['ahi=on,aslr=on,preload=off,numa=default']);
  const added = addFactor(d, 'cpubind');
  assert.deepEqual(added.excludedCells, [`${A},cpubind=none`, `${A},cpubind=0`]);
  assert.equal(expandCells(added).length, 32);
  const noDefault = toggleLevel(d, 3, 'default');
  assert.ok(typeof noDefault !== 'string');
  assert.deepEqual(noDefault.excludedCells, []);
  // Removing a factor merges cells: the merged cell is excluded only if all its parts were.
  assert.deepEqual(removeFactor(d, 3).excludedCells, []);
  const both = toggleCell(d, 'aslr=on,ahi=on,preload=off,numa=interleave');
  assert.deepEqual(removeFactor(both, 3).excludedCells, ['aslr=on,ahi=on,preload=off']);
  assert.deepEqual(carryExclusions({ factors: [], excludedCells: [] }, d.factors), []);
});

test('levels keep the chip order, the last level cannot be switched off, custom levels are checked', () => {
  const d = quickstart().design;
  const r = toggleLevel(d, 3, 'bind:0');
  assert.ok(typeof r !== 'string');
  assert.deepEqual(r.factors[3].levels, ['default', 'interleave', 'bind:0']);
  const one = toggleLevel(d, 0, 'on');
  assert.ok(typeof one !== 'string');
  assert.match(String(toggleLevel(one, 0, 'off')), /ASLR needs at least 1 level/);
  assert.match(String(addLevel(d, 0, 'on; touch /tmp/x')), /not valid for ASLR: expected on, off or off-host/);
  assert.match(String(addLevel(d, 3, 'interleave')), /already switched on/);
  const bound = addLevel(d, 3, 'bind:3');
  assert.ok(typeof bound !== 'string');
  assert.deepEqual(bound.factors[3].levels, ['default', 'interleave', 'bind:3']);
});

test('the grid puts the first half of the factors on rows and the rest on columns', () => {
  const g = gridLayout(quickstart().design);
  assert.equal(g.rows.length, 4);
  assert.equal(g.cols.length, 4);
  assert.deepEqual(g.colHeaders.map((h) => [h.key, h.spans.map((s) => `${s.level}×${s.span}`)]), [
    ['preload', ['off×2', 'on×2']],
    ['numa', ['default×1', 'interleave×1', 'default×1', 'interleave×1']],
  ]);
  assert.deepEqual([...g.rowSpans[0].spans], [[0, 2], [2, 2]]);
  assert.equal(g.cell(1, 2), 'aslr=on,ahi=off,preload=on,numa=default');
  const all = new Set(g.rows.flatMap((_, r) => g.cols.map((_, c) => g.cell(r, c))));
  assert.deepEqual(all, new Set(expandCells(quickstart().design).map((c) => c.id)));
  assert.equal(gridLayout({ factors: [] }).cell(0, 0), '');
  assert.equal(cellCountText(16, 0), '16 cells');
  assert.equal(cellCountText(16, 1), '16 cells, 1 excluded');
});

test('inline problems name the field the backend would name', () => {
  const d = quickstart().design;
  assert.deepEqual(designProblems(d), {});
  const bad = { ...d, workload: { ...d.workload, warmup: 10, database: '1db', queries: [...d.workload.queries, { name: 'Q1 pricing summary', sql: ' ' }] } };
  const p = designProblems(bad);
  assert.match(p['design.workload.warmup'], /leave none of 10/);
  assert.match(p['design.workload.database'], /database name/);
  assert.match(p['design.workload.queries[5].name'], /used twice/);
  assert.match(p['design.workload.queries[5].sql'], /empty/);
  assert.equal(numberProblem('5', { min: 1, max: 10, integer: true }), null);
  assert.equal(numberProblem('0', { min: 1, max: 10, integer: true }), 'at least 1');
  assert.equal(numberProblem('1.5', { min: 0, max: 10, integer: true }), 'a whole number');
  assert.equal(numberProblem('', { min: 0, max: 10, integer: false }), 'a number');
});

test('a .sql file splits into one query per statement, outside quotes and comments', () => {
  assert.deepEqual(splitSql("SELECT ';' FROM t; -- a; b\nSELECT 2;\n/* c; */ SELECT `x;y` FROM z;\n-- only a comment\n"), [
    "SELECT ';' FROM t",
    '-- a; b\nSELECT 2',
    '/* c; */ SELECT `x;y` FROM z',
  ]);
  assert.deepEqual(queriesFromSql('q1.sql', 'SELECT 1;', ['q1']), [{ name: 'q1 (2)', sql: 'SELECT 1' }]);
  assert.deepEqual(queriesFromSql('t.sql', 'SELECT 1; SELECT 2', []).map((q) => q.name), ['t #1', 't #2']);
});

test("'Skip the setup when this table exists' is proposed from the setup script: the last table it creates, unless it drops or replaces what it makes", () => {
  // The quickstart's own choice, from its script: the last of its tables.
  const q = quickstart().design.workload;
  assert.equal(setupTable(q.setupSql), q.setupSkipIfTable);
  assert.equal(setupTable('-- data\nCREATE TABLE t (n INT);\nINSERT INTO t VALUES (1);\ncreate table if not exists `u2` (n INT);\nCREATE TEMPORARY TABLE tmp (n INT);'), 'u2');
  assert.equal(setupTable('CREATE TABLE other.t (n INT)'), undefined, 'a table in another database is not looked for in this one');
  assert.equal(setupTable('CREATE TABLE t (n INT); CREATE TABLE helper (n INT); DROP TABLE helper;'), 't', 'a helper it drops is not proposed');
  assert.equal(setupTable('DROP TABLE IF EXISTS t; CREATE TABLE t (n INT)'), undefined, 'made anew each run');
  assert.equal(setupTable('CREATE OR REPLACE TABLE t (n INT)'), undefined);
  assert.equal(setupTable('DROP DATABASE IF EXISTS d; CREATE TABLE t (n INT)'), undefined);
  assert.equal(setupTable("INSERT INTO x VALUES ('CREATE TABLE y (n INT)')"), undefined);
  assert.equal(setupTable(''), undefined);

  // The field follows the script while it is empty or holds what the script proposed; a table of the user's own stays.
  const w = { setupSql: '' } as { setupSql: string; setupSkipIfTable?: string };
  const one = withSetupSql(w, 'CREATE TABLE t (n INT)');
  assert.equal(one.setupSkipIfTable, 't');
  assert.equal(withSetupSql(one, 'CREATE TABLE t (n INT); CREATE TABLE t2 (n INT)').setupSkipIfTable, 't2');
  assert.equal('setupSkipIfTable' in withSetupSql(one, 'SELECT 1'), false, 'no table: the setup runs every time');
  const own = { setupSql: 'CREATE TABLE t (n INT)', setupSkipIfTable: 'mine' };
  assert.deepEqual(withSetupSql(own, 'CREATE TABLE t2 (n INT)'), { setupSql: 'CREATE TABLE t2 (n INT)', setupSkipIfTable: 'mine' });
  // Emptied by the user (''): kept as the user's choice whatever the script becomes; without the field, proposed.
  const declined = { setupSql: 'CREATE TABLE t (n INT)', setupSkipIfTable: '' };
  assert.deepEqual(withSetupSql(declined, 'CREATE TABLE t (n INT); CREATE TABLE t2 (n INT)'), { setupSql: 'CREATE TABLE t (n INT); CREATE TABLE t2 (n INT)', setupSkipIfTable: '' });
  assert.equal(withSetupSql({ setupSql: 'CREATE TABLE t (n INT)' } as { setupSql: string; setupSkipIfTable?: string }, 'CREATE TABLE t2 (n INT)').setupSkipIfTable, 't2');
  // A file that sets it to its last table (the quickstart): an edit that leaves the tables alone changes nothing.
  assert.equal(withSetupSql(q, q.setupSql + '\nANALYZE TABLE lineitem;').setupSkipIfTable, 'lineitem');
});

test('history: keyed edits coalesce into one undo step; a new edit clears redo', () => {
  let h = emptyHistory<number>();
  h = recordEdit(h, 0, 'name');
  h = recordEdit(h, 1, 'name');
  h = recordEdit(h, 2);
  assert.deepEqual(h.past, [0, 2]);
  const u = undo(h, 3)!;
  assert.equal(u.value, 2);
  const r = redo(u.history, 2)!;
  assert.equal(r.value, 3);
  assert.equal(undo(emptyHistory<number>(), 1), null);
  assert.deepEqual(recordEdit(u.history, 2).future, []);
});

test('the store tracks dirty against the saved version through edits, undo and save', () => {
  const s = useApp.getState();
  s.load({ path: null, doc: quickstart(), notices: [], revision: null });
  assert.equal(useApp.getState().dirty, false);
  s.edit((d) => ({ ...d, name: 'x' }), 'name');
  s.edit((d) => ({ ...d, name: 'xy' }), 'name');
  assert.equal(useApp.getState().dirty, true);
  assert.equal(useApp.getState().history.past.length, 1);
  s.undo();
  assert.equal(useApp.getState().dirty, false);
  assert.match(useApp.getState().doc!.name, /Quickstart/);
  s.redo();
  s.markSaved('/tmp/x.varlab.json', useApp.getState().doc!, useApp.getState().doc!, 'rev1');
  assert.equal(useApp.getState().dirty, false);
  assert.equal(useApp.getState().path, '/tmp/x.varlab.json');
  s.undo();
  assert.equal(useApp.getState().dirty, true, 'undoing past the save is a change');
  s.close();
});

test('Save As suggests the home folder and a file name from the experiment name; shortcuts map keys', () => {
  assert.equal(fileSlug('Quickstart: ASLR x AHI'), 'quickstart-aslr-x-ahi');
  assert.equal(suggestedPath({ name: 'My test' }, null, '/home/me/'), '/home/me/my-test.varlab.json');
  assert.equal(suggestedPath({ name: 'My test' }, '/data/a.varlab.json', '/home/me'), '/data/a.varlab.json');
  const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; shiftKey: boolean; altKey: boolean }>) => commandFor({ key: k, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, ...mods });
  assert.equal(key('s', { ctrlKey: true }), 'save');
  assert.equal(key('S', { ctrlKey: true, shiftKey: true }), 'save-as');
  assert.equal(key('z', { metaKey: true }), 'undo');
  assert.equal(key('Z', { ctrlKey: true, shiftKey: true }), 'redo');
  assert.equal(key('y', { ctrlKey: true }), 'redo');
  assert.equal(key('s', {}), null);
  assert.equal(shortcutLabel('redo', false), 'Ctrl+Shift+Z or Ctrl+Y');
  assert.equal(shortcutLabel('save', true), '⌘S');
});
