// The Run view's timeline of a file whose every restart began with a cold first execution 300 times
// slower than the others (the walk's 35 ms beside 0.07 ms): the y axis is ranged on the measured
// executions, each warm-up beyond it a triangle at its top edge, the note under the plot says how many;
// a double-click shows the full range, warm-ups and all, and another goes back; a zoom of the run order
// counts the warm-ups of the executions it shows. Before, the axis ran to 46,700 ms and every measured
// execution lay in one line along the bottom. And while a run is followed: a restart's cold first
// execution arrives before any measured one, and the axis is ranged on the measured ones once they come.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { coldFirstExecutions } from '../fixtures/export-experiment.js';
import { appForTests, launchBrowser, openFile, pageProblems, waitInPage } from './support.js';
import { appModule, serveHarness } from './harness.js';

const ctx = appForTests();

const GD = `document.querySelector('[data-testid=run-timeline]')`;

/** What the timeline shows: its y axis, the executions drawn where they are (highest), the triangles at the edge, and the note under it. */
async function shown(page: Page) {
  const plot = (await page.evaluate(`({ y: ${GD}.layout.yaxis.range, x: ${GD}.layout.xaxis.range, highest: Math.max(...${GD}.data[0].y), edge: (${GD}.data.find((t) => t.name === 'warm-up beyond the axis') ?? { x: [], text: [] }) })`)) as {
    y: [number, number];
    x: [number, number];
    highest: number;
    edge: { x: number[]; text: string[] };
  };
  const note = page.getByTestId('run-timeline-offscale');
  return { ...plot, note: (await note.count()) ? await note.innerText() : null };
}

test('a cold first execution in every restart: the timeline is ranged on the measured executions, says how many are beyond, and a double-click shows them', async () => {
  const file = join(ctx.app.dir, 'cold.varlab.json');
  writeFileSync(file, JSON.stringify(coldFirstExecutions(), null, 2));
  const page = await ctx.open();
  await openFile(page, file);
  await page.getByTestId('nav-run').click();
  await page.getByTestId('run-finished-count').filter({ hasText: 'Finished: 32 of 32 restarts' }).waitFor();
  const timeline = page.getByTestId('run-timeline');
  await timeline.scrollIntoViewIfNeeded();
  await waitInPage(page, `${GD}?.layout?.yaxis?.range?.[1] < 1000`, 'the y axis ranged on the measured executions');

  // Q1's 96 executions, 3 a restart, the first of each a warm-up of 35,000–44,500 ms beside measured ones of 116–124.
  const clipped = await shown(page);
  assert.ok(clipped.y[0] > 110 && clipped.y[1] < 130, `the axis holds the measured 116–124 ms, not the warm-ups' 44,500: ${JSON.stringify(clipped.y)}`);
  assert.ok(clipped.highest < 125, `no execution drawn beyond the measured ones: ${clipped.highest}`);
  assert.equal(clipped.note, '△ 32 warm-ups beyond the axis, up to 44,500 ms: drawn at its top edge; double-click for the full range.');
  assert.equal(clipped.edge.x.length, 32, 'a triangle for each warm-up');
  assert.deepEqual(clipped.edge.x.slice(0, 3), [1, 4, 7], 'at the first execution of each restart');
  assert.match(clipped.edge.text[0], /^execution 1 of Q1 pricing summary<br>4\d{4}(\.\d+)? ms<br>restart 1 · .+<br>warm-up, beyond the axis$/);
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/timeline-cold.png` });

  // A double-click (near the top of the plot area, inside the window): the full range, the warm-ups where they are.
  const area = async () => (await timeline.locator('.nsewdrag').first().boundingBox())!;
  let a = await area();
  await page.mouse.dblclick(a.x + a.width / 2, a.y + 20);
  await waitInPage(page, `${GD}.layout.yaxis.range[1] > 44500`, 'the full range after a double-click');
  // The note follows once Plotly has drawn.
  await page.getByTestId('run-timeline-offscale').filter({ hasText: 'The full range' }).waitFor();
  const full = await shown(page);
  assert.ok(full.highest > 44000, `the warm-ups drawn at their values: ${full.highest}`);
  assert.equal(full.edge.x.length, 0);
  assert.equal(full.note, 'The full range, warm-ups and all; double-click to range the axis on the measured executions again.');
  if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/timeline-cold-full.png` });

  // Another: back to the measured executions' axis.
  a = await area();
  await page.mouse.dblclick(a.x + a.width / 2, a.y + 20);
  await waitInPage(page, `${GD}.layout.yaxis.range[1] < 1000`, 'the axis of the measured executions again');
  await page.getByTestId('run-timeline-offscale').filter({ hasText: '32 warm-ups' }).waitFor();
  assert.deepEqual(await shown(page), clipped);

  // A zoom along the run order: the axis of the measured executions in it, and the note counts the warm-ups among the executions shown.
  a = await area();
  await page.mouse.move(a.x + a.width * 0.3, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(a.x + a.width * 0.6, a.y + a.height / 2 + 2, { steps: 5 });
  await page.mouse.up();
  await waitInPage(page, `${GD}.layout.xaxis.range[0] > 10`, 'the zoomed run order');
  const zoomed = await shown(page);
  const inView = Array.from({ length: 32 }, (_, k) => 3 * k + 1).filter((e) => e >= zoomed.x[0] && e <= zoomed.x[1]).length;
  assert.ok(inView > 0 && inView < 32, `${inView} warm-ups in ${JSON.stringify(zoomed.x)}`);
  const note = page.getByTestId('run-timeline-offscale').filter({ hasText: `△ ${inView} warm-ups beyond the axis` });
  await note.waitFor();
  assert.match(await note.innerText(), /^△ \d+ warm-ups beyond the axis, up to 4\d,\d00 ms: drawn at its top edge; double-click for the full range\.$/);
  assert.ok(zoomed.y[1] < 130, JSON.stringify(zoomed.y));
  assert.deepEqual(pageProblems(page), []);
  await page.close();
});

