// Two moments of a detached run in the Run view that had nothing to show, as a user of `npm run web`
// sees them, on the sandbox sshd's target and its real mariadbd:
// - its launch loading DBT-3 data (minutes at a big SF, before the runner exists): a Cancel is there;
//   pressed, the launch stops, the view says it was cancelled, mariadbd is stopped, nothing is left to
//   restore, the target is let go and the file on disk keeps what it had;
// - its link dropped while it is followed: "link to T lost at …, reconnecting (next try in N s)" where
//   it said "running restart k of n", and once back "link back; resumed at …", the count again.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText } from '../../src/common/records.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { hostDir, profileDir } from '../../src/node/host/restore.js';
import { DEFAULT_HOST_PATHS, hostPaths } from '../../src/node/host/script.js';
import { oneCellCopy, running, shortDbt3, sshdSessions, startRunEnv, type RunEnv } from '../integration/run-env.js';
import { hold, release, releaseAll } from '../integration/hold.js';
import { homeWithSandbox, launchBrowser, openApp, openFile, pageProblems, pressRunDetached, startWebServer, waitForRun } from './support.js';

let env: RunEnv;
let browser: Browser;
const shots = process.env.VARLAB_SHOTS;
const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

before(async () => {
  env = await startRunEnv();
  browser = await launchBrowser();
});
after(async () => {
  releaseAll();
  await browser?.close();
  await env?.stop();
});

const homeOf = (name: string) => homeWithSandbox(env, name);

const pidFile = () => env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
const mysqldPid = () => (existsSync(pidFile()) ? Number(readFileSync(pidFile(), 'utf8').trim() || 0) : 0);

test('a detached DBT-3 launch has a Cancel while it loads: pressed, the view says the launch was cancelled, mariadbd is stopped, the host restored and the target let go, the file as it was', { timeout: 600_000 }, async () => {
  const file = join(env.dir, 'dbt3-launch-cancel.varlab.json');
  const doc = shortDbt3(env, file, 'aslr=on,ahi=off,preload=off', 2);
  // A database of its own: nothing loaded before is recognised, so the launch loads.
  doc.design.workload.database = 'dbt3_launch_cancel';
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const before = readFileSync(file, 'utf8');
  const lock = join(profileDir(env.profile, DEFAULT_HOST_PATHS), 'varlab-run.lock');
  const server = await startWebServer(homeOf('home-launch-cancel'));
  let stopped = 0;
  try {
    const page = await openApp(browser, server);
    await openFile(page, file);
    await pressRunDetached(page, env);
    // Its data step creates a database: agreed to here, in a home of its own.
    await page.getByTestId('run-consent-allow').click({ timeout: 60_000 });
    // The load under way, shown with its progress, and Cancel beside it.
    await page.getByTestId('run-launching-data').filter({ hasText: /^DBT-3 data: / }).waitFor({ timeout: 120_000 });
    const cancel = page.getByTestId('run-launch-cancel');
    assert.equal(await cancel.isEnabled(), true, 'Cancel is there while the data loads');
    // Held where it is (its mariadbd stopped with SIGSTOP, as a slow load holds it), so that it is still
    // loading when Cancel is pressed whatever the speed of this machine; let go once Cancel was pressed.
    stopped = mysqldPid();
    assert.ok(stopped > 0 && running(stopped), 'the launch started mariadbd for its data step');
    process.kill(stopped, 'SIGSTOP');
    assert.ok(existsSync(lock), 'the launch holds the target while it loads');
    if (shots) await page.screenshot({ path: `${shots}/run-launch-cancel-button.png` });
    await cancel.click();
    await page.getByTestId('run-launch-cancelling').waitFor({ timeout: 10_000 });
    assert.equal(await cancel.isDisabled(), true, 'pressed once');
    process.kill(stopped, 'SIGCONT');

    const said = page.getByTestId('run-launch-cancelled');
    await said.waitFor({ timeout: 180_000 });
    assert.equal(
      await said.innerText(),
      "The launch was cancelled before its runner started: a mysqld it started is stopped, the host's settings restored and the target let go; press Resume to launch it (a DBT-3 load goes on from its last whole chunk).",
    );
    assert.equal(await page.getByTestId('run-launching').count(), 0, 'not launching any more');
    assert.equal(await page.getByTestId('run-error').count(), 0, 'a cancel is not an error');
    await page.getByTestId('run-unfinished').filter({ hasText: 'It was cancelled.' }).waitFor({ timeout: 30_000 });
    assert.equal(await page.getByTestId('run-start-button').innerText(), 'Resume');
    if (shots) await page.screenshot({ path: `${shots}/run-launch-cancelled.png` });
    assert.deepEqual(pageProblems(page), []);

    // The host: mariadbd stopped, nothing left to put back, the target let go.
    assert.equal(running(stopped), false, `mariadbd (pid ${stopped}) is stopped`);
    assert.equal(existsSync(pidFile()) && running(mysqldPid()), false, 'no mariadbd is left running');
    const record = join(hostDir(hostPaths()), 'restore.tsv');
    assert.ok(!existsSync(record) || readFileSync(record, 'utf8').trim() === '', 'the restore record is empty');
    assert.equal(existsSync(lock), false, 'the target is let go');
    // The journal ends cancelled, with nothing measured; the file keeps its design and measures nothing new.
    const state = readJournalText(readFileSync(journalPath(file), 'utf8'));
    assert.equal(state.lastState, 'cancelled');
    assert.equal(state.restarts.length, 0);
    const now = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    const was = JSON.parse(before) as ExperimentDoc;
    assert.deepEqual(now.design, was.design, 'the design is as it was');
    assert.deepEqual(now.results?.restarts ?? [], was.results?.restarts ?? [], 'no restart written over or added');
    await page.close();
  } finally {
    if (stopped && running(stopped)) process.kill(stopped, 'SIGCONT');
    await server.stop('SIGKILL');
  }
});

