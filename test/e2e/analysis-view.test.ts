// The analysis views in headless Chromium: AnalysisView bundled as the app bundles it (with its worker),
// served from 127.0.0.1, fed an experiment whose structure is known: a cell whose restarts fall 7 and 3
// into two levels, a warm-up of 6 executions with the adaptive hash index on, one cell with a single
// restart. The test reads what a user reads and clicks what a user clicks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './support.js';
import { syntheticExperiment } from '../../scripts/bench/lib/generate.js';
import { appModule, serveHarness, type Harness } from './harness.js';
import { buildPlan, seededRandom } from '../../src/common/plan.js';
import { analyze, suggestPlan, tidyFromExperiment } from '../../src/common/stats/index.js';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { finishedSysbench } from '../fixtures/sysbench-experiment.js';
import { coldFirstExecutions } from '../fixtures/export-experiment.js';
import { exportContext, markdownReport } from '../../src/common/export/index.js';

let harness: Harness;
let url: string;
let browser: Browser;

const BIMODAL = 'aslr=on,ahi=on';
const SINGLE = 'aslr=off,ahi=off';

/** 4 cells × 10 restarts × 2 queries × 20 repetitions; see the header for the structure. `steadySecond`: the second query never warms up. */
function experiment(steadySecond = false): ExperimentDoc {
  const doc: ExperimentDoc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  doc.design.factors = doc.design.factors.slice(0, 2);
  doc.design.restartsPerCell = 10;
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 2);
  doc.design.workload.repetitions = 20;
  doc.design.workload.warmup = 2;
  const random = seededRandom(5);
  let t = Date.UTC(2026, 10, 20, 10);
  const restarts: RestartResult[] = buildPlan(doc.design).map((s) => {
    const startedAt = t;
    t += 60_000;
    const queries = doc.design.workload.queries.map((q, qi) => {
      const base = 20 + 10 * qi;
      const bad = s.cell === BIMODAL && s.restartOfCell % 3 === 0;
      const level = base * (bad ? 1.1 : 1) * (1 + (random() - 0.5) * (s.cell.startsWith('aslr=on') ? 0.01 : 0.004));
      const warms = s.cell.includes('ahi=on') && !(steadySecond && qi === 1);
      const values = Array.from({ length: 20 }, (_, j) => level * (warms && j < 6 ? 1 + (6 - j) * 0.05 : 1) * (1 + (random() - 0.5) * 0.004));
      return { query: q.name, unit: 'ms', source: 'performance_schema' as const, values };
    });
    const status = s.cell === SINGLE && s.restartOfCell > 1 ? ('failed' as const) : ('ok' as const);
    // Step times as a restart journals them: the first restart also ran the setup.
    const steps = { stop: 900 + s.seq, idle: 2000, start: 3100 + 10 * s.seq, verify: 40, ...(s.seq === 1 ? { setup: 5200 } : {}), connect: 5, timer: 3, measure: 800 };
    return { seq: s.seq, cell: s.cell, status, startedAt, finishedAt: t, checks: [], queries, steps };
  });
  doc.results = { restarts };
  return doc;
}

// The harness: the view alone, the store exposed so the test can read what the buttons wrote.
const ENTRY = `import { createRoot } from 'react-dom/client';
import { AnalysisView } from ${appModule('src/browser/views/analysis/AnalysisView.tsx')};
import { useApp } from ${appModule('src/browser/store/index.ts')};
const doc = await (await fetch(new URL(location.href).searchParams.get('doc') ?? 'doc.json')).json();
useApp.getState().load({ doc, path: null, notices: [] } as never);
(window as unknown as { varlabDoc: () => unknown }).varlabDoc = () => useApp.getState().doc;
function Root() { const d = useApp((s) => s.doc); return d ? <AnalysisView doc={d} /> : null; }
createRoot(document.getElementById('root')!).render(<Root />);
`;

/** The same experiment with cheap restarts (1.5 s each, no idle), as on a laptop's sandbox: a day holds tens of thousands. */
function cheapRestarts(): ExperimentDoc {
  const doc = experiment();
  doc.design.idleSeconds = 0;
  const t0 = doc.results!.restarts[0].startedAt;
  doc.results!.restarts = doc.results!.restarts.map((r, i) => ({ ...r, startedAt: t0 + 1500 * i, finishedAt: t0 + 1500 * (i + 1), steps: { stop: 300, start: 1100, verify: 1, connect: 0, timer: 0, measure: 50 } }));
  return doc;
}

const HOSTS = ['ssh://db1', 'ssh://db2'];

/** The same experiment run on two hosts, the second 4% slower: every restart names its host. */
function twoHosts(): ExperimentDoc {
  const doc = experiment();
  doc.design.target = HOSTS[0];
  doc.design.targets = HOSTS;
  doc.results!.restarts = HOSTS.flatMap((host, h) =>
    doc.results!.restarts.map((r) => ({ ...r, host, queries: r.queries.map((q) => ({ ...q, values: q.values.map((v) => v * (1 + 0.04 * h)) })) })),
  );
  return doc;
}

