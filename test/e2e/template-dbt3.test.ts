// New from the templates in headless Chromium against the real browser-mode backend: the welcome
// screen offers DBT-3 with a scale factor, and sysbench read-only and point select; each design is its
// field note's, and what the run would do on the host (the data step first) is listed for the user to read;
// the DBT-3 workload says its data come from the data step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appForTests, pageProblems } from './support.js';

const env = appForTests();

test('DBT-3 at scale factor 0.1 from the welcome screen: 8 cells, 22 queries, the data step named for consent', async () => {
  const page = await env.open();
  // The common scale factors are a click away: the click fills the field.
  await page.getByTestId('dbt3-sf-0.1').click();
  assert.equal(await page.getByTestId('dbt3-sf').inputValue(), '0.1');
  assert.match(await page.getByTestId('new-dbt3').innerText(), /DBT-3 at scale factor 0\.1/);
  // The scale factor is chosen inside the DBT-3 card, not below it (new-user notes): within its box, under its title.
  const card = (await page.locator('.template-choice').boundingBox())!;
  const title = (await page.getByTestId('new-dbt3').boundingBox())!;
  const sf = (await page.getByTestId('dbt3-sf').boundingBox())!;
  assert.ok(sf.x >= card.x && sf.x + sf.width <= card.x + card.width && sf.y >= title.y + title.height - 1 && sf.y + sf.height <= card.y + card.height, JSON.stringify({ card, title, sf }));
  assert.equal(await page.locator('.template-choice').evaluate((e) => (globalThis as unknown as { getComputedStyle(x: unknown): { borderTopStyle: string } }).getComputedStyle(e).borderTopStyle), 'solid', 'the card is the box around both');
  await page.getByTestId('new-dbt3').click();
  await page.getByTestId('cell-count').waitFor();
  assert.equal(await page.getByTestId('cell-count').innerText(), '8 cells');
  assert.equal(await page.getByTestId('factor').count(), 3);
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'DBT-3 SF 0.1: ASLR x AHI x preload');
  // The workload says where its tables come from (its setup script is empty): the data step, not the user.
  assert.equal(
    await page.getByTestId('workload-data').innerText(),
    "The data: DBT-3 at scale factor 0.1 (varlab's generator, seed 20170116), made in database dbt3 by the run's data step, once per data directory before its first restart measures; a load already there is recognised.",
  );
  // The list of what the run would do comes from an API call after the design shows: waited for, not raced.
  await page.getByText(/the DBT-3 data step/).first().waitFor({ timeout: 30_000 });
  const body = await page.locator('body').innerText();
  assert.match(body, /DBT-3 tables region, nation, part, supplier, partsupp, customer, orders, lineitem at scale factor 0\.1 \(about 600,000 lineitem rows\)/);
  // A setup script of the user's runs after the data step, attached and detached alike: said where it is written.
  assert.equal(await page.getByTestId('setup-sql-label').innerText(), 'Setup script (run after the DBT-3 data step, before the first restart unless the table above exists: it may build on the DBT-3 tables, e.g. an index on lineitem)');
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: `${process.env.VARLAB_SCREENSHOTS}/designer-dbt3-setup.png`, fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('DBT-3 at any scale factor the CLI takes: typed, 0.02 is made; out of range or not a number is refused naming the field, as `varlab new --sf` refuses it', async () => {
  const page = await env.open();
  const sf = page.getByTestId('dbt3-sf');
  const make = page.getByTestId('new-dbt3');
  await sf.fill('20');
  assert.equal(await page.getByTestId('dbt3-sf-problem').innerText(), 'The scale factor 20 is outside 0.01 to 10.');
  assert.equal(await make.isDisabled(), true);
  await sf.fill('abc');
  assert.equal(await page.getByTestId('dbt3-sf-problem').innerText(), 'The scale factor must be a number from 0.01 to 10, got "abc".');
  assert.equal(await make.isDisabled(), true);
  await sf.fill('0.015');
  assert.match(await page.getByTestId('dbt3-sf-problem').innerText(), /^The scale factor 0\.015 has more than two decimals/);
  if (process.env.VARLAB_SCREENSHOTS) await page.locator('.template-choice').screenshot({ path: `${process.env.VARLAB_SCREENSHOTS}/welcome-dbt3-sf-problem.png` });
  await sf.fill('0.02');
  assert.equal(await page.getByTestId('dbt3-sf-problem').count(), 0);
  assert.match(await make.innerText(), /DBT-3 at scale factor 0\.02/);
  if (process.env.VARLAB_SCREENSHOTS) await page.locator('.template-choice').screenshot({ path: `${process.env.VARLAB_SCREENSHOTS}/welcome-dbt3-sf.png` });
  await make.click();
  await page.getByTestId('cell-count').waitFor();
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'DBT-3 SF 0.02: ASLR x AHI x preload');
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('sysbench read-only and point select from the welcome screen: the field notes\' designs, the command and its login said', async () => {
  const page = await env.open();
  // How the template logs in is said before it is chosen: no password, and what to do for an account that has one.
  assert.match(await page.getByTestId('sysbench-login').innerText(), /no password[\s\S]*socket authentication/);
  await page.getByTestId('new-oltp_read_only').click();
  await page.getByTestId('cell-count').waitFor();
  assert.equal(await page.getByTestId('cell-count').innerText(), '2 cells');
  assert.equal(await page.getByTestId('experiment-name').inputValue(), 'sysbench oltp_read_only across restarts');
  const body = await page.locator('body').innerText();
  assert.match(body, /sysbench oltp_read_only --mysql-socket=\{socket\} --mysql-user=\{user\}/);
  assert.match(body, /Save it, then run it: the run makes its tables first/);
  assert.deepEqual(pageProblems(page), []);
  await page.close();

  const other = await env.open();
  await other.getByTestId('new-oltp_point_select').click();
  await other.getByTestId('cell-count').waitFor();
  assert.equal(await other.getByTestId('experiment-name').inputValue(), 'sysbench point select: baseline variance');
  assert.match(await other.locator('body').innerText(), /sysbench oltp_point_select --mysql-socket/);
  await other.close();
});
