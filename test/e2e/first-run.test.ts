// A first run with nothing but the laptop (issue 4, point 8): the welcome screen's "Run the
// quickstart on this machine" makes a sandbox on `local`, saves a short quickstart and shows it live
// in the Run view; cancelling from the UI stops every mariadbd the run started. The sandbox has its
// own port, socket and data directory: the system MariaDB (3306, /run/mysqld) is never touched.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { openTarget, readProfiles, removeSandbox, type RegisteredProfile } from '../../src/node/host/index.js';
import { launchBrowser, openApp, pageProblems, startApp, type TestApp } from './support.js';

let app: TestApp;
let browser: Browser;
let sandbox: RegisteredProfile | null = null;

/** Live mysqld/mariadbd processes whose command line names the sandbox directory (zombies count as gone). */
function sandboxServers(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (!/(mariadbd|mysqld)$/.test(cmd[0] ?? '') || !cmd.some((a) => a.includes(dir))) continue;
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, 'utf8'))) continue;
      pids.push(Number(name));
    } catch {
      /* gone while we looked */
    }
  }
  return pids;
}

before(async () => {
  app = await startApp();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  if (sandbox) {
    // Stop whatever is left (a failed assertion) by the sandbox's pid file, and delete its directory.
    const session = await openTarget('local', { prompt: async () => ({ accept: false }) });
    await removeSandbox(session, sandbox).finally(() => session.close());
  }
  const home = app?.home;
  await app?.stop();
  if (home) assert.equal(existsSync(home), false, 'the temporary VARLAB_HOME is removed');
});

test('the welcome screen runs the quickstart on this machine live, and Cancel stops its mariadbd', { timeout: 600_000 }, async () => {
  const page = await openApp(browser, app);
  const button = page.getByTestId('run-quickstart-local');
  await button.waitFor({ timeout: 30_000 });
  assert.match(await button.innerText(), /Run the quickstart on this machine/);
  await button.click();

  // The Run view, fed live: wait for the first finished restart of the 32 planned (16 cells × 2).
  await page.getByTestId('run-view').waitFor({ timeout: 180_000 });
  const count = page.getByTestId('run-count');
  await count.filter({ hasText: /^[1-9]\d* of 32 restarts/ }).waitFor({ timeout: 300_000 });
  console.log(`# Run view: ${await count.innerText()}, ${await page.getByTestId('run-progress').innerText().then((t) => t.split('\n')[0])}`);

  // The sandbox the backend made, registered for `local` in this test's VARLAB_HOME, its copy saved there too.
  sandbox = (await readProfiles()).local ?? null;
  assert.ok(sandbox?.sandboxDir, 'a sandbox profile is registered for local');
  assert.notEqual(sandbox.port, 3306);
  assert.ok(!sandbox.socket?.startsWith('/run/mysqld'), sandbox.socket);
  assert.ok(existsSync(join(app.home, 'experiments', 'quickstart.varlab.json')), 'the quickstart copy is saved in the varlab home');
  // Between two restarts no mariadbd runs for a moment (one is stopped, the next not started yet):
  // look until one does, while the run goes on.
  let running = sandboxServers(sandbox.sandboxDir);
  for (let i = 0; i < 600 && running.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    running = sandboxServers(sandbox.sandboxDir);
  }
  assert.equal(running.length, 1, `one sandbox mariadbd runs during the run (found ${running.join(', ') || 'none'})`);

  await page.getByTestId('run-cancel').click();
  await page.getByTestId('run-state').filter({ hasText: 'cancelled' }).waitFor({ timeout: 120_000 });
  assert.deepEqual(sandboxServers(sandbox.sandboxDir), [], 'no sandbox mariadbd is left running after Cancel');
  for (const pid of running) assert.equal(existsSync(`/proc/${pid}/cmdline`) && sandboxServers(sandbox.sandboxDir).includes(pid), false, `mariadbd ${pid} has stopped`);
  assert.deepEqual(pageProblems(page), []);
});
