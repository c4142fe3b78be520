// The Run view's live timeline in a browser without WebGL (Chromium without a GPU, or WebGL turned off:
// here --disable-3d-apis): its WebGL scatter is drawn as SVG (plot/plotly.ts), executions that arrive
// are painted over it and become Plotly's when the pointer comes onto the plot, and nothing shows a
// WebGL error. The view runs alone (test/e2e/harness.ts), fed run events as session.ts feeds it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser } from './support.js';
import { appModule, serveHarness } from './harness.js';

/** 48 restarts of 10 executions of Q1; window.feed(k) sends the next k executions, window.finish() ends the run. */
const ENTRY = `import { createRoot } from 'react-dom/client';
import { setClient } from ${appModule('src/browser/client.ts')};
import { RunView } from ${appModule('src/browser/views/run/RunView.tsx')};
import { useRunSession } from ${appModule('src/browser/views/run/session.ts')};
import { LiveRun } from ${appModule('src/browser/views/run/live.ts')};
setClient({ transport: 'websocket', call: async () => ({ ok: false, code: 'unsupported', message: 'harness' }), on: () => () => {} } as never);
const CELLS = ['aslr=on', 'aslr=off'];
const PER_RESTART = 10;
const live = new LiveRun();
live.apply([{ type: 'run-started', at: 0, planned: 48, done: 0, cells: CELLS, queries: ['Q1'], warmup: 2 }]);
useRunSession.setState({ runId: 'test', path: '/test.varlab.json', live, frame: 0 });
createRoot(document.getElementById('root')!).render(<RunView />);
let sent = 0;
let seq = 0;
const cell = () => CELLS[(seq - 1) % CELLS.length];
const frame = () => useRunSession.setState((s) => ({ frame: s.frame + 1 }));
(window as any).feed = (k: number) => {
  const events: any[] = [];
  for (let i = 0; i < k; i++, sent++) {
    if (sent % PER_RESTART === 0) {
      if (seq) events.push({ type: 'restart-finished', at: sent, seq, cell: cell(), status: 'ok' });
      seq++;
      events.push({ type: 'restart-started', at: sent, seq, cell: cell() });
    }
    const rep = (sent % PER_RESTART) + 1;
    events.push({ type: 'execution', at: sent, seq, cell: cell(), query: 'Q1', rep, warmup: rep <= 2, value: 1 + 0.02 * (seq % 5) + 0.001 * (sent % 7), unit: 'ms', source: 'performance_schema' });
  }
  live.apply(events);
  frame();
};
(window as any).finish = () => {
  live.apply([{ type: 'restart-finished', at: sent, seq, cell: cell(), status: 'ok' }, { type: 'run-finished', at: sent, state: 'finished' }]);
  frame();
};
`;

/** What the timeline shows: Plotly's traces and SVG points, and the dots painted on the canvas over it. */
const SHOWN = `(() => {
  const gd = document.querySelector('[data-testid=run-timeline]');
  const canvas = gd.parentElement.querySelector(':scope > canvas');
  const px = canvas.width && canvas.height ? canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data : [];
  let painted = 0;
  for (let i = 3; i < px.length; i += 4) if (px[i] > 0) painted++;
  return { types: (gd.data ?? []).map((t) => t.type), x: (gd.data ?? []).flatMap((t) => t.x), points: gd.querySelectorAll('.scatterlayer .point').length, painted };
})()`;

interface Shown {
  types: string[];
  x: number[];
  points: number;
  painted: number;
}

test('without WebGL the live timeline draws its executions as SVG and keeps appending them, with no WebGL error', async () => {
  const harness = await serveHarness(ENTRY);
  const browser = await launchBrowser(['--disable-3d-apis']);
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || /WebGL/i.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    await page.goto(harness.url);
    assert.equal(await page.evaluate("document.createElement('canvas').getContext('webgl')"), null, 'this browser has no WebGL');
    const timeline = page.getByTestId('run-timeline');
    await timeline.waitFor();
    const shown = () => page.evaluate(SHOWN) as Promise<Shown>;
    /** Polls what the timeline shows, as waitInPage (support.ts) polls, returning it to assert on and to report. */
    const until = async (what: string, ok: (s: Shown) => boolean): Promise<Shown> => {
      const end = Date.now() + 15_000;
      for (;;) {
        const s = await shown();
        if (ok(s)) return s;
        if (Date.now() > end) assert.fail(`${what}: ${JSON.stringify({ ...s, x: s.x.length })}`);
        await page.waitForTimeout(100);
      }
    };

    // The first executions: Plotly draws them, as SVG points.
    await page.evaluate('window.feed(150)');
    let s = await until('150 executions drawn as SVG points', (v) => v.points === 150);
    assert.deepEqual(s.types, ['scatter'], 'the WebGL scatter is drawn as SVG scatter');
    assert.equal(Math.max(...s.x), 150);

    // More arrive: painted over the plot at once, then Plotly's when the pointer comes onto it (so hover reaches them).
    await page.evaluate('window.feed(100)');
    s = await until('the 100 new executions painted over the plot', (v) => v.painted > 0);
    assert.equal(s.points, 150, 'Plotly has not drawn afresh: the new executions are painted');
    await timeline.hover();
    s = await until('250 executions drawn as SVG points after the pointer came onto the plot', (v) => v.points === 250);
    assert.equal(Math.max(...s.x), 250);
    assert.equal(s.painted, 0, 'the canvas is cleared once Plotly draws them');

    // The run ends: every execution is Plotly's.
    await page.evaluate('window.feed(230); window.finish()');
    s = await until('480 executions drawn when the run has ended', (v) => v.points === 480);
    assert.deepEqual(s.types, ['scatter']);

    assert.doesNotMatch((await page.getByTestId('run-view').textContent())!, /WebGL/);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
    await harness.close();
  }
});
