// The build factor in headless Chromium against the real browser-mode backend: with two builds
// registered for the quickstart's host (as `varlab sandbox create local --build …` leaves them in the
// registry), the Designer offers "Server build" with those builds as its levels, both switched on, and
// the grid doubles; the Hosts view lists the builds and what each runs; and the Run view of a finished
// build × ASLR file shows the running build's executable, digest and version among the verified facts.
// Before all of it, the Welcome page's "Is build B faster than A?" leads to the Hosts view with the steps said.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostProfile } from '../../src/common/api.js';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { appForTests, openFile, openQuickstart, pageProblems } from './support.js';
import { EXACT_TIMER_OPTIONS, timerNoteParts, timerNoteText } from '../../src/common/timer-note.js';

const env = appForTests();
const SHA = '0123456789abcdef'.repeat(4);

/** Two builds registered for `local`, the quickstart's target: what a sandbox create with --build registers. */
function registerBuilds(home: string): void {
  const profile: HostProfile = {
    kind: 'direct',
    mysqld: '/usr/sbin/mariadbd',
    datadir: '/var/tmp/varlab-sandbox-0123abcd/data',
    socket: '/var/tmp/varlab-sandbox-0123abcd/mysqld.sock',
    port: 23306,
    user: 'root',
    extraArgs: [],
    sudo: false,
    sandboxDir: '/var/tmp/varlab-sandbox-0123abcd',
    builds: [
      { name: 'base', mysqld: '/opt/base/bin/mariadbd', datadir: '/var/tmp/varlab-sandbox-0123abcd/data-base', exe: '/opt/base/bin/mariadbd', sha256: SHA, version: '10.11.19-MariaDB (Debian 12)' },
      { name: 'patched', mysqld: '/opt/patched/run.sh', datadir: '/var/tmp/varlab-sandbox-0123abcd/data-patched', exe: '/opt/patched/bin/mariadbd', sha256: SHA, version: '10.11.19-MariaDB (patched)' },
    ],
  };
  writeFileSync(join(home, 'profiles.json'), JSON.stringify({ local: profile }));
}

test('the Welcome page says where comparing two builds starts: Hosts, with the steps after it', async () => {
  const page = await env.open();
  const entry = page.getByTestId('welcome-builds');
  assert.equal(await entry.innerText(), 'Is build B faster than A?\nRegister both builds in Hosts, add the factor “Server build” to a new experiment, and run it with “Stop when answered”');
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'welcome-builds.png'), fullPage: true });
  await entry.click();
  await page.getByTestId('hosts').waitFor();
  assert.equal(await page.getByTestId('nav-hosts').getAttribute('aria-selected'), 'true');
  assert.match(await page.getByTestId('status-text').innerText(), /^Is build B faster than A\? 1\. Here: add or choose the host, and make a sandbox on it with both builds under “Server builds”\. 2\. New experiment: add the factor “Server build”\. 3\. Run: tick “Stop when answered”\.$/);
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'welcome-builds-hosts.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test("the Designer offers the host's registered builds as the levels of a build factor", async () => {
  registerBuilds(env.app.home);
  const page = await env.open();
  await openQuickstart(page);
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells');
  // The builds are asked of the backend: the choice says how many it found.
  await page.locator('[data-testid=add-factor] option', { hasText: 'Server build (2 registered for this host)' }).waitFor({ state: 'attached' });
  await page.getByTestId('add-factor').selectOption({ label: 'Server build (2 registered for this host)' });
  const factor = page.locator('[data-testid=factor][data-factor=build]');
  await factor.waitFor();
  await factor.locator('[data-testid=level-chip][data-level=patched]').waitFor();
  const chips = await factor.getByTestId('level-chip').evaluateAll((cs) => cs.map((c) => [c.getAttribute('data-level'), c.getAttribute('aria-pressed')]));
  assert.deepEqual(chips, [
    ['base', 'true'],
    ['patched', 'true'],
  ]);
  assert.equal(await page.getByTestId('cell-count').innerText(), '32 cells');
  // Each build has its own data directory, which the setup fills at that build's first restart: said where the script is.
  assert.equal(await page.getByTestId('setup-sql-label').innerText(), "Setup script (run before each build's first restart, in that build's own data directory, unless the table above exists: create and fill the data)");
  await page.screenshot({ path: join(env.app.dir, 'designer-builds.png'), fullPage: true });
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'designer-builds.png'), fullPage: true });
  // Switching one off leaves the other; the level that is not registered cannot be typed in as a shell word.
  await factor.locator('[data-testid=level-chip][data-level=patched]').click();
  assert.equal(await page.getByTestId('cell-count').innerText(), '16 cells');
  await factor.getByTestId('custom-level').fill('x;reboot');
  assert.match(await factor.getByTestId('factor-problem').innerText(), /not valid for Server build/);

  await page.getByTestId('nav-hosts').click();
  const summary = await page.getByTestId('host-profile').innerText();
  assert.match(summary, /patched: \/opt\/patched\/run\.sh \(runs \/opt\/patched\/bin\/mariadbd\), 10\.11\.19-MariaDB \(patched\)/);
  // And which server a design without the build factor starts.
  assert.match(summary, /mysqld\s+\/usr\/sbin\/mariadbd, data directory \/var\/tmp\/varlab-sandbox-0123abcd\/data \(what a design without the “Server build” factor runs\)/);
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'hosts-builds.png'), fullPage: true });

  // A build comparison alone, interleaved: the run order's preview names the builds, round by round.
  await page.getByTestId('nav-design').click();
  await factor.locator('[data-testid=level-chip][data-level=patched]').click();
  await factor.getByTestId('custom-level').fill('');
  while ((await page.getByTestId('factor').count()) > 1) await page.locator('[data-testid=factor]:not([data-factor=build])').first().getByTestId('remove-factor').click();
  await page.getByTestId('order-interleaved').check();
  assert.equal(await page.getByTestId('cell-count').innerText(), '2 cells');
  assert.match(await page.getByTestId('order-preview').innerText(), /round 1:\s+base patched\s+round 2:\s+patched base\s+round 3:\s+base patched/);
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'designer-builds-order.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

