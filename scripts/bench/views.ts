// The browser half of issue 15.5, in Chromium (Debian's, software WebGL through SwiftShader): the Run
// view's frame times while 100k executions stream in, and the Analysis view's first render, hover and
// zoom at 100k executions. Each view runs alone (test/e2e/harness.ts) as the app bundles it. Prints
// numbers; asserts nothing.
//
// Analysis view: the first render (the analysis in its worker, the sections down to the query's drawn),
// then hovers over the query's plot (each until its label is drawn) and box zooms (each into the middle
// third of the values shown and the rows in view), as a box per restart (the default) and as every
// execution. Timed in the page, from the input event's timestamp to the frame after the one that drew
// the change.
//
// Run view: 100,000 executions of one query arrive in batches of 1,000 every 100 ms (the engine's
// batch interval), folded by the view's LiveRun and redrawn once per animation frame as in the app. A
// frame time is the time between two animation frames while the executions stream in (what the user
// sees as smoothness: main thread, raster and compositing in software). Beside it: the same stream
// folded without redrawing (the floor on this machine at this load), and the main thread's long tasks.
import { loadavg, cpus } from 'node:os';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../../test/e2e/support.js';
import { appModule, serveHarness } from '../../test/e2e/harness.js';
import { shapeFor, syntheticExperiment } from './lib/generate.js';

const EXECUTIONS = Number(process.env.BENCH_VIEW_EXECUTIONS ?? 100_000);
/** A restart every 10,000 executions: one a second while streaming (a real restart, with mysqld restarted, takes longer). */
const PER_RESTART = 10_000;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};
const ms = (x: number) => `${x.toFixed(0).padStart(5)} ms`;

export const RUN_ENTRY = `import { createRoot } from 'react-dom/client';
import { setClient } from ${appModule('src/browser/client.ts')};
import { RunView } from ${appModule('src/browser/views/run/RunView.tsx')};
import { useRunSession } from ${appModule('src/browser/views/run/session.ts')};
import { LiveRun } from ${appModule('src/browser/views/run/live.ts')};
// No backend: the view is fed here, as session.ts feeds it from run.batch events.
setClient({ transport: 'websocket', call: async () => ({ ok: false, code: 'unsupported', message: 'harness' }), on: () => () => {} } as never);
const live = new LiveRun();
const CELLS = ['aslr=on,ahi=on', 'aslr=on,ahi=off', 'aslr=off,ahi=on', 'aslr=off,ahi=off'];
live.apply([{ type: 'run-started', at: 0, planned: 64, done: 0, cells: CELLS, queries: ['Q1'], warmup: 5 }]);
useRunSession.setState({ runId: 'bench', path: '/bench.varlab.json', live, frame: 0 });
createRoot(document.getElementById('root')!).render(<RunView />);
let pending = false;
function scheduleFrame() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; useRunSession.setState((s) => ({ frame: s.frame + 1 })); });
}
(window as any).stream = (total: number, perBatch: number, batchMs: number, perRestart: number, redraw: boolean) => new Promise((done) => {
  const frames: number[] = [];
  const tasks: number[] = [];
  const observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) tasks.push(e.duration); });
  observer.observe({ type: 'longtask' });
  let last = performance.now();
  let streaming = true;
  const tick = (t: number) => { frames.push(t - last); last = t; if (streaming) requestAnimationFrame(tick); };
  requestAnimationFrame((t) => { last = t; requestAnimationFrame(tick); });
  let sent = 0;
  let seq = 0;
  let x = 0;
  const batch = () => {
    const events: any[] = [];
    for (let i = 0; i < perBatch && sent < total; i++, sent++) {
      if (sent % perRestart === 0) {
        if (seq) events.push({ type: 'restart-finished', at: sent, seq, cell: CELLS[(seq - 1) % 4], status: 'ok' });
        seq++;
        events.push({ type: 'restart-started', at: sent, seq, cell: CELLS[(seq - 1) % 4] });
      }
      x = 0.9 * x + 0.1 * Math.random();
      const rep = (sent % perRestart) + 1;
      events.push({ type: 'execution', at: sent, seq, cell: CELLS[(seq - 1) % 4], query: 'Q1', rep, warmup: rep <= 5, value: 1 + 0.02 * ((seq * 7) % 5) + 0.05 * x + (Math.random() < 0.001 ? 0.5 : 0), unit: 'ms', source: 'performance_schema' });
    }
    live.apply(events);
    if (redraw) scheduleFrame();
    if (sent < total) setTimeout(batch, batchMs);
    else setTimeout(() => { streaming = false; observer.disconnect(); done({ frames, tasks, executions: live.executions }); }, 500);
  };
  batch();
});
`;

