// Browser mode after varlab was started again: a tab still holding the former launch's token (kept for
// the tab, so a reload does not help) says it cannot reach the backend and what to open; the new
// address pasted into that tab (only its fragment changes, so the page would not load again) connects.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appForTests, openQuickstart, pageProblems } from './support.js';

const env = appForTests();

test("a tab with a former launch's token says so, and the new address pasted into it connects", async () => {
  const page = await env.browser.newPage({ viewport: { width: 1000, height: 800 } });
  try {
    await page.goto(env.app.url.replace(/token=[^&]+/, 'token=formerLaunchToken'));
    const banner = page.getByTestId('transport-reconnecting');
    await banner.waitFor({ timeout: 30_000 });
    assert.match(await banner.innerText(), /If varlab was started again, open the address it printed: each launch has a token of its own\./);
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