test('with no build registered, the Designer says the one command that registers one, whether or not the host has a sandbox', async () => {
  writeFileSync(join(env.app.home, 'profiles.json'), JSON.stringify({}));
  const page = await env.open();
  await openQuickstart(page);
  await page.locator('[data-testid=add-factor] option', { hasText: 'Server build (none registered for this host)' }).waitFor({ state: 'attached' });
  await page.getByTestId('add-factor').selectOption({ label: 'Server build (none registered for this host)' });
  // Before: "varlab sandbox create TARGET --build NAME=PATH", refused on a host that has a sandbox.
  assert.equal(await page.getByTestId('no-builds').innerText(), 'No build is registered for local: add builds in the Hosts view, or with varlab sandbox add-build local --build NAME=PATH.');
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'designer-no-builds.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

/** A finished build × ASLR file, 2 restarts per cell, as a run on a host with builds base and patched writes it. */
function finishedBuildRun(): ExperimentDoc {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.factors = [
    { tunable: 'build', levels: ['base', 'patched'] },
    { tunable: 'aslr', levels: ['on', 'off'] },
  ];
  doc.design.excludedCells = [];
  doc.design.restartsPerCell = 2;
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 1);
  doc.design.workload.repetitions = 3;
  doc.design.workload.warmup = 0;
  const start = Date.UTC(2026, 0, 5, 9);
  const exe = (b: string) => (b === 'base' ? '/opt/base/bin/mariadbd' : '/opt/patched/bin/mariadbd');
  const restarts: RestartResult[] = buildPlan(doc.design).map((p) => ({
    seq: p.seq,
    cell: p.cell,
    status: 'ok' as const,
    startedAt: start + p.seq * 60_000,
    finishedAt: start + p.seq * 60_000 + 50_000,
    checks: [
      { tunable: 'build', level: p.levels.build, ok: true, observed: `exe ${exe(p.levels.build)} sha256 ${SHA}; 10.11.19-MariaDB (${p.levels.build})` },
      { tunable: 'aslr', level: p.levels.aslr, ok: true, observed: 'personality 0x0000000' },
    ],
    queries: [{ query: doc.design.workload.queries[0].name, unit: 'ms', source: 'performance_schema' as const, values: [5, 4, 4.1] }],
  }));
  doc.results = { startedAt: start, finishedAt: start + 10 * 60_000, restarts };
  return doc;
}

test('the Run view shows the running build: its executable, digest and version, verified like a tunable', async () => {
  const doc = finishedBuildRun();
  const file = join(env.app.dir, 'builds.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 8 of 8 restarts' }).waitFor();
  const last = doc.results!.restarts.at(-1)!;
  const build = last.checks[0].level;
  const verified = await page.getByTestId('run-verified').innerText();
  assert.match(verified, new RegExp(`^verified at restart 8: build=${build} ✓ \\(exe /opt/${build}/bin/mariadbd sha256 ${SHA}; 10\\.11\\.19-MariaDB \\(${build}\\)\\)\\s*aslr=(on|off) ✓`));
  // The timer is named on the finished file as the live run named it (only a note for another timer was).
  assert.equal(await page.getByTestId('run-timer-source').innerText(), 'times from the server: performance_schema');
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'run-builds.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

// The same finished file, measured by query profiling (a server without the exact timer): its Run view
// says which timer and why, how it compared with the client's time, and, folded, the server options
// that turn the exact timer on, one to a line (common/timer-note.ts, RunView TimerNote). The file is
// one from before results.timers, its note in words only: those it splits back into their parts.
test("a finished file measured by query profiling: the Run view's timer note in its parts, the exact timer's options folded", async () => {
  const doc = finishedBuildRun();
  for (const r of doc.results!.restarts) for (const q of r.queries) q.source = 'profiling';
  const vsClient = { source: 'profiling' as const, query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 };
  doc.results!.timerNote = timerNoteText(timerNoteParts({ source: 'profiling', why: 'performance_schema is off', vsClient })!);
  const file = join(env.app.dir, 'profiled.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await env.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  const note = page.getByTestId('run-timer-note');
  await note.waitFor();
  assert.match(await note.innerText(), /^⚠ Times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema is off\.\n/);
  assert.match(await page.getByTestId('run-timer-vs-client').innerText(), /^Compared with the client's round trip at the start of the run \(30 executions of SELECT 1\): the client's time is 0\.071 ms longer/);
  await note.locator('summary', { hasText: 'How to measure with the exact timer' }).click();
  assert.equal(await note.locator('pre').innerText(), EXACT_TIMER_OPTIONS.join('\n'));
  assert.match(await note.locator('details').innerText(), /start mysqld with:\n[\s\S]*Add them to the server profile's options; a varlab sandbox has them\./);
  if (process.env.VARLAB_SCREENSHOTS) await page.screenshot({ path: join(process.env.VARLAB_SCREENSHOTS, 'run-timer-note.png'), fullPage: true });
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});
