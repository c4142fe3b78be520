// The stop of a mysqld that has not said it is ready (script.ts startingText): its log names its start
// ("as process PID") with no ": ready for connections" after it. A copy of sleep named mariadbd stands
// for the server; its log is written by the test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerProfile } from '../../src/common/experiment/types.js';
import { stopScript } from '../../src/node/host/script.js';

function withServer(logLines: (pid: number) => string[] | null, limitS: number) {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-stop-'));
  copyFileSync('/bin/sleep', join(dir, 'mariadbd'));
  chmodSync(join(dir, 'mariadbd'), 0o755);
  const server = spawn(join(dir, 'mariadbd'), ['60'], { stdio: 'ignore' });
  try {
    const pid = server.pid!;
    // Wait until the child has become the "mariadbd" (the stop signals nothing else).
    for (let i = 0; i < 200 && spawnSync('cat', [`/proc/${pid}/comm`], { encoding: 'utf8' }).stdout.trim() !== 'mariadbd'; i++) spawnSync('sleep', ['0.02']);
    writeFileSync(join(dir, 'mysqld.pid'), `${pid}\n`);
    const lines = logLines(pid);
    if (lines) writeFileSync(join(dir, 'error.log'), lines.join('\n') + '\n');
    const profile = { kind: 'direct', mysqld: join(dir, 'mariadbd'), datadir: dir, socket: join(dir, 'mysqld.sock'), port: 23306, user: 'root', ...(lines ? { errorLog: join(dir, 'error.log') } : {}) } as ServerProfile;
    const r = spawnSync('sh', ['-c', stopScript(profile, limitS).text], { encoding: 'utf8', timeout: 60_000 });
    return { ...r, pid, text: stopScript(profile, limitS).text };
  } finally {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

const START = (pid: number) => `2026-11-27 12:25:22 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision 5843 server_uid x= as process ${pid}`;
const READY = '2026-11-27 12:25:23 0 [Note] /usr/sbin/mariadbd: ready for connections.';

test('a mysqld whose log shows its start without "ready for connections" is waited for, then killed, never sent SIGTERM', () => {
  const r = withServer((pid) => [READY, START(pid), '2026-11-27 12:25:22 0 [Note] Server socket created on IP: 127.0.0.1.'], 1);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`mysqld \\(pid ${r.pid}\\) had not finished starting 1 s after the stop began: killed \\(SIGKILL\\)`));
});

test('a ready mysqld, or one whose start the log does not show, gets SIGTERM and the whole limit, as before', () => {
  // sleep dies of SIGTERM at once: the stop ends without a kill and says nothing.
  for (const lines of [(pid: number) => [START(pid), READY], (pid: number) => [START(pid + 1)], () => null]) {
    const r = withServer(lines, 5);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr, /SIGKILL/);
    assert.doesNotMatch(r.stdout, /@fail/);
    assert.match(r.text, /kill -TERM "\$pid"/);
  }
  // Another pid's start line (12 for 123) is not this one's.
  const r = withServer((pid) => [START(pid).replace(/\d+$/, (d) => d.slice(0, -1)), READY.replace('ready', 'not')], 1);
  assert.doesNotMatch(r.stderr, /SIGKILL/);
});

test('without an error log the stop text has no look at it', () => {
  const r = withServer(() => null, 1);
  assert.doesNotMatch(r.text, /starting\(\)/);
});
