// The Hosts view's checkboxes choose the hosts a run goes to (issue 14): with the quickstart open,
// `local` and a loopback sshd are probed and added, both ticked, and the design names both (the first
// as its target); the last one cannot be unticked; unticking one leaves a design on one host.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { appForTests, openQuickstart, pageProblems } from './support.js';

const ctx = appForTests();
let sshd: Sshd;
before(async () => {
  sshd = await startSshd();
});
after(async () => {
  await sshd?.stop();
});

test('ticking two hosts in the Hosts view makes the open experiment run on both', async () => {
  const page = await ctx.open();
  await openQuickstart(page);
  await page.getByRole('tab', { name: 'Hosts' }).click();
  await page.getByTestId('host-target').fill('local');
  await page.getByTestId('host-probe').click();
  await page.getByTestId('host-detail').waitFor();
  await page.getByTestId('host-target').fill(sshd.target);
  await page.getByTestId('host-identity').fill(sshd.keyFile);
  await page.getByTestId('host-known-hosts').fill(sshd.knownHostsFile);
  await page.getByTestId('host-probe').click();
  await page.locator(`[data-testid="host-row"][data-target="${sshd.target}"]`).waitFor();

  const box = (target: string) => page.locator(`[data-testid="host-row"][data-target="${target}"] [data-testid="host-run-on"]`);
  // The quickstart runs on local: its box is ticked, and it is the last one, so it stays ticked.
  assert.equal(await box('local').isChecked(), true);
  assert.equal(await box('local').isDisabled(), true);
  assert.equal(await box(sshd.target).isChecked(), false);

  await box(sshd.target).check();
  assert.match(await page.getByTestId('host-runs-on').innerText(), new RegExp(`runs on local, ${sshd.target.replace(/[/.]/g, '\\$&')}: the same design on each at once`));
  await page.screenshot({ path: `${ctx.app.dir}/hosts-run-on.png` });
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/hosts-run-on.png` });

  // One host again: the design is back on its single target.
  await box('local').uncheck();
  assert.match(await page.getByTestId('host-runs-on').innerText(), new RegExp(`runs on ${sshd.target.replace(/[/.]/g, '\\$&')}\\.`));
  assert.equal(await box(sshd.target).isDisabled(), true);
  await page.getByRole('tab', { name: 'Design' }).click();
  assert.equal(await page.getByTestId('target').inputValue(), sshd.target);
  assert.deepEqual(pageProblems(page), []);
});
