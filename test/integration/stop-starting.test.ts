// The stop of a mysqld that has not finished starting (a cancel during a start, the end of a run after
// a failed wait-ready). MariaDB 10.11.19 hangs for good when SIGTERM reaches it in the middle of its
// start-up (script.ts startingText), and a stop that sent SIGTERM then waited its whole limit and
// left it running. Here a real sandbox mariadbd is held mid-start the way the fault3 test held one:
// SIGSTOP as soon as its pid file names it, before its log says "ready for connections".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandbox, createServerControl, openTarget, removeSandbox, type RegisteredProfile, type TargetSession } from '../../src/node/host/index.js';
import { mysqldArgs, stopScript } from '../../src/node/host/script.js';
import { pidFileOf } from '../../src/common/profile.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-stop-starting-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
let session: TargetSession;
let profile: RegisteredProfile;
const started: number[] = [];

before(async () => {
  session = await openTarget('local', { prompt: async () => ({ accept: false }) });
  profile = (await createSandbox(session, { parent: dir })).profile;
  // One start and stop through varlab first: its error log is made (owned by the sandbox's user).
  const control = createServerControl(session, profile);
  await control.restart([], {});
  await control.stop();
});

after(async () => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (session && profile) await removeSandbox(session, profile).catch(() => {});
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
const log = () => readFileSync(profile.errorLog!, 'utf8');

/** A sandbox mariadbd started by hand with the profile's options, stopped (SIGSTOP) mid-start. */
async function heldMidStart(): Promise<number> {
  const before = log().length;
  const child = spawn(profile.mysqld, mysqldArgs(profile, [], profile.osUser), { stdio: 'ignore', detached: true });
  const pid = child.pid!;
  started.push(pid);
  for (let i = 0; i < 2000; i++) {
    if (existsSync(pidFileOf(profile)) && readFileSync(pidFileOf(profile), 'utf8').trim() === String(pid)) break;
    await sleep(2);
  }
  assert.ok(alive(pid), `mysqld exited while starting: ${log().slice(before)}`);
  process.kill(pid, 'SIGSTOP');
  assert.doesNotMatch(log().slice(before), /ready for connections/, 'held before it said ready');
  return pid;
}

function runStop(limitS: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const sh = spawn('sh', ['-c', stopScript(profile, limitS).text]);
    let stdout = '';
    let stderr = '';
    sh.stdout.on('data', (d) => (stdout += d));
    sh.stderr.on('data', (d) => (stderr += d));
    sh.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('a mysqld let go mid-start is stopped once it is ready: SIGTERM after "ready for connections", a clean shutdown', async () => {
  const pid = await heldMidStart();
  const from = log().length;
  const stop = runStop(20);
  await sleep(1000);
  process.kill(pid, 'SIGCONT');
  const r = await stop;
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(alive(pid), false);
  const said = log().slice(from);
  // Before: SIGTERM went in while it started; it either hung (the stop failed at its limit, mysqld left
  // running) or shut down before it ever said ready.
  assert.match(said, /ready for connections[\s\S]*Normal shutdown[\s\S]*Shutdown complete/, said);
});

test('a mysqld that does not finish starting within the wait is killed, the stop ends, and the next start recovers', async () => {
  const pid = await heldMidStart();
  // Still held: it never says ready. Before, SIGTERM was sent and the stop waited its whole limit.
  const r = await runStop(2);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`mysqld \\(pid ${pid}\\) had not finished starting 2 s after the stop began: killed \\(SIGKILL\\)`));
  assert.equal(alive(pid), false);
  // InnoDB recovers from the kill: the sandbox starts again through varlab and answers.
  const control = createServerControl(session, profile);
  const s = await control.restart([], {});
  assert.ok(s.pid > 0);
  await control.stop();
});