interface Streamed {
  frames: number[];
  tasks: number[];
  executions: number;
}

const stream = (page: Page, redraw: boolean) => page.evaluate(`window.stream(${EXECUTIONS}, 1000, 100, ${PER_RESTART}, ${redraw})`) as Promise<Streamed>;

function frameRow(what: string, r: Streamed): void {
  const f = r.frames;
  const busy = r.tasks.reduce((a, b) => a + b, 0);
  console.log(`    ${what.padEnd(34)} frame p50 ${ms(pct(f, 50))}  p95 ${ms(pct(f, 95))}  max ${ms(Math.max(...f))}  ${String(f.length).padStart(4)} frames;  main-thread tasks over 50 ms: ${r.tasks.length}, ${(busy / 1000).toFixed(1)} s in all`);
}

async function runView(page: Page): Promise<void> {
  console.log(`  Run view, ${EXECUTIONS.toLocaleString('en')} executions of one query streamed in (1,000 per 100 ms, ${PER_RESTART.toLocaleString('en')} per restart):`);
  // The floor: the same events folded by the view's LiveRun, the view not told to redraw.
  const floor = await stream(page, false);
  frameRow('floor (folded, not redrawn)', floor);
  await page.reload();
  await page.getByTestId('run-view').waitFor();
  const r = await stream(page, true);
  frameRow('Run view (redrawn every frame)', r);
  const note = await page.getByTestId('run-timeline-note').innerText().catch(() => '(no decimation note)');
  console.log(`    timeline at the end: ${note.split('—')[0].trim()}`);
}

export const ANALYSIS_ENTRY = `import { createRoot } from 'react-dom/client';
import { AnalysisView } from ${appModule('src/browser/views/analysis/AnalysisView.tsx')};
import { useApp } from ${appModule('src/browser/store/index.ts')};
const doc = await (await fetch('doc.json')).json();
useApp.getState().load({ doc, path: null, notices: [] } as never);
function Root() { const d = useApp((s) => s.doc); return d ? <AnalysisView doc={d} /> : null; }
(window as any).t0 = performance.now();
createRoot(document.getElementById('root')!).render(<Root />);
`;

const frame = (page: Page) => page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');

/**
 * The part of a plot's drawing area in the window, in page pixels, after scrolling the plot's top into
 * view: the query plot is taller than the window (a row per restart), and a pointer outside the window
 * reaches nothing (the first version of this benchmark hovered there, and timed frames with no hover).
 */
async function inView(page: Page, plot: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const scrolled = await page.evaluate(`(() => { const el = document.querySelector(${JSON.stringify(`${plot} .nsewdrag`)}); const y = scrollY; el.scrollIntoView({ block: 'start' }); return scrollY !== y; })()`);
  // What scrolled into view is rastered (in software here) before a reader points at it.
  if (scrolled) await page.waitForTimeout(500);
  await frame(page);
  const box = (await page.locator(`${plot} .nsewdrag`).first().boundingBox())!;
  const view = page.viewportSize()!;
  const top = Math.max(0, box.y);
  return { x: box.x, y: top, width: box.width, height: Math.min(view.height, box.y + box.height) - top };
}

/** The window positions of the plot's restart means (one per row) that are in view: each has a hover label of its own. */
const meanPositions = (page: Page, plot: string) =>
  page.evaluate(`(() => {
    const gd = document.querySelector(${JSON.stringify(`${plot} .js-plotly-plot`)});
    const fl = gd._fullLayout;
    const rect = gd.getBoundingClientRect();
    const means = gd.data.find((t) => t.name === 'restart mean');
    return means.x.map((x, i) => [rect.left + fl.xaxis._offset + fl.xaxis.l2p(x), rect.top + fl.yaxis._offset + fl.yaxis.l2p(means.y[i])])
      .filter(([x, y]) => y > 0 && y < innerHeight && x > 0 && x < innerWidth);
  })()`) as Promise<[number, number][]>;

const hoverText = (page: Page, plot: string) => page.evaluate(`document.querySelector(${JSON.stringify(`${plot} .hoverlayer`)})?.textContent ?? ''`) as Promise<string>;

