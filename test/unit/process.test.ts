// "Is this pid running here", asked of real processes: a running child, a child killed and never
// reaped (a zombie), a pid whose process has exited, and a process of another user (EPERM).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { processRuns, processStart } from '../../src/node/process.js';

const state = (pid: number) => {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
};

async function until(what: string, ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(ok(), what);
}

test('a running process is running; once it has exited and been reaped, it is gone', async () => {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  const exit = new Promise((r) => child.once('exit', r));
  try {
    assert.equal(processRuns(child.pid!), true);
    assert.ok(processStart(child.pid!)! > 0 || !existsSync('/proc'), 'its start time is read from /proc');
  } finally {
    child.kill('SIGKILL');
  }
  await exit;
  await until('the reaped child is gone', () => !processRuns(child.pid!));
  const exited = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
  assert.equal(processRuns(exited), false);
  assert.equal(processRuns(0), false, 'pid 0 (this process group for kill) names no process');
  assert.equal(processRuns(-1), false);
});

test('a process killed but never reaped (a zombie) is gone', { skip: !existsSync('/proc/self/stat') && 'no /proc here' }, async () => {
  // The shell starts a grandchild, prints its pid, then becomes a sleep that never waits for it:
  // killed, the grandchild stays a zombie as long as that sleep lives.
  const parent = spawn('sh', ['-c', 'sleep 600 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const pid = Number(await new Promise<string>((r) => parent.stdout!.once('data', (d: Buffer) => r(d.toString()))));
    assert.ok(pid > 0);
    assert.equal(processRuns(pid), true, 'running before it is killed');
    // The shell reaps its children until it has become that sleep (on a busy machine the echo can
    // come well before the exec): kill the grandchild only once nothing will wait for it.
    await until('the shell became the sleep that never waits', () => readFileSync(`/proc/${parent.pid}/cmdline`, 'utf8').split('\0')[0] === 'sleep');
    process.kill(pid, 'SIGKILL');
    await until('the killed grandchild became a zombie', () => state(pid) === 'Z');
    assert.doesNotThrow(() => process.kill(pid, 0), 'a zombie still answers signal 0');
    assert.equal(processRuns(pid), false);
  } finally {
    parent.kill('SIGKILL');
  }
});

test("another user's process (EPERM to signal) is running", async (t) => {
  if (process.getuid?.() !== 0) {
    // PID 1 belongs to root; a non-root test cannot signal it.
    assert.throws(() => process.kill(1, 0), { code: 'EPERM' });
    assert.equal(processRuns(1), true);
    return;
  }
  // As root every process can be signalled: ask from a child running as nobody about this process.
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', `import('./src/node/process.ts').then((m) => { let code = 'none'; try { process.kill(${process.pid}, 0); } catch (e) { code = e.code; } console.log(JSON.stringify({ code, runs: m.processRuns(${process.pid}) })); })`], {
    uid: 65534,
    gid: 65534,
    encoding: 'utf8',
    env: { ...process.env, HOME: '/tmp' },
  });
  if (r.status !== 0) {
    t.skip(`cannot run a process as nobody here: ${r.stderr || r.error}`);
    return;
  }
  assert.deepEqual(JSON.parse(r.stdout), { code: 'EPERM', runs: true });
});
