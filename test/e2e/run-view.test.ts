// The Run view with a real run on `local` (a sandbox mariadbd of its own, never the system one):
// a finished file shows its results and is run again only after a confirmation that names where the
// current results are kept; a second tab opened mid-run attaches to the run and cancels it; after
// the cancel the discarded restart's executions are gone from the count; another file opened in that
// tab mid-run leaves the run shown and says whose run it is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { alive, keepCells, quickstartCopy, varlabRun } from '../integration/run-env.js';
import { openApp, openFile, pageProblems, runAppForTests } from './support.js';

const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=on,ahi=off,preload=off,numa=default'];
const QUERIES = 5;
const REPS = 40;

const t = runAppForTests();

async function executions(page: Page): Promise<number> {
  return Number((await page.getByTestId('run-executions').innerText()).replace(/[^\d]/g, ''));
}

test('a finished file shows its results and runs again only when confirmed; a new tab cancels the run; discarded executions leave the count', { timeout: 600_000 }, async () => {
  const file = quickstartCopy(t.env, 'view', (d: ExperimentDoc) => {
    keepCells(d, CELLS);
    d.design.target = 'local';
    delete d.design.serverProfile;
    d.design.restartsPerCell = 2;
    d.design.workload.repetitions = REPS;
    d.design.workload.warmup = 0;
  });
  const first = varlabRun([file], t.app.home);
  assert.equal(await first.exit, 0, first.stderr());
  const finishedText = readFileSync(file, 'utf8');

  const page = await openApp(t.browser, t.app);
  await openFile(page, file);
  await page.getByTestId('nav-run').click();

  // Finished: its count and its plots, not a blank view; no Run button that would silently start over.
  const count = page.getByTestId('run-finished-count');
  await count.waitFor({ timeout: 30_000 });
  assert.equal(await count.innerText(), 'Finished: 4 of 4 restarts');
  await page.getByTestId('run-timeline').waitFor();
  assert.equal(await page.getByTestId('run-start-button').count(), 0);
  // Two restarts per cell carry no MDE: the view says how many more it takes, and which MDE it would be.
  const mdeText = await page.getByTestId('run-mde').innerText();
  assert.match(mdeText, /minimum detectable effect now \(pooled over cells, α 0\.05, power 0\.8\)/);
  assert.match(mdeText, /needs 1 more restart \(3 per cell\)/, 'no MDE number from 2 restarts per cell');

  // Run again: the confirmation names the copy that keeps the current results; Cancel there changes nothing.
  await page.getByTestId('run-again').click();
  const dialog = page.getByTestId('confirm-dialog');
  await dialog.waitFor();
  const keptAs = /kept in (\S+\.results-\S+\.varlab\.json)/.exec(await dialog.innerText())?.[1];
  assert.ok(keptAs, await dialog.innerText());
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(readFileSync(file, 'utf8'), finishedText);
  await page.getByTestId('run-again').click();
  await page.getByTestId('confirm-yes').click();
  await page.getByTestId('run-state').filter({ hasText: 'running' }).waitFor({ timeout: 30_000 });
  assert.ok(existsSync(keptAs), 'the copy with the old results was written');
  assert.deepEqual((JSON.parse(readFileSync(keptAs, 'utf8')) as ExperimentDoc).results, (JSON.parse(finishedText) as ExperimentDoc).results);

  // Before a cell has 2 restarts, the view says why there is no MDE and no between-restart CV yet.
  await page.getByTestId('run-spread-why').waitFor({ timeout: 120_000 });
  assert.match(await page.getByTestId('run-spread-why').innerText(), /needs at least 2 restarts of a cell/);
  assert.match(await page.getByTestId('run-mde').innerText(), /needs (3 restarts of a cell|\d more restarts? \(3 per cell\))/);

  // A second tab, nothing open in it: it attaches to the run and can cancel it, mid-restart.
  const other = await openApp(t.browser, t.app);
  await other.getByTestId('nav-run').click();
  await other.getByTestId('run-state').filter({ hasText: 'running' }).waitFor({ timeout: 30_000 });
  assert.equal(await other.getByTestId('run-other-file').count(), 0, 'nothing else open: the run is the tab\'s file');
  // Another file opened in that tab mid-run: the view still shows the run, and says whose it is (its Pause and Cancel act on it).
  const otherFile = quickstartCopy(t.env, 'other', (d: ExperimentDoc) => {
    d.name = 'Another experiment';
  });
  await openFile(other, otherFile);
  await other.getByTestId('nav-run').click();
  const whose = other.getByTestId('run-other-file');
  await whose.waitFor({ timeout: 30_000 });
  const said = await whose.innerText();
  assert.ok(said.includes(`This is the run of ${file}, not of the open file ${otherFile}`), said);
  await openFile(other, file);
  await other.getByTestId('nav-run').click();
  await other.getByTestId('run-state').filter({ hasText: 'running' }).waitFor({ timeout: 30_000 });
  assert.equal(await other.getByTestId('run-other-file').count(), 0, 'the run\'s own file open again');
  const perRestart = QUERIES * REPS;
  await other.getByTestId('run-count').filter({ hasText: /^1 of 4 restarts/ }).waitFor({ timeout: 120_000 });
  for (let i = 0; i < 600 && (await executions(other)) <= perRestart + 5; i++) await other.waitForTimeout(50);
  await other.getByTestId('run-cancel').click();
  await other.getByTestId('run-state').filter({ hasText: 'cancelled' }).waitFor({ timeout: 120_000 });
  assert.equal(await other.getByTestId('run-needs-save').count(), 0, 'the tab knows the file of the run it attached to');
  assert.equal(await other.getByTestId('run-error').count(), 0);

  // Both tabs: only finished restarts' executions count (the cancelled restart's are discarded).
  for (const p of [page, other]) {
    await p.getByTestId('run-state').filter({ hasText: 'cancelled' }).waitFor({ timeout: 30_000 });
    const done = Number(/^(\d+) of 4/.exec(await p.getByTestId('run-count').innerText())![1]);
    assert.equal(await executions(p), done * perRestart, `executions shown after the cancel: ${await p.getByTestId('run-progress').innerText()}`);
    assert.match(await p.getByTestId('run-log').innerText(), /discarded/);
  }
  const pidFile = t.env.profile.pidFile ?? join(t.env.profile.datadir, 'mysqld.pid');
  const left = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim() || 0) : 0;
  // alive(): a zombie waiting for its parent to reap it has stopped running.
  assert.equal(left > 0 && alive(left), false, 'mysqld was stopped');
  assert.deepEqual(pageProblems(page), []);
  assert.deepEqual(pageProblems(other), []);
});