/** The experiment on DBT-3 data: its data step loaded it in a first run, a second run found it there. */
function onDbt3(): ExperimentDoc {
  const doc = experiment();
  doc.design.workload.database = 'dbt3';
  doc.design.workload.data = { kind: 'dbt3', sf: 0.01 };
  const rows = { region: 5, nation: 25, part: 2000, supplier: 100, partsupp: 8000, customer: 1500, orders: 15000, lineitem: 60341 };
  const checks = Array.from({ length: 22 }, (_, i) => ({ query: `Q${i + 1}`, rows: 4, checksum: `c${i}`, expected: true, ms: 9 }));
  const load = { database: 'dbt3', sf: 0.01, seed: 1, source: "varlab's generator", resumedChunks: 0, rows, method: 'load-data-local' as const };
  doc.results!.dataSteps = [{ at: 1, ms: 41_000, recognised: false, ...load, checks }, { at: 2, ms: 40, recognised: true, ...load, checks: [] }];
  return doc;
}

/** The experiment measured by query profiling (performance_schema off), as its run keeps the timer it found. */
function profiled(): ExperimentDoc {
  const doc = experiment();
  for (const r of doc.results!.restarts) for (const q of r.queries) q.source = 'profiling';
  doc.results!.timers = [{ source: 'profiling', why: 'performance_schema is off', vsClient: { source: 'profiling', query: 'SELECT 1', n: 30, offsetMs: 0.071, spreadMs: 0.04, at: 1 } }];
  return doc;
}

before(async () => {
  harness = await serveHarness(ENTRY, { 'doc.json': JSON.stringify(experiment()), 'profiled.json': JSON.stringify(profiled()), 'hosts.json': JSON.stringify(twoHosts()), 'sysbench.json': JSON.stringify(finishedSysbench()), 'steady-second.json': JSON.stringify(experiment(true)), 'cheap.json': JSON.stringify(cheapRestarts()), 'cold.json': JSON.stringify(coldFirstExecutions()), 'dbt3.json': JSON.stringify(onDbt3()) });
  url = harness.url;
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await harness?.close();
});

async function open(doc = 'doc.json'): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/favicon/.test(m.text())) errors.push(m.text());
  });
  await page.goto(`${url}?doc=${doc}`);
  await page.getByTestId('configurations-table').waitFor({ timeout: 30_000 });
  return { page, errors };
}

