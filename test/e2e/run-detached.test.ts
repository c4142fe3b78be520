// Runs that outlive the laptop, in the app (issue 14), as a user of `npm run web` does it: a run started
// from the Run view with "Keep running when this computer sleeps" on the sandbox sshd's target; the page
// closed and the browser-mode process killed (the laptop goes away) while the run goes on there by
// itself; a new `npm run web` opening the file shows "detached on T, running restart k of n" and
// follows it live from where the first one stopped; when it ends, the file on disk holds every
// execution exactly once and the host is as it was (mysqld stopped, nothing left to restore, the
// run's directory gone from the target). On the way, Stop following: the view says the run goes on
// there, it does (its runner alive, its journal growing, nothing of it coming here), and Follow
// follows it again from where it stopped; its ssh session killed while the run writes nothing (held), the
// view says the link was lost and follows it again by itself. Cancel in the Run view stops a detached run there: the
// runner gone, the host as it was found, the restarts measured before it kept in the file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText, type JournalRecord } from '../../src/common/records.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { hostDir } from '../../src/node/host/restore.js';
import { hostPaths } from '../../src/node/host/script.js';
import { exited, keepCells, oneCellCopy, quickstartCopy, running, shortDbt3, sshdSessions, startRunEnv, varlabSync, type RunEnv } from '../integration/run-env.js';
import { hold, release, releaseAll, targetJournal } from '../integration/hold.js';
import { homeWithSandbox, launchBrowser, openApp, openFile, pageProblems, pressRunDetached, startWebServer, waitForRun, type WebServer } from './support.js';

let env: RunEnv;
let browser: Browser;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  env = await startRunEnv();
  browser = await launchBrowser();
});
after(async () => {
  releaseAll();
  await browser?.close();
  await env?.stop();
});

