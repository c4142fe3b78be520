// The sysbench point-select template run from the app on `local` (a sandbox mariadbd of its own and
// the real sysbench): the throughput and latency plots are drawn while the run goes on, from the
// interval lines as they arrive, and the saved file draws the same again once the run has ended.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { sysbenchTemplate } from '../../src/common/templates/sysbench.js';
import { startRunEnv, type RunEnv } from '../integration/run-env.js';
import { launchBrowser, openApp, openFile, pageProblems, startApp, type TestApp } from './support.js';

let env: RunEnv;
let app: TestApp;
let browser: Browser;

before(async () => {
  env = await startRunEnv();
  app = await startApp();
  const registry = JSON.parse(readFileSync(join(env.varlabHome, 'profiles.json'), 'utf8'));
  writeFileSync(join(app.home, 'profiles.json'), JSON.stringify({ local: registry[env.sshd.target] }, null, 2));
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  if (app) {
    for (let i = 0; i < 600; i++) {
      const st = await app.backend.call('run.status', {});
      const active = st.ok ? st.value.filter((r) => r.state === 'running' || r.state === 'paused') : [];
      if (!active.length) break;
      for (const r of active) await app.backend.call('run.cancel', { runId: r.runId });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await app?.stop();
  await env?.stop();
});

/** Points drawn in a plot's traces (Plotly keeps the figure's data on its element), as a page expression. */
const points = (testId: string) => `[...document.querySelectorAll('[data-testid="${testId}"]')].reduce((n, el) => n + (el.data ?? []).reduce((k, t) => k + t.x.length, 0), 0)`;
const pointsIn = (page: Page, testId: string) => page.evaluate(points(testId)) as Promise<number>;

test('a sysbench template run from the app: throughput and latency over time drawn live, and again from the saved file', { timeout: 600_000 }, async () => {
  const doc: ExperimentDoc = sysbenchTemplate({ test: 'oltp_point_select', runs: 2, seconds: 4, tableSize: 1000, restartsPerCell: 1 });
  doc.design.idleSeconds = 0;
  const file = join(env.dir, 'point-select.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const page = await openApp(browser, app);
  const problems = pageProblems(page);
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  // The command and the setup script are beyond the built-in tunables: the app asks first.
  await page.getByTestId('run-consent').waitFor();
  await page.getByTestId('run-consent-allow').click();

  // Live: drawn while the run goes on, before the run of the benchmark has ended (no execution yet).
  await page.getByTestId('run-throughput').waitFor({ timeout: 240_000 });
  await page.waitForFunction(`${points('run-throughput')} >= 2`, undefined, { timeout: 60_000 });
  assert.equal(await page.getByTestId('run-state').innerText(), 'running');
  const growing = await pointsIn(page, 'run-throughput');
  await page.waitForFunction(`${points('run-throughput')} > ${growing}`, undefined, { timeout: 60_000 });
  assert.ok((await pointsIn(page, 'run-latency')) >= 2, 'the latency percentile per interval is drawn too');
  assert.match(await page.getByTestId('run-intervals').innerText(), /throughput over time[\s\S]*latency over time[\s\S]*95th percentile per interval/);

  await page.getByTestId('run-finished-count').waitFor({ timeout: 300_000 });
  const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const lines = saved.results!.restarts.reduce((n, r) => n + (r.intervals?.length ?? 0), 0);
  assert.ok(lines >= 4, `intervals kept in the file: ${lines}`);
  // The finished file, opened again, draws every kept line.
  await page.reload();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-throughput').waitFor({ timeout: 30_000 });
  await page.waitForFunction(`${points('run-throughput')} === ${lines}`, undefined, { timeout: 30_000 });
  if (process.env.VARLAB_SCREENSHOT) await page.screenshot({ path: process.env.VARLAB_SCREENSHOT, fullPage: true });
  assert.deepEqual(problems, []);
});