test('every execution of a query whose warm-ups are 300 times slower: the axis is the measured executions, the warm-ups at its edge, said under the title; a zoom draws them as they are', async () => {
  const { page, errors } = await open('cold.json');
  const strip = page.getByTestId('query-strip');
  await page.getByTestId('query-plot-executions').check();
  const note = strip.locator('.gtitle').filter({ hasText: 'beyond the axis' });
  await note.waitFor();
  assert.match((await note.textContent())!.replace(/\u200b/g, ''), /▷ 32 warm-ups beyond the axis, up to 44,500 ms: drawn at its right edge$/);
  // The note is not a legend entry: a long one made the legend on top one entry a row, into the title.
  assert.deepEqual(await strip.locator('.legendtext').allTextContents(), ['restart mean', 'execution']);
  const gd = `document.querySelector('[data-testid=query-strip] .js-plotly-plot')`;
  const shown = () => page.evaluate(`({ range: ${gd}.layout.xaxis.range, edge: (${gd}.data.find((t) => t.name === 'warm-up beyond the axis')?.x ?? []).length, zooms: Number(document.querySelector('[data-testid=query-strip]').dataset.zoomsShown) })`) as Promise<{ range: [number, number]; edge: number; zooms: number }>;
  const whole = await shown();
  assert.ok(whole.range[1] < 130, `the axis ends near the measured 124 ms, not at the warm-ups' 44,500: ${JSON.stringify(whole.range)}`);
  assert.equal(whole.edge, 32, 'every warm-up at the edge');
  if (process.env.VARLAB_SHOTS) await strip.screenshot({ path: `${process.env.VARLAB_SHOTS}/executions-cold.png` });
  // A zoom into the measured executions is built again for its range: no edge there, nothing said of it.
  const area = (await strip.locator('.nsewdrag').first().boundingBox())!;
  await page.mouse.move(area.x + area.width * 0.1, area.y + 3);
  await page.mouse.down();
  await page.mouse.move(area.x + area.width * 0.6, area.y + area.height - 3, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(`document.querySelector('[data-testid=query-strip]').dataset.zoomsShown === '1'`);
  const zoomed = await shown();
  assert.ok(zoomed.range[0] > whole.range[0] && zoomed.range[1] < whole.range[1], JSON.stringify(zoomed.range));
  assert.equal(zoomed.edge, 0);
  assert.equal(await note.count(), 0);
  // A double-click: the whole axis again, the warm-ups at its edge.
  // Near the top of the plot area as it is now: the strip is taller than the window, so its middle is
  // below the window's edge, where a double-click reaches nothing (this waited for the whole range in vain).
  const now = (await strip.locator('.nsewdrag').first().boundingBox())!;
  await page.mouse.dblclick(now.x + now.width / 2, now.y + 20);
  await page.waitForFunction(`document.querySelector('[data-testid=query-strip]').dataset.zoomsShown === '2'`);
  assert.deepEqual(await shown(), { ...whole, zooms: 2 });
  assert.deepEqual(errors, []);
  await page.close();
});

test('executions in order of a query whose warm-ups are 300 times slower: the value axis is the measured executions, each warm-up a triangle at its top edge with its value in the hover; a zoom is built again for its range, a double-click back', async () => {
  const { page, errors } = await open('cold.json');
  const plot = page.getByTestId('plot-repetitions');
  await plot.scrollIntoViewIfNeeded();
  const note = plot.locator('.gtitle').filter({ hasText: 'beyond the axis' });
  await note.waitFor();
  assert.match((await note.textContent())!.replace(/\u200b/g, ''), /△ 2 warm-ups beyond the axis, up to 44,500 ms: drawn at its top edge$/);
  const gd = `document.querySelector('[data-testid=plot-repetitions]')`;
  const range = (await page.evaluate(`${gd}.layout.yaxis.range`)) as [number, number];
  assert.ok(range[0] > 110 && range[1] < 130, `the axis holds the measured 116–124 ms, not the warm-ups' 44,500: ${JSON.stringify(range)}`);
  const edge = (await page.evaluate(`${gd}.data.find((t) => t.name === 'warm-up beyond the axis').text`)) as string[];
  assert.equal(edge.length, 2);
  assert.match(edge[0], /^restart 1 of this cell \(restart #\d+ of the plan\), rep 1: 4\d{4}(\.\d+)?<br>warm-up, beyond the axis/);
  assert.deepEqual(await plot.locator('.legendtext').allTextContents(), ['restart 1 of cell', 'restart 2 of cell']);
  if (process.env.VARLAB_SHOTS) await plot.screenshot({ path: `${process.env.VARLAB_SHOTS}/repetitions-cold.png` });

  // A box zoom into the measured executions builds the figure again for its range: the values as they
  // are, no triangle at an edge that is no longer shown, nothing said of it (before, the note stayed and
  // each line ran from a triangle at 124.5 ms as if that were the warm-up's value).
  const zooms = (n: number) => page.waitForFunction(`document.querySelector('[data-testid=repetitions-plot]').dataset.zoomsShown === '${n}'`);
  const shown = () => page.evaluate(`({ range: ${gd}.layout.yaxis.range, edge: ${gd}.data.filter((t) => t.name === 'warm-up beyond the axis').length, highest: Math.max(...${gd}.data.flatMap((t) => t.y)) })`) as Promise<{ range: [number, number]; edge: number; highest: number }>;
  const whole = await shown();
  const area = (await plot.locator('.nsewdrag').first().boundingBox())!;
  await page.mouse.move(area.x + area.width * 0.02, area.y + area.height * 0.3);
  await page.mouse.down();
  await page.mouse.move(area.x + area.width * 0.7, area.y + area.height * 0.9, { steps: 5 });
  await page.mouse.up();
  await zooms(1);
  const zoomed = await shown();
  assert.ok(zoomed.range[0] > whole.range[0] && zoomed.range[1] < whole.range[1], `zoomed into ${JSON.stringify(whole.range)}: ${JSON.stringify(zoomed.range)}`);
  assert.equal(zoomed.edge, 0, 'no triangle at the edge');
  assert.ok(zoomed.highest > 44000, `the warm-ups' lines go to their values: ${zoomed.highest}`);
  assert.equal(await note.count(), 0, 'nothing said of warm-ups beyond an edge not shown');
  if (process.env.VARLAB_SHOTS) await plot.screenshot({ path: `${process.env.VARLAB_SHOTS}/repetitions-cold-zoomed.png` });
  // A double-click (near the top of the plot area, inside the window): the whole range, the triangles and the note again.
  const now = (await plot.locator('.nsewdrag').first().boundingBox())!;
  await page.mouse.dblclick(now.x + now.width / 2, now.y + 20);
  await zooms(2);
  await note.waitFor();
  assert.deepEqual(await shown(), whole);
  assert.match((await note.textContent())!.replace(/\u200b/g, ''), /△ 2 warm-ups beyond the axis, up to 44,500 ms: drawn at its top edge$/);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a file measured by another timer than the exact one: the Analysis view says which and why, as the report's Timer line", async () => {
  const { page, errors } = await open('profiled.json');
  const report = markdownReport(exportContext(profiled())).split('\n').filter((l) => l.startsWith('- Timer'));
  assert.equal(report.length, 1);
  assert.deepEqual(await page.getByTestId('analysis-timer-note').allInnerTexts(), [`⚠ ${report[0].slice(2)}`]);
  assert.match(report[0], /^- Timer: times from query profiling \(SHOW PROFILES\), not the exact timer: performance_schema is off; /);
  await page.close();
  // The exact timer: nothing to say.
  const exact = await open();
  assert.equal(await exact.page.getByTestId('analysis-timer-note').count(), 0);
  await exact.page.close();
  assert.deepEqual([...errors, ...exact.errors], []);
});

const docIn = (page: Page) => page.evaluate('window.varlabDoc()') as Promise<ExperimentDoc>;

test('the configurations table ranks no cell while one has too few restarts, sorts, and the analysis ran in the worker', async () => {
  const { page, errors } = await open();
  assert.equal(await page.getByTestId('analysis-status').textContent(), 'analysed');
  const a = analyze(tidyFromExperiment(experiment()), { warmup: 2 });
  // The single-restart cell cannot be ranked, so no cell is called the most stable: the table says why.
  assert.equal(await page.getByTestId('most-stable').count(), 0);
  assert.equal((await page.getByTestId('no-ranking').textContent())!, `No “most stable” cell: ${SINGLE} needs 2 more restarts (3 per cell).`);
  const stable = a.cells.filter((c) => c.spread_avg_pct !== null).sort((x, y) => x.spread_avg_pct! - y.spread_avg_pct!)[0];
  await page.getByTestId('sort-spread_avg_pct').click();
  const first = page.locator('[data-testid=configurations-table] tbody tr').first();
  assert.match((await first.textContent())!, new RegExp(`^${stable.cell}${stable.spread_avg_pct!.toFixed(2)}%`));
  // The cell with a single restart: its spread cannot be computed, and the page says why.
  const single = page.locator('[data-testid=configurations-table] tbody tr', { hasText: SINGLE });
  assert.match((await single.textContent())!, /n\/a/);
  assert.match((await page.getByTestId('section-configurations').textContent())!, /n\/a: no query has two restarts with executions/);
  assert.doesNotMatch((await page.getByTestId('analysis-view').textContent())!, /NaN/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a cell whose restarts fall 7 and 3 into two levels is flagged with its groups', async () => {
  const { page, errors } = await open();
  const flags = page.getByTestId('bimodal-flag');
  // With the warm-up of 2 the still-warming executions blur the second query; the first is flagged.
  assert.ok((await flags.count()) >= 1);
  for (const t of await flags.allTextContents()) assert.ok(t.startsWith(`${BIMODAL} / `), t);
  const text = (await flags.first().textContent())!;
  assert.match(text, new RegExp(`^${BIMODAL} / .*: 2 levels`));
  assert.match(text, /7 restarts around [\d.]+ \(restarts [\d, ]+\); 3 restarts around [\d.]+ \(restarts [\d, ]+\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the warm-up the data suggest is shown and written into the design with one click', async () => {
  const { page, errors } = await open();
  assert.match((await page.getByTestId('warmup-suggestion').textContent())!, /Every restart is steady after 6 executions.*The design drops 2: too few/);
  // On the per-restart plot of a cell with the adaptive hash index on, the suggestion is marked.
  await page.getByTestId('repetitions-cell').selectOption(BIMODAL);
  // A plot is drawn once it is scrolled near the window, as a reader comes to it.
  await page.getByTestId('plot-repetitions').scrollIntoViewIfNeeded();
  await page.locator('[data-testid=plot-repetitions] text', { hasText: 'suggested: 6' }).first().waitFor();
  await page.getByTestId('apply-warmup').click();
  const doc = await docIn(page);
  assert.equal(doc.design.workload.warmup, 6);
  assert.equal(doc.design.workload.repetitions, 24, 'the 18 measured repetitions are kept');
  // The analysis follows the design: 6 dropped now, and nothing more to apply.
  await page.getByTestId('apply-warmup').waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('analysis-warmup').inputValue(), '6');
  assert.deepEqual(errors, []);
  await page.close();
});

test("a query steady at once offers the design's one warm-up, not its own: the two warm-up lines agree", async () => {
  const { page, errors } = await open('steady-second.json');
  assert.match((await page.getByTestId('warmup-suggestion').textContent())!, /Every restart is steady after 6 executions.*The design drops 2: too few/);
  const second = experiment(true).design.workload.queries[1].name;
  await page.getByTestId('analysis-query').selectOption(second);
  const line = page.getByTestId('query-warmup');
  await line.getByText('every query: 6').waitFor();
  assert.match((await line.textContent())!, new RegExp(`Warm-up from the data for ${second}: 0 executions · every query: 6, the design's one warm-up is for all of them`));
  // Before, "Use warm-up 0" here, below "too few: set the design's warm-up to 6".
  assert.equal(await page.getByTestId('apply-query-warmup').textContent(), 'Set the design’s warm-up to 6');
  await page.getByTestId('apply-query-warmup').click();
  assert.equal((await docIn(page)).design.workload.warmup, 6);
  await page.getByTestId('apply-query-warmup').waitFor({ state: 'detached' });
  await page.getByTestId('apply-warmup').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  await page.close();
});

test('comparisons with a chosen baseline show intervals, and n/a with the reason where there are none', async () => {
  const { page, errors } = await open();
  await page.getByTestId('analysis-baseline').selectOption('aslr=off,ahi=on');
  await page.locator('[data-testid=section-comparisons] h3', { hasText: 'Comparisons with aslr=off,ahi=on' }).waitFor();
  const rows = page.locator('[data-testid=comparisons-table] tbody tr');
  assert.equal(await rows.count(), 6);
  const bimodal = (await rows.filter({ hasText: BIMODAL }).first().textContent())!;
  // The shared format of analyze, compare and the report: "+1.23 %", "[−0.50, +2.96] %", "p = 0.123".
  assert.match(bimodal, /[+−]\d+\.\d\d %\[[+−]?\d+\.\d\d, [+−]?\d+\.\d\d\] %p (=|<) 0\.\d{3}/);
  assert.match((await page.getByTestId('effect-convention').textContent())!, /Baseline: aslr=off,ahi=on\. effect = \(cell − baseline\) \/ baseline: positive = slower/);
  // The single-restart cell: the warning where the numbers are read.
  assert.match((await page.getByTestId('few-restarts').textContent())!, /some cells have only 1 restart: their intervals are wide; run at least 5 restarts per cell/);
  const single = (await rows.filter({ hasText: SINGLE }).first().textContent())!;
  assert.match(single, /n\/a/);
  assert.match((await page.getByTestId('section-comparisons').textContent())!, /n\/a: an interval needs two restarts in each cell \(this cell has 1, the baseline 10\)/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('results from two hosts: the baseline menu names the host in each cell, and every comparison has an interval', async () => {
  const { page, errors } = await open('hosts.json');
  const base = `aslr=off,ahi=on,host=${HOSTS[0]}`;
  const offered = await page.getByTestId('analysis-baseline').locator('option').allTextContents();
  assert.equal(offered.length, 8, offered.join(' | '));
  assert.ok(offered.every((o) => o.includes(',host=ssh://db')), offered.join(' | '));
  await page.getByTestId('analysis-baseline').selectOption(base);
  await page.locator('[data-testid=section-comparisons] h3', { hasText: `Comparisons with ${base}` }).waitFor();
  const section = (await page.getByTestId('section-comparisons').textContent())!;
  assert.doesNotMatch(section, /the baseline has no executions/);
  // The same cell on the other host: 4% slower, an interval that says so.
  const other = (await page.locator('[data-testid=comparisons-table] tbody tr', { hasText: `aslr=off,ahi=on,host=${HOSTS[1]}` }).first().textContent())!;
  assert.match(other, /\+[34]\.\d\d %\[\+\d+\.\d\d, \+\d+\.\d\d\] %/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('the planner suggests restarts and repetitions for the target and writes them into the design', async () => {
  const { page, errors } = await open();
  await page.getByTestId('analysis-target').fill('5');
  const doc = experiment();
  const a = analyze(tidyFromExperiment(doc), { warmup: 2, targetEffectPct: 5 });
  const plan = suggestPlan(doc, a, 5);
  assert.ok(plan.restartsPerCell !== null && plan.restartsPerCell !== 10, `a plan that changes the design: ${plan.restartsPerCell}`);
  const suggestion = page.getByTestId('plan-suggestion');
  await suggestion.getByText(`${plan.restartsPerCell} restarts per cell`).waitFor();
  assert.match((await suggestion.textContent())!, new RegExp(`To see a 5% change in every query: ${plan.restartsPerCell} restarts per cell and ${plan.repetitions} repetitions per restart`));
  // Which comparison the restarts are for: the planner's words, as plan and the report say them.
  assert.match((await page.getByTestId('planning-pairing').textContent())!, /^Restarts needed are for (the comparison paired within rounds|an unpaired comparison \(Welch\))/);
  if (process.env.VARLAB_SHOTS) await page.getByTestId('planning').screenshot({ path: `${process.env.VARLAB_SHOTS}/planning.png` });
  await page.getByTestId('plot-mde').scrollIntoViewIfNeeded();
  await page.locator('[data-testid=plot-mde] .main-svg').first().waitFor();
  await page.getByTestId('apply-plan').click();
  const written = await docIn(page);
  assert.equal(written.design.restartsPerCell, plan.restartsPerCell);
  assert.equal(written.design.workload.repetitions, plan.repetitions);
  assert.deepEqual(errors, []);
  await page.close();
});

test('executions in order: whole-number repetition ticks, restarts named within their cell; the mean with its unit', async () => {
  const { page, errors } = await open();
  await page.getByTestId('repetitions-cell').selectOption(BIMODAL);
  const plot = page.getByTestId('plot-repetitions');
  await plot.scrollIntoViewIfNeeded();
  await plot.locator('.xtick text').first().waitFor();
  const ticks = await plot.locator('.xtick text').allTextContents();
  assert.ok(ticks.length >= 3, ticks.join(' '));
  for (const t of ticks) assert.match(t, /^\d+$/, `tick ${t}`);
  const legend = await plot.locator('.legendtext').allTextContents();
  assert.equal(legend[0], 'restart 1 of cell');
  assert.equal(legend.length, 10);
  assert.ok(legend.every((l, i) => l === `restart ${i + 1} of cell`), legend.join(', '));
  assert.match((await page.getByTestId('query-table').locator('thead').textContent())!, /mean \(ms\)/);
  // Between CoV beside σ between at 0 is explained under the table, not left to look like a contradiction.
  assert.match(await page.getByTestId('query-between-note').innerText(), /σ between is what is left once that part is taken out/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a target this workload cannot resolve: the planner says so and gives what a day of running resolves', async () => {
  const { page, errors } = await open();
  await page.getByTestId('analysis-target').fill('0.001');
  const warning = page.getByTestId('plan-out-of-reach');
  await warning.waitFor();
  assert.match((await warning.textContent())!, /A 0\.001% effect is out of reach on this host at the measured between-restart CoV of \d+\.\d\d% \(.*\)\. In a day of running \(\d+ restarts per cell\) the smallest detectable effect is about \d+\.\d\d%/);
  assert.deepEqual(await page.getByTestId('plan-reducers').locator('li').allTextContents(), ['ASLR off', 'preload (scan every table and index after each start)', 'NUMA binding (numactl)', 'a quieter host']);
  // No number of restarts to write into the design past the bound.
  assert.equal(await page.getByTestId('apply-plan').count(), 0);
  assert.deepEqual(errors, []);
  await page.close();
});

test('a target past the 1,000 restarts per cell the planner plans for, that a day of cheap restarts would resolve: said as such, not as out of reach and resolvable at once', async () => {
  // The walk's A/A run: restarts of 1.6 s, so a day holds 25,301 per cell and resolves 0.79 %, while 1 % needs
  // more than the 1,000 the planner plans for. "A 1% effect is out of reach … in a day … about 0.79%" read as a contradiction.
  const doc = cheapRestarts();
  const a = analyze(tidyFromExperiment(doc), { warmup: 2 });
  const dayMde = suggestPlan(doc, a, 0.0001).outOfReach!.mdePct!;
  // Between what a day resolves and what 1,000 restarts per cell resolve.
  let upper = dayMde;
  while (suggestPlan(doc, a, upper).outOfReach) upper *= 1.01;
  const target = Math.round(Math.sqrt(dayMde * upper) * 10000) / 10000;
  const plan = suggestPlan(doc, a, target);
  assert.ok(plan.outOfReach && plan.outOfReach.mdePct! <= target, `a ${target}% target is past the planner's bound and within a day's reach (day MDE ${dayMde})`);
  const { page, errors } = await open('cheap.json');
  await page.getByTestId('analysis-target').fill(String(target));
  const warning = page.getByTestId('plan-out-of-reach');
  await warning.filter({ hasText: `A ${target}% effect` }).waitFor();
  const text = (await warning.textContent())!;
  assert.doesNotMatch(text, /out of reach|set the target effect near that/);
  assert.match(text, new RegExp(`A ${target}% effect takes more than 1,000 restarts per cell on this host at the measured between-restart CoV of \\d+\\.\\d\\d% \\(.*\\), more than varlab plans for\\. A day of running \\(${plan.outOfReach!.restartsPerDay} restarts per cell\\) would resolve about \\d+\\.\\d\\d%: bringing the between-restart CoV down is the cheaper way\\.`));
  assert.match(await page.getByTestId('plan-suggestion').innerText(), /more than 1,000 restarts per cell/);
  assert.deepEqual(errors, []);
  await page.close();
});

test('every execution: thinned beyond 10,000; a zoom into fewer draws each one, a zoom within that needs no new figure, a double-click goes back', async () => {
  // 32 restarts × 400 executions of one query: 12,800 dots, more than are drawn at once.
  const doc = syntheticExperiment({ queries: 1, restartsPerCell: 2, reps: 400 });
  const values = doc.results!.restarts.flatMap((r) => r.queries[0].values).sort((a, b) => a - b);
  const big = await serveHarness(ENTRY, { 'doc.json': JSON.stringify(doc) });
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  try {
    await page.goto(big.url);
    const strip = page.getByTestId('query-strip');
    await page.getByTestId('query-plot-executions').check();
    await strip.filter({ hasText: 'Drawn: ' }).waitFor({ timeout: 60_000 });
    assert.match((await strip.textContent())!, /Drawn: [\d,]+ of 12,800 executions, one dot per pixel of a restart's row/);
    await strip.locator('.nsewdrag').first().scrollIntoViewIfNeeded();
    const state = () =>
      page.evaluate(`(() => {
        const gd = document.querySelector('[data-testid=query-strip] .js-plotly-plot');
        const dots = gd.data.filter((t) => t.name !== 'restart mean').reduce((n, t) => n + t.x.length, 0);
        return { drawn: Number(gd.dataset.drawn), zooms: Number(document.querySelector('[data-testid=query-strip]').dataset.zoomsShown), range: gd.layout.xaxis.range, dots };
      })()`) as Promise<{ drawn: number; zooms: number; range: [number, number]; dots: number }>;
    const pixelOf = (v: number) => page.evaluate(`(() => { const gd = document.querySelector('[data-testid=query-strip] .js-plotly-plot'); const xa = gd._fullLayout.xaxis; return gd.getBoundingClientRect().left + xa._offset + xa.l2p(${v}); })()`) as Promise<number>;
    const zoomTo = async (x0: number, x1: number, zooms: number) => {
      const box = (await strip.locator('.nsewdrag').first().boundingBox())!;
      await page.mouse.move(x0, box.y + 3);
      await page.mouse.down();
      await page.mouse.move(x1, box.y + box.height - 3, { steps: 5 });
      await page.mouse.up();
      await page.waitForFunction(`document.querySelector('[data-testid=query-strip]').dataset.zoomsShown === '${zooms}'`);
    };
    const first = await state();
    assert.ok(first.dots < 12_800, `${first.dots} drawn`);
    // One WebGL canvas shown (Plotly makes three; a changed canvas that is shown is read back whole on every frame it changes).
    const canvases = await page.evaluate(`[...document.querySelectorAll('[data-testid=query-strip] canvas.gl-canvas')].map((c) => c.className + ' ' + getComputedStyle(c).display)`);
    assert.deepEqual(canvases, ['gl-canvas gl-canvas-context block', 'gl-canvas gl-canvas-focus none', 'gl-canvas gl-canvas-pick none']);
    assert.equal(await strip.locator('.modebar-btn[data-attr="dragmode"][data-val="select"]').count(), 0, 'no box select');
    // Plotly's draws, counted (each ends with plotly_afterplot).
    const plotlyDraws = () => page.evaluate(`(() => { const gd = document.querySelector('[data-testid=query-strip] .js-plotly-plot'); if (gd.__draws === undefined) { gd.__draws = 0; gd.on('plotly_afterplot', () => gd.__draws++); } return gd.__draws; })()`) as Promise<number>;
    const drawsBefore = await plotlyDraws();
    // From the 6,001st fastest to the right edge, about 6,800 executions: the figure is made again with every one of them.
    const area = (await strip.locator('.nsewdrag').first().boundingBox())!;
    await zoomTo(await pixelOf(values[6000]), area.x + area.width - 2, 1);
    await page.waitForFunction(`Number(document.querySelector('[data-testid=query-strip] [data-drawn]').dataset.drawn) > ${first.drawn}`);
    await page.waitForTimeout(300);
    // Drawn once, as the new figure: Plotly did not first draw the thinned dots at the new range.
    assert.equal((await plotlyDraws()) - drawsBefore, 1, 'one draw for a zoom into thinned dots');
    const zoomed = await state();
    const inRange = (r: [number, number]) => values.filter((v) => v >= r[0] && v <= r[1]).length;
    assert.equal(zoomed.dots, inRange(zoomed.range), 'every execution in the range, and none outside it');
    assert.ok(zoomed.dots > 3000 && zoomed.dots <= 10_000, `${zoomed.dots} in range`);
    assert.doesNotMatch((await strip.textContent())!, /Drawn: /);
    // Within that range: what is drawn is already every execution in it, so the figure stays as it is.
    const [a, b] = zoomed.range;
    await zoomTo(await pixelOf(a + (b - a) / 4), await pixelOf(b - (b - a) / 4), 2);
    await page.waitForTimeout(500);
    const inner = await state();
    assert.equal(inner.drawn, zoomed.drawn, 'not drawn again');
    assert.equal((await plotlyDraws()) - drawsBefore, 2, 'Plotly drew the zoom within the range itself, once');
    assert.ok(inner.range[0] > a && inner.range[1] < b, `${inner.range} within ${zoomed.range}`);
    // A double-click: the whole range, thinned again.
    const box = (await strip.locator('.nsewdrag').first().boundingBox())!;
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(`document.querySelector('[data-testid=query-strip]').dataset.zoomsShown === '3'`);
    await strip.filter({ hasText: 'Drawn: ' }).waitFor();
    const whole = await state();
    assert.ok(whole.drawn > inner.drawn);
    // A pan of the thinned dots: the figure is made again for the range panned to, and drawn once.
    await strip.locator('.modebar-btn[data-attr="dragmode"][data-val="pan"]').click();
    const drawsBeforePan = await plotlyDraws();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 4, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(`document.querySelector('[data-testid=query-strip]').dataset.zoomsShown === '4'`);
    await page.waitForTimeout(300);
    const panned = await state();
    assert.ok(panned.range[0] > whole.range[0] && panned.range[1] > whole.range[1], `${panned.range} panned right of ${whole.range}`);
    assert.equal(panned.drawn, whole.drawn + 1, 'the figure made again');
    assert.equal((await plotlyDraws()) - drawsBeforePan, 1, 'one draw for a pan of thinned dots');
    // Back to the whole range from the mode bar: Autoscale (Reset axes, which went back to the range the figure was built for, is not offered).
    assert.equal(await strip.locator('.modebar-btn[data-attr="zoom"][data-val="reset"]').count(), 0, 'no Reset axes');
    await strip.locator('.modebar-btn[data-attr="zoom"][data-val="auto"]').click();
    await page.waitForFunction(`document.querySelector('[data-testid=query-strip]').dataset.zoomsShown === '5'`);
    assert.deepEqual((await state()).range, whole.range, 'the whole range again');
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await big.close();
  }
});

test('without WebGL (Chromium without a GPU, or WebGL turned off) every execution is drawn as SVG, not as an error', async () => {
  const doc = syntheticExperiment({ queries: 1, restartsPerCell: 2, reps: 400 });
  const big = await serveHarness(ENTRY, { 'doc.json': JSON.stringify(doc) });
  const noGl = await launchBrowser(['--disable-3d-apis']);
  try {
    const page = await noGl.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(big.url);
    assert.equal(await page.evaluate("document.createElement('canvas').getContext('webgl')"), null, 'this browser has no WebGL');
    const strip = page.getByTestId('query-strip');
    await page.getByTestId('query-plot-executions').check();
    await strip.filter({ hasText: 'Drawn: ' }).waitFor({ timeout: 60_000 });
    const drawn = await page.evaluate(`(() => {
      const gd = document.querySelector('[data-testid=query-strip] .js-plotly-plot');
      return { types: gd.data.map((t) => t.type), dots: gd.data.filter((t) => t.name === 'execution').reduce((n, t) => n + t.x.length, 0) };
    })()`) as { types: string[]; dots: number };
    assert.deepEqual(drawn.types, ['scatter', 'scatter', 'scatter']);
    assert.equal(await strip.locator('.scatterlayer .point').count(), drawn.dots + ((await page.evaluate(`document.querySelector('[data-testid=query-strip] .js-plotly-plot').data.filter((t) => t.name !== 'execution').reduce((n, t) => n + t.x.length, 0)`)) as number));
    assert.doesNotMatch((await strip.textContent())!, /WebGL/);
    assert.deepEqual(errors, []);
  } finally {
    await noGl.close();
    await big.close();
  }
});

test('a sysbench run: the steady state on its interval lines beside the runs\' steady state, per cell and per restart', async () => {
  const { page, errors } = await open('sysbench.json');
  const section = page.getByTestId('section-interval-steady');
  await section.waitFor();
  assert.equal(await page.getByTestId('interval-steady-heading').textContent(), 'Intervals (1 s each): steady state per restart, on the interval tps.');
  const cells = await page.locator('[data-testid=interval-steady-cells] li').allTextContents();
  const cell = finishedSysbench().results!.restarts[0].cell;
  assert.ok(cells.includes(`${cell}: 1 flat, 1 warm-up; steady after 8 intervals (8 s): skip them`), cells.join('\n'));
  const rows = page.locator('[data-testid=interval-steady-table] tbody tr');
  assert.equal(await rows.count(), 4);
  const first = await rows.first().locator('td').allTextContents();
  assert.deepEqual(first.slice(0, 5), ['1', cell, '60', 'warm-up', '8 s']);
  assert.match(first[5], /^(599|600)\.\d+$/);
  assert.match((await page.getByTestId('interval-steady-method').textContent())!, /after the 1 warm-up run, is what the comparisons use/);
  // Beside (after) the steady state of the runs.
  const order = await page.locator('[data-testid^=section-]').evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  assert.equal(order.indexOf('section-interval-steady'), order.indexOf('section-warmup') + 1, order.join(' '));
  if (process.env.VARLAB_SHOTS) {
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/analysis-intervals.png` });
  }
  // A query workload has no interval lines: no such section.
  const q = await open();
  assert.equal(await q.page.getByTestId('section-interval-steady').count(), 0);
  assert.deepEqual([...errors, ...q.errors], []);
  await page.close();
  await q.page.close();
});

test("where a restart's time goes: each step's median over the restarts that went through it, the setup in one", async () => {
  const { page, errors } = await open();
  const table = page.getByTestId('restart-steps');
  await table.waitFor();
  const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
  const n = experiment().results!.restarts.length;
  // stop is 900 + seq over seq 1..n: its median is 900 + (n + 1) / 2.
  assert.deepEqual(rows, [
    ['stop', `${Math.round(900 + (n + 1) / 2)} ms`, String(n)],
    ['idle', '2.0 s', String(n)],
    ['start', `${(Math.round(3100 + 10 * ((n + 1) / 2)) / 1000).toFixed(1)} s`, String(n)],
    ['verify', '40 ms', String(n)],
    ['setup', '5.2 s', '1'],
    ['connect', '5 ms', String(n)],
    ['timer', '3 ms', String(n)],
    ['measure', '800 ms', String(n)],
  ]);
  if (process.env.VARLAB_SHOT) await page.getByTestId('section-restart-steps').screenshot({ path: process.env.VARLAB_SHOT });
  assert.deepEqual(errors, []);
  await page.close();
});

test('at 1000 px the wide tables scroll sideways in their own box: no section is wider than the view', async () => {
  const { page, errors } = await open();
  await page.setViewportSize({ width: 1000, height: 900 });
  await page.getByTestId('comparisons-table').waitFor();
  await page.getByTestId('query-table').waitFor();
  // A section wider than its box made the whole view scroll sideways, its plots and text with it.
  const wide = (await page.evaluate(
    `[...document.querySelectorAll('[data-testid^="section-"]')].filter((s) => s.scrollWidth > s.clientWidth + 1).map((s) => s.getAttribute('data-testid') + ' ' + s.scrollWidth + ' > ' + s.clientWidth)`,
  )) as string[];
  assert.deepEqual(wide, []);
  assert.deepEqual(errors, []);
  await page.close();
});

test("a sysbench run's Analysis names its metric and its runs of the command, not queries and executions", async () => {
  const { page, errors } = await open('sysbench.json');
  const query = page.getByTestId('section-query');
  await query.waitFor();
  assert.equal(await query.locator('h3').textContent(), 'One metric: every run of the command per restart, beside the restart means');
  assert.match((await page.getByTestId('query-plot-mode').textContent())!, /every run of the command/);
  await page.getByTestId('query-strip').locator('.js-plotly-plot').waitFor();
  assert.match((await page.getByTestId('query-strip').textContent())!, /Runs of the command per restart and restart means: tps/);
  assert.match((await page.getByTestId('steady-method').textContent())!, /^Each restart of each metric is classified/);
  assert.match((await page.getByTestId('warmup-suggestion').textContent())!, /^No suggestion: fewer than 5 runs of the command per restart \(every cell\)\.$/);
  await page.getByTestId('comparisons').waitFor();
  assert.deepEqual((await page.locator('[data-testid=comparisons] th').allTextContents()).slice(0, 2), ['cell', 'metric']);
  if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/analysis-sysbench.png`, fullPage: true });
  assert.deepEqual(errors, []);
});

test('a DBT-3 file: the Analysis says the data set measured on, as the file keeps its data step', async () => {
  const { page, errors } = await open('dbt3.json');
  assert.deepEqual(await page.getByTestId('analysis-data-set').allTextContents(), ['Data: DBT-3 SF 0.01 in dbt3: 86,971 rows loaded in 41 s by LOAD DATA LOCAL INFILE; 22 queries gave their expected results; recognised by 1 later run']);
  if (process.env.SCREENSHOTS) await page.screenshot({ path: `${process.env.SCREENSHOTS}/analysis-dbt3.png` });
  // A file without a data step has no such line.
  const other = await open();
  assert.equal(await other.page.getByTestId('analysis-data-set').count(), 0);
  assert.deepEqual([...errors, ...other.errors], []);
});
