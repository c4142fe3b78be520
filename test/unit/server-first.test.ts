// host/server-first.ts on this machine, for real: while held, this process runs under SCHED_BATCH (so its
// wake-ups never preempt a local mysqld), every command started through localArgv runs under the
// ordinary policy, and the last release sets the process back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { holdServerFirst, localArgv, schedPolicy, SCHED_BATCH, SCHED_OTHER, serverFirstMessage } from '../../src/node/host/server-first.js';

/** The policy a command started through localArgv runs under, read by that command itself. */
function childPolicy(): number {
  const [file, ...args] = localArgv(['/bin/sh', '-c', 'cat /proc/$$/stat']);
  const stat = execFileSync(file, args, { encoding: 'utf8' });
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[38]);
}

test('schedPolicy reads field 41 of /proc/PID/stat, past a command name with spaces and parentheses', async () => {
  assert.equal(schedPolicy('self'), SCHED_OTHER);
  assert.equal(schedPolicy(2 ** 22 + 12345), undefined, 'no such process');
  // A process named `a) (b c` under SCHED_BATCH: its stat line reads "PID (a) (b c) S …".
  const dir = mkdtempSync(join(tmpdir(), 'varlab-sched-'));
  const named = join(dir, 'a) (b c');
  copyFileSync('/bin/sleep', named);
  const child = spawn('chrt', ['--batch', '0', named, '30'], { stdio: 'ignore' });
  try {
    const until = Date.now() + 5000;
    while (!readFileSync(`/proc/${child.pid}/stat`, 'utf8').includes('(a) (b c)') && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(schedPolicy(child.pid!), SCHED_BATCH);
  } finally {
    child.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('held: this process yields (SCHED_BATCH), its commands do not; nested holds; the last release restores', () => {
  assert.equal(schedPolicy('self'), SCHED_OTHER);
  assert.equal(serverFirstMessage(), null, 'nothing to say before a local server was connected');
  const first = holdServerFirst();
  const second = holdServerFirst();
  try {
    assert.equal(schedPolicy('self'), SCHED_BATCH);
    assert.equal(childPolicy(), SCHED_OTHER, 'a command started through localArgv runs under the ordinary policy');
    assert.match(serverFirstMessage()?.message ?? '', /yields the CPU to mysqld .*SCHED_BATCH/);
    first();
    first();
    assert.equal(schedPolicy('self'), SCHED_BATCH, 'a release called twice counts once: the second holder still holds');
  } finally {
    first();
    second();
  }
  assert.equal(schedPolicy('self'), SCHED_OTHER);
  assert.deepEqual(localArgv(['/bin/true']), ['/bin/true'], 'no wrapper once released');
});

test('VARLAB_SERVER_FIRST=0: nothing changes, and the run is told why', () => {
  process.env.VARLAB_SERVER_FIRST = '0';
  try {
    const release = holdServerFirst();
    assert.equal(schedPolicy('self'), SCHED_OTHER);
    assert.deepEqual(localArgv(['/bin/true']), ['/bin/true']);
    assert.deepEqual(serverFirstMessage(), { level: 'warn', message: serverFirstMessage()!.message });
    assert.match(serverFirstMessage()!.message, /could not yield .*VARLAB_SERVER_FIRST=0.*up to about 5 %/);
    release();
  } finally {
    delete process.env.VARLAB_SERVER_FIRST;
  }
});
