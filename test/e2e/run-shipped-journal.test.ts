// Opening a file does nothing on the network (issue 24, item 2), in the app as a user of `npm run
// web` meets it: a teammate's file arrives with the journal of a detached run beside it, naming the
// sandbox sshd's target and a key that logs in there. Opening it in the Run view connects nowhere
// (the sshd logs no login); the view says a detached run is recorded beside this file, where, and
// offers Follow. Follow asks first, naming the target; agreeing connects with the user's own key
// (the Hosts list's), never the journal's, and says what it found there.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { HostFingerprint } from '../../src/common/host.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { shipDetachedRun } from '../fixtures/shipped-run.js';
import { launchBrowser, openApp, openFile, pageProblems, startWebServer } from './support.js';

let sshd: Sshd;
let browser: Browser;
let dir: string;

before(async () => {
  sshd = await startSshd();
  browser = await launchBrowser();
  dir = mkdtempSync(join(tmpdir(), 'varlab-shipped-e2e-'));
});
after(async () => {
  await browser?.close();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const logins = () => (sshd.log().match(/Accepted publickey/g) ?? []).length;
const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

test('a shipped file with a detached run beside it: opening it connects nowhere; the Run view says where the run is recorded, and Follow asks first, naming the target', { timeout: 300_000 }, async () => {
  // The teammate's journal names a key and known_hosts that would log in: the app must not use them by itself.
  const host: HostFingerprint = { target: sshd.target } as unknown as HostFingerprint;
  const shipped = shipDetachedRun({ dir: join(dir, 'from-a-teammate'), name: 'teammate', target: sshd.target, host, auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile } });
  // This machine: its own varlab home, the target in its Hosts list with the user's own key (the same one here).
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, 'hosts.json'), JSON.stringify({ [sshd.target]: { addedAt: 1, auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile } } }));

  const server = await startWebServer(home);
  try {
    const page = await openApp(browser, server);
    const before = logins();
    await openFile(page, shipped.file);
    await page.getByTestId('nav-run').click();
    const recorded = page.getByTestId('run-detached-recorded');
    await recorded.waitFor({ timeout: 60_000 });
    assert.equal(
      await recorded.innerText(),
      `A detached run is recorded beside this file, in ${shipped.journal}: it runs, or ran, on ${sshd.target}. This computer did not launch it, so nothing has connected there.`,
    );
    assert.equal(logins(), before, 'opening the file logged in nowhere');
    assert.equal(await page.getByTestId('run-start-button').count(), 0, 'a detached run is followed, not run');
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-shipped-journal.png` });

    // Follow asks first, naming the target and what following does there; "Not now" connects nowhere.
    await page.getByTestId('run-follow').click();
    const consent = page.getByTestId('run-follow-consent');
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-shipped-follow-consent.png` });
    assert.match(await consent.innerText(), new RegExp(`^Following connects to ${re(sshd.target)} over SSH with your own key and known_hosts files \\(never the ones the journal names\\)`));
    await page.getByTestId('run-follow-no').click();
    assert.equal(await consent.count(), 0);
    assert.equal(logins(), before, 'Not now connected nowhere');

    await page.getByTestId('run-follow').click();
    const agree = page.getByTestId('run-follow-agree');
    assert.equal(await agree.innerText(), `Connect to ${sshd.target} and follow`);
    await agree.click();
    // Now it connects, with the Hosts list's key: the run's directory is not there (a shipped journal's run).
    const problem = page.getByTestId('run-follow-problem');
    await problem.waitFor({ timeout: 120_000 });
    assert.match(await problem.innerText(), new RegExp(`^It could not be followed: the run's directory is no longer on ${re(sshd.target)}`));
    assert.ok(logins() > before, 'following, once agreed to, logged in');
    assert.deepEqual(pageProblems(page), []);
    await page.close();
  } finally {
    await server.stop('SIGKILL');
  }
});
