// One run per target and per file: the lock in varlab's folder (every process on this machine) and the
// lock on the target beside the restore record (runs from anywhere). A refusal names the running file;
// a lock whose process is gone, or that nobody refreshed for too long, does not block forever.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/common/api.js';
import { openLocalSession } from '../../src/node/host/local.js';
import { acquireTargetLock, targetLockPath, type LockOwner } from '../../src/node/host/lock.js';
import { acquireRunLocks, runningOnFile } from '../../src/node/runs/locks.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-locks-'));
  process.env.VARLAB_HOME = join(dir, 'home');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const busy = (pattern: RegExp) => (e: unknown) => e instanceof ApiError && e.code === 'busy' && pattern.test(e.message);

/** A pid that belonged to a process that has exited. */
function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

test("varlab's folder: a second run on the target or the file is refused naming the running file; released, it goes", async () => {
  const first = await acquireRunLocks({ runId: 'r1', file: '/data/a.varlab.json', target: 'ssh://db1', startedAt: Date.now() });
  await assert.rejects(acquireRunLocks({ runId: 'r2', file: '/data/b.varlab.json', target: 'ssh://db1', startedAt: Date.now() }), busy(/ssh:\/\/db1 is busy: \/data\/a\.varlab\.json is running on ssh:\/\/db1 \(in this process/));
  await assert.rejects(acquireRunLocks({ runId: 'r3', file: '/data/a.varlab.json', target: 'local', startedAt: Date.now() }), busy(/a\.varlab\.json is busy/));
  assert.equal(existsSync(join(dir, 'home', 'runs')) && readdirSync(join(dir, 'home', 'runs')).length, 2, 'the refused attempts left no lock of their own');
  assert.equal((await runningOnFile('/data/a.varlab.json'))?.runId, 'r1');
  await first.release();
  assert.equal(await runningOnFile('/data/a.varlab.json'), null);
  const second = await acquireRunLocks({ runId: 'r2', file: '/data/b.varlab.json', target: 'ssh://db1', startedAt: Date.now() });
  await second.release();
});

test("varlab's folder: a lock left by a process that is gone is taken over", async () => {
  const held = await acquireRunLocks({ runId: 'old', file: '/data/c.varlab.json', target: 'ssh://db2', startedAt: Date.now() });
  // The process "crashed": its lock names a pid that no longer runs.
  const runs = join(dir, 'home', 'runs');
  for (const f of readdirSync(runs)) {
    const p = join(runs, f);
    const info = JSON.parse(readFileSync(p, 'utf8'));
    if (info.runId === 'old') writeFileSync(p, JSON.stringify({ ...info, pid: deadPid() }));
  }
  const taken = await acquireRunLocks({ runId: 'new', file: '/data/c.varlab.json', target: 'ssh://db2', startedAt: Date.now() });
  await held.release(); // the old owner's release no longer removes what is not its own
  assert.equal((await runningOnFile('/data/c.varlab.json'))?.runId, 'new');
  await taken.release();
});

test('on the target: a second run is refused naming the file; a lock whose process is gone or that went stale is taken over', async () => {
  const session = openLocalSession();
  const lockDir = join(dir, 'target');
  spawnSync('mkdir', ['-p', lockDir]);
  const owner = (runId: string, pid = process.pid): LockOwner => ({ runId, file: `/data/${runId}.varlab.json`, host: hostname(), pid, startedAt: Date.now() });
  const a = await acquireTargetLock(session, lockDir, owner('a'));
  await assert.rejects(acquireTargetLock(session, lockDir, { ...owner('b'), host: 'laptop-of-someone-else' }), busy(/local is busy: \/data\/a\.varlab\.json is running there/));
  // The same run again (a reconnect) keeps it.
  const again = await acquireTargetLock(session, lockDir, owner('a'));
  await again.refresh();
  await a.release();
  assert.equal(existsSync(targetLockPath(lockDir)), false);

  // Held by a process of this machine that is gone: taken over at once.
  await acquireTargetLock(session, lockDir, owner('crashed', deadPid()));
  const c = await acquireTargetLock(session, lockDir, owner('c'));
  // Held by another machine that stopped refreshing it: stale after the limit.
  await c.release();
  const asleep = await acquireTargetLock(session, lockDir, { ...owner('asleep'), host: 'laptop-asleep' });
  const old = (Date.now() - 3600_000) / 1000;
  utimesSync(join(targetLockPath(lockDir), 'owner'), old, old);
  const d = await acquireTargetLock(session, lockDir, { ...owner('d'), host: 'laptop-of-someone-else' });
  assert.match(readFileSync(join(targetLockPath(lockDir), 'owner'), 'utf8'), /"runId":"d"/);
  // The one that was asleep learns it lost the lock when it next refreshes (and stops), and cannot release another's.
  await assert.rejects(asleep.refresh(), busy(/this run lost its lock on the target.*d\.varlab\.json is running there/));
  await asleep.release();
  assert.equal(existsSync(targetLockPath(lockDir)), true);
  await d.release();
  assert.equal(existsSync(targetLockPath(lockDir)), false);
});

test("on the target: a detached runner's lock names its pid, start time and boot; a pid that is gone or another process's now frees it at once, and says so", async () => {
  const session = openLocalSession();
  const lockDir = join(dir, 'target-runner');
  spawnSync('mkdir', ['-p', lockDir]);
  const boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const start = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[19];
  const hold = (runId: string, runner: string) => {
    const lock = targetLockPath(lockDir);
    spawnSync('mkdir', ['-p', lock]);
    writeFileSync(join(lock, 'owner'), JSON.stringify({ runId, file: `/data/${runId}.varlab.json`, host: 'db1 (detached run)', pid: Number(runner.split(' ')[0]), startedAt: Date.now() }) + '\n');
    writeFileSync(join(lock, 'runner'), `${runner}\n`);
  };
  const other = (runId: string): LockOwner => ({ runId, file: `/data/${runId}.varlab.json`, host: 'laptop', pid: 1, startedAt: Date.now() });

  // The runner runs (this very process stands in for it): the lock holds, fresh or not.
  hold('live', `${process.pid} ${start(process.pid)} ${boot} /nowhere`);
  await assert.rejects(acquireTargetLock(session, lockDir, other('x')), busy(/live\.varlab\.json is running there/));
  // Its pid is another process's now (another start time), or it ran before a reboot: gone.
  for (const runner of [`${process.pid} ${Number(start(process.pid)) + 1} ${boot} /nowhere`, `${process.pid} ${start(process.pid)} 00000000-0000-0000-0000-000000000000 /nowhere`, `${deadPid()} 1 ${boot} relative`]) {
    hold('killed', runner);
    const taken = await acquireTargetLock(session, lockDir, other('y'));
    assert.match(taken.said ?? '', /^the detached run of \/data\/killed\.varlab\.json held local, but its runner \(pid \d+\) is gone and its directory was not used \((refusing \/nowhere: |no run directory)/, runner);
    assert.match(readFileSync(join(targetLockPath(lockDir), 'owner'), 'utf8'), /"runId":"y"/);
    await taken.release();
  }
});

// Several runs find a crashed run's lock at once: one that removed it after another had taken it over
// removed that one's live lock, and two runs wrote into one file.
test("varlab's folder: a lock whose process is gone, found by several runs starting at once, goes to one of them only", async () => {
  for (let round = 0; round < 5; round++) {
    const file = `/data/crash-${round}.varlab.json`;
    const held = await acquireRunLocks({ runId: `old-${round}`, file, target: 'local', startedAt: Date.now() }, { fileOnly: true });
    const runs = join(dir, 'home', 'runs');
    for (const f of readdirSync(runs)) {
      const p = join(runs, f);
      const info = JSON.parse(readFileSync(p, 'utf8'));
      if (info.runId === `old-${round}`) writeFileSync(p, JSON.stringify({ ...info, pid: deadPid() }));
    }
    const tries = await Promise.allSettled(Array.from({ length: 12 }, (_, k) => acquireRunLocks({ runId: `new-${round}-${k}`, file, target: 'local', startedAt: Date.now() }, { fileOnly: true })));
    const won = tries.filter((t) => t.status === 'fulfilled');
    assert.equal(won.length, 1, `round ${round}: one run takes the file (${won.length} did)`);
    for (const t of tries) if (t.status === 'rejected') assert.ok(busy(/is busy/)(t.reason), String(t.reason));
    await (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireRunLocks>>>).value.release();
    await held.release();
  }
});
