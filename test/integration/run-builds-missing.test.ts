// A registered build whose binary is gone (removed, or no longer executable) since `sandbox create`
// checked it: the run is refused before its first restart, naming the build, its path and the host,
// attached, detached and on several hosts; nothing is measured and the host is left as it was (its
// mariadbd never started: the sandbox's error log did not grow). Before, the run found out at the
// build's first start, after the other cells had measured ("restart 2 build=B discarded … failed after
// 1 of N"). Real parts: the sandbox sshd (and a second one), two copies of /usr/sbin/mariadbd
// registered as builds A and B, as in run-builds.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import type { JournalRecord } from '../../src/common/records.js';
import { hostJournalPath, journalPath } from '../../src/node/engine/journal.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { buildsEnvForTests, MARIADBD } from './builds-env.js';
import { alive, shortQuickstartCopy, varlabRun, varlabSync, type RunEnv } from './run-env.js';

// The sandbox with builds A and B (two copies of mariadbd), made once for the file (builds-env.ts).
const fx = buildsEnvForTests('builds-missing', {
  ready: (made) => {
    ({ sshd, dir, home, authArgs } = made);
    profile = made.profile();
  },
});
let sshd: Sshd;
let dir: string;
let home: string;
let authArgs: string[];
let profile: ServerProfile;
const binOf = (name: 'A' | 'B') => fx.binOf(name);

const env = (): RunEnv => fx.runEnv();

/** Build A then B (blocked order: A's restarts come first), one restart each. */
const abCopy = (name: string) => shortQuickstartCopy(env(), name, { factors: [{ tunable: 'build', levels: ['A', 'B'] }], restartsPerCell: 1, repetitions: 2, warmup: 0 }, (d) => (d.design.order = 'blocked'));

/** Build A, B and C, where the host registers only A and B (C's cell last in blocked order). */
const abcCopy = (name: string) => shortQuickstartCopy(env(), name, { factors: [{ tunable: 'build', levels: ['A', 'B', 'C'] }], restartsPerCell: 1, repetitions: 2, warmup: 0 }, (d) => (d.design.order = 'blocked'));