const journalRecords = (file: string): JournalRecord[] =>
  readFileSync(journalPath(file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

const homeOf = (name: string) => homeWithSandbox(env, name);

async function mysqldPid(): Promise<number> {
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  return existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim() || 0) : 0;
}

/** The host as it was found once a detached run ended: mysqld stopped, nothing left to put back, the run's directory gone. */
async function hostAsFound(dir: string): Promise<void> {
  assert.equal(running(await mysqldPid()), false, 'no mysqld is left running');
  const record = join(hostDir(hostPaths()), 'restore.tsv');
  assert.ok(!existsSync(record) || readFileSync(record, 'utf8').trim() === '', 'the restore record is empty');
  // Removed once the runner has exited, a moment after its end reached the view.
  for (let i = 0; i < 600 && existsSync(dir); i++) await sleep(100);
  assert.equal(existsSync(dir), false, "the run's directory is removed from the target");
}

/** Starts the open file's run from the Run view with "Keep running when this computer sleeps", on the sandbox sshd's target; the run's directory there. */
async function startDetachedInView(page: Page, file: string): Promise<string> {
  await pressRunDetached(page, env);
  await page.getByTestId('run-detached').waitFor({ timeout: 120_000 });
  const dir = readJournalText(readFileSync(journalPath(file), 'utf8')).detached?.dir;
  assert.ok(dir, 'the local journal names the run on the target');
  return dir;
}

const QUERIES = 2;
const REPS = 3;

/**
 * A copy of the quickstart that runs detached on the test sshd: one cell, QUERIES queries of REPS
 * repetitions, and 8 s between restarts, long enough that the run is still going while a test stops
 * following it, opens it in a second browser-mode process or cancels it.
 */
function detachedCopy(name: string, restarts: number): string {
  return oneCellCopy(env, name, { restarts, queries: QUERIES, repetitions: REPS, idleSeconds: 8 });
}

test('a run detached from the Run view, the browser-mode process gone, is followed again by a new one: "detached on T, running restart k of n", live to its end, every execution once in the file', { timeout: 600_000 }, async () => {
  // Enough restarts that it still runs after Stop following, Follow and the network drop below.
  const RESTARTS = 5;
  const file = detachedCopy('detached-app', RESTARTS);
  const home = homeOf('home-detached');

  let server: WebServer | undefined = await startWebServer(home);
  let runner = 0;
  try {
    const page = await openApp(browser, server);
    await openFile(page, file);
    const dir = await startDetachedInView(page, file);
    runner = Number(readFileSync(join(dir, 'pid'), 'utf8').trim());
    assert.deepEqual(pageProblems(page), []);

    // The laptop goes away: the page closed and the browser-mode process killed, as a lid shut.
    await page.close();
    await server.stop('SIGKILL');
    server = undefined;
    // The run goes on by itself on the target: a restart finishes there with no varlab following (its
    // D line), and the next one has started (its F line: mysqld up and verified).
    const secondStarted = () => targetJournal(dir).some((l) => l.startsWith('F ') && l.split(' ')[2] === '2');
    for (let i = 0; i < 1200 && !secondStarted(); i++) await sleep(100);
    assert.ok(secondStarted(), `a restart finished on the target and the next started: ${targetJournal(dir).join('\n')}`);
    // Held there, so that it is still running whatever the speed of this machine when the steps below
    // need it running (Stop following, Follow, the network drop); each step lets it go on only as far as
    // it needs. Restarts 3 to ${RESTARTS} (8 s idle each) are still ahead, so it is held well before its end.
    hold(dir, runner);

    // A new `npm run web`, the file opened: the Run view follows the detached run.
    const sessionsBefore = sshdSessions(env.sshd.pid);
    server = await startWebServer(home);
    const again = await openApp(browser, server);
    await openFile(again, file);
    await again.getByTestId('nav-run').click();
    const detached = again.getByTestId('run-detached');
    await detached.waitFor({ timeout: 120_000 });
    // A restart finished on the target while nobody followed: it came in, and the view goes on from the next.
    const k = new RegExp(`^detached on ${env.sshd.target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, running restart ([2-${RESTARTS}]) of ${RESTARTS}$`);
    // Until the target's journal has come in the line says 'reading its journal…', then counts up as
    // it comes in (restart 1 for a moment): wait for the restart the target is on.
    await detached.filter({ hasText: k }).waitFor({ timeout: 120_000 });
    assert.match(await detached.innerText(), k);
    // Live: executions arrive while it still runs there (the screenshot of the README is this moment).
    await again.getByTestId('run-executions').filter({ hasText: /^[1-9]/ }).waitFor({ timeout: 120_000 });
    if (process.env.VARLAB_SHOTS) await again.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-detached.png` });

    // Stop following: this computer stops reading the run's journal; the run is not cancelled, and the view says so.
    await again.getByTestId('run-stop-following').click();
    const notFollowing = again.getByTestId('run-not-following');
    await notFollowing.waitFor({ timeout: 60_000 });
    assert.match(await notFollowing.innerText(), new RegExp(`^Not following since \\d\\d:\\d\\d, when the run was still running on ${env.sshd.target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(not following stops nothing there\\); press Follow or open the file again to bring in what it has done since\\.$`));
    assert.equal(await detached.count(), 0, 'the view follows nothing');
    // On the target it goes on: its runner runs and its journal grows, while nothing of it comes here (the view does not follow it again by itself).
    assert.ok(running(runner), `the runner (pid ${runner}) still runs on the target`);
    const localBytes = statSync(journalPath(file)).size;
    const targetLines = targetJournal(dir).length;
    release(runner);
    for (let i = 0; i < 600 && targetJournal(dir).length <= targetLines; i++) await sleep(100);
    // Held again at once: a line or a few further, restart 2 or 3 of ${RESTARTS}.
    assert.ok(hold(dir, runner).length > targetLines, 'the run goes on on the target: its journal grows');
    assert.equal(statSync(journalPath(file)).size, localBytes, 'not followed: nothing of it came into the local journal');
    assert.equal(await detached.count(), 0, 'not followed again by itself');
    if (process.env.VARLAB_SHOTS) await again.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-not-following.png` });
    // Follow: followed again from where it stopped (the restart the target is on).
    await again.getByTestId('run-follow').click();
    await detached.filter({ hasText: k }).waitFor({ timeout: 120_000 });
    await again.getByTestId('run-log').filter({ hasText: /attached to the detached run on .* \(its journal is here up to byte [1-9]\d*\)/ }).waitFor({ timeout: 60_000 });

    // The network drops (its ssh session killed) while it follows a run that writes nothing (held, as a long
    // load or a slow query holds it): the view says so and follows it again by itself, from where it
    // stopped, without leaving the run. (Before, it stayed on "detached on T" with nothing followed.)
    assert.equal(await again.getByTestId('run-state').innerText(), 'running');
    for (const p of sshdSessions(env.sshd.pid).filter((p) => !sessionsBefore.includes(p))) process.kill(p, 'SIGKILL');
    const log = again.getByTestId('run-log');
    await waitForRun(again, log.filter({ hasText: /link to \S+ lost at \d\d:\d\d:\d\d \(.+\); following again as soon as it answers \(the run goes on there\)/ }), 120_000);
    await waitForRun(again, log.filter({ hasText: /following the run on \S+ again since \d\d:\d\d:\d\d, \d+ s after the link was lost \(its journal is here up to byte [1-9]\d*\)/ }), 120_000);
    assert.match(await detached.innerText(), k);
    assert.equal(await again.getByTestId('run-state').innerText(), 'running');
    // Let go: it goes on (restarts 3 or 4 to ${RESTARTS} are still ahead) to its end, followed by the same view.
    release(runner);
    const finishedCount = again.getByTestId('run-finished-count').filter({ hasText: `Finished: ${RESTARTS} of ${RESTARTS} restarts` });
    await waitForRun(again, finishedCount, 300_000);
    // What the view counted: each execution once (restarts brought in earlier are history, not again).
    assert.match(await again.getByTestId('run-finished').innerText(), new RegExp(`\\(1 cell, ${RESTARTS * QUERIES * REPS} executions\\)`));
    assert.deepEqual(pageProblems(again), []);

    // The file on disk: every execution of the target's journal exactly once.
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.equal(doc.results?.restarts.length, RESTARTS);
    for (const r of doc.results!.restarts) {
      assert.equal(r.status, 'ok', r.reason);
      assert.deepEqual(
        r.queries.map((q) => q.values.length),
        Array(QUERIES).fill(REPS),
      );
    }
    const executions = journalRecords(file).filter((r): r is Extract<JournalRecord, { t: 'execution' }> => r.t === 'execution');
    assert.equal(executions.length, RESTARTS * QUERIES * REPS, 'nothing duplicated, nothing lost in the journal');
    assert.equal(new Set(executions.map((e) => `${e.seq} ${e.query} ${e.rep}`)).size, executions.length);
    await hostAsFound(dir);
    await again.close();
  } finally {
    // A held run never ends: let it go whatever failed.
    if (runner) release(runner);
    await server?.stop('SIGKILL');
  }
});