/**
 * Times the next interaction in the page, as a reader sees it: from the input event's own timestamp
 * (the pointer moved, the button released) to the start of the frame after the one that drew the
 * change (`changed`, a page expression, checked at each frame). The harness's round trips through the
 * DevTools protocol are not in it. `latency` resolves to the time, or to null after `timeout` ms.
 */
const arm = (page: Page, input: 'pointermove' | 'pointerup', changed: string, timeout: number) =>
  page.evaluate(`(() => {
    window.__latency = new Promise((resolve) => {
      let at = null;
      const onInput = (e) => {
        at = e.timeStamp;
        removeEventListener(${JSON.stringify(input)}, onInput, true);
      };
      addEventListener(${JSON.stringify(input)}, onInput, true);
      const until = performance.now() + ${timeout};
      const check = () => {
        if (at !== null && (${changed})) requestAnimationFrame(() => resolve(performance.now() - at));
        else if (performance.now() > until) resolve(null);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
  })()`);
const latency = (page: Page) => page.evaluate('window.__latency') as Promise<number | null>;

/**
 * Hover over 20 restart means in view, each in another row: from the pointer's move to the frame after
 * the one that drew its new label. A hover that shows no new label within a second is counted as
 * missed, not timed.
 */
export async function hovers(page: Page, plot: string): Promise<{ times: number[]; missed: number }> {
  await inView(page, plot);
  const targets = await meanPositions(page, plot);
  const times: number[] = [];
  let missed = 0;
  for (let i = 0; i < 20 && targets.length; i++) {
    const [x, y] = targets[(i * 7) % targets.length];
    const before = await hoverText(page, plot);
    await arm(page, 'pointermove', `(document.querySelector(${JSON.stringify(`${plot} .hoverlayer`)})?.textContent ?? '') !== ${JSON.stringify(before)}`, 1000);
    await page.mouse.move(x, y);
    const t = await latency(page);
    if (t === null) missed++;
    else times.push(t);
    // Plotly draws at most one hover per 50 ms: the next move comes later, as a reader's would.
    await page.waitForTimeout(60);
  }
  await page.mouse.move(0, 0);
  return { times, missed };
}

const drawnCount = (page: Page, plot: string) => page.locator(`${plot} [data-drawn]`).first().getAttribute('data-drawn');
/** Until the plot (Plot.tsx counts its draws in data-drawn) has been drawn again since `before`. */
const redrawnSince = (page: Page, plot: string, before: string | null) =>
  page.waitForFunction(`document.querySelector(${JSON.stringify(`${plot} [data-drawn]`)})?.getAttribute('data-drawn') !== ${JSON.stringify(before)}`, undefined, { polling: 'raf', timeout: 120_000 });

/** Box-zoom 6 times, each into the middle third of the values shown and the rows in view, as a reader narrows down: from the button released to the frame after the one that drew the zoom in its final form. */
export async function zooms(page: Page, plot: string): Promise<number[]> {
  const out: number[] = [];
  // The query strip counts the zooms it has on screen in their final form (QueryPanel.tsx): when
  // every execution in the new range was drawn already, that is Plotly's own redraw; when dots were
  // thinned, the figure is rebuilt for the range and drawn again.
  const shown = () => page.locator(plot).first().getAttribute('data-zooms-shown');
  for (let i = 0; i < 6; i++) {
    // Within what is in view, as a reader drags: the middle third of the values, the rows shown.
    const box = await inView(page, plot);
    const x0 = box.x + box.width / 3;
    const y0 = box.y + box.height * 0.05;
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    await page.mouse.move(x0 + box.width / 3, y0 + box.height * 0.9, { steps: 4 });
    const before = await shown();
    await arm(page, 'pointerup', `document.querySelector(${JSON.stringify(plot)})?.getAttribute('data-zooms-shown') !== ${JSON.stringify(before)}`, 120_000);
    await page.mouse.up();
    const t = await latency(page);
    if (t === null) throw new Error('a zoom was not drawn within 2 minutes');
    out.push(t);
  }
  return out;
}

const missedNote = (n: number) => (n ? ` (${n} of 20 showed no new label)` : '');

