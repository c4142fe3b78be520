// Stop when answered, the whole journey in Chromium with a real run on `local` (a sandbox mariadbd of
// its own): the user turns on "Stop when answered" in the Run view, runs, watches the first look (each
// comparison's interval against the ±E band and "at most k more rounds"), sees the run stop by itself
// before its maximum and why; the file on disk keeps the rule and the stop, and Analysis gives the
// rule's verdict. Then the same with "Keep running when this computer sleeps" on the sandbox sshd's
// target: the runner there is plain shell, this page's varlab takes the looks and stops it at the one
// that answers; the file holds the rounds up to the stop and no more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { keepCells, quickstartCopy } from '../integration/run-env.js';
import { openApp, openFile, pageProblems, runAppForTests, waitForRun } from './support.js';

// Two cells that differ only in the adaptive hash index: within ±50 % of each other, so the rule
// decides within a few rounds. Whether it says "equivalent" or "differs" (the index may change the
// query by a few percent, and a busy test machine adds drift) is not what these journeys check.
const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=on,ahi=off,preload=off,numa=default'];

const setup = runAppForTests();

test('"Stop when answered" in the Run view: the looks are shown as they come, the run stops by itself, the file and Analysis say where and why', { timeout: 900_000 }, async () => {
  const { env, app, browser } = setup;
  const file = quickstartCopy(env, 'live-stop', (d: ExperimentDoc) => {
    keepCells(d, CELLS);
    d.design.target = 'local';
    delete d.design.serverProfile;
    d.design.order = 'interleaved';
    d.design.restartsPerCell = 2;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 4;
    d.design.workload.warmup = 1;
  });
  const shots = process.env.VARLAB_SCREENSHOTS;
  const page = await openApp(browser, app);
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-until-answered').check();
  await page.getByTestId('run-stop-effect').fill('50');
  await page.getByTestId('run-stop-max').fill('6');
  assert.match(await page.getByTestId('run-estimate').innerText(), /^at most 12 restarts/);
  await page.getByTestId('run-start-button').click();

  // Before the first look, then the first look (round 3 of at most 6), while the run goes on.
  await page.getByTestId('run-stop-waiting').filter({ hasText: 'First look at round 3, when every cell has 3 restarts.' }).waitFor({ timeout: 60_000 });
  await waitForRun(page, page.getByTestId('run-stop-look').filter({ hasText: /^Look at round 3 of at most 6/ }), 600_000);
  const first = await page.getByTestId('run-stop').innerText();
  if (shots) await page.screenshot({ path: join(shots, 'run-stop-live-look.png'), fullPage: true });
  // The look says what follows: the next look, or the stop. On a quiet host the first look can already
  // decide (the run then stops at round 3 and the panel may show its end by the time it is read).
  assert.match(first, /Going on: at most 3 more rounds \(6 restarts\)|Stopping at round 3|Stopped at round 3: /, first);

  await waitForRun(page, page.getByTestId('run-state').filter({ hasText: 'finished' }), 600_000);
  const end = await page.getByTestId('run-stop-end').innerText();
  const round = Number(/^Stopped at round (\d+): /.exec(end)?.[1]);
  assert.ok(round >= 3 && round <= 6, end);
  if (shots) await page.screenshot({ path: join(shots, 'run-stop-live-end.png'), fullPage: true });
  const row = page.getByTestId('run-stop-row').first();
  assert.match((await row.getAttribute('data-verdict')) ?? '', /^(differs|equivalent|inconclusive)$/);

  // On disk: the rule as run and where it stopped; no restart after it.
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.stopping, { effect: 50, alpha: 0.05, power: 0.8, maxRestartsPerCell: 6 });
  assert.equal(doc.results!.stopped![0].round, round);
  assert.equal(doc.results!.restarts.length, 2 * round);

  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('section-sequential').waitFor({ timeout: 60_000 });
  assert.match(await page.getByTestId('sequential-stop').innerText(), new RegExp(`^The run stopped at round ${round}: `));
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('"Stop when answered" with "Keep running when this computer sleeps": the run goes to the target, this computer takes the looks and stops it there; the file holds the rounds up to the stop', { timeout: 900_000 }, async () => {
  const { env, app, browser } = setup;
  // The sandbox is also the user's profile for the sshd's target in the app's home.
  const registry = JSON.parse(readFileSync(join(env.varlabHome, 'profiles.json'), 'utf8'));
  const own = JSON.parse(readFileSync(join(app.home, 'profiles.json'), 'utf8'));
  writeFileSync(join(app.home, 'profiles.json'), JSON.stringify({ ...own, [env.sshd.target]: registry[env.sshd.target] }, null, 2));
  const file = quickstartCopy(env, 'detached-stop', (d: ExperimentDoc) => {
    keepCells(d, CELLS);
    d.design.target = env.sshd.target;
    delete d.design.serverProfile;
    d.design.order = 'interleaved';
    d.design.restartsPerCell = 2;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 4;
    d.design.workload.warmup = 1;
    // A restart of a few seconds, so the runner is still going when the look's stop reaches it.
    d.design.idleSeconds = 2;
  });
  const shots = process.env.VARLAB_SCREENSHOTS;
  const page = await openApp(browser, app);
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByLabel('key file').fill(env.sshd.keyFile);
  await page.getByLabel('known_hosts').fill(env.sshd.knownHostsFile);
  await page.getByTestId('run-until-answered').check();
  // ±90 %: the journey is who takes the looks and stops the runner, not this machine's noise. At ±50 %,
  // with four files beside it, restarts scattered so much that no look decided before the maximum.
  await page.getByTestId('run-stop-effect').fill('90');
  // A maximum well beyond the rounds the rule needs here: the stop is this computer's, at a look, not the
  // runner's end. (With 10, a fresh-clone CI with four files at once decided only at round 10: early
  // looks at two or three degrees of freedom decide nothing on restarts that noisy.)
  await page.getByTestId('run-stop-max').fill('30');
  await page.getByTestId('run-detach').check();
  assert.equal(await page.getByTestId('run-until-answered').isChecked(), true, 'both on together');
  assert.match(await page.getByTestId('run-stop-detached').innerText(), /this computer takes the looks while it follows the run/);
  if (shots) await page.screenshot({ path: join(shots, 'run-stop-detached-start.png'), fullPage: true });
  await page.getByTestId('run-start-button').click();
  const allow = page.getByTestId('run-consent-allow');
  const detached = page.getByTestId('run-detached');
  await Promise.race([allow.waitFor({ timeout: 120_000 }), detached.waitFor({ timeout: 120_000 })]);
  if (await allow.count()) await allow.click();
  await detached.waitFor({ timeout: 120_000 });

  await waitForRun(page, page.getByTestId('run-stop-look').filter({ hasText: /^Look at round 3 of at most 30/ }), 600_000);
  if (shots) await page.screenshot({ path: join(shots, 'run-stop-detached-look.png'), fullPage: true });
  await waitForRun(page, page.getByTestId('run-state').filter({ hasText: 'finished' }), 600_000);
  const end = await page.getByTestId('run-stop-end').innerText();
  const round = Number(/^Stopped at round (\d+): /.exec(end)?.[1]);
  assert.ok(round >= 3 && round < 30, end);
  if (shots) await page.screenshot({ path: join(shots, 'run-stop-detached-end.png'), fullPage: true });

  // On disk: the rule as run, where it stopped, the rounds up to it and none after (those the runner
  // finished before the stop reached it are discarded, saying why).
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.stopping, { effect: 90, alpha: 0.05, power: 0.8, maxRestartsPerCell: 30 });
  assert.deepEqual(doc.results!.stopped!.map((x) => x.round), [round]);
  assert.equal(doc.results!.restarts.length, 2 * round);
  for (const x of doc.results!.discarded ?? []) assert.match(x.reason, /measured after the look|cancel/, x.reason);

  await page.getByTestId('nav-analysis').click();
  await page.getByTestId('section-sequential').waitFor({ timeout: 60_000 });
  assert.match(await page.getByTestId('sequential-stop').innerText(), new RegExp(`^The run stopped at round ${round}: `));
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});