test('a detached run that ended with nobody following is brought into the file when the app opens it; why it could not be followed is shown, and Try again follows it', { timeout: 600_000 }, async () => {
  const file = quickstartCopy(env, 'ended-unfollowed', (d: ExperimentDoc) => {
    keepCells(d, ['aslr=off,ahi=off,preload=off,numa=default']);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 2;
    d.design.workload.queries = d.design.workload.queries.slice(0, 2);
    d.design.workload.repetitions = 3;
    d.design.workload.warmup = 1;
  });
  const home = homeOf('home-ended');
  const started = varlabSync(['run', file, '--detach', ...env.authArgs], home);
  assert.equal(started.code, 0, started.stderr);
  const dir = readJournalText(readFileSync(journalPath(file), 'utf8')).detached!.dir;
  // It ends on the target with nobody following: its end is there, not here.
  for (let i = 0; i < 3000 && !JSON.parse(varlabSync(['status', file, '--json'], home).stdout || '{}').state?.match(/finished|failed|cancelled/); i++) await sleep(1000);
  assert.match(varlabSync(['status', file], home).stdout, /^finished on .*: 2 of 2 restarts; varlab attach brings the results into the file\n$/);
  assert.equal((JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc).results?.restarts.length ?? 0, 0, 'nothing measured in the file yet');

  const server = await startWebServer(home);
  // The key the run was started with is not where the journal says: following fails, and says why.
  renameSync(env.sshd.keyFile, `${env.sshd.keyFile}.away`);
  try {
    const page = await openApp(browser, server);
    await openFile(page, file);
    await page.getByTestId('nav-run').click();
    const problem = page.getByTestId('run-follow-problem');
    await problem.waitFor({ timeout: 120_000 });
    assert.match(await page.getByTestId('run-detached-away').innerText(), new RegExp(`^The run of ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is detached on ${env.sshd.target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
    assert.ok((await problem.innerText()).includes(env.sshd.keyFile), await problem.innerText());
    assert.equal(await page.getByTestId('run-start-button').count(), 0, 'a detached run is followed, not resumed');
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-detached-problem.png` });

    renameSync(`${env.sshd.keyFile}.away`, env.sshd.keyFile);
    await page.getByTestId('run-follow').click();
    await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 2 of 2 restarts' }).waitFor({ timeout: 120_000 });
    assert.match(await page.getByTestId('run-finished').innerText(), /\(1 cell, 12 executions\)/);
    assert.deepEqual(pageProblems(page), []);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.equal(doc.results?.restarts.length, 2);
    assert.equal(doc.results!.restarts.flatMap((r) => r.queries.flatMap((q) => q.values)).length, 12, 'every execution once in the file');
    // Removed over SSH once the results are in the file, which the view may show first (as hostAsFound waits).
    for (let i = 0; i < 600 && existsSync(dir); i++) await sleep(100);
    assert.equal(existsSync(dir), false, "the run's directory is removed from the target");
    await page.close();
  } finally {
    if (!existsSync(env.sshd.keyFile)) renameSync(`${env.sshd.keyFile}.away`, env.sshd.keyFile);
    await server.stop('SIGKILL');
  }
});

