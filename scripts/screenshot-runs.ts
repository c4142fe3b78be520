// Takes the README's pictures of the two built-in workloads running live in the Run view, each on a
// sandbox mariadbd behind a test sshd (never the system server): docs/run-dbt3.png (the DBT-3 template
// at SF 0.01, 2 cells) and docs/run-sysbench.png (the sysbench read-only template, short runs).
// Run after `npm run build`, under the host lock:  flock /work/team/host.lock npx tsx scripts/screenshot-runs.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { ExperimentDoc } from '../src/common/experiment/types.js';
import { dbt3Template } from '../src/common/dbt3/template.js';
import { expandCells } from '../src/common/plan.js';
import { sysbenchTemplate } from '../src/common/templates/sysbench.js';
import { startRunEnv } from '../test/integration/run-env.js';
import { launchBrowser, openApp, openFile, startApp, waitInPage } from '../test/e2e/support.js';

const env = await startRunEnv();
const app = await startApp();
const registry = JSON.parse(readFileSync(join(env.varlabHome, 'profiles.json'), 'utf8'));
writeFileSync(join(app.home, 'profiles.json'), JSON.stringify({ local: registry[env.sshd.target] }, null, 2));
const browser = await launchBrowser();

/** Run `doc` from the app, wait until `ready` holds in the page, take the picture, cancel the run. */
async function shoot(doc: ExperimentDoc, name: string, ready: string, out: string): Promise<void> {
  const file = join(env.dir, name);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page: Page = await openApp(browser, app, { width: 1440, height: 900 });
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  await page.getByTestId('run-consent').waitFor();
  await page.getByTestId('run-consent-allow').click();
  await waitInPage(page, ready, out, 600_000);
  // The picture starts at the run's progress: what was agreed to is above it.
  await page.evaluate(`document.querySelector('[data-testid="run-progress"]').scrollIntoView()`);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
  for (let i = 0; i < 600; i++) {
    const st = await app.backend.call('run.status', {});
    const active = st.ok ? st.value.filter((r) => r.state === 'running' || r.state === 'paused') : [];
    if (!active.length) break;
    for (const r of active) await app.backend.call('run.cancel', { runId: r.runId });
    await new Promise((r) => setTimeout(r, 200));
  }
  await page.close();
}

try {
  const sb = sysbenchTemplate({ test: 'oltp_read_only', runs: 3, seconds: 10, tableSize: 10000, restartsPerCell: 2 });
  sb.design.idleSeconds = 1;
  // Two restarts' lines on the plots: the second restart well under way.
  await shoot(sb, 'sysbench-read-only.varlab.json', `[...document.querySelectorAll('[data-testid="run-throughput"]')].some((el) => (el.data ?? []).length >= 2 && el.data[1].x.length >= 14)`, 'docs/run-sysbench.png');

  const d = dbt3Template({ sf: 0.01 });
  const keep = ['aslr=on,ahi=on,preload=off', 'aslr=on,ahi=off,preload=off'];
  d.design.excludedCells = expandCells(d.design)
    .map((c) => c.id)
    .filter((c) => !keep.includes(c));
  d.design.restartsPerCell = 2;
  d.design.workload.repetitions = 5;
  d.design.workload.warmup = 1;
  d.design.idleSeconds = 1;
  // The data step done and the second restart's executions coming in.
  await shoot(d, 'dbt3.varlab.json', `Number(document.querySelector('[data-testid="run-executions"]')?.textContent.replace(/[^0-9]/g, '') ?? 0) >= 150`, 'docs/run-dbt3.png');
} finally {
  await browser.close();
  await app.stop();
  await env.stop();
}
