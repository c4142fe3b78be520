// `npm start` on a machine where Electron cannot start: one line saying why, then the same UI in browser mode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchBrowser } from './support.js';

test('npm start falls back to browser mode with a one-line reason and serves the designer', async () => {
  const home = mkdtempSync(join(tmpdir(), 'varlab-home-'));
  const env: NodeJS.ProcessEnv = { ...process.env, VARLAB_HOME: home };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  // A process group of its own, so npm, tsx and the server stop together (by this pid).
  const child = spawn('npm', ['start'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL printed; output so far:\n${out}`)), 120_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /open (http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
    });
    const reasons = out.split('\n').filter((l) => l.startsWith('varlab: Electron cannot start here'));
    assert.equal(reasons.length, 1, out);
    assert.match(reasons[0], /\(no display \(DISPLAY and WAYLAND_DISPLAY are unset\)\); serving the same UI in browser mode instead\.$/);

    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForSelector('#root > *');
      // The token is taken out of the address bar once the page has it.
      assert.doesNotMatch(page.url(), /token=/);
      assert.match(await page.locator('body').innerText(), /quickstart/i);
    } finally {
      await browser.close();
    }
  } finally {
    if (child.pid) process.kill(-child.pid, 'SIGTERM');
    if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once('exit', r));
    rmSync(home, { recursive: true, force: true });
  }
});