test('Cancel in the Run view stops a detached run on its target: the runner gone, the host as it was found, the restarts measured so far kept in the file', { timeout: 600_000 }, async () => {
  const RESTARTS = 3;
  const file = detachedCopy('detached-cancel', RESTARTS);
  const server = await startWebServer(homeOf('home-cancel'));
  try {
    const page = await openApp(browser, server);
    await openFile(page, file);
    const dir = await startDetachedInView(page, file);
    const runner = Number(readFileSync(join(dir, 'pid'), 'utf8').trim());
    // A restart has come in and the run goes on: Cancel. Held from here until the cancel is sent, so
    // that it is still running then whatever the speed of this machine (restart ${RESTARTS}, 8 s idle, is ahead).
    await page.getByTestId('run-count').filter({ hasText: new RegExp(`^[1-${RESTARTS - 1}] of ${RESTARTS} restarts$`) }).waitFor({ timeout: 180_000 });
    hold(dir, runner);
    assert.equal(await page.getByTestId('run-state').innerText(), 'running');
    await page.getByTestId('run-cancel').click();
    // The cancel is a SIGTERM to the runner, taken when it goes on.
    await page.getByTestId('run-log').filter({ hasText: /asked the run on .* to stop/ }).waitFor({ timeout: 60_000 }).finally(() => release(runner));
    await page.getByTestId('run-state').filter({ hasText: /^cancelled$/ }).waitFor({ timeout: 120_000 });
    // The runner's cancel says the state itself: the view says it once (not "Run cancelled: cancelled; …").
    assert.equal(await page.getByTestId('run-ended-why').innerText(), 'Run cancelled; run again to resume');
    await page.getByTestId('run-log').filter({ hasText: /asked the run on .* to stop: it discards the restart in progress, stops mysqld and restores the host/ }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('run-stop-following').count(), 0, 'nothing is followed any more');
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-detached-cancelled.png` });
    assert.deepEqual(pageProblems(page), []);

    // On the target: the runner gone, and the host as it was found.
    assert.equal(await exited(runner, 60_000), true, `the runner (pid ${runner}) has exited on the target`);
    await hostAsFound(dir);

    // The file keeps every execution of the restarts that finished before the cancel, once; the one in progress is discarded.
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    const kept = doc.results?.restarts ?? [];
    assert.ok(kept.length >= 1 && kept.length < RESTARTS, `restarts kept: ${kept.length}`);
    for (const r of kept) {
      assert.equal(r.status, 'ok', r.reason);
      assert.deepEqual(
        r.queries.map((q) => q.values.length),
        Array(QUERIES).fill(REPS),
      );
    }
    const seqs = new Set(kept.map((r) => r.seq));
    const executions = journalRecords(file).filter((r): r is Extract<JournalRecord, { t: 'execution' }> => r.t === 'execution' && seqs.has(r.seq));
    assert.equal(executions.length, kept.length * QUERIES * REPS, 'every execution of the kept restarts in the journal, once');
    assert.equal(new Set(executions.map((e) => `${e.seq} ${e.query} ${e.rep}`)).size, executions.length);
    assert.equal(readJournalText(readFileSync(journalPath(file), 'utf8')).lastState, 'cancelled');
    // What the view says: the restarts kept and their executions (the discarded restart's are not counted), and that the rest can be resumed.
    assert.equal(await page.getByTestId('run-count').innerText(), `${kept.length} of ${RESTARTS} restarts`);
    assert.equal(await page.getByTestId('run-executions').innerText(), `${kept.length * QUERIES * REPS} executions`);
    await page.getByTestId('run-unfinished').filter({ hasText: `An unfinished run of this file: ${kept.length} of ${RESTARTS} restarts done.` }).waitFor({ timeout: 30_000 });
    // Resume is offered with the key and known_hosts the run was started with, not empty fields.
    assert.equal(await page.getByLabel('key file').inputValue(), env.sshd.keyFile);
    assert.equal(await page.getByLabel('known_hosts').inputValue(), env.sshd.knownHostsFile);
    await page.close();
  } finally {
    await server.stop('SIGKILL');
  }
});

test('a DBT-3 design run detached from the Run view: "first the DBT-3 data step" while it launches, then the runner measures and the file gets every execution', { timeout: 600_000 }, async () => {
  const file = join(env.dir, 'dbt3-app.varlab.json');
  shortDbt3(env, file, 'aslr=on,ahi=off,preload=off', 2);
  const server = await startWebServer(homeOf('home-dbt3'));
  try {
    const page = await openApp(browser, server);
    await openFile(page, file);
    await pressRunDetached(page, env);
    // The file's data step needs consent first in a home of its own (it creates a database): the list names it; allowed here.
    const allow = page.getByTestId('run-consent-allow');
    await allow.waitFor({ timeout: 60_000 });
    // The data step's progress may show for a moment only at SF 0.01: every text it shows is kept.
    await page.evaluate(`(() => {
      const seen = (window.launchData = []);
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="run-launching-data"]')?.textContent;
        if (t && seen.at(-1) !== t) seen.push(t);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    })()`);
    await allow.click();
    const launching = page.getByTestId('run-launching');
    await launching.waitFor({ timeout: 60_000 });
    assert.match(await launching.innerText(), /^Launching on .*: first the DBT-3 data step \(SF 0\.01\), over this computer's connection/);
    assert.equal(await page.getByTestId('run-start-button').isDisabled(), true, 'Run is not pressed twice while it launches');
    if (process.env.VARLAB_SHOTS) {
      // With its progress bar, if the step lasts long enough to be seen (the assertion below reads every text it showed).
      await page.getByTestId('run-launching-data').waitFor({ timeout: 20_000 }).catch(() => {});
      await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-detached-dbt3-launching.png` });
    }
    await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 1 of 1 restarts' }).waitFor({ timeout: 300_000 });
    assert.ok(journalRecords(file).some((r) => r.t === 'data'), 'the data step is in the journal');
    // The launch showed the data step's progress in the window that launched it, before the run existed.
    const launchData = (await page.evaluate('window.launchData')) as string[];
    assert.ok(launchData.some((t) => /^DBT-3 data: .*\d+ ?%/.test(t)), JSON.stringify(launchData));
    const saved = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.deepEqual(
      saved.results!.restarts[0].queries.map((q) => q.values.length),
      [2, 2],
    );
    assert.deepEqual(pageProblems(page), []);
    await page.close();
  } finally {
    await server.stop();
  }
});
