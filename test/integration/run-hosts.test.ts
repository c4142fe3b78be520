// One design on several hosts (issue 14), through `varlab run --target A --target B` with real parts:
// the sandbox sshd and a second sshd on another port as the second host, each with its own sandbox
// mariadbd (its own directory, port and socket; both on this machine). The same design runs on both
// at once, each in its own order and journal; `analyze --json` and the CSV show the host as a factor;
// a host that fails (a server profile whose mysqld does not exist) does not stop the other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan, hostDesign } from '../../src/common/plan.js';
import { hostJournalPath } from '../../src/node/engine/journal.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { shortQuickstartCopy, startRunEnv, varlabRun, varlabSync, type RunEnv } from './run-env.js';

// One before hook starts both hosts in order: a second top-level hook was seen running before the
// first one's environment was there (CI, under load).
let env: RunEnv;
let second: Sshd;
let secondDir: string;
let authArgs: string[];
let profiles: string;

before(async () => {
  env = await startRunEnv();
  second = await startSshd();
  secondDir = mkdtempSync(join(tmpdir(), 'varlab-host2-'));
  execFileSync('chmod', ['755', secondDir]);
  // One key and one known-hosts file reach both hosts, as a user's ~/.ssh does.
  appendFileSync(join(second.dir, 'authorized_keys'), readFileSync(env.sshd.keyFile + '.pub'));
  const knownHosts = join(env.dir, 'known_hosts_both');
  writeFileSync(knownHosts, readFileSync(env.sshd.knownHostsFile, 'utf8') + readFileSync(second.knownHostsFile, 'utf8'));
  authArgs = ['--identity', env.sshd.keyFile, '--known-hosts', knownHosts];
  const made = varlabSync(['sandbox', 'create', second.target, ...authArgs, '--dir', secondDir, '--json'], env.varlabHome);
  assert.equal(made.code, 0, made.stderr + made.stdout);
  profiles = join(env.varlabHome, 'profiles.json');
});

after(async () => {
  // Whatever part of before() failed, the second sshd is stopped (it was left running when it threw).
  try {
    if (second && authArgs) varlabSync(['sandbox', 'remove', second.target, ...authArgs], env.varlabHome);
  } finally {
    await second?.stop();
  }
  if (secondDir) rmSync(secondDir, { recursive: true, force: true });
  await env?.stop();
});

/** Adaptive hash index on/off (a per-server factor: both hosts share this machine), 2 restarts per cell. */
function twoHostCopy(name: string): string {
  return shortQuickstartCopy(env, name, { factors: [{ tunable: 'ahi', levels: ['on', 'off'] }], restartsPerCell: 2, repetitions: 3, warmup: 1 }, (d) => {
    delete d.design.serverProfile;
  });
}

test('a two-host run: each host its own order and journal, the host a factor in analyze --json and the CSV', { timeout: 900_000 }, async () => {
  const file = twoHostCopy('twohosts');
  const hosts = [env.sshd.target, second.target];
  const run = varlabRun([file, '--target', hosts[0], '--target', hosts[1], ...authArgs], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  // Every event of the run names its host.
  assert.deepEqual([...new Set(run.events.filter((e) => e.type === 'restart-finished').map((e) => e.host))].sort(), [...hosts].sort());

  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.targets, hosts, 'the hosts are written into the design');
  for (const host of hosts) {
    const own = doc.results!.restarts.filter((r) => r.host === host);
    // Each host ran the whole plan, in the order of its own seed.
    const plan = buildPlan(hostDesign(doc.design, host));
    assert.deepEqual(
      own.map((r) => [r.seq, r.cell, r.status]),
      plan.map((p) => [p.seq, p.cell, 'ok']),
    );
    assert.ok(existsSync(hostJournalPath(file, host)), `the journal of ${host}`);
  }

  const analysis = varlabSync(['analyze', file, '--json'], env.varlabHome);
  assert.equal(analysis.code, 0, analysis.stderr);
  const a = JSON.parse(analysis.stdout) as { cells: { cell: string }[]; hosts?: { hosts: string[] } };
  for (const host of hosts) for (const level of ['on', 'off']) assert.ok(a.cells.some((c) => c.cell === `ahi=${level},host=${host}`), `cell ahi=${level},host=${host} in ${analysis.stdout.slice(0, 300)}`);
  assert.deepEqual(a.hosts?.hosts, hosts);

  const out = join(env.dir, 'twohosts-csv');
  const exported = varlabSync(['export', file, '--csv', out], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  const rows = parse(readFileSync(join(out, 'executions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  assert.deepEqual([...new Set(rows.map((r) => r.host))].sort(), [...hosts].sort());
});

test('a host that fails does not stop the other; the summary names it and why', { timeout: 900_000 }, async () => {
  const saved = readFileSync(profiles, 'utf8');
  const registry = JSON.parse(saved) as Record<string, { mysqld: string }>;
  registry[second.target].mysqld = '/usr/sbin/no-such-mariadbd';
  writeFileSync(profiles, JSON.stringify(registry));
  try {
    const file = twoHostCopy('onefails');
    const run = varlabRun([file, '--target', env.sshd.target, '--target', second.target, ...authArgs], env.varlabHome);
    assert.equal(await run.exit, 1, run.stderr());
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    const good = doc.results!.restarts.filter((r) => r.host === env.sshd.target);
    assert.deepEqual(good.map((r) => r.status), ['ok', 'ok', 'ok', 'ok'], 'the good host ran its whole plan');
    assert.equal(doc.results!.restarts.filter((r) => r.host === second.target && r.status === 'ok').length, 0);
    const summary = run.stderr().split('\n').find((l) => l.startsWith('varlab run: failed'));
    assert.ok(summary?.includes(`failed on ${second.target}`), run.stderr());
    assert.ok(summary?.includes('no-such-mariadbd') && summary.includes(`finished on ${env.sshd.target}`), run.stderr());
  } finally {
    writeFileSync(profiles, saved);
  }
});
