// One owner for the experiment and its run, seen from the browser (a sandbox mariadbd of its own on
// `local`, never the system one):
//   - a new user's whole journey with `npm run web`: the quickstart edited and saved as a file, run and
//     watched, analysed (the figures are those of the file on disk), saved, the app closed with Ctrl-C
//     and started again, the file reopened from the recent list: every measurement is there;
//   - a UI run's results appear in Analysis without reopening; Save keeps every measurement; the file
//     closed and reopened still holds them all;
//   - a failing query: the Run view says why at its top; fixed and saved, the run says what changed and
//     starts over with the new SQL;
//   - a design edit to a file with results that changes what a restart measures goes through the
//     dialog (save as new, or keep the results in a copy);
//   - the WebSocket cut mid-run: the UI says it is reconnecting, and ends showing the finished run;
//   - SIGTERM to the browser-mode server mid-run stops the sandbox mysqld and empties the restore record.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page, WebSocketRoute } from 'playwright-core';
import { measurementsIn } from '../../src/common/experiment/changes.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { quickstartCopy, running, startRunEnv, varlabSync, type RunEnv } from '../integration/run-env.js';
import { hostDir } from '../../src/node/host/restore.js';
import { hostPaths } from '../../src/node/host/script.js';
import { hostFileValue, THP_FILE } from '../../src/common/tunables/registry.js';
import { launchBrowser, openApp, openFile, pageProblems, startApp, startWebServer, waitForRun, type TestApp } from './support.js';

const QUERIES = 5;

let env: RunEnv;
let app: TestApp;
let browser: Browser;

/** The sandbox as the user's own profile for `local` in a varlab home. */
function registerLocal(home: string): void {
  const registry = JSON.parse(readFileSync(join(env.varlabHome, 'profiles.json'), 'utf8'));
  writeFileSync(join(home, 'profiles.json'), JSON.stringify({ local: registry[env.sshd.target] }, null, 2));
}

before(async () => {
  env = await startRunEnv();
  app = await startApp();
  registerLocal(app.home);
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  // app.stop() disposes of the backend: any run a failed assertion left going is cancelled, its mysqld stopped.
  await app?.stop();
  await env?.stop();
});

/** Two cells of the quickstart on `local`, small enough for a test. */
function smallFile(name: string, restarts = 2, reps = 4, edit: (d: ExperimentDoc) => void = () => {}): string {
  return quickstartCopy(env, name, (d) => {
    const cells = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=on,ahi=off,preload=off,numa=default'];
    const all: string[] = [];
    let combos: Record<string, string>[] = [{}];
    for (const f of d.design.factors) combos = combos.flatMap((c) => f.levels.map((l) => ({ ...c, [f.tunable]: l })));
    for (const c of combos) all.push(d.design.factors.map((f) => `${f.tunable}=${c[f.tunable]}`).join(','));
    d.design.excludedCells = all.filter((c) => !cells.includes(c));
    d.design.target = 'local';
    delete d.design.serverProfile;
    d.design.restartsPerCell = restarts;
    d.design.workload.repetitions = reps;
    d.design.workload.warmup = 1;
    edit(d);
  });
}

const executionsOnDisk = (file: string) => measurementsIn(JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc).executions;

async function analysisCells(page: Page): Promise<string[]> {
  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('analysis-baseline').waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('analysis-empty').count(), 0, 'Analysis does not say there are no results');
  return page.getByTestId('analysis-baseline').locator('option').allInnerTexts();
}

async function mysqldPid(): Promise<number> {
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  return existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim() || 0) : 0;
}