/** The Run view alone, fed as session.ts feeds it: restarts of 10 executions of Q1, the first (the warm-up) 300 times the others; window.feed(k) sends k more. */
const LIVE = `import { createRoot } from 'react-dom/client';
import { setClient } from ${appModule('src/browser/client.ts')};
import { RunView } from ${appModule('src/browser/views/run/RunView.tsx')};
import { useRunSession } from ${appModule('src/browser/views/run/session.ts')};
import { LiveRun } from ${appModule('src/browser/views/run/live.ts')};
setClient({ transport: 'websocket', call: async () => ({ ok: false, code: 'unsupported', message: 'harness' }), on: () => () => {} } as never);
const live = new LiveRun();
live.apply([{ type: 'run-started', at: 0, planned: 20, done: 0, cells: ['a'], queries: ['Q1'], warmup: 1 }]);
useRunSession.setState({ runId: 'test', path: '/test.varlab.json', live, frame: 0 });
createRoot(document.getElementById('root')!).render(<RunView />);
let sent = 0;
let seq = 0;
(window as any).feed = (k: number) => {
  const events: any[] = [];
  for (let i = 0; i < k; i++, sent++) {
    if (sent % 10 === 0) {
      if (seq) events.push({ type: 'restart-finished', at: sent, seq, cell: 'a', status: 'ok' });
      seq++;
      events.push({ type: 'restart-started', at: sent, seq, cell: 'a' });
    }
    const rep = (sent % 10) + 1;
    events.push({ type: 'execution', at: sent, seq, cell: 'a', query: 'Q1', rep, warmup: rep === 1, value: rep === 1 ? 300 : 1 + 0.01 * (sent % 7), unit: 'ms', source: 'performance_schema' });
  }
  live.apply(events);
  useRunSession.setState((s) => ({ frame: s.frame + 1 }));
};
`;

test("a followed run: the first restart's cold execution arrives alone, then the axis is ranged on the measured ones as they come, and each new restart's cold one is at the edge", async () => {
  const harness = await serveHarness(LIVE);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(harness.url);
    await page.waitForFunction('typeof window.feed === "function"');
    await page.evaluate('window.feed(1)');
    await page.getByTestId('run-timeline').waitFor();
    await waitInPage(page, `${GD}?.layout?.yaxis?.range?.[1] > 300`, 'the cold execution, alone, on the axis');
    assert.equal(await page.getByTestId('run-timeline-offscale').count(), 0, 'nothing measured yet: nothing beyond the axis');
    // The measured executions arrive (painted on the canvas, or drawn): the axis is theirs, the cold one at its edge.
    await page.evaluate('window.feed(4)');
    await waitInPage(page, `${GD}.layout.yaxis.range[1] < 2`, 'the axis ranged on the measured executions');
    await page.getByTestId('run-timeline-offscale').filter({ hasText: '△ 1 warm-up beyond the axis, up to 300 ms: drawn at its top edge' }).waitFor();
    // Two more restarts, each beginning cold: still the measured executions' axis, every warm-up counted.
    await page.evaluate('window.feed(25)');
    await page.getByTestId('run-timeline-offscale').filter({ hasText: '△ 3 warm-ups beyond the axis' }).waitFor();
    const y = (await page.evaluate(`${GD}.layout.yaxis.range`)) as [number, number];
    assert.ok(y[0] > 0.5 && y[1] < 2, `headroom around the measured 1.00–1.06 ms, the warm-ups' 300 beyond: ${JSON.stringify(y)}`);
    if (process.env.VARLAB_SHOTS) await page.screenshot({ path: `${process.env.VARLAB_SHOTS}/timeline-cold-live.png` });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await harness.close();
  }
});
