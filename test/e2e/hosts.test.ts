// The Hosts view as a user goes through it, in real Chromium against the real backend: add `local`
// (probed), make a sandbox with a 512M buffer pool without the command line, start it and see its
// options verified on the live server, find it in the list and on disk; add two builds to it (the same
// binary twice: said) and remove one; a server registered with a
// data directory that does not exist is refused by name; then remove the sandbox, and its folder is gone.
// And over SSH: an existing server registered (not a sandbox), its own options checked on the live
// server, the commands a run of the open experiment would send there, then forgotten with its data kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startRunEnv } from '../integration/run-env.js';
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

  // A sandbox folder that does not exist: refused, naming this form's field, not the command line's --dir.
  const missing = join(ctx.app.dir, 'no-such-folder');
  await page.getByTestId('sandbox-parent').fill(missing);
  await page.getByTestId('sandbox-create').click();
  const refused = await page.getByTestId('sandbox-error').innerText();
  assert.match(refused, new RegExp(`the sandbox folder ${missing} does not exist on local: make it first \\(mkdir -p ${missing}\\), or choose another in "Folder on the target"`));
  assert.doesNotMatch(refused, /--dir/);

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

  // One build added to the sandbox there, then another that is the same binary (said), then one removed:
  // each its own data directory, the sandbox kept (before, "Replace" with every build listed again).
  for (const b of ['b', 'c']) {
    mkdirSync(join(ctx.app.dir, b), { mode: 0o755 });
    copyFileSync('/usr/sbin/mariadbd', join(ctx.app.dir, b, 'mariadbd'));
    chmodSync(join(ctx.app.dir, b, 'mariadbd'), 0o755);
  }
  const editor = page.getByTestId('builds-editor');
  for (const b of ['B', 'C']) {
    await editor.getByTestId('build-add-setting').fill(`${b}=${join(ctx.app.dir, b.toLowerCase(), 'mariadbd')}`);
    await editor.getByTestId('build-add').click();
    await editor.locator(`[data-testid=build-remove][data-build=${b}]`).waitFor({ timeout: 180_000 });
  }
  assert.match(await editor.getByTestId('builds-note').innerText(), /^Added C: its own data directory, made by it; the other builds are as they were\.$/);
  const withBuilds = JSON.parse(readFileSync(join(ctx.app.home, 'profiles.json'), 'utf8')).local;
  assert.equal(withBuilds.sandboxDir, sandboxDir, 'the same sandbox');
  assert.deepEqual(withBuilds.builds.map((b: { name: string; datadir: string }) => [b.name, b.datadir]), [
    ['B', join(sandboxDir, 'data-B')],
    ['C', join(sandboxDir, 'data-C')],
  ]);
  assert.match(await page.getByTestId('host-profile').innerText(), /C: .*\/c\/mariadbd, \d+\.\d+\.\d+-MariaDB.*data directory .*data-C/);
  assert.match(await page.getByTestId('build-note').innerText(), /^Builds B and C are the same binary byte for byte \(sha256 [0-9a-f]{12}…, at .*\/b\/mariadbd and .*\/c\/mariadbd\): right for an A\/A check/);
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'hosts-add-build.png'), fullPage: true });
  await editor.locator('[data-testid=build-remove][data-build=C]').click();
  await editor.locator('[data-testid=build-remove][data-build=C]').waitFor({ state: 'detached', timeout: 120_000 });
  assert.equal(existsSync(join(sandboxDir, 'data-C')), false, "C's data directory is gone");
  assert.equal(await page.getByTestId('build-note').count(), 0, 'one build: no note');

  await page.getByTestId('host-profile-remove').click();
  await page.getByText('No server profile yet').waitFor({ timeout: 120_000 });
  assert.equal(existsSync(sandboxDir), false, 'the sandbox folder is gone');
  assert.deepEqual(readdirSync(ctx.app.dir).filter((f) => f.startsWith('varlab-sandbox-')), []);
  assert.deepEqual(pageProblems(page), []);
});

