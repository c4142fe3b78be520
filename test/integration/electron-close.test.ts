// Closing the desktop app's window mid-run: the real electron/main.ts (loaded with a stand-in for the
// Electron binary, test/fixtures/electron-stand-in.ts) and its real backend run an experiment on a
// sandbox mariadbd over a loopback sshd; `window-all-closed` cancels the run, stops mysqld and says so
// before the app quits (issue 10: closing the app used to leave mysqld running and the host changed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { electronStandIn, loadElectronEntry } from '../fixtures/electron-stand-in.js';
import { quickstartCopy, running, runEnvForTests } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });

test('closing the window mid-run cancels the run, stops mysqld and says what it did before the app quits', { timeout: 400_000 }, async () => {
  const file = quickstartCopy(env, 'closed', (d) => {
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 3;
    d.design.workload.repetitions = 40;
    d.design.excludedCells = [];
    d.design.factors = [{ tunable: 'aslr', levels: ['on'] }];
  });
  let picked: string | null = file;
  const fake = electronStandIn({ dialogAnswer: () => picked });
  let quit: () => void = () => {};
  const quitted = new Promise<void>((r) => (quit = r));
  fake.module.app.quit = () => quit();
  const said: string[] = [];
  const log = console.log;
  console.log = (...a: unknown[]) => void said.push(a.join(' '));
  try {
    await loadElectronEntry('electron/main.ts', fake.module);
    await new Promise((r) => setTimeout(r, 50)); // app.whenReady().then(…)
    const sender = { id: 1, mainFrame: { url: 'app://varlab/index.html' } };
    const invoke = (method: string, args: unknown) => fake.rec.ipcHandlers.get('varlab:invoke')!({ sender, senderFrame: sender.mainFrame }, method, args) as Promise<{ ok: boolean; message?: string; value?: unknown }>;
    // The user picks the file in the native dialog and opens it (the desktop app reads and writes only such files), and runs it.
    assert.deepEqual(await invoke('dialog.open', { title: 'Open experiment', extensions: ['varlab.json'] }), { ok: true, value: file });
    picked = null;
    const opened = await invoke('experiment.open', { path: file });
    assert.ok(opened.ok, opened.message);
    const started = await invoke('run.start', { path: file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile } });
    assert.ok(started.ok, started.message);

    // Once mysqld runs and executions are being measured, the window is closed.
    const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
    const pid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim() || 0) : 0);
    const journal = file.replace(/\.json$/, '.journal.jsonl');
    for (let i = 0; i < 1800 && !(running(pid()) && existsSync(journal) && readFileSync(journal, 'utf8').includes('"t":"execution"')); i++) await new Promise((r) => setTimeout(r, 100));
    const mysqld = pid();
    assert.ok(running(mysqld), 'the run started mysqld');
    fake.rec.app.fire('window-all-closed');
    await quitted;

    assert.equal(running(mysqld), false, `mysqld ${mysqld} was stopped before the app quit`);
    const line = said.find((l) => l.startsWith('varlab: cancelled 1 run:'));
    assert.ok(line, said.join('\n'));
    assert.match(line, /closed\.varlab\.json: cancelled after \d of 3 restarts; mysqld stopped and the host restored/);
    // Quitting again (before-quit) does not dispose twice.
    assert.equal(fake.rec.app.fire('before-quit'), false);
  } finally {
    console.log = log;
  }
});
