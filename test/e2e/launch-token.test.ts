// Browser mode after varlab was started again: a tab still holding the former launch's token (kept for
// the tab, so a reload does not help) says it cannot connect, why, and what to open (never that it is
// reconnecting: it never connected); the new address pasted into that tab (only its fragment changes,
// so the page would not load again) connects. A tab that was connected says it is reconnecting once
// varlab stops, and that nothing answers at its address.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appForTests, openApp, openQuickstart, pageProblems, startApp } from './support.js';

const env = appForTests();

test("a tab with a former launch's token says so, and the new address pasted into it connects", async () => {
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 800 } });
  try {
    await page.goto(env.app.url.replace(/token=[^&]+/, 'token=formerLaunchToken'));
    // It never connected: it says it cannot connect and why (the page's server answers, and refuses
    // this tab), not that it is reconnecting.
    const banner = page.getByTestId('transport-connecting');
    await banner.filter({ hasText: /^Cannot connect/ }).waitFor({ timeout: 30_000 });
    assert.match(
      await banner.innerText(),
      /^Cannot connect to the varlab backend(?: \(attempt \d+\))?: varlab answers at this address but refuses this tab: the address it was opened with is from another launch of varlab\. Open the address varlab printed when it started \(or paste it here\): each launch has a token of its own\.$/,
    );
    assert.equal(await page.getByTestId('transport-reconnecting').count(), 0);
    assert.doesNotMatch(await page.locator('main').innerText(), /Reconnecting/);
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/stale-token.png` });

    await page.goto(env.app.url);
    await banner.waitFor({ state: 'detached', timeout: 30_000 });
    await openQuickstart(page);
    assert.doesNotMatch(page.url(), /token=/, 'the token is taken out of the address bar again');
    assert.deepEqual(pageProblems(page), []);
  } finally {
    await page.close();
  }
});

test('a tab that was connected says it is reconnecting once varlab stops, and that nothing answers at its address', async () => {
  const other = await startApp();
  const page = await openApp(env.browser, other, { width: 1000, height: 800 });
  let stopped = false;
  try {
    await openQuickstart(page);
    assert.equal(await page.getByTestId('transport-connecting').count(), 0, 'a tab that connected at once shows no banner');
    await other.stop();
    stopped = true;
    const banner = page.getByTestId('transport-reconnecting');
    await banner.filter({ hasText: /Nothing answers/ }).waitFor({ timeout: 30_000 });
    assert.match(await banner.innerText(), /^Reconnecting to the varlab backend…(?: \(attempt \d+\))? Nothing answers at this address: varlab is not running, or was stopped\. Start it again \(npm run web\) and open the address it prints\.$/);
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/stopped.png` });
  } finally {
    await page.close();
    if (!stopped) await other.stop();
  }
});