test('an existing server registered over SSH from the Hosts view: probed, registered, its options checked on the live server, the commands a run would send there, then forgotten (its data kept)', { timeout: 600_000 }, async () => {
  // A loopback sshd and a mariadbd data directory of its own (never the system server), made once outside the app.
  const env = await startRunEnv();
  try {
    const p = env.profile;
    const page = await ctx.open();
    await page.getByRole('tab', { name: 'Hosts' }).click();
    await page.getByTestId('host-target').fill(env.sshd.target);
    await page.getByTestId('host-identity').fill(env.sshd.keyFile);
    await page.getByTestId('host-known-hosts').fill(env.sshd.knownHostsFile);
    await page.getByTestId('host-probe').click();
    await page.getByTestId('host-detail').waitFor({ timeout: 120_000 });
    const row = page.locator(`[data-testid=host-row][data-target="${env.sshd.target}"]`);
    assert.match(await row.innerText(), /no server profile/);

    // The server the user has: how varlab starts it, where its data and socket are, its own options.
    await page.getByTestId('register-mysqld').fill(p.mysqld);
    await page.getByTestId('register-datadir').fill(p.datadir);
    await page.getByTestId('register-socket').fill(p.socket);
    await page.getByTestId('register-port').fill(String(p.port));
    await page.getByTestId('register-errorLog').fill(p.errorLog ?? '');
    await page.getByTestId('register-osUser').fill(p.osUser ?? '');
    await page.getByTestId('register-options').fill(p.extraArgs.join('\n'));
    await page.getByTestId('register-submit').click();
    await page.getByTestId('host-profile').waitFor({ timeout: 120_000 });
    assert.match(await page.getByTestId('host-profile').innerText(), new RegExp(`Registered server\\s+${p.mysqld} \\(varlab starts it\\)[\\s\\S]*${p.datadir}`));
    const registered = JSON.parse(readFileSync(join(ctx.app.home, 'profiles.json'), 'utf8'))[env.sshd.target];
    assert.equal(registered.datadir, p.datadir);
    assert.equal(registered.sandboxDir, undefined, 'registered, not a sandbox');

    // Started over SSH as a run starts it: every option of its own read back on the live server.
    await page.getByTestId('host-check-run').click();
    await page.getByTestId('host-check').waitFor({ timeout: 180_000 });
    const rows = await page.getByTestId('host-check-row').allInnerTexts();
    assert.equal(rows.length, p.extraArgs.filter((a) => !/^--skip-/.test(a)).length, rows.join('\n'));
    assert.ok(rows.every((r) => /✓ verified/.test(r)), rows.join('\n'));
    assert.ok(rows.some((r) => /^innodb_buffer_pool_size\s/.test(r)), rows.join('\n'));

    // What a run of an experiment would send to this host, for the host selected here: with nothing open the
    // view says so; with the quickstart open, each cell's one script names the registered server.
    assert.match(await page.getByTestId('host-dry-run-none').innerText(), new RegExp(`Open an experiment to see, cell by cell, what a run of it would send to ${env.sshd.target.replace(/[.]/g, '\\.')}`));
    await page.getByRole('tab', { name: 'Design' }).click();
    await page.getByTestId('open-quickstart').click();
    await page.getByTestId('cell-count').waitFor();
    await page.getByRole('tab', { name: 'Hosts' }).click();
    await row.click();
    await page.getByTestId('host-dry-run').getByRole('heading', { name: `Commands on ${env.sshd.target}` }).waitFor();
    // The button names the host it connects to and reads: pressing it is asking for that host.
    assert.equal(await page.getByTestId('host-dry-run-show').innerText(), `Dry run: read ${env.sshd.target}`);
    assert.match(await page.getByTestId('host-dry-run').innerText(), new RegExp(`Connects to ${env.sshd.target.replace(/[.]/g, '\\.')} with your keys to read it \\(read only: CPUs, NUMA nodes, mysqld\\)`));
    if (process.env.VARLAB_SCREENSHOTS) await page.getByTestId('host-dry-run').screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'hosts-dry-run-ask.png') });
    await page.getByTestId('host-dry-run-show').click();
    await page.getByTestId('host-dry-run-commands').first().waitFor({ state: 'attached', timeout: 120_000 });
    if (process.env.VARLAB_SCREENSHOTS) await page.getByTestId('host-dry-run').screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'hosts-dry-run-read.png') });
    const scripts = await page.getByTestId('host-dry-run-commands').allTextContents();
    assert.equal(scripts.length, 16, 'one per cell of the quickstart');
    assert.ok(scripts.every((t) => t.includes(`--datadir=${p.datadir}`)), scripts[0]);

    // Forgotten: the registration goes, the server's data stays.
    await page.getByTestId('host-profile-remove').click();
    await page.getByText('No server profile yet').waitFor({ timeout: 120_000 });
    assert.ok(existsSync(join(p.datadir, 'mysql')), 'the data directory is untouched');
    assert.deepEqual(pageProblems(page), []);
    await page.close();
  } finally {
    await env.stop();
  }
});
