// The Run view of a finished file (its results saved, no run going on): a design run on several hosts
// shows each host's restarts, chosen by host (Analysis has them all; before, the Run view showed only
// the first host's), and what was verified on the live server at the last restart stays shown; each
// host's timer note is its own; a grown design whose runs measured with different timers says each run's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPlan, hostDesign } from '../../src/common/plan.js';
import type { ExperimentDoc, RestartResult, TimerVsClient } from '../../src/common/experiment/types.js';
import { syntheticExperiment } from '../../scripts/bench/lib/generate.js';
import { JournalFold, resultsFromJournal, severalHostsResults } from '../../src/common/records.js';
import { grownResults } from '../../src/common/experiment/carry.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';
import { appForTests, openFile, pageProblems, waitInPage } from './support.js';

const ctx = appForTests();
const A = 'ssh://root@db1:22';
const B = 'ssh://root@db2:22';

/** Two cells, 2 restarts each, on two hosts; db2 is 1.5 times slower, so its plots differ. */
function twoHosts(): ExperimentDoc {
  const doc = syntheticExperiment({ queries: 2, restartsPerCell: 2, reps: 5 });
  const all = [...new Set(buildPlan(doc.design).map((p) => p.cell))];
  doc.design.excludedCells = all.slice(2);
  doc.design.target = A;
  doc.design.targets = [A, B];
  delete doc.design.serverProfile;
  const start = Date.UTC(2026, 0, 5, 9);
  const restarts: RestartResult[] = [A, B].flatMap((host, h) =>
    buildPlan(hostDesign(doc.design, host)).map((p) => ({
      seq: p.seq,
      cell: p.cell,
      host,
      status: 'ok' as const,
      startedAt: start + p.seq * 60_000,
      finishedAt: start + p.seq * 60_000 + 50_000,
      checks: [{ tunable: 'aslr', level: p.cell.includes('aslr=on') ? 'on' : 'off', ok: true, observed: 'personality 0x0000000' }],
      options: [{ tunable: 'innodb_buffer_pool_size', level: '128M', ok: true, observed: '134217728' }],
      queries: ['Q1', 'Q2'].map((query, q) => ({ query, unit: 'ms', source: 'performance_schema' as const, values: [5, 4, 4.1, 4, 4.05].map((v) => (v + q + p.seq / 10) * (h ? 1.5 : 1)) })),
    })),
  );
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 2);
  doc.results = { startedAt: start, finishedAt: start + 10 * 60_000, restarts };
  return doc;
}

