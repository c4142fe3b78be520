// Experiment files through the UI in browser mode: Save As to a path, reopen from the recent list
// and from the open dialog, the unsaved-changes prompt, invalid files (picked and dropped) with the
// backend's path-naming message, a refused save, importing queries from a .sql file, and a file
// changed on disk by another program (shown as it is now; with unsaved edits, reload or keep them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { appForTests, dropFile, openFile, openQuickstart, pageProblems } from './support.js';

const env = appForTests();

const quickstartText = () => readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'quickstart.varlab.json'), 'utf8');
const problems = pageProblems;

async function saveAs(page: Page, path: string): Promise<void> {
  await page.getByTestId('save-as').click();
  await page.getByTestId('save-path').fill(path);
  await page.getByTestId('save-path-submit').click();
}

// Page-side code is given as text: the Node tsconfig has no DOM types, and should not get them.
async function statusText(page: Page, pattern: RegExp): Promise<string> {
  await page.getByTestId('status-text').filter({ hasText: pattern }).waitFor();
  return page.getByTestId('status-text').innerText();
}

test('save as a path, then reopen it from the recent list and the open dialog: the changes are there', async () => {
  const page = await env.open();
  await openQuickstart(page);
  await page.getByTestId('experiment-name').fill('ASLR check');
  await page.locator('[data-testid=cell][data-cell="aslr=off,ahi=off,preload=on,numa=interleave"]').click();
  await page.getByTestId('order-blocked').check();

  // Ctrl+S on a document without a path asks where to save, suggesting varlab's experiments folder (the
  // quickstart's: VARLAB_HOME/experiments here, not the user's home outside it) and the name.
  await page.keyboard.press('Control+s');
  assert.equal(await page.getByTestId('save-path').inputValue(), join(env.app.home, 'experiments', 'aslr-check.varlab.json'));
  await page.getByRole('button', { name: 'Cancel' }).click();

  const file = join(env.app.dir, 'aslr-check.varlab.json');
  await saveAs(page, file);
  assert.match(await statusText(page, /Saved/), new RegExp(`Saved ${file}`));
  assert.equal(await page.getByTestId('dirty').count(), 0);
  assert.ok(existsSync(file));
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  assert.deepEqual(saved.design.excludedCells, ['aslr=off,ahi=off,preload=on,numa=interleave']);
  assert.equal(saved.design.order, 'blocked');
  await page.close();

  // A fresh window: the welcome screen lists the file among the recent ones.
  const again = await env.open();
  await again.getByTestId('recent-file').filter({ hasText: 'aslr-check.varlab.json' }).click();
  await again.getByTestId('cell-count').waitFor();
  assert.equal(await again.getByTestId('cell-count').innerText(), '16 cells, 1 excluded');
  assert.equal(await again.getByTestId('experiment-name').inputValue(), 'ASLR check');
  assert.equal(await again.getByTestId('order-blocked').isChecked(), true);
  assert.equal(await again.getByTestId('blocked-warning').count(), 1);

  // Change it, save with Ctrl+S (to the same path, no dialog), and open it through the open dialog.
  await again.locator('[data-testid=cell][data-cell="aslr=on,ahi=on,preload=off,numa=default"]').click();
  await again.keyboard.press('Control+s');
  await statusText(again, /Saved/);
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).design.excludedCells.length, 2);
  await openFile(again, file);
  assert.equal(await again.getByTestId('cell-count').innerText(), '16 cells, 2 excluded');
  assert.deepEqual(problems(again), []);
  await again.close();
});

