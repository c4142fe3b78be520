// The target `local`: the same sandbox, restart and verification as over SSH, through child_process.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pidFileOf } from '../../src/common/profile.js';
import { createSandbox, createServerControl, openTarget, removeSandbox, type TargetSession } from '../../src/node/host/index.js';
import { profileDir } from '../../src/node/host/restore.js';
import { hostPaths } from '../../src/node/host/script.js';
import { processRuns } from '../../src/node/process.js';
import { CLI } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-host-local-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
let session: TargetSession | null = null;
let pid: number | null = null;
/** The sandbox of the first test: whatever failed, its mysqld (by its pid file) is stopped at the end. */
let pidFile: string | null = null;

/** No such process, or a zombie its new parent has not reaped yet. */
const exited = (p: number): boolean => !processRuns(p);

after(async () => {
  const fromFile = pidFile && existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : null;
  for (const p of [pid, fromFile]) {
    if (!p) continue;
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* stopped by the test */
    }
  }
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('a local sandbox restarts with CPU binding and ASLR off, verified, then stops and is removed', async () => {
  session = await openTarget('local', { prompt: async () => ({ accept: false }) });
  assert.equal(session.isLocal, true);
  const { profile } = await createSandbox(session, { parent: dir });
  pidFile = pidFileOf(profile);
  const control = createServerControl(session, profile, { paths: { records: join(dir, 'records') } });
  const s = await control.restart(
    [
      { tunable: 'cpubind', levels: [] },
      { tunable: 'aslr', levels: [] },
    ],
    { cpubind: '1', aslr: 'off' },
  );
  pid = s.pid;
  assert.deepEqual(s.checks.map((c) => `${c.tunable}=${c.level} ${c.ok}`), ['cpubind=1 true', 'aslr=off true']);
  assert.match(readFileSync(`/proc/${s.pid}/status`, 'utf8'), /^Cpus_allowed_list:\s*1$/m);
  const conn = await control.connect();
  const [rows] = await conn.query('SELECT 1 + 1 AS two');
  await conn.end();
  assert.deepEqual(rows, [{ two: 2 }]);

  // Ready is the script's own word: a script that said `ready` and then ended non-zero (its last fact
  // read failed) started mysqld, and the run keeps track of that process instead of calling it a failure.
  const failingRead: TargetSession = { ...session, exec: (cmd, o) => session!.exec(`${cmd}false\n`, o) };
  const afterRead = createServerControl(failingRead, profile, { paths: { records: join(dir, 'records') } });
  const again = await afterRead.restart([{ tunable: 'cpubind', levels: [] }], { cpubind: '0' });
  pid = again.pid;
  assert.ok(exited(s.pid), 'the earlier mysqld was stopped');
  assert.equal(afterRead.pid, again.pid);
  assert.ok(!exited(again.pid), 'the new mysqld runs');
  assert.deepEqual(again.checks.map((c) => `${c.tunable}=${c.level} ${c.ok}`), ['cpubind=0 true']);
  assert.ok(again.readyMs >= 0 && again.readyMs < 300_000, `ready time from the script: ${again.readyMs}`);

  await control.stop();
  assert.ok(exited(again.pid), 'mysqld has exited when stop() returns');
  await removeSandbox(session, profile);
});

/** `varlab …` as a child process with its own VARLAB_HOME. */
function cli(args: string[], home: string): { code: number; out: string } {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env, VARLAB_HOME: home }, timeout: 240_000 });
  return { code: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

test('from the command line: a 512M buffer pool sandbox, its options verified on start, reused by name, a failed create leaves nothing', () => {
  const home = join(dir, 'cli-home');
  const parent = join(dir, 'cli');
  mkdirSync(parent, { mode: 0o755 });
  chmodSync(parent, 0o755);
  const failed = cli(['sandbox', 'create', 'local', '--dir', parent, '--mysqld', '/bin/false'], home);
  assert.equal(failed.code, 1, failed.out);
  assert.match(failed.out, /creating the sandbox on local failed \(nothing was left behind\)/);
  assert.deepEqual(readdirSync(parent), [], 'no directory, no init.log left behind');

  const made = cli(['sandbox', 'create', 'local', '--dir', parent, '--buffer-pool', '512M', '--set-option', 'innodb_io_capacity=400'], home);
  assert.equal(made.code, 0, made.out);
  const dirOf = /sandbox on local: (\S+) /.exec(made.out)![1];
  assert.match(made.out, /server options: .*--innodb-buffer-pool-size=512M .*--innodb-io-capacity=400/);
  const again = cli(['sandbox', 'create', 'local', '--dir', parent, '--buffer-pool', '512M', '--set-option', 'innodb_io_capacity=400'], home);
  assert.match(again.out, new RegExp(`reusing the sandbox on local: ${dirOf} `));
  const other = cli(['sandbox', 'create', 'local', '--dir', parent], home);
  assert.equal(other.code, 1);
  assert.ok(other.out.includes(`local already has a sandbox at ${dirOf} (port `) && other.out.includes('--replace'), other.out);
  try {
    const started = cli(['sandbox', 'start', 'local', '--set', 'cpubind=0,1'], home);
    assert.equal(started.code, 0, started.out);
    assert.match(started.out, /^ok +cpubind=0,1 +Cpus_allowed_list 0-1$/m);
    assert.match(started.out, /^ok +innodb_buffer_pool_size=512M +@@innodb_buffer_pool_size = 536870912$/m);
    assert.match(started.out, /^ok +innodb_io_capacity=400 +@@innodb_io_capacity = 400$/m);
  } finally {
    // The profile's root directory on the target (restore record, run lock), as runs leave it: empty.
    const profile = JSON.parse(readFileSync(join(home, 'profiles.json'), 'utf8')).local;
    const own = profileDir(profile, hostPaths());
    mkdirSync(own, { recursive: true, mode: 0o700 });
    const removed = cli(['sandbox', 'remove', 'local'], home);
    assert.equal(removed.code, 0, removed.out);
    assert.equal(existsSync(own), false, `${own} is removed with the sandbox`);
  }
  assert.deepEqual(readdirSync(parent), []);
});
