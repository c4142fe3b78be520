// A finished experiment is renamed, grown and trimmed in the browser without losing a measurement or
// measuring a cell twice (issue 25), on a sandbox mariadbd of its own on `local`:
//   - a query renamed and saved: no dialog, every result is there under the new name, on disk and
//     after reopening;
//   - a level added (two of its cells kept) and saved: no dialog; the Run view offers "Run only what is
//     missing", which runs the new cells alone; the file on disk holds the old restarts as they were
//     and the new ones after them; Analysis marks the new cells as measured later and compares
//     them only with cells of their own run unless asked to compare across runs;
//   - that level removed again: the dialog names the restarts it removes, and the copy holds exactly
//     those; the file keeps the rest.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { expandCells } from '../../src/common/plan.js';
import { keepCells, quickstartCopy } from '../integration/run-env.js';
import { openApp, openFile, pageProblems, runAppForTests } from './support.js';

const OLD = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=on,ahi=off,preload=off,numa=default'];
const NEW = ['aslr=on,ahi=on,preload=off,numa=bind:0', 'aslr=on,ahi=off,preload=off,numa=bind:0'];

const setup = runAppForTests();

const onDisk = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;

test('rename a query, grow by a level and run only what is missing, trim it again: every measurement kept, no cell measured twice', { timeout: 600_000 }, async () => {
  const { env, app, browser } = setup;
  const file = quickstartCopy(env, 'grow-ui', (d) => {
    keepCells(d, OLD);
    d.design.target = 'local';
    delete d.design.serverProfile;
    d.design.restartsPerCell = 2;
    d.design.order = 'interleaved';
    d.design.workload.queries = d.design.workload.queries.slice(0, 2);
    d.design.workload.repetitions = 3;
    d.design.workload.warmup = 1;
  });
  const firstQuery = onDisk(file).design.workload.queries[0].name;
  const page = await openApp(browser, app);
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 4 of 4 restarts' }).waitFor({ timeout: 300_000 });
  const finished = onDisk(file).results!;

  // Rename the first query and save: no dialog, the results follow the name.
  await page.getByTestId('nav-design').click();
  await page.getByTestId('query-name').first().fill('Q1 renamed');
  await page.getByTestId('save').click();
  await page.getByTestId('status-text').filter({ hasText: /renamed in the results: query .* → Q1 renamed/ }).waitFor();
  const renamed = onDisk(file);
  assert.deepEqual(renamed.results!.restarts.map((r) => r.queries.map((q) => q.query)), finished.restarts.map((r) => r.queries.map((q) => (q.query === firstQuery ? 'Q1 renamed' : q.query))));
  assert.deepEqual(renamed.results!.restarts.map((r) => r.queries.map((q) => q.values)), finished.restarts.map((r) => r.queries.map((q) => q.values)), 'every value is still there');
  await page.close();

  // Reopened: Analysis shows the query under its new name.
  const again = await openApp(browser, app);
  await openFile(again, file);
  await again.getByTestId('nav-analysis').click();
  await again.getByText('Q1 renamed').first().waitFor({ timeout: 60_000 });
  assert.equal(await again.getByText(firstQuery, { exact: true }).count(), 0, 'the old name is gone from Analysis');

  // Add the level bind:0 to NUMA and keep two of its cells: saved without a dialog, what is missing is said.
  await again.getByTestId('nav-design').click();
  await again.locator('[data-testid=factor][data-factor=numa] [data-testid=level-chip][data-level="bind:0"]').click();
  const all = expandCells(onDisk(file).design).map((c) => c.id);
  for (const id of all.map((c) => c.replace(/numa=default$/, 'numa=bind:0')).filter((c) => c.endsWith('bind:0') && !NEW.includes(c))) {
    await again.locator(`[data-testid=cell][data-cell="${id}"]`).click();
  }
  await again.getByTestId('save').click();
  await again.getByTestId('status-text').filter({ hasText: /2 cells need 2 restarts each/ }).waitFor();
  assert.equal(await again.getByTestId('results-at-stake').count(), 0, 'no dialog: nothing is removed');
  assert.deepEqual(onDisk(file).results!.restarts.map((r) => r.cell), finished.restarts.map((r) => r.cell));

  // The Run view offers to run only what is missing; it runs the new cells alone.
  await again.getByTestId('nav-run').click();
  await again.getByTestId('run-missing-note').filter({ hasText: '2 cells need 4 restarts in all' }).waitFor({ timeout: 30_000 });
  await again.screenshot({ path: join(env.dir, '..', 'grow-run-missing.png') }).catch(() => {});
  await again.getByTestId('run-missing').click();
  await again.getByTestId('run-finished-count').filter({ hasText: 'Finished: 8 of 8 restarts' }).waitFor({ timeout: 300_000 });
  assert.equal(await again.getByTestId('run-missing').count(), 0, 'nothing is missing any more');
  const grown = onDisk(file);
  assert.deepEqual(grown.results!.restarts.slice(0, 4), renamed.results!.restarts, 'the old restarts are as they were');
  const added = grown.results!.restarts.slice(4);
  assert.equal(added.length, 4);
  assert.deepEqual([...new Set(added.map((r) => r.cell))].sort(), [...NEW].sort(), 'only the new cells ran');
  assert.ok(added.every((r) => r.part === 2 && r.status === 'ok'), JSON.stringify(added.map((r) => [r.cell, r.part, r.status, r.reason])));

  // Analysis marks the new cells as measured later and compares them only with cells of their own
  // run, saying why: not with the old baseline. Asked to, it compares across runs, unpaired.
  await again.getByTestId('nav-analysis').click();
  await again.getByTestId('measured-later').first().waitFor({ timeout: 60_000 });
  assert.equal(await again.getByTestId('measured-later').count(), 2);
  assert.equal(await again.getByTestId('analysis-baseline').inputValue(), OLD[0]);
  await again.getByTestId('comparison-grown').filter({ hasText: 'compared only with cells measured in the same run' }).waitFor();
  const newRows = again.locator('[data-testid=comparisons-table] tbody tr', { hasText: 'numa=bind:0' });
  const verdicts = () => newRows.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-verdict')));
  assert.deepEqual(await verdicts(), ['none', 'none', 'none', 'none'], 'two new cells × two queries, none compared');
  assert.match(await again.getByTestId('comparisons').innerText(), /not compared: aslr=on,ahi=on,preload=off,numa=bind:0 was measured in run 2 and aslr=on,ahi=on,preload=off,numa=default in run 1/);
  await again.getByTestId('comparison-grown').scrollIntoViewIfNeeded();
  await again.screenshot({ path: join(env.dir, '..', 'grow-analysis.png') }).catch(() => {});
  await again.getByTestId('analysis-across-runs').check();
  await again.getByTestId('comparison-grown').filter({ hasText: 'compared across runs, as asked' }).waitFor();
  for (let i = 0; i < 600 && (await verdicts()).some((v) => v === 'none'); i++) await new Promise((r) => setTimeout(r, 100));
  assert.ok((await verdicts()).every((v) => v !== 'none'), 'compared across runs');
  await again.screenshot({ path: join(env.dir, '..', 'grow-analysis-across.png') }).catch(() => {});

  // Remove the level again: the dialog names the 4 restarts, and the copy holds exactly them.
  await again.getByTestId('nav-design').click();
  await again.locator('[data-testid=factor][data-factor=numa] [data-testid=level-chip][data-level="bind:0"]').click();
  await again.getByTestId('save').click();
  const dialog = again.getByTestId('results-at-stake');
  await dialog.waitFor();
  const text = await dialog.innerText();
  assert.match(text, /removes what 4 restarts/);
  assert.match(text, /other 4 restarts stay in the file/);
  await again.screenshot({ path: join(env.dir, '..', 'grow-trim-dialog.png') }).catch(() => {});
  const copy = /They go to (\S+\.results-\S+\.varlab\.json)/.exec(text)?.[1];
  assert.ok(copy, text);
  await again.getByTestId('choice-keep').click();
  await again.getByTestId('status-text').filter({ hasText: /4 restarts moved to/ }).waitFor();
  assert.deepEqual(onDisk(file).results!.restarts, renamed.results!.restarts, 'the file keeps the first run');
  assert.deepEqual(onDisk(copy!).results!.restarts, added, 'the copy holds exactly the removed restarts');
  assert.deepEqual(pageProblems(again), []);
  await again.close();
});
