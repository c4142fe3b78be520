// Issue 13: a journal of another design shipped beside a harmless file. The Run view offers to
// resume the journal's design; the run then asks, in the Run view, about that design's own query,
// shown whole with its carriage return and escape written visibly; Allow records the consent for
// the run as it would run (the same request) and starts it. The target is a closed port on
// 127.0.0.1: the run that starts fails to connect there, so nothing can run anywhere. A list the Run view
// asks about is not shown twice (the banner steps aside), and Allow in either place answers both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { headerRecord } from '../../src/node/engine/journal.js';
import { appForTests, openFile, pageProblems } from './support.js';

const env = appForTests();
const TARGET = 'ssh://root@127.0.0.1:1';

test("resuming a journal's other design asks about its query in the Run view, in full and with control characters visible", { timeout: 300_000 }, async () => {
  const profile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/var/tmp/varlab-sandbox-00000000/data', socket: '/var/tmp/varlab-sandbox-00000000/s.sock', port: 23456, user: 'root', extraArgs: [], sudo: false };
  writeFileSync(join(env.app.home, 'profiles.json'), JSON.stringify({ [TARGET]: profile }));
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = TARGET;
  const file = join(env.app.dir, 'harmless.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const marker = join(env.app.dir, 'never.txt');
  const swapped = structuredClone(doc);
  swapped.design.workload.queries.push({ name: 'Q99', sql: `SELECT 1\r\x1b[2K-- harmless\nSELECT * FROM lineitem INTO OUTFILE '${marker}'` });
  writeFileSync(file.replace(/\.json$/, '.journal.jsonl'), JSON.stringify(headerRecord(swapped.design)) + '\n');

  const page = await env.open();
  await openFile(page, file);
  // Opening the file asks nothing: it is the quickstart.
  await page.getByTestId('trust-checked').waitFor({ state: 'attached' });
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-design-changed').waitFor();
  await page.getByTestId('run-resume-old').click();

  const ask = page.getByTestId('run-consent');
  await ask.waitFor();
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-consent.png`, fullPage: true });
  const items = ask.locator('[data-testid=trust-commands] li');
  assert.equal(await items.count(), 1);
  const text = await items.nth(0).innerText();
  assert.ok(text.includes(`SELECT 1\\u000d\\u001b[2K-- harmless\nSELECT * FROM lineitem INTO OUTFILE '${marker}'`), text);
  assert.match(await ask.innerText(), /would do these on ssh:\/\/root@127\.0\.0\.1:1/);

  await page.getByTestId('run-consent-allow').click();
  await ask.waitFor({ state: 'detached' });
  assert.ok(existsSync(join(env.app.home, 'consent.json')), 'agreed for this host');
  assert.equal(existsSync(marker), false);
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('a run asked for detached asks its consent in the Run view, and Allow starts it detached (not attached)', { timeout: 300_000 }, async () => {
  const target = 'ssh://root@127.0.0.1:2';
  const profile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/var/tmp/varlab-sandbox-00000000/data', socket: '/var/tmp/varlab-sandbox-00000000/s.sock', port: 23456, user: 'root', extraArgs: [], sudo: false };
  writeFileSync(join(env.app.home, 'profiles.json'), JSON.stringify({ [target]: profile }));
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = target;
  doc.design.workload.queries.push({ name: 'Q99', sql: 'SELECT 99' });
  const file = join(env.app.dir, 'detach-consent.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-detach').check();
  await page.getByTestId('run-start-button').click();
  await page.getByTestId('run-consent').waitFor();
  await page.getByTestId('run-consent-allow').click();
  // Detached, the run is put on its target before run.start answers: the closed port is the refusal beside the button.
  // Started attached instead, it would be a run that fails (its state shown) rather than a refusal.
  await page.getByTestId('run-error').waitFor({ timeout: 60_000 });
  assert.match(await page.getByTestId('run-error').innerText(), /127\.0\.0\.1/);
  assert.equal(await page.getByTestId('run-state').count(), 0, 'no attached run was started');
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test("after Allow in the Run view the banner's list goes, above the run and in the Plan view: nothing is asked twice", { timeout: 300_000 }, async () => {
  const target = 'ssh://root@127.0.0.1:3';
  const profile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/var/tmp/varlab-sandbox-00000000/data', socket: '/var/tmp/varlab-sandbox-00000000/s.sock', port: 23456, user: 'root', extraArgs: [], sudo: false };
  writeFileSync(join(env.app.home, 'profiles.json'), JSON.stringify({ [target]: profile }));
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = target;
  doc.design.workload.queries.push({ name: 'Q98', sql: 'SELECT 98' });
  const file = join(env.app.dir, 'banner-consent.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('trust-notice').waitFor();
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  await page.getByTestId('run-consent').waitFor();
  // One list on screen: the banner's goes while the Run view asks about the same run beside its button.
  await page.getByTestId('trust-notice').waitFor({ state: 'detached' });
  await page.getByTestId('run-consent-allow').click();
  await page.getByTestId('run-consent').waitFor({ state: 'detached' });
  // The run started (here it fails to connect to the closed port): the banner's list is gone above it.
  await page.getByTestId('run-state').waitFor({ timeout: 60_000 });
  await page.getByTestId('trust-checked').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('trust-notice').count(), 0, 'the list allowed in the Run view is not shown above the run');
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: join(process.env.VARLAB_SHOTS, 'run-after-allow.png'), fullPage: true });
  await page.getByTestId('nav-plan').click();
  await page.getByTestId('trust-checked').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('trust-notice').count(), 0, 'the Plan view does not ask again');
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: join(process.env.VARLAB_SHOTS, 'plan-after-allow.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test("Allow in the banner (in another view) takes the Run view's list of the same run away too", { timeout: 300_000 }, async () => {
  const target = 'ssh://root@127.0.0.1:4';
  const profile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/var/tmp/varlab-sandbox-00000000/data', socket: '/var/tmp/varlab-sandbox-00000000/s.sock', port: 23456, user: 'root', extraArgs: [], sudo: false };
  writeFileSync(join(env.app.home, 'profiles.json'), JSON.stringify({ [target]: profile }));
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = target;
  doc.design.workload.queries.push({ name: 'Q97', sql: 'SELECT 97' });
  const file = join(env.app.dir, 'banner-first.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));

  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').click();
  await page.getByTestId('run-consent').waitFor();
  assert.equal(await page.getByTestId('trust-notice').count(), 0, 'not asked twice on one screen');
  // In the Plan view the banner asks; allowed there, the Run view no longer asks about it.
  await page.getByTestId('nav-plan').click();
  await page.getByTestId('trust-allow').click();
  await page.getByTestId('trust-checked').waitFor({ state: 'attached' });
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-start-button').waitFor();
  assert.equal(await page.getByTestId('run-consent').count(), 0, "the Run view's list went with the banner's");
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: join(process.env.VARLAB_SHOTS, 'run-after-banner-allow.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});
