// Export and teammates' files in the UI, in headless Chromium against the browser-mode backend:
// a plot exported as PNG at 2× is a real PNG of twice the plot's size with content; every plot and the
// CSVs written to a folder; the Markdown report; a teammate's file with a custom command shows its
// commands and asks before anything runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { parse } from 'csv-parse/sync';
import { appForTests, dropFile, pageProblems } from './support.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { differingPixels, readPng } from '../fixtures/png.js';
import { writePlots } from '../../src/node/export/files.js';
import { exportContext } from '../../src/common/export/index.js';
import { buildFigures } from '../../src/common/figures/index.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';

const env = appForTests();

const problems = pageProblems;

async function openResults(page: Page, doc: ExperimentDoc): Promise<void> {
  await dropFile(page, 'quickstart-done.varlab.json', JSON.stringify(doc));
  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('export-bar').waitFor();
}

test('a plot exported from the UI as PNG 2× is twice the plot size, not blank, and matches the command line size', async () => {
  const doc = finishedQuickstart();
  const figures = buildFigures(exportContext(doc));
  const page = await env.open();
  await openResults(page, doc);
  // The stability plot is drawn with the same builder wherever the Analysis tab puts it.
  const fig = figures.find((f) => f.id === 'cov-cells')!;
  const shown = page.getByTestId(`figure-${fig.id}`);
  // Drawn once scrolled near the window, as a reader comes to it.
  await shown.scrollIntoViewIfNeeded();
  await shown.locator('.main-svg').first().waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), shown.getByRole('button', { name: 'PNG 2×' }).click()]);
  assert.match(download.suggestedFilename(), /cov-cells@2x\.png$/);
  const file = join(env.app.dir, download.suggestedFilename());
  await download.saveAs(file);
  const png = readPng(readFileSync(file));
  assert.deepEqual([png.width, png.height], [2 * fig.width, 2 * fig.height]);
  assert.ok(png.distinctColors > 50, `not blank: ${png.distinctColors} colours`);
  // The command line renders the same figure: the UI's export is the same image.
  const [cli] = await writePlots([fig], [{ format: 'png', dir: join(env.app.dir, 'cli') }], 2);
  const share = differingPixels(png, readPng(readFileSync(cli.path)));
  console.log(`UI against command line: ${(100 * share).toFixed(3)}% of pixels differ`);
  assert.ok(share < 0.01, `the UI's PNG matches the command line's (${(100 * share).toFixed(2)}% of pixels differ)`);

  const [svg] = await Promise.all([page.waitForEvent('download'), shown.getByRole('button', { name: 'SVG' }).click()]);
  const svgFile = join(env.app.dir, svg.suggestedFilename());
  await svg.saveAs(svgFile);
  const text = readFileSync(svgFile, 'utf8');
  assert.match(text, /^<svg/);
  assert.ok(text.includes('E5-2690'), 'the SVG carries the caption with the CPU model');
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('export all plots, CSVs and the Markdown report from the export bar', async () => {
  const doc = finishedQuickstart();
  const ctx = exportContext(doc);
  const figures = buildFigures(ctx);
  const page = await env.open();
  await openResults(page, doc);
  // A file without a path (dropped) exports beside varlab's experiments (VARLAB_HOME/experiments here), not into ~/varlab-export.
  assert.equal(await page.getByTestId('export-dir').inputValue(), join(env.app.home, 'experiments', 'Quickstart-ASLR-x-AHI-x-preload-x-NUMA-export'));
  if (process.env.VARLAB_SHOTS) await page.getByTestId('export-bar').screenshot({ path: `${process.env.VARLAB_SHOTS}/export-bar-unsaved.png` });
  const dir = join(env.app.dir, 'exported');
  await page.getByTestId('export-dir').fill(dir);

  await page.getByTestId('export-csv').click();
  await page.getByTestId('export-result').filter({ hasText: 'executions.csv' }).waitFor();
  const rows = parse(readFileSync(join(dir, 'executions.csv')), { columns: true }) as Record<string, string>[];
  assert.equal(rows.length, 32 * 5 * 3);
  assert.deepEqual(
    rows.filter((r) => r.restart === '1').map((r) => Number(r.value)),
    doc.results!.restarts[0].queries.flatMap((q) => q.values),
  );

  await page.getByTestId('export-scale').selectOption('1');
  await page.getByTestId('export-plots').click();
  await page.getByTestId('export-result').filter({ hasText: 'plots written' }).waitFor({ timeout: 120_000 });
  const pngs = readdirSync(dir).filter((f) => f.endsWith('.png'));
  assert.equal(pngs.length, figures.length);
  const first = readPng(readFileSync(join(dir, `${figures[0].file}.png`)));
  assert.deepEqual([first.width, first.height], [figures[0].width, figures[0].height], 'scale 1 as chosen');

  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const mdFile = join(env.app.dir, md.suggestedFilename());
  await md.saveAs(mdFile);
  // Browser mode downloads it: said so, not "saved", so nobody looks for it in the folder above.
  await page.getByTestId('export-result').filter({ hasText: `downloaded by the browser as ${md.suggestedFilename()} (into its downloads folder)` }).waitFor();
  const report = readFileSync(mdFile, 'utf8');
  for (const cell of ctx.cells) assert.ok(report.includes(cell), `the report mentions ${cell}`);
  assert.match(report, /## Comparisons with the baseline/);
  // The plots were exported to the folder first: the report links them and is written beside them.
  const beside = readFileSync(join(dir, 'report.md'), 'utf8');
  const links = [...beside.matchAll(/!\[[^\]]*\]\(([^)]+)\)/g)].map((m) => decodeURI(m[1]));
  assert.deepEqual(links.sort(), pngs.sort());
  assert.deepEqual(problems(page), []);
  await page.close();
});