test('a dropped link while following a detached run: the view says "link to T lost at …, reconnecting (next try in N s)" in place of the restart it runs, then "link back; resumed at …" and the count again', { timeout: 600_000 }, async () => {
  const RESTARTS = 3;
  const file = oneCellCopy(env, 'link-drop', { restarts: RESTARTS, queries: 2, repetitions: 3, idleSeconds: 8 });
  const server = await startWebServer(homeOf('home-link'));
  let runner = 0;
  let listener = false;
  try {
    const sessionsBefore = sshdSessions(env.sshd.pid);
    const page = await openApp(browser, server);
    await openFile(page, file);
    await pressRunDetached(page, env);
    const detached = page.getByTestId('run-detached');
    const k = new RegExp(`^detached on ${re(env.sshd.target)}, running restart [1-${RESTARTS}] of ${RESTARTS}$`);
    await detached.filter({ hasText: k }).waitFor({ timeout: 180_000 });
    const dir = readJournalText(readFileSync(journalPath(file), 'utf8')).detached!.dir;
    runner = Number(readFileSync(join(dir, 'pid'), 'utf8').trim());
    // Held, so that the run still goes on there whatever the speed of this machine.
    hold(dir, runner);

    // The host stops answering: its listening sshd stopped (a try to reach it waits for its handshake
    // until it times out) and the session following the run killed.
    process.kill(env.sshd.pid, 'SIGSTOP');
    listener = true;
    for (const p of sshdSessions(env.sshd.pid).filter((p) => !sessionsBefore.includes(p))) process.kill(p, 'SIGKILL');
    const lost = new RegExp(`^link to ${re(env.sshd.target)} lost at (\\d\\d:\\d\\d:\\d\\d), reconnecting \\((next try in \\d+ s|trying now)\\)$`);
    await waitForRun(page, detached.filter({ hasText: lost }), 120_000);
    assert.equal(await page.getByTestId('run-state').innerText(), 'running', 'the run goes on there');
    // Once a try has failed (its handshake timed out), the next one is counted down.
    await waitForRun(page, detached.filter({ hasText: /next try in \d+ s\)$/ }), 120_000);
    if (shots) await page.screenshot({ path: `${shots}/run-link-lost.png` });
    const lostAt = lost.exec(await detached.innerText())?.[1];
    assert.ok(lostAt, await detached.innerText());

    // It answers again: followed again, and the view says so and shows the restart it runs.
    process.kill(env.sshd.pid, 'SIGCONT');
    listener = false;
    await waitForRun(page, detached.filter({ hasText: k }), 120_000);
    const back = page.getByTestId('run-link-back');
    const resumedAt = /^link back; resumed at (\d\d:\d\d:\d\d)$/.exec(await back.innerText())?.[1];
    assert.ok(resumedAt && resumedAt >= lostAt, await back.innerText());
    await page.getByTestId('run-log').filter({ hasText: /following the run on \S+ again since \d\d:\d\d:\d\d/ }).waitFor({ timeout: 30_000 });
    if (shots) await page.screenshot({ path: `${shots}/run-link-back.png` });

    // Let go: it goes on to its end; the note of the link went with the next restart.
    release(runner);
    await page.getByTestId('run-finished-count').filter({ hasText: `Finished: ${RESTARTS} of ${RESTARTS} restarts` }).waitFor({ timeout: 300_000 });
    assert.equal(await back.count(), 0);
    assert.deepEqual(pageProblems(page), []);
    await page.close();
  } finally {
    if (listener) process.kill(env.sshd.pid, 'SIGCONT');
    if (runner) release(runner);
    await server.stop('SIGKILL');
  }
});
