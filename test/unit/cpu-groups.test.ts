// Two copies of the suite on one machine (a CI run beside a developer's `npm run test:quick`, two
// checkouts): each keeps its runners' CPU groups (scripts/testenv/cpu-groups.mjs). A copy that starts
// removes the groups of copies that have ended, never an empty group of a copy still running (one just
// made, its runner not in it yet). Before, it removed every group it could: the other copy's runner
// then ran outside its group, and that copy crashed reading the group's time (ENOENT at
// cpuacct.usage), orphaning its other runners (seen 2026-11-27 with three copies side by side).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CPUACCT, groupCpuSeconds, groupMaker, makeGroup, removeEndedGroups } from '../../scripts/testenv/cpu-groups.mjs';

/** A pid no process has now: a process that has ended (and been reaped). */
function endedPid(): number {
  const r = spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

test("a copy's start removes the groups of copies that have ended, and leaves a running copy's, even empty", () => {
  const root = mkdtempSync(join(tmpdir(), 'varlab-cpuacct-'));
  try {
    const running = makeGroup(root, process.pid)!;
    assert.equal(groupMaker(running.slice(root.length + 1)), process.pid);
    const ended = makeGroup(root, endedPid())!;
    // Named by an older run-tests (no maker in the name): kept while a runner could still be about to join it.
    const unnamedNew = join(root, 'varlab-test-AbC123');
    const unnamedOld = join(root, 'varlab-test-XyZ789');
    mkdirSync(unnamedNew);
    mkdirSync(unnamedOld);
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(unnamedOld, twoHoursAgo, twoHoursAgo);
    const other = join(root, 'not-ours');
    mkdirSync(other);

    const removed = removeEndedGroups(root);
    assert.deepEqual(removed.sort(), [ended, unnamedOld].map((g) => g.slice(root.length + 1)).sort());
    assert.ok(existsSync(running), "a running copy's empty group stays");
    assert.ok(existsSync(unnamedNew));
    assert.ok(existsSync(other));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a group that is gone costs the figure, not the run: its time reads as unknown", () => {
  assert.equal(groupCpuSeconds(join(tmpdir(), 'varlab-no-such-group')), undefined);
  const dir = mkdtempSync(join(tmpdir(), 'varlab-cpuacct-'));
  try {
    writeFileSync(join(dir, 'cpuacct.usage'), '2500000000\n');
    assert.equal(groupCpuSeconds(dir), 2.5);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const cgroupV1 = (() => {
  try {
    accessSync(CPUACCT, constants.W_OK);
    return existsSync(join(CPUACCT, 'cpuacct.usage'));
  } catch {
    return false;
  }
})();

test("run-tests started beside a running copy leaves that copy's new, still empty group alone", { skip: !cgroupV1 && 'no writable cgroup v1 cpuacct here', timeout: 300_000 }, () => {
  // The group a running copy (this process) has just made for a runner that has not joined it yet.
  const group = makeGroup(CPUACCT, process.pid);
  assert.ok(group, 'a group can be made here');
  const dir = mkdtempSync(join(tmpdir(), 'varlab-copy-'));
  try {
    const file = join(dir, 'nothing.test.ts');
    writeFileSync(file, "import { test } from 'node:test';\ntest('nothing', () => {});\n");
    // A second copy of the suite starts, with a file of its own.
    // Not as a subtest of this file's runner (node:test would skip its files): a run of its own.
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const r = spawnSync(process.execPath, ['scripts/run-tests.mjs', file], { encoding: 'utf8', timeout: 240_000, env });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.ok(existsSync(group), `the other copy removed ${group}`);
  } finally {
    if (existsSync(group)) rmdirSync(group);
    rmSync(dir, { recursive: true, force: true });
  }
});