test("a finished file run on two hosts: the Run view shows each host's restarts, and what was verified at the last restart", async () => {
  const file = join(ctx.app.dir, 'two-hosts.varlab.json');
  writeFileSync(file, JSON.stringify(twoHosts(), null, 2));
  const page = await ctx.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 8 of 8 restarts' }).waitFor();
  assert.match(await page.getByTestId('run-finished').innerText(), /\(2 cells, 80 executions on 2 hosts\)/);

  const hosts = page.getByTestId('run-host');
  assert.deepEqual(await hosts.allInnerTexts(), [`${A}: finished, 4 of 4`, `${B}: finished, 4 of 4`]);
  assert.match(await page.getByTestId('run-verified').innerText(), /^verified at restart 4: aslr=(on|off) ✓ server options: innodb_buffer_pool_size=128M ✓$/);
  const shown = async () => page.locator('[data-testid=run-host].primary').getAttribute('data-host');
  assert.equal(await shown(), A);
  // The restart means of the host shown: db2's are 1.5 times db1's.
  // Page code as text: no DOM types here. The plot's element is Plotly's, holding the data it draws.
  const highest = `Math.max(...document.querySelector('[data-testid=run-means]').data.flatMap((t) => t.y))`;
  const meanY = () => page.evaluate(highest) as Promise<number>;
  const a = await meanY();
  await page.locator(`[data-testid=run-host][data-host="${B}"]`).click();
  assert.equal(await shown(), B);
  assert.ok(a > 0);
  await waitInPage(page, `${highest} > ${a} * 1.4`, "db2's restart means in the plot");
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/run-saved-hosts.png` });
  // The restart axis is numbered in whole restarts (4 restarts: 1, 2, 3, 4; never 1.5).
  const ticks = (await page.evaluate(`[...document.querySelectorAll('[data-testid=run-means] .xtick text')].map((t) => t.textContent)`)) as string[];
  assert.ok(ticks.length >= 2 && ticks.every((t) => /^\d+$/.test(t)), `restart ticks: ${ticks.join(' ')}`);

  // In a window 1000 px wide the small plots' titles fit their plots (in one line they were cut at both ends).
  await page.setViewportSize({ width: 1000, height: 800 });
  const small = ['run-means', 'run-spread'].map((id) => `document.querySelector('[data-testid=${id}]')`);
  // Plotly redraws on the window's resize: wait until each plot's drawing is its container's width again.
  const resized = `[${small}].every((p) => Math.abs(p.querySelector('.main-svg').getBoundingClientRect().width - p.getBoundingClientRect().width) < 1 && p.getBoundingClientRect().width < 500)`;
  await waitInPage(page, resized, 'the small plots to be redrawn at the narrower width', 10_000);
  const titles = (await page.evaluate(
    `[${small}].flatMap((p) => [...p.querySelectorAll('.gtitle, .gtitle-subtitle')].map((t) => { const b = p.getBoundingClientRect(), r = t.getBoundingClientRect(); return { text: t.textContent, left: r.left - b.left, right: b.right - r.right }; }))`,
  )) as { text: string; left: number; right: number }[];
  assert.ok(titles.length >= 2, `each small plot has its title: ${JSON.stringify(titles)}`);
  for (const t of titles) assert.ok(t.left >= 0 && t.right >= 0, `"${t.text}" fits its plot: ${JSON.stringify(t)}`);
  assert.deepEqual(pageProblems(page), []);
});

test("a finished file measured by query profiling on two hosts: each host's timer note in its parts, its own", async () => {
  const doc = twoHosts();
  for (const r of doc.results!.restarts) for (const q of r.queries) q.source = 'profiling';
  // Each host's results as its run writes them: its timer record folded from its journal, then the hosts' together.
  const found: Record<string, { why: string; vsClient: TimerVsClient }> = {
    [A]: { why: 'performance_schema is off', vsClient: { source: 'profiling' as const, query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 } },
    [B]: { why: 'performance_schema cannot be read (Access denied; check the grants)', vsClient: { source: 'profiling' as const, query: 'SELECT 1', n: 30, offsetMs: 0.25, spreadMs: 0.012, at: 2 } },
  };
  doc.results = {
    ...doc.results!,
    ...severalHostsResults(
      [A, B].map((host) => {
        const fold = new JournalFold();
        fold.apply({ t: 'timer', at: 1, source: 'profiling', ...found[host] });
        return { host, results: { ...resultsFromJournal(fold.state()), restarts: doc.results!.restarts.filter((r) => r.host === host).map(({ host: _h, ...r }) => r) } };
      }),
    ),
  };
  // And the same file as earlier versions wrote it: each host's note in words only, joined (`HOST: NOTE; HOST: NOTE`).
  const { timers: _t, ...old } = doc.results;
  for (const [name, results] of [['two-hosts-profiled', doc.results], ['two-hosts-profiled-old', old]] as const) {
    const file = join(ctx.app.dir, `${name}.varlab.json`);
    writeFileSync(file, JSON.stringify({ ...doc, results }, null, 2));
    await timerNotesShown(file);
  }
});

/** The Run view of a finished two-host file says db1's timer note, then db2's, each its own (twoHosts' hosts). */
async function timerNotesShown(file: string): Promise<void> {
  const page = await ctx.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 8 of 8 restarts' }).waitFor();
  const note = page.getByTestId('run-timer-note');
  const said = async () => ({ what: (await note.locator('div').first().innerText()).trim(), vs: (await page.getByTestId('run-timer-vs-client').innerText()).trim() });
  const comparison = (ms: string) => `Compared with the client's round trip at the start of the run (30 executions of SELECT 1): the client's time is ${ms} ms longer (median)`;
  await note.waitFor();
  const a = await said();
  assert.equal(a.what, '⚠ Times from query profiling (SHOW PROFILES), not the exact timer: performance_schema is off.');
  assert.ok(a.vs.startsWith(comparison('0.071')), a.vs);
  assert.ok(!a.vs.includes(B), `db1's comparison is its own: ${a.vs}`);
  await page.locator(`[data-testid=run-host][data-host="${B}"]`).click();
  await note.filter({ hasText: 'Access denied' }).waitFor();
  const b = await said();
  assert.equal(b.what, '⚠ Times from query profiling (SHOW PROFILES), not the exact timer: performance_schema cannot be read (Access denied; check the grants).');
  assert.ok(b.vs.startsWith(comparison('0.250')), b.vs);
  assert.ok(!b.what.includes(A) && !b.vs.includes(A), `db2's note is its own: ${JSON.stringify(b)}`);
  // The exact timer's options, folded, one to a line.
  await note.locator('summary', { hasText: 'How to measure with the exact timer' }).click();
  assert.equal((await note.locator('pre').innerText()).split('\n').length, 4);
  assert.deepEqual(pageProblems(page), []);
  await page.close();
}

test("a finished grown file (run --missing) whose runs measured with different timers: the Run view says each run's", async () => {
  const doc = finishedQuickstart();
  const all = doc.results!.restarts;
  // The first run on the exact timer; the run of what it missed (its last 4 restarts) on query profiling, as its journal has it.
  const fold = new JournalFold();
  fold.apply({ t: 'timer', at: 1, source: 'profiling', why: 'performance_schema is off', vsClient: { source: 'profiling', query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 } });
  const grown = all.slice(-4).map((r, i) => ({ ...r, seq: i + 1, queries: r.queries.map((q) => ({ ...q, source: 'profiling' as const })) }));
  doc.results = grownResults({ ...doc.results!, restarts: all.slice(0, -4) }, { ...resultsFromJournal(fold.state()), restarts: grown }, 2);
  const file = join(ctx.app.dir, 'grown-two-timers.varlab.json');
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const page = await ctx.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  const runs = page.getByTestId('run-timer-run');
  await runs.first().waitFor();
  assert.match(await page.getByTestId('run-timer-runs').innerText(), /^The runs of this grown design \(run --missing\) measured with different timers:/);
  const said = await runs.allInnerTexts();
  assert.equal(said.length, 2, said.join(' | '));
  assert.match(said[0], /^Run 1 of this grown design \(run --missing\): ?\n?\s*performance_schema's exact timer \(TIMER_WAIT\)$/);
  assert.match(said[1], /^Run 2 of this grown design \(run --missing\):\s*⚠ Times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema is off\./);
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});
