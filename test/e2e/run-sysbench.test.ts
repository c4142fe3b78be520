// The sysbench point-select template run from the app on `local` (a sandbox mariadbd of its own and
// the real sysbench): the throughput and latency plots are drawn while the run goes on, from the
// interval lines as they arrive (the last line's latency named with its percentile; the figures said to be
// sysbench's own), and the saved file draws the same again once the run has ended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { sysbenchTemplate } from '../../src/common/templates/sysbench.js';
import { openApp, openFile, pageProblems, runAppForTests, waitInPage } from './support.js';

const t = runAppForTests();

/** Points drawn in a plot's traces (Plotly keeps the figure's data on its element), as a page expression. */
const points = (testId: string) => `[...document.querySelectorAll('[data-testid="${testId}"]')].reduce((n, el) => n + (el.data ?? []).reduce((k, t) => k + t.x.length, 0), 0)`;
const pointsIn = (page: Page, testId: string) => page.evaluate(points(testId)) as Promise<number>;

test('a sysbench template run from the app: throughput and latency over time drawn live, and again from the saved file', { timeout: 600_000 }, async () => {
  const doc: ExperimentDoc = sysbenchTemplate({ test: 'oltp_point_select', runs: 2, seconds: 4, tableSize: 1000, restartsPerCell: 1 });
  doc.design.idleSeconds = 0;
  const file = join(t.env.dir, 'point-select.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const page = await openApp(t.browser, t.app);
  const problems = pageProblems(page);
  await openFile(page, file);
  // A command's repetitions are runs of it, not executions (one word for every view: common/experiment/words.ts).
  assert.match(await page.getByTestId('design-summary').innerText(), /^2 restarts · 4 runs of the command · about /);
  await page.getByTestId('nav-run').click();
  assert.match(await page.getByTestId('run-estimate').innerText(), /^2 restarts · 4 runs of the command · about /);
  await page.getByTestId('run-start-button').click();
  // The command and the setup script are beyond the built-in tunables: the app asks first.
  await page.getByTestId('run-consent').waitFor();
  await page.getByTestId('run-consent-allow').click();

  // Live: drawn while the run goes on, before the run of the benchmark has ended (no execution yet).
  await page.getByTestId('run-throughput').waitFor({ timeout: 240_000 });
  await waitInPage(page, `${points('run-throughput')} >= 2`, 'two interval lines on the throughput plot', 60_000);
  assert.equal(await page.getByTestId('run-state').innerText(), 'running');
  const growing = await pointsIn(page, 'run-throughput');
  await waitInPage(page, `${points('run-throughput')} > ${growing}`, 'more lines on the throughput plot', 60_000);
  assert.ok((await pointsIn(page, 'run-latency')) >= 2, 'the latency percentile per interval is drawn too');
  assert.match(await page.getByTestId('run-intervals').innerText(), /throughput over time[\s\S]*latency over time[\s\S]*95th percentile per interval/);
  // The last interval line says which percentile its latency is, as the plot does.
  await waitInPage(page, `/latency [\\d.]+ ms \\(95th percentile\\)/.test(document.querySelector('[data-testid="run-interval"]')?.textContent ?? '')`, 'the interval line naming its percentile', 60_000);
  // sysbench's figures are its own, not a server timer's.
  await page.getByTestId('run-timer-source').waitFor({ timeout: 120_000 });
  assert.equal(await page.getByTestId('run-timer-source').innerText(), "figures from sysbench's own output, per run (no server timer)");

  assert.match(await page.getByTestId('run-executions').innerText(), /^\d runs? of the command$/);

  await page.getByTestId('run-finished-count').waitFor({ timeout: 300_000 });
  assert.equal(await page.getByTestId('run-executions').innerText(), '4 runs of the command');
  assert.match(await page.getByTestId('run-finished').innerText(), /\(2 cells, 4 runs of the command\)/);
  await waitInPage(page, `(document.querySelector('[data-testid="run-view"]')?.textContent ?? '').includes('tps: every run of the command, one colour per restart')`, "the timeline's title naming the command's runs");
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: `${process.env.VARLAB_SCREENSHOTS}/run-sysbench-finished.png`, fullPage: true });
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const lines = saved.results!.restarts.reduce((n, r) => n + (r.intervals?.length ?? 0), 0);
  assert.ok(lines >= 4, `intervals kept in the file: ${lines}`);
  // The finished file, opened again, draws every kept line.
  await page.reload();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-throughput').waitFor({ timeout: 30_000 });
  await waitInPage(page, `${points('run-throughput')} === ${lines}`, 'every kept line on the throughput plot');
  if (process.env.VARLAB_SCREENSHOT) await page.screenshot({ path: process.env.VARLAB_SCREENSHOT, fullPage: true });
  assert.deepEqual(problems, []);
});