async function analysisView(browserPage: () => Promise<Page>, queries: number): Promise<void> {
  const doc = syntheticExperiment(shapeFor(EXECUTIONS, queries));
  const total = doc.results!.restarts.reduce((n, r) => n + r.queries.reduce((m, q) => m + q.values.length, 0), 0);
  const perQuery = Math.round(total / queries);
  const h = await serveHarness(ANALYSIS_ENTRY, { 'doc.json': JSON.stringify(doc) });
  try {
    const page = await browserPage();
    await page.goto(h.url);
    const strip = '[data-testid=query-strip]';
    // First render: from the view mounted with the document to the analysis shown and the query's plot drawn.
    const first = (await (
      await page.waitForFunction(`document.querySelector('[data-testid=analysis-status]')?.textContent === 'analysed' && document.querySelector(${JSON.stringify(`${strip} .main-svg`)}) && performance.now() - window.t0`, undefined, { polling: 'raf', timeout: 300_000 })
    ).jsonValue()) as number;
    console.log(`  Analysis view, ${total.toLocaleString('en')} executions (${queries} quer${queries === 1 ? 'y' : 'ies'}, ${perQuery.toLocaleString('en')} in the query plot):`);
    console.log(`    first render ${ms(first)}`);
    const boxHover = await hovers(page, strip);
    const boxZoom = await zooms(page, strip);
    if (process.env.BENCH_SCREENSHOTS) await page.locator(strip).screenshot({ path: `${process.env.BENCH_SCREENSHOTS}/analysis-${queries}-boxes-zoomed.png` });
    console.log(`    a box per restart (the default):  hover p50 ${ms(pct(boxHover.times, 50))}  p95 ${ms(pct(boxHover.times, 95))}${missedNote(boxHover.missed)};  zoom p50 ${ms(pct(boxZoom, 50))}  p95 ${ms(pct(boxZoom, 95))}`);
    const before = await drawnCount(page, strip);
    const t = performance.now();
    await page.getByTestId('query-plot-executions').check();
    await redrawnSince(page, strip, before);
    await frame(page);
    const toDots = performance.now() - t;
    const dotHover = await hovers(page, strip);
    const dotZoom = await zooms(page, strip);
    if (process.env.BENCH_SCREENSHOTS) await page.locator(strip).screenshot({ path: `${process.env.BENCH_SCREENSHOTS}/analysis-${queries}-dots-zoomed.png` });
    console.log(`    every execution (WebGL, thinned): drawn in ${ms(toDots)};  hover p50 ${ms(pct(dotHover.times, 50))}  p95 ${ms(pct(dotHover.times, 95))}${missedNote(dotHover.missed)};  zoom p50 ${ms(pct(dotZoom, 50))}  p95 ${ms(pct(dotZoom, 95))}`);
    if (process.env.BENCH_SCREENSHOTS) await page.screenshot({ path: `${process.env.BENCH_SCREENSHOTS}/analysis-${queries}.png`, fullPage: true });
    await page.close();
  } finally {
    await h.close();
  }
}

/**
 * Chromium as it runs on a machine without a GPU: pages composited in software, WebGL through
 * SwiftShader. The tests' flags (--use-angle=swiftshader) also composite every frame through
 * SwiftShader's emulated GL, which no user's Chromium does (without a GPU it composites in software):
 * on this machine that swap took 60-80 ms of every frame, a floor under every interaction timed here.
 * BENCH_GL_COMPOSITING=1 times it the tests' way.
 */
const COMPOSITING = process.env.BENCH_GL_COMPOSITING ? [] : ['--disable-gpu-compositing'];

export async function bench(): Promise<void> {
  console.log(
    `Chromium ${process.env.CHROMIUM_PATH || '/usr/bin/chromium'}, ${COMPOSITING.length ? 'composited in software (as without a GPU)' : 'composited through SwiftShader GL (the tests\' flags)'}, WebGL through SwiftShader; ${cpus().length} cores; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
  );
  const browser = await launchBrowser(COMPOSITING);
  try {
    const run = await serveHarness(RUN_ENTRY);
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(run.url);
      await page.getByTestId('run-view').waitFor();
      await runView(page);
      if (process.env.BENCH_SCREENSHOTS) await page.screenshot({ path: `${process.env.BENCH_SCREENSHOTS}/run-view.png`, fullPage: true });
      await page.close();
    } finally {
      await run.close();
    }
    const newPage = () => browser.newPage({ viewport: { width: 1400, height: 1000 } });
    // The seeds' shape (22 queries), and every execution in one query's plot.
    await analysisView(newPage, 22);
    await analysisView(newPage, 1);
  } finally {
    await browser.close();
  }
  console.log(`  load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
}