test('a run from the UI: Analysis shows it without reopening, Save keeps every measurement, closed and reopened it is all there; a design edit asks', { timeout: 600_000 }, async () => {
  const file = smallFile('journey');
  const page = await openApp(browser, app);
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  await waitForRun(page, page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 4 of 4 restarts' }), 300_000);
  const executions = 4 * QUERIES * 4;
  assert.equal(executionsOnDisk(file), executions, 'the run saved every execution into the file');

  // Analysis of the open document, without reopening it: both cells, from the file the run wrote.
  assert.deepEqual((await analysisCells(page)).sort(), ['aslr=on,ahi=off,preload=off,numa=default', 'aslr=on,ahi=on,preload=off,numa=default']);

  // Save: nothing is lost, whatever the UI held before the run.
  await page.getByTestId('save').click();
  await page.getByTestId('status-text').filter({ hasText: /^Saved / }).waitFor();
  assert.equal(executionsOnDisk(file), executions, 'Save kept every measurement');
  assert.deepEqual(pageProblems(page), []);
  await page.close();

  // Close and reopen: the file on disk holds them all, and Analysis shows them.
  const again = await openApp(browser, app);
  await openFile(again, file);
  assert.equal((await analysisCells(again)).length, 2);
  assert.equal(executionsOnDisk(file), executions);
  assert.deepEqual(pageProblems(again), [], 'reopened, with its analysis');

  // A design edit to a file with results goes through the dialog, which says how many restarts are at stake.
  const before = readFileSync(file, 'utf8');
  await again.getByTestId('nav-design').click();
  // Repetitions change what each restart measures: the old results cannot stay with the new design.
  await again.getByLabel('Repetitions').fill('6');
  await again.getByTestId('save').click();
  const dialog = again.getByTestId('results-at-stake');
  await dialog.waitFor();
  const text = await dialog.innerText();
  assert.match(text, /holds 4 restarts \(80 executions\)/);
  assert.match(text, /repetitions: 4 → 6/);
  const copy = /copied to (\S+\.results-\S+\.varlab\.json)/.exec(text)?.[1];
  assert.ok(copy, text);
  assert.deepEqual(pageProblems(again), [], 'the dialog');
  // Cancel: nothing written.
  await again.getByTestId('choice-cancel').click();
  assert.equal(readFileSync(file, 'utf8'), before);

  // Save as a new experiment: the design alone goes to a new file; the original keeps its results.
  await again.getByTestId('save').click();
  await dialog.waitFor();
  await again.getByTestId('choice-new').click();
  const newPath = join(env.dir, 'journey-6-repetitions.varlab.json');
  await again.getByTestId('save-path').fill(newPath);
  await again.getByTestId('save-path-submit').click();
  await again.getByTestId('status-text').filter({ hasText: `Saved ${newPath}` }).waitFor();
  assert.equal(readFileSync(file, 'utf8'), before, 'the original is untouched');
  const fresh = JSON.parse(readFileSync(newPath, 'utf8')) as ExperimentDoc;
  assert.equal(fresh.design.workload.repetitions, 6);
  assert.equal(fresh.results, undefined);
  assert.deepEqual(pageProblems(again), [], 'saved as new');

  // Or keep the old results in the copy and save the new design in the file itself.
  await openFile(again, file);
  await again.getByTestId('nav-design').click();
  await again.getByLabel('Repetitions').fill('6');
  await again.getByTestId('save').click();
  await dialog.waitFor();
  await again.getByTestId('choice-keep').click();
  await again.getByTestId('status-text').filter({ hasText: /kept in/ }).waitFor();
  assert.equal((JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc).design.workload.repetitions, 6);
  assert.equal(executionsOnDisk(file), 0);
  assert.equal(executionsOnDisk(copy!), executions, 'the copy holds every measurement');
  assert.deepEqual(pageProblems(again), []);
  await again.close();
});

/** The configurations table as shown: cell → its row's text. */
async function configurations(page: Page): Promise<Map<string, string>> {
  await page.getByTestId('nav-analysis').click();
  await page.locator('[data-testid=configurations-table], [data-testid=analysis-empty]').first().waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('analysis-empty').count(), 0, 'Analysis does not say there are no results');
  const rows = await page.locator('[data-testid=configurations-table] tbody tr').allInnerTexts();
  return new Map(rows.map((r) => [r.split('\t')[0].trim(), r]));
}