const re = (s: string) => s.replace(/[/.()"+]/g, '\\$&');

/** What says the host is as it was: the sandbox mariadbd's error log (every start writes to it) and whether it runs. */
function hostNow(): { log: number; running: boolean } {
  const pidFile = profile.pidFile ?? join(profile.datadir, 'mysqld.pid');
  const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0;
  return { log: existsSync(profile.errorLog!) ? statSync(profile.errorLog!).size : 0, running: pid > 0 && alive(pid) };
}

const journalRecords = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

/** The journal's records; the file's results hold no restart and the journal none started. */
function nothingMeasured(file: string, journal = journalPath(file)): JournalRecord[] {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results?.restarts.length ?? 0, 0, JSON.stringify(doc.results?.restarts));
  const records = journalRecords(journal);
  assert.deepEqual(
    records.filter((r) => r.t === 'restart-started' || r.t === 'restart-discarded'),
    [],
  );
  return records;
}

/** B's binary gone for the length of `body`, then put back as it was (same content: its sha256 still matches). */
async function withoutB<T>(how: 'removed' | 'not executable', body: () => Promise<T>): Promise<T> {
  if (how === 'removed') rmSync(binOf('B'));
  else chmodSync(binOf('B'), 0o644);
  try {
    return await body();
  } finally {
    if (how === 'removed') copyFileSync(MARIADBD, binOf('B'));
    chmodSync(binOf('B'), 0o755);
  }
}

test('attached: a build whose binary was removed is refused before the first restart, naming it, its path and the host; the host is as it was', { timeout: 300_000 }, async () => {
  const file = abCopy('removed');
  const was = hostNow();
  const run = await withoutB('removed', async () => {
    const r = varlabRun([file, ...authArgs], home);
    assert.equal(await r.exit, 1, r.stderr());
    return r;
  });
  const said = run.stderr();
  assert.match(said, new RegExp(`build B: ${binOf('B')} does not exist or is not executable on ${sshd.target.replace(/[/.]/g, '\\$&')}`), said);
  assert.match(said, /varlab sandbox remove-build .* --build B, then varlab sandbox add-build .* --build B=PATH/, said);
  assert.ok(!said.includes('build A:'), `only the missing build is named: ${said}`);
  nothingMeasured(file);
  assert.deepEqual(hostNow(), was, 'mariadbd never started: its error log did not grow');
  // With B back, the same command runs the whole plan (nothing of the refused run is in the way).
  const again = varlabRun([file, ...authArgs], home);
  assert.equal(await again.exit, 0, again.stderr());
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(
    doc.results!.restarts.map((r) => [r.cell, r.status]),
    [
      ['build=A', 'ok'],
      ['build=B', 'ok'],
    ],
  );
});

test('detached: a build whose binary is not executable is refused at the launch, before any runner or restart', { timeout: 300_000 }, async () => {
  const file = abCopy('not-executable');
  const was = hostNow();
  const r = await withoutB('not executable', async () => varlabSync(['run', file, '--detach', ...authArgs], home));
  assert.notEqual(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, new RegExp(`build B: ${binOf('B')} does not exist or is not executable on ${sshd.target.replace(/[/.]/g, '\\$&')}`), r.stderr);
  const records = nothingMeasured(file);
  assert.ok(!records.some((x) => x.t === 'detached'), 'no runner was launched');
  assert.deepEqual(hostNow(), was);
});

test('several hosts: each host checks its own builds, and the host whose build B is missing is named; the other runs', { timeout: 600_000 }, async () => {
  const second = await startSshd();
  const profiles = join(home, 'profiles.json');
  const saved = readFileSync(profiles, 'utf8');
  try {
    // The second host's profile is this sandbox's, but its build B is at a path that the host lacks.
    const gone = join(dir, 'gone', 'mariadbd');
    const registry = JSON.parse(saved) as Record<string, ServerProfile>;
    registry[second.target] = { ...registry[sshd.target], builds: registry[sshd.target].builds!.map((b) => (b.name === 'B' ? { ...b, mysqld: gone } : b)) };
    writeFileSync(profiles, JSON.stringify(registry));
    const file = abCopy('hosts');
    const both = ['--identity', sshd.keyFile, '--identity', second.keyFile, '--known-hosts', sshd.knownHostsFile, '--known-hosts', second.knownHostsFile];
    const run = varlabRun([file, '--target', sshd.target, '--target', second.target, ...both], home);
    assert.equal(await run.exit, 1, run.stderr());
    const summary = run.stderr().split('\n').find((l) => l.startsWith('varlab run: failed')) ?? '';
    assert.ok(summary.includes(`failed on ${second.target} after 0 of 2 restarts`), run.stderr());
    assert.ok(summary.includes(`build B: ${gone} does not exist or is not executable on ${second.target}`), run.stderr());
    assert.ok(summary.includes(`finished on ${sshd.target}`), run.stderr());
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    assert.deepEqual(doc.results!.restarts.filter((r) => r.host === second.target), []);
    assert.deepEqual(doc.results!.restarts.filter((r) => r.host === sshd.target).map((r) => r.status), ['ok', 'ok']);
    const records = journalRecords(hostJournalPath(file, second.target));
    assert.ok(!records.some((r) => r.t === 'restart-started'), JSON.stringify(records.map((r) => r.t)));
  } finally {
    writeFileSync(profiles, saved);
    await second.stop();
  }
});

test('attached: a build level the host does not register is refused before the first restart, in the same check, naming it, the host and its builds; the host is as it was', { timeout: 300_000 }, async () => {
  const file = abcCopy('unregistered');
  const was = hostNow();
  const run = varlabRun([file, ...authArgs], home);
  assert.equal(await run.exit, 1, run.stderr());
  const said = run.stderr();
  // Before: A and B measured, then "restart 3 build=C discarded … failed after 2 of 3 restarts".
  assert.match(said, new RegExp(re(`no build "C" is registered for ${sshd.target} (registered: A, B), so the run did not start there (nothing was measured or changed); register it with varlab sandbox add-build ${sshd.target} --build C=PATH (the builds it has stay as they are), or in the Hosts view`)), said);
  assert.match(said, /or in the Hosts view/, said);
  assert.equal(said.split('no build "C"').length, 2, `said once: ${said}`);
  nothingMeasured(file);
  assert.deepEqual(hostNow(), was, 'mariadbd never started: its error log did not grow');
});

test('several hosts: each host refuses by its own profile before measuring, one for a build it does not register, one for a binary it lacks', { timeout: 300_000 }, async () => {
  const second = await startSshd();
  const profiles = join(home, 'profiles.json');
  const saved = readFileSync(profiles, 'utf8');
  try {
    // The second host registers only A; the first has B registered, but its binary is gone for this run.
    const registry = JSON.parse(saved) as Record<string, ServerProfile>;
    registry[second.target] = { ...registry[sshd.target], builds: registry[sshd.target].builds!.filter((b) => b.name === 'A') };
    writeFileSync(profiles, JSON.stringify(registry));
    const file = abCopy('hosts-unregistered');
    const both = ['--identity', sshd.keyFile, '--identity', second.keyFile, '--known-hosts', sshd.knownHostsFile, '--known-hosts', second.knownHostsFile];
    const was = hostNow();
    const run = await withoutB('removed', async () => {
      const r = varlabRun([file, '--target', sshd.target, '--target', second.target, ...both], home);
      assert.equal(await r.exit, 1, r.stderr());
      return r;
    });
    const summary = run.stderr().split('\n').find((l) => l.startsWith('varlab run: failed')) ?? '';
    assert.ok(summary.includes(`failed on ${second.target} after 0 of 2 restarts: no build "B" is registered for ${second.target} (registered: A), so the run did not start there`), run.stderr());
    assert.ok(summary.includes(`failed on ${sshd.target} after 0 of 2 restarts: build B: ${binOf('B')} does not exist or is not executable on ${sshd.target}`), run.stderr());
    for (const t of [sshd.target, second.target]) nothingMeasured(file, hostJournalPath(file, t));
    assert.deepEqual(hostNow(), was);
  } finally {
    writeFileSync(profiles, saved);
    await second.stop();
  }
});
