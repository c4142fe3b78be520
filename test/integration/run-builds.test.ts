// The server build as a factor, with real parts: a sandbox mariadbd over the sandbox sshd, with three
// builds registered by `varlab sandbox create --build`: two copies of the same mariadbd at two paths
// (an A/A comparison) and a wrapper script that execs the second copy under `nice` (a handicap). Each
// build gets its own data directory made by that build; the wrapper is known by the binary it execs;
// a run of build × AHI, attached and detached, records, at every restart, the running build's path, digest and version among
// the verified facts, in the file, the CSV and the Markdown report; and a build whose binary changed
// since it was registered fails verification like any tunable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { Build, ExperimentDoc } from '../../src/common/experiment/types.js';
import type { Sshd } from '../../scripts/testenv/sshd.js';
import { buildsEnvForTests, MARIADBD } from './builds-env.js';
import { shortQuickstartCopy, varlabRun, varlabSync, type RunEnv } from './run-env.js';

// Copies A and B (B's binary has a name of its own: the stop before the next start must still find it),
// and W, a wrapper that execs B's under `nice`.
const fx = buildsEnvForTests('builds', {
  more: (dir, binOf) => {
    mkdirSync(join(dir, 'w'), { mode: 0o755 });
    writeFileSync(join(dir, 'w', 'slow'), `#!/bin/sh\nexec nice -n 5 ${binOf('B')} "$@"\n`, { mode: 0o755 });
    return [`W=${join(dir, 'w', 'slow')}`];
  },
  ready: (made) => {
    ({ sshd, dir, home, authArgs } = made);
    builds = made.profile().builds!;
  },
});
let sshd: Sshd;
let dir: string;
let home: string;
let authArgs: string[];
let builds: Build[];
const sha = createHash('sha256').update(readFileSync(MARIADBD)).digest('hex');

const env = (): RunEnv => fx.runEnv();

test('sandbox create --build gives each build its own data directory, made by it, and registers what its live process runs', () => {
  assert.deepEqual(
    builds.map((b) => [b.name, b.exe, b.sha256]),
    [
      ['A', fx.binOf('A'), sha],
      ['B', fx.binOf('B'), sha],
      // The wrapper is known by the binary it execs, not by the script.
      ['W', fx.binOf('B'), sha],
    ],
  );
  assert.equal(builds[2].mysqld, join(dir, 'w', 'slow'));
  assert.equal(new Set(builds.map((b) => b.datadir)).size, 3, 'two builds never share a data directory');
  for (const b of builds) {
    assert.ok(existsSync(join(b.datadir, 'mysql', 'user.frm')) || existsSync(join(b.datadir, 'mysql', 'global_priv.frm')), `${b.name}: system tables in ${b.datadir}`);
    assert.match(b.version ?? '', /MariaDB/);
  }
});

test('a build × AHI run records the running build at every restart, in the file, the CSV and the report', { timeout: 600_000 }, async () => {
  const factors = [
    { tunable: 'build', levels: ['A', 'B', 'W'] },
    { tunable: 'ahi', levels: ['on', 'off'] },
  ];
  const file = shortQuickstartCopy(env(), 'builds', { factors, restartsPerCell: 1, repetitions: 2, warmup: 0 });
  const run = varlabRun([file, ...authArgs], home);
  assert.equal(await run.exit, 0, run.stderr());
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  const restarts = doc.results!.restarts;
  assert.equal(restarts.length, 6);
  for (const r of restarts) {
    assert.equal(r.status, 'ok', `${r.cell}: ${r.reason}`);
    const level = /build=(\w+)/.exec(r.cell)![1];
    const check = r.checks.find((c) => c.tunable === 'build');
    const b = builds.find((x) => x.name === level)!;
    assert.equal(check?.ok, true, JSON.stringify(check));
    assert.match(check!.observed, new RegExp(`^exe ${b.exe} sha256 ${sha}; \\d+\\.\\d+\\.\\d+-MariaDB`));
  }
  // Each build's data directory was filled by the same setup script.
  const tables = builds.map((b) => existsSync(join(b.datadir, doc.design.workload.database)));
  assert.deepEqual(tables, [true, true, true]);

  const out = join(dir, 'export');
  const exported = varlabSync(['export', file, '--csv', out, '--markdown', join(dir, 'report.md')], home);
  assert.equal(exported.code, 0, exported.stderr);
  const rows = parse(readFileSync(join(out, 'restarts.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  for (const r of rows) assert.match(r['observed:build'], new RegExp(`^exe ${builds.find((b) => b.name === r.build)!.exe} sha256 ${sha}`), r.cell);
  const report = readFileSync(join(dir, 'report.md'), 'utf8');
  for (const b of builds) assert.ok(report.includes(`exe ${b.exe} sha256 ${sha}`), report);
});

test('a detached run of two builds sets up each data directory and records each build at every restart', { timeout: 600_000 }, async () => {
  const factors = [{ tunable: 'build', levels: ['A', 'W'] }];
  const file = shortQuickstartCopy(env(), 'builds-detached', { factors, restartsPerCell: 2, repetitions: 2, warmup: 0 }, (d) => {
    // A data directory of its own for this run's setup: the earlier run's tables are not there.
    d.design.workload.database = 'varlab_detached';
  });
  const started = varlabSync(['run', file, '--detach', ...authArgs], home);
  assert.equal(started.code, 0, started.stderr + started.stdout);
  const attached = varlabSync(['attach', file], home);
  assert.equal(attached.code, 0, attached.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results!.restarts.length, 4);
  for (const r of doc.results!.restarts) {
    assert.equal(r.status, 'ok', r.reason);
    const b = builds.find((x) => r.cell === `build=${x.name}`)!;
    const check = r.checks.find((c) => c.tunable === 'build');
    assert.equal(check?.ok, true, JSON.stringify(check));
    assert.match(check!.observed, new RegExp(`^exe ${b.exe} sha256 ${sha}; \\d+\\.\\d+\\.\\d+-MariaDB`));
  }
  for (const name of ['A', 'W']) assert.ok(existsSync(join(builds.find((b) => b.name === name)!.datadir, 'varlab_detached')), `build ${name} was set up`);
});

test('a build whose binary changed since it was registered fails verification', { timeout: 300_000 }, async () => {
  const profiles = JSON.parse(readFileSync(join(home, 'profiles.json'), 'utf8'));
  const saved = JSON.stringify(profiles);
  profiles[sshd.target].builds[0].sha256 = 'f'.repeat(64);
  writeFileSync(join(home, 'profiles.json'), JSON.stringify(profiles));
  try {
    const r = varlabSync(['sandbox', 'start', sshd.target, ...authArgs, '--set', 'build=A'], home);
    assert.equal(r.code, 3, r.stderr + r.stdout);
    assert.match(r.stdout, new RegExp(`FAIL  build=A  exe ${fx.binOf('A')} sha256 ${sha}; .*expected sha256 f{64}`));
  } finally {
    writeFileSync(join(home, 'profiles.json'), saved);
    varlabSync(['sandbox', 'stop', sshd.target, ...authArgs], home);
  }
});