test("a new user's journey with `npm run web`: the quickstart saved as a file, run, watched, analysed right, saved, the app closed and started again, reopened: every measurement", { timeout: 600_000 }, async () => {
  const home = join(env.dir, 'home-journey');
  mkdirSync(home, { recursive: true });
  registerLocal(home);
  const file = join(env.dir, 'my-first.varlab.json');
  const keep = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=on,preload=off,numa=default'];
  let server = await startWebServer(home);
  try {
    // The quickstart, made small in the designer: two cells, 2 restarts each, 4 repetitions (1 warm-up).
    const page = await openApp(browser, server);
    await page.getByTestId('open-quickstart').click();
    await page.getByTestId('cell-count').waitFor();
    for (const cell of await page.locator('[data-testid=cell]').all()) if (!keep.includes((await cell.getAttribute('data-cell'))!)) await cell.click();
    await page.getByLabel('Restarts per cell').fill('2');
    await page.getByLabel('Idle between restarts').fill('0');
    await page.getByTestId('repetitions').fill('4');
    await page.getByLabel('Warm-up executions').fill('1');
    // Saved as a file of its own (never opened from disk: the file the run writes is the one shown).
    await page.getByTestId('save-as').click();
    await page.getByTestId('save-path').fill(file);
    await page.getByTestId('save-path-submit').click();
    await page.getByTestId('status-text').filter({ hasText: `Saved ${file}` }).waitFor();

    // Run it and watch: what it will do said first, then the server's own options verified beside the factors, executions coming in.
    await page.getByTestId('nav-run').click();
    assert.match(await page.getByTestId('run-estimate').innerText(), /^4 restarts · 80 executions · about \d/);
    await page.getByTestId('run-start-button').click();
    await page.getByTestId('run-options').filter({ hasText: /innodb_buffer_pool_size=\S+ ✓/ }).waitFor({ timeout: 120_000 });
    await page.getByTestId('run-executions').filter({ hasText: /^[1-9]/ }).waitFor({ timeout: 120_000 });
    await waitForRun(page, page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 4 of 4 restarts' }), 400_000);
    const executions = 4 * QUERIES * 4;
    assert.equal(executionsOnDisk(file), executions, 'the run saved every execution into the file');

    // Analysis, without reopening: the figures are those of the file on disk (the command line's analysis of it).
    const cli = JSON.parse(varlabSync(['analyze', file, '--json'], home).stdout) as { cells: { cell: string; spread_avg_pct: number | null }[] };
    assert.deepEqual(cli.cells.map((c) => c.cell).sort(), [...keep].sort());
    const shown = await configurations(page);
    assert.deepEqual([...shown.keys()].sort(), [...keep].sort(), 'both cells, from the file the run wrote');
    for (const c of cli.cells) {
      assert.ok(c.spread_avg_pct !== null, `${c.cell} has 2 restarts: a spread`);
      assert.ok(shown.get(c.cell)!.includes(`${c.spread_avg_pct.toFixed(2)}%`), `${c.cell}: ${shown.get(c.cell)} shows ${c.spread_avg_pct.toFixed(2)}%`);
    }

    // Save: nothing lost.
    await page.getByTestId('save').click();
    await page.getByTestId('status-text').filter({ hasText: /^Saved / }).waitFor();
    assert.equal(executionsOnDisk(file), executions, 'Save kept every measurement');
    assert.deepEqual(pageProblems(page), []);
    await page.close();

    // Close the app (Ctrl-C), start it again, and reopen the file from the welcome screen's recent list.
    assert.equal(await server.stop('SIGINT'), 0, server.output());
    assert.match(server.output(), /no run was going on/);
    server = await startWebServer(home);
    const again = await openApp(browser, server);
    await again.getByTestId('recent-file').filter({ hasText: 'my-first.varlab.json' }).click();
    await again.getByTestId('cell-count').waitFor();
    assert.deepEqual(await configurations(again), shown, 'the same analysis after reopening');
    assert.equal(executionsOnDisk(file), executions);
    assert.deepEqual(pageProblems(again), []);
    await again.close();
  } finally {
    await server.stop('SIGKILL');
  }
});

/** The notice listing what a file runs beyond varlab's own (here a query of the user's): read, and allowed on this host. */
async function allowWhatItRuns(page: Page, shows: string): Promise<void> {
  const notice = page.getByTestId('trust-notice');
  await notice.waitFor();
  assert.ok((await notice.innerText()).includes(shows), await notice.innerText());
  await page.getByTestId('trust-allow').click();
  await notice.waitFor({ state: 'detached' });
}

test('a query with a typo, run from the UI: the Run view says which query failed and why; fixed in the designer and saved, it says what changed, and Start over runs the new SQL', { timeout: 600_000 }, async () => {
  let query = '';
  const file = smallFile('typo', 1, 2, (d) => {
    query = d.design.workload.queries[1].name;
    d.design.workload.queries[1].sql = 'SELECT no_such_column FROM lineitem';
  });
  const page = await openApp(browser, app);
  await openFile(page, file);
  // A query that is not the quickstart's own: the user reads it and allows it on this host first.
  await allowWhatItRuns(page, 'no_such_column');
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  // Checked against the server before the first restart is measured: the reason is at the top of the view.
  const why = page.getByTestId('run-ended-why');
  await why.waitFor({ timeout: 180_000 });
  assert.match(await why.innerText(), new RegExp(`^Run failed: a query fails on the server, so nothing was measured: query "${query}": Unknown column 'no_such_column'`));
  assert.equal(await page.getByTestId('run-state').innerText(), 'failed');
  assert.equal(executionsOnDisk(file), 0);

  // The user fixes the query where they wrote it, and saves.
  await page.getByTestId('nav-design').click();
  await page.getByTestId('query-sql').nth(1).fill('SELECT COUNT(*) FROM lineitem');
  await page.getByTestId('save').click();
  await page.getByTestId('status-text').filter({ hasText: /^Saved / }).waitFor();
  await allowWhatItRuns(page, 'SELECT COUNT(*) FROM lineitem');

  // The unfinished run was started with the old SQL: the Run view says what changed and lets the user start over.
  await page.getByTestId('nav-run').click();
  const changed = page.getByTestId('run-design-changed');
  await changed.waitFor();
  assert.match(await changed.innerText(), new RegExp(`query ${query}: SQL changed`));
  await page.getByTestId('run-start-over').click();
  await waitForRun(page, page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 2 of 2 restarts' }), 300_000);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(measurementsIn(doc).executions, 2 * QUERIES * 2, 'every query ran, the fixed one included');
  assert.ok(doc.results!.restarts.every((r) => r.queries.some((q) => q.query === query && q.values.length === 2)));
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('the WebSocket cut mid-run: the UI says it is reconnecting, and ends showing the finished run', { timeout: 600_000 }, async () => {
  const file = smallFile('cut', 2, 6);
  let outage = false;
  const open = new Set<WebSocketRoute>();
  const page = await openApp(browser, app, undefined, async (p) => {
    await p.routeWebSocket(/\/api\?/, (ws) => {
      // During the outage the backend cannot be reached: every attempt is closed at once.
      if (outage) return void ws.close({ code: 1011, reason: 'outage' });
      ws.connectToServer();
      open.add(ws);
    });
  });
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  await page.getByTestId('run-state').filter({ hasText: 'running' }).waitFor({ timeout: 60_000 });
  await page.getByTestId('run-executions').filter({ hasText: /^[1-9]/ }).waitFor({ timeout: 120_000 });

  outage = true;
  for (const ws of open) await ws.close({ code: 1006, reason: 'cut' }).catch(() => {});
  await page.getByTestId('transport-reconnecting').waitFor({ timeout: 30_000 });
  // The run goes on in the backend and ends while the page cannot hear it.
  for (let i = 0; i < 3000; i++) {
    const st = await app.backend.call('run.status', {});
    if (st.ok && st.value.some((r) => r.path === file && r.state === 'finished')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(await page.getByTestId('run-state').innerText(), 'running', 'the page did not hear the end');
  outage = false;

  await page.getByTestId('transport-reconnecting').waitFor({ state: 'detached', timeout: 60_000 });
  await page.getByTestId('run-state').filter({ hasText: 'finished' }).waitFor({ timeout: 60_000 });
  assert.equal(await page.getByTestId('run-count').innerText(), '4 of 4 restarts');
  assert.equal(Number((await page.getByTestId('run-executions').innerText()).replace(/[^\d]/g, '')), 4 * QUERIES * 6, 'every execution, rebuilt from the journal');
  assert.equal((await analysisCells(page)).length, 2, 'and the document the run wrote, without reopening');
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('SIGTERM to the browser-mode server mid-run stops the sandbox mysqld and empties the restore record', { timeout: 600_000 }, async () => {
  const thp = `${hostPaths().sys}/${THP_FILE.path}`;
  const thpNow = () => hostFileValue(THP_FILE, readFileSync(thp, 'utf8'));
  const original = thpNow();
  assert.ok(original, 'THP is readable here');
  const other = original === 'never' ? 'madvise' : 'never';
  // A host-wide setting, so the restore record has something to put back.
  const file = smallFile('sigterm', 3, 30, (d) => {
    d.design.factors = [{ tunable: 'thp', levels: [other] }];
    d.design.excludedCells = [];
  });
  const home = join(env.dir, 'home-sigterm');
  mkdirSync(home, { recursive: true });
  registerLocal(home);
  // The host's restore record on the target (this machine), where the run keeps what it changed.
  const record = join(hostDir(hostPaths()), 'restore.tsv');
  const server = await startWebServer(home);
  try {
    const page = await openApp(browser, server);
    await openFile(page, file);
    await page.getByTestId('nav-run').click();
    await page.getByTestId('run-start-button').click();
    await page.getByTestId('run-executions').filter({ hasText: /^[1-9]/ }).waitFor({ timeout: 120_000 });
    const mysqld = await mysqldPid();
    assert.ok(running(mysqld), 'the sandbox mysqld runs');
    assert.equal(thpNow(), other, 'the run changed THP');
    assert.match(readFileSync(record, 'utf8'), new RegExp(`${thp}\\t${original}`), 'and saved the original in the restore record');

    assert.equal(await server.stop('SIGTERM'), 0, server.output());
    assert.match(server.output(), /cancelled 1 run:[\s\S]*sigterm\.varlab\.json: cancelled after \d+ of 3 restarts; mysqld stopped and the host restored/);
    assert.equal(running(mysqld), false, `mysqld ${mysqld} was stopped`);
    assert.equal(running(await mysqldPid()), false, 'no mysqld is left running');
    assert.ok(!existsSync(record) || readFileSync(record, 'utf8').trim() === '', 'the restore record is empty');
    assert.equal(thpNow(), original, 'THP is back as it was');
    await page.close();
  } finally {
    await server.stop('SIGKILL');
  }
});