test('Save As of a new, untitled experiment names it after the file; Undo gives the old name back; a name the user gave stays', async () => {
  const page = await env.open();
  await page.getByTestId('new-experiment').click();
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'Untitled experiment');
  const file = join(env.app.dir, 'ab.varlab.json');
  await saveAs(page, file);
  await statusText(page, /Saved/);
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'ab');
  assert.equal(JSON.parse(readFileSync(file, 'utf8')).name, 'ab', 'the file holds the name that titles its plots and report');
  assert.equal(await page.getByTestId('dirty').count(), 0);
  await page.getByTestId('undo').click();
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'Untitled experiment');
  await page.getByTestId('dirty').waitFor();
  // Named by the user: Save As elsewhere keeps that name.
  await page.getByTestId('experiment-name').fill('B against A');
  await saveAs(page, join(env.app.dir, 'other.varlab.json'));
  await statusText(page, /Saved .*other\.varlab\.json/);
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'B against A');
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('opening another file asks before discarding unsaved changes', async () => {
  const page = await env.open();
  await openQuickstart(page);
  await page.getByTestId('experiment-name').fill('Changed name');
  await page.keyboard.press('Control+o');
  await page.getByTestId('confirm-dialog').waitFor();
  assert.match(await page.getByTestId('confirm-dialog').innerText(), /"Changed name" has changes that are not saved/);
  await page.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.getByTestId('open-dialog').count(), 0);
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'Changed name');

  await page.getByTestId('open').click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('open-dialog').waitFor();
  await page.keyboard.press('Escape');

  // Closing the window with unsaved changes asks too (beforeunload).
  const asked = await page.evaluate(`(() => {
    const e = new Event('beforeunload', { cancelable: true });
    window.dispatchEvent(e);
    return e.defaultPrevented;
  })()`);
  assert.equal(asked, true);
  await page.close();
});

test('an invalid file, picked or dropped, shows the path-naming message and the app keeps running', async () => {
  const broken = JSON.parse(quickstartText());
  broken.design.factors[2].levels = [];
  const text = JSON.stringify(broken);

  const page = await env.open();
  await page.getByTestId('welcome-open').click();
  await page.getByTestId('open-file-input').setInputFiles({ name: 'broken.varlab.json', mimeType: 'application/json', buffer: Buffer.from(text) });
  assert.match(await statusText(page, /expected at least/), /design\.factors\[2\]\.levels: expected at least 1 level/);
  assert.equal(await page.getByTestId('welcome').count(), 1, 'nothing was opened');
  await page.keyboard.press('Escape');

  await page.getByTestId('open-quickstart').click();
  await page.getByTestId('cell-count').waitFor();
  await dropFile(page, 'dropped.varlab.json', text.replace(/"version":\d+/, '"version":"two"'));
  assert.match(await statusText(page, /dropped\.varlab\.json/), /Cannot open dropped\.varlab\.json:[\s\S]*version/);
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells', 'the open experiment is still there');

  // A valid dropped file opens.
  await dropFile(page, 'good.varlab.json', quickstartText().replace('"restartsPerCell": 5', '"restartsPerCell": 3'));
  await statusText(page, /Opened/);
  assert.match(await page.getByTestId('planned-count').innerText(), /× 3 restarts = 48 restarts/);
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('a save that would write a private key into the file is refused and the document stays dirty', async () => {
  const page = await env.open();
  await openQuickstart(page);
  await page.getByTestId('setup-sql').fill('-- -----BEGIN OPENSSH PRIVATE KEY-----\nCREATE TABLE t (a INT);');
  const file = join(env.app.dir, 'secret.varlab.json');
  await saveAs(page, file);
  assert.match(await statusText(page, /refused/), /Not saved: refused to save: design\.workload\.setupSql would write a secret into the file/);
  assert.equal(existsSync(file), false);
  assert.equal(await page.getByTestId('dirty').count(), 1);
  await page.close();
});

test('queries are imported from a .sql file, one per statement', async () => {
  const page = await env.open();
  await page.getByTestId('new-experiment').click();
  await page.getByTestId('cell-count').waitFor();
  const chooser = page.waitForEvent('filechooser');
  await page.getByTestId('import-sql').click();
  await (await chooser).setFiles({
    name: 'tpch.sql',
    mimeType: 'application/sql',
    buffer: Buffer.from("-- two queries\nSELECT COUNT(*) FROM lineitem;\nSELECT 'a;b' FROM orders; -- trailing\n"),
  });
  await statusText(page, /Imported 2 queries from tpch\.sql/);
  const names = await Promise.all((await page.getByTestId('query-name').all()).map((l) => l.inputValue()));
  assert.deepEqual(names, ['Q1', 'tpch #1', 'tpch #2']);
  assert.equal(await page.getByTestId('query-sql').nth(2).inputValue(), "SELECT 'a;b' FROM orders");
  await page.close();
});

test('a file changed on disk by another program: shown as it is now; with unsaved edits the user reloads it or keeps the edits', async () => {
  const page = await env.open();
  await openQuickstart(page);
  const file = join(env.app.dir, 'edited-elsewhere.varlab.json');
  await saveAs(page, file);
  await statusText(page, /Saved/);
  const elsewhere = (edit: (d: ExperimentDoc) => void) => {
    const d = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    edit(d);
    writeFileSync(file, JSON.stringify(d, null, 2));
  };

  // Nothing unsaved: the window shows the file as it is now, and says so.
  elsewhere((d) => (d.name = 'Renamed in an editor'));
  assert.match(await statusText(page, /changed on disk/), /edited-elsewhere\.varlab\.json changed on disk; showing it as it is now/);
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'Renamed in an editor');
  assert.equal(await page.getByTestId('dirty').count(), 0);

  // Unsaved edits: the user is asked, and keeps them.
  await page.getByTestId('experiment-name').fill('My name');
  elsewhere((d) => (d.design.restartsPerCell = 3));
  const dialog = page.getByTestId('choice-dialog');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /edited-elsewhere\.varlab\.json was changed by another program, and you have unsaved edits/);
  await page.getByTestId('choice-keep').click();
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'My name');
  assert.equal(await page.getByTestId('dirty').count(), 1);
  // Saved, the user's version is on disk: what they chose to keep.
  await page.keyboard.press('Control+s');
  await statusText(page, /^Saved/);
  const mine = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(mine.name, 'My name');
  assert.equal(mine.design.restartsPerCell, 5);

  // Again, with edits, and this time the user reloads: the file as the other program left it, nothing unsaved.
  await page.getByTestId('experiment-name').fill('Not kept');
  elsewhere((d) => (d.design.restartsPerCell = 4));
  await dialog.waitFor();
  await page.getByTestId('choice-reload').click();
  await dialog.waitFor({ state: 'detached' });
  await statusText(page, /^Opened/);
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'My name');
  assert.equal(await page.getByLabel('Restarts per cell').inputValue(), '4');
  assert.equal(await page.getByTestId('dirty').count(), 0);
  assert.deepEqual(problems(page), []);
  await page.close();
});

