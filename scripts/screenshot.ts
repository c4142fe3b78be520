// Takes docs/screenshot.png (the README's picture): the designer with the quickstart open, in
// Debian's headless Chromium against the browser-mode server. Run after `npm run build`:
//   npx tsx scripts/screenshot.ts [out.png]
import { launchBrowser, openApp, startApp } from '../test/e2e/support.js';

const out = process.argv[2] ?? 'docs/screenshot.png';
const app = await startApp();
const browser = await launchBrowser();
try {
  const page = await openApp(browser, app, { width: 1440, height: 900 });
  await page.getByTestId('open-quickstart').click();
  await page.getByTestId('cell-count').waitFor();
  // One excluded cell shows what excluding looks like.
  await page.locator('[data-testid=cell][data-cell="aslr=off,ahi=off,preload=on,numa=interleave"]').click();
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await app.stop();
}