test('Copy as Markdown without exported plots: report.md is written into the export folder too, and the line says where the report went', async () => {
  const doc = finishedQuickstart();
  const page = await env.open();
  await openResults(page, doc);
  const dir = join(env.app.dir, 'csv-only');
  await page.getByTestId('export-dir').fill(dir);
  await page.getByTestId('export-csv').click();
  await page.getByTestId('export-result').filter({ hasText: 'summary.csv' }).waitFor();
  const [md] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-markdown').click()]);
  const said = page.getByTestId('export-result').filter({ hasText: 'Markdown report written to' });
  await said.waitFor();
  const text = await said.innerText();
  assert.ok(text.startsWith(`Markdown report written to ${join(dir, 'report.md')}; `), text);
  assert.ok(text.endsWith(`; downloaded by the browser as ${md.suggestedFilename()} (into its downloads folder)`), text);
  assert.match(text, /; (copied to the clipboard|not copied: the clipboard refused); /);
  const report = readFileSync(join(dir, 'report.md'), 'utf8');
  assert.match(report, /## Comparisons with the baseline/);
  assert.doesNotMatch(report, /!\[[^\]]*\]\(/, 'no plots were exported: none linked');
  assert.deepEqual(problems(page), []);
  await page.close();
});

test("a teammate's file with a custom command lists what it would run and asks before the first run", async () => {
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'examples', 'quickstart.varlab.json'), 'utf8')) as ExperimentDoc;
  doc.name = "Ana's sysbench";
  doc.design.workload.kind = 'command';
  doc.design.workload.command = { line: 'sysbench oltp_point_select --mysql-socket={socket} run; rm -rf ~/scratch', parser: 'sysbench', metric: 'tps', unit: 'tps', higherIsBetter: true };
  const page = await env.open();

  // The shipped quickstart asks nothing.
  await page.getByTestId('open-quickstart').click();
  await page.getByTestId('cell-count').waitFor();
  await page.getByTestId('trust-checked').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('trust-notice').count(), 0);

  await dropFile(page, 'ana.varlab.json', JSON.stringify(doc));
  const notice = page.getByTestId('trust-notice');
  await notice.waitFor();
  assert.match(await notice.innerText(), /would run these on local/);
  const items = notice.locator('[data-testid=trust-commands] li');
  // The quickstart's own setup script and queries are varlab's: only the command is asked about.
  assert.equal(await items.count(), 1);
  assert.match(await items.nth(0).innerText(), /rm -rf ~\/scratch/);

  await page.getByTestId('trust-allow').click();
  await notice.waitFor({ state: 'detached' });
  // Asked once per host: the same file opened again does not ask.
  await dropFile(page, 'ana-again.varlab.json', JSON.stringify({ ...doc, name: 'Ana again' }));
  await page.locator('[data-testid=trust-checked][data-name="Ana again"]').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('trust-notice').count(), 0);
  assert.ok(existsSync(join(env.app.home, 'consent.json')), 'the answer is kept in the varlab home');
  assert.deepEqual(problems(page), []);
  await page.close();
});