test("a tab opened without the token says which address to use, and starts once that address is pasted into it", async () => {
  const page = await env.browser.newPage();
  try {
    const bare = env.app.url.replace(/#.*$/, '');
    await page.goto(bare);
    await page.locator('#root').filter({ hasText: 'needs the address that `npm start` or `npm run web` printed (it carries the token of this launch)' }).waitFor();
    // Pasting the printed address changes only the fragment of this page.
    await page.goto(env.app.url);
    await page.getByTestId('open-quickstart').waitFor({ timeout: 15_000 });
  } finally {
    await page.close();
  }
});

test('the Run view of an unsaved experiment says to save it first, with the button that does: saved, the Run panel takes its place', async () => {
  const page = await env.open();
  await openQuickstart(page);
  await page.getByTestId('nav-run').click();
  assert.match(await page.getByTestId('run-needs-save').innerText(), /^Save the experiment to a file first/);
  await page.getByTestId('run-save-as').click();
  const file = join(env.app.dir, 'from-run-view.varlab.json');
  await page.getByTestId('save-path').fill(file);
  await page.getByTestId('save-path-submit').click();
  await page.getByTestId('run-start').waitFor();
  assert.equal(await page.getByTestId('run-needs-save').count(), 0);
  assert.ok(existsSync(file), 'the file is on disk');
  assert.deepEqual(problems(page), []);
  await page.close();
});
