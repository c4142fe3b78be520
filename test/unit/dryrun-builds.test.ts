// `varlab run --dry-run` lists, before the cells' restarts, the run's build check (builds.ts
// checkRunBuilds): the one remote call, exactly as the run sends it, quoted as the restarts' scripts are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Build, Design, ServerProfile } from '../../src/common/experiment/types.js';

const home = mkdtempSync(join(tmpdir(), 'varlab-dryrun-builds-'));
process.env.VARLAB_HOME = home; // no profile registered: the file's own is used
const { dryRun, dryRunText } = await import('../../src/node/runs/dryrun.js');

const SHA = 'ab'.repeat(32);
const builds: Build[] = [
  { name: 'A', mysqld: '/opt/a/bin/mariadbd', datadir: '/srv/sb/data-A', exe: '/opt/a/bin/mariadbd', sha256: SHA },
  { name: 'B', mysqld: '/opt/b-11.4+asan/mariadbd', datadir: '/srv/sb/data-B', exe: '/opt/b/mariadbd', sha256: SHA },
];
const target = 'ssh://db';
const profile: ServerProfile = { target, kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/sb/data', socket: '/srv/sb/mysqld.sock', port: 23306, user: 'root', errorLog: '/srv/sb/error.log', pidFile: '/srv/sb/mysqld.pid', extraArgs: [], sudo: false, builds };
const design = (p: ServerProfile): Design => ({ ...JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')).design, target, factors: [{ tunable: 'build', levels: ['A', 'B'] }], excludedCells: [], serverProfile: p });
const noCells = (async () => []) as Parameters<typeof dryRun>[2];
const where = { out: 'x.varlab.json', journal: 'x.journal', notes: [] };

test.after(() => rmSync(home, { recursive: true, force: true }));

test('the dry run lists the build check the run makes before its first restart, its command quoted exactly as sent', async () => {
  const d = design(profile);
  const report = await dryRun(d, target, noCells);
  assert.equal(report.problem, undefined);
  const lines = dryRunText('x', d, report, where);
  const at = lines.findIndex((l) => l.startsWith('== before the first restart'));
  assert.ok(at > 0, lines.join('\n'));
  assert.equal(lines[at], "== before the first restart (attached: before the target's lock; detached: before the launch): the builds the run starts are there to start");
  assert.equal(lines[at + 1], `# one remote call on the target:\n# the builds this run starts are there to start\n[ -x /opt/a/bin/mariadbd ] || echo @missing A\n[ -x /opt/b-11.4+asan/mariadbd ] || echo @missing B\n`);
  // Under sudo, as root (as the restarts are shown).
  const sudo = design({ ...profile, sudo: true });
  assert.match(dryRunText('x', sudo, await dryRun(sudo, target, noCells), where).join('\n'), /# one remote call on the target:\n# runs as root: sudo -n sh -c SCRIPT, with SCRIPT:\n# the builds this run starts are there to start\n\[ -x/);
  // No build factor: no check to show.
  const none = { ...d, factors: [{ tunable: 'ahi', levels: ['on', 'off'] }] } as Design;
  assert.ok(!dryRunText('x', none, await dryRun(none, target, noCells), where).some((l) => l.startsWith('== before the first restart')));
});

test('the dry run says what the first restart makes before it measures: the setup script (with its skip table) or the DBT-3 data step', async () => {
  const d = { ...design(profile), factors: [{ tunable: 'ahi', levels: ['on', 'off'] }] } as Design;
  const text = dryRunText('x', d, await dryRun(d, target, noCells), where).join('\n');
  assert.ok(text.includes("== once on the data directory, before its first restart measures: the setup script, in database varlab_quickstart as the server profile's admin account, unless table lineitem exists there\n-- A small TPC-H-like schema"), text);
  assert.ok(text.includes(d.workload.setupSql), 'the script in full');
  // A DBT-3 design: its data step, as consent names it; with builds, once on each build's data directory.
  const dbt3 = { ...design(profile), workload: { ...d.workload, setupSql: '', setupSkipIfTable: undefined, database: 'dbt3', data: { kind: 'dbt3', sf: 0.02, seed: 20170116 } } } as Design;
  const lines = dryRunText('x', dbt3, await dryRun(dbt3, target, noCells), where);
  const at = lines.indexOf("== once on each build's data directory, before its first restart measures: the DBT-3 data step, as the server profile's admin account (a load already there is recognised)");
  assert.ok(at > lines.findIndex((l) => l.startsWith('== before the first restart')), lines.join('\n'));
  assert.match(lines[at + 1], /^creates database dbt3 \(if missing\) with the DBT-3 tables .* at scale factor 0\.02 .*varlab's generator \(seed 20170116\)/);
  assert.ok(!lines.some((l) => l.includes('the setup script')), 'no setup script to name');
});
