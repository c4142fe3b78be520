// The Hosts view as a user goes through it, in real Chromium against the real backend: add `local`
// (probed), make a sandbox with a 512M buffer pool without the command line, start it and see its
// options verified on the live server, find it in the list and on disk; a server registered with a
// data directory that does not exist is refused by name; then remove the sandbox, and its folder is gone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appForTests, pageProblems } from './support.js';

const ctx = appForTests();

test('a sandbox with a 512M buffer pool made and checked from the Hosts view, then removed', async () => {
  // mariadbd runs as `mysql`, which must reach the sandbox inside the test's folder.
  chmodSync(ctx.app.dir, 0o755);
  const page = await ctx.open();
  await page.getByRole('tab', { name: 'Hosts' }).click();
  await page.getByText('No host yet').waitFor();
  await page.getByTestId('host-target').fill('local');
  await page.getByTestId('host-probe').click();
  await page.getByTestId('host-detail').waitFor();
  assert.match(await page.getByTestId('host-row').first().innerText(), /local.*no server profile/s);
  assert.match(await page.getByTestId('host-mysqld').innerText(), /mariadb .* at \/usr\/sbin\/mariadbd/);

  // A registered server must exist where it says: refused, naming the field.
  await page.getByTestId('register-datadir').fill(join(ctx.app.dir, 'no-such-datadir'));
  await page.getByTestId('register-submit').click();
  assert.match(await page.getByTestId('register-error').innerText(), /not registered: on local, datadir: .*no-such-datadir is not a directory there/);

  await page.getByTestId('sandbox-buffer-pool').fill('512M');
  await page.getByTestId('sandbox-parent').fill(ctx.app.dir);
  await page.getByTestId('sandbox-options').fill('innodb_flush_log_at_trx_commit=2');
  await page.getByTestId('sandbox-create').click();
  await page.getByTestId('host-profile').waitFor({ timeout: 180_000 });
  assert.match(await page.getByTestId('host-row').first().innerText(), /sandbox, port \d+, buffer pool 512M/);
  const profiles = JSON.parse(readFileSync(join(ctx.app.home, 'profiles.json'), 'utf8'));
  const sandboxDir: string = profiles.local.sandboxDir;
  assert.ok(sandboxDir.startsWith(ctx.app.dir) && existsSync(join(sandboxDir, 'data', 'mysql')), 'the sandbox is on disk where the user asked');
  assert.ok(profiles.local.extraArgs.includes('--innodb-buffer-pool-size=512M'));

  await page.getByTestId('host-check-run').click();
  await page.getByTestId('host-check').waitFor({ timeout: 180_000 });
  const rows = await page.getByTestId('host-check-row').allInnerTexts();
  assert.ok(rows.some((r) => /innodb_buffer_pool_size\s+512M\s+@@innodb_buffer_pool_size = 536870912\s+✓ verified/.test(r)), rows.join('\n'));
  assert.ok(rows.some((r) => /innodb_flush_log_at_trx_commit\s+2\s+.*= 2\s+✓ verified/.test(r)), rows.join('\n'));

  // The list survives a reload: it is kept by the backend, not the page.
  await page.reload();
  await page.getByRole('tab', { name: 'Hosts' }).click();
  await page.getByTestId('host-profile').waitFor();

  await page.getByTestId('host-profile-remove').click();
  await page.getByText('No server profile yet').waitFor({ timeout: 120_000 });
  assert.equal(existsSync(sandboxDir), false, 'the sandbox folder is gone');
  assert.deepEqual(readdirSync(ctx.app.dir).filter((f) => f.startsWith('varlab-sandbox-')), []);
  assert.deepEqual(pageProblems(page), []);
});
