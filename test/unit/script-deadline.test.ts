// A stop's (and a start's) limit is the clock's, not a count of looks: on a loaded host each look's
// `sleep` takes far longer than it asks, and a limit counted in looks (100 a second) let a stop outlast
// the SSH command's own limit (the fault suite's killed detached runner, at load 5, 2026-11-27). Here a
// `sleep` that takes 0.3 s whatever it is asked stands for the load, and a "mariadbd" that ignores
// SIGTERM for the server that does not stop: a 1 s limit must end the stop in seconds, not in the
// 100 × 0.3 = 30 s the looks would take.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import { stopScript } from '../../src/node/host/script.js';
import { openLocalSession } from '../../src/node/host/local.js';
import { runScript } from '../../src/node/host/restore.js';
import { CommandTimedOut } from '../../src/node/host/command-timeout.js';
import type { TargetSession } from '../../src/node/host/types.js';

test('a stop whose mysqld ignores SIGTERM fails at its limit in seconds, however slow each look is', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-deadline-'));
  copyFileSync('/bin/sleep', join(dir, 'mariadbd'));
  chmodSync(join(dir, 'mariadbd'), 0o755);
  const server = spawn('sh', ['-c', `trap '' TERM; exec ${join(dir, 'mariadbd')} 60`], { stdio: 'ignore' });
  try {
    // Wait until the shell has become the "mariadbd" (SIGTERM still ignored across the exec).
    for (let i = 0; i < 200 && spawnSync('cat', [`/proc/${server.pid}/comm`], { encoding: 'utf8' }).stdout.trim() !== 'mariadbd'; i++) spawnSync('sleep', ['0.02']);
    writeFileSync(join(dir, 'mysqld.pid'), `${server.pid}\n`);
    writeFileSync(join(dir, 'sleep'), '#!/bin/sh\nexec /bin/sleep 0.3\n', { mode: 0o755 });
    const profile = { kind: 'direct', mysqld: join(dir, 'mariadbd'), datadir: dir, socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root' } as ServerProfile;
    const started = Date.now();
    const r = spawnSync('sh', ['-c', stopScript(profile, 1).text], { encoding: 'utf8', env: { ...process.env, PATH: `${dir}:${process.env.PATH}` }, timeout: 60_000 });
    const took = (Date.now() - started) / 1000;
    assert.match(r.stdout, new RegExp(`@fail stop mysqld \\(pid ${server.pid}\\) still running 1 s after SIGTERM`), r.stdout + r.stderr);
    assert.ok(took < 10, `the stop took ${took.toFixed(1)} s for a 1 s limit (a limit in looks: about 30 s)`);
  } finally {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a script cut by its limit is named, with the part it said it was doing, not as "a command"', async () => {
  const script = { sections: [], text: "echo '@doing looking'\necho '@doing ending the run of its runner, found gone'\nsleep 30\n", sudo: false };
  await assert.rejects(runScript(openLocalSession(), script, 'reading the detached run journal', 1_000), (e: Error) => {
    assert.equal(e.message, 'reading the detached run journal on local did not finish within 1 s: it was ending the run of its runner, found gone');
    return true;
  });
});

test('a timeout is known by its type, not its words: the exec layer flags it, and a reworded message still names the script', async () => {
  const local = openLocalSession();
  await assert.rejects(local.exec('sleep 30', { timeoutMs: 500 }), (e: unknown) => e instanceof CommandTimedOut && e.limitMs === 500 && e.code === 'connection');
  // The exec layer's words changed: runScript still knows the timeout, and says it in its own words.
  const reworded: TargetSession = {
    ...local,
    exec: (command, o) =>
      local.exec(command, o).catch((e: unknown) => {
        if (e instanceof CommandTimedOut) e.message = 'cut at its limit';
        throw e;
      }),
  };
  const script = { sections: [], text: "echo '@doing stopping mysqld'\nsleep 30\n", sudo: false };
  await assert.rejects(runScript(reworded, script, 'stopping mysqld', 1_000), (e: unknown) => {
    assert.ok(e instanceof CommandTimedOut, 'still a timeout, for whoever called runScript');
    assert.equal(e.limitMs, 1_000);
    assert.equal(e.message, 'stopping mysqld on local did not finish within 1 s: it was stopping mysqld');
    return true;
  });
});
