// The Analysis view's query plot at scale (src/common/figures/build.ts, screen and boxes options):
// WebGL dots thinned to one per pixel of a row beyond THIN_ABOVE, every execution of a zoomed range
// that holds few enough, and the restart-level overview (a box per restart) keeping each restart's
// lowest and highest execution and its quartiles.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportContext } from '../../src/common/export/context.js';
import { executionsFigure, THIN_ABOVE } from '../../src/common/figures/build.js';
import { syntheticExperiment } from '../../scripts/bench/lib/generate.js';

type Trace = { type: string; name: string; x: number[]; y: number[] };
const doc = syntheticExperiment({ queries: 1, restartsPerCell: 10, reps: 100 });
const ctx = exportContext(doc);
const query = ctx.queries[0];
const values = doc.results!.restarts.flatMap((r) => r.queries[0].values);
const dots = (f: { data: unknown[] }) => (f.data as Trace[]).filter((t) => t.type !== 'box' && t.name !== 'restart mean').flatMap((t) => t.x);

test('on screen: WebGL dots, thinned beyond THIN_ABOVE; a zoomed range with few executions drawn exactly', () => {
  assert.ok(values.length > THIN_ABOVE);
  const whole = executionsFigure(ctx, query, { screen: { pixels: 700 } });
  assert.ok((whole.data as Trace[]).filter((t) => t.name !== 'restart mean').every((t) => t.type === 'scattergl'));
  const drawn = dots(whole);
  assert.ok(drawn.length < values.length, `${drawn.length} of ${values.length}`);
  // One dot per pixel of a row: the lowest and highest executions are drawn to the pixel.
  const [lo, hi] = (whole.layout.xaxis as { range: [number, number] }).range;
  const pixel = (hi - lo) / 700;
  assert.ok(Math.min(...drawn) - Math.min(...values) <= pixel, 'the lowest execution, to the pixel');
  assert.ok(Math.max(...values) - Math.max(...drawn) <= pixel, 'the highest execution, to the pixel');
  // A narrow range around the median: every execution in it, and the axis on it.
  const sorted = [...values].sort((a, b) => a - b);
  const range: [number, number] = [sorted[5000], sorted[5000 + THIN_ABOVE - 10]];
  const zoomed = executionsFigure(ctx, query, { screen: { pixels: 700, range } });
  const inRange = values.filter((v) => v >= range[0] && v <= range[1]).sort((a, b) => a - b);
  assert.deepEqual(dots(zoomed).sort((a, b) => a - b), inRange, 'every execution in the range, and none outside it');
  assert.deepEqual((zoomed.layout.xaxis as { range: number[] }).range, range);
  // Whether a zoom inside the range needs a new figure: not when every execution in it is drawn.
  assert.equal(whole.exact, false, 'thinned');
  assert.equal(zoomed.exact, true, 'every execution in the range drawn');
  assert.equal(executionsFigure(ctx, query, { screen: { pixels: 700, range: [sorted[0], sorted[values.length - 1]] } }).exact, false);
});

test('on screen a zoom redraws only what moved: WebGL means, fixed margins, level labels, the lines between cells as grid', () => {
  const screen = executionsFigure(ctx, query, { screen: { pixels: 700 } });
  assert.deepEqual((screen.data as Trace[]).map((t) => t.type), ['scattergl', 'scattergl', 'scattergl'], 'means, executions, warm-up');
  const y = screen.layout.yaxis as { automargin: boolean; tickangle: number; minor: { tickvals: number[]; showgrid: boolean } };
  const x = screen.layout.xaxis as { automargin: boolean; tickangle: number };
  assert.deepEqual([x.automargin, y.automargin, x.tickangle, y.tickangle], [false, false, 0, 0]);
  assert.equal(y.minor.tickvals.length, ctx.cells.length - 1, 'a line between cells');
  assert.ok(y.minor.showgrid);
  assert.equal(screen.layout.shapes, undefined);
  // An image keeps Plotly's automatic margins and draws the lines as shapes (an SVG export holds them as lines).
  const image = executionsFigure(ctx, query, { image: true });
  assert.equal((image.layout.shapes as unknown[]).length, ctx.cells.length - 1);
  assert.equal((image.data as Trace[])[0].type, 'scatter');
  assert.equal(image.exact, undefined);
});

test('the restart-level overview: one box per restart, whiskers at its lowest and highest execution after the warm-up', () => {
  const f = executionsFigure(ctx, query, { boxes: true });
  const box = (f.data as (Trace & { q1: number[]; median: number[]; q3: number[]; lowerfence: number[]; upperfence: number[] })[]).find((t) => t.type === 'box')!;
  const ok = doc.results!.restarts.filter((r) => r.status === 'ok');
  assert.equal(box.y.length, ok.length, 'a box per restart');
  const lows = ok.map((r) => Math.min(...r.queries[0].values.slice(ctx.warmup)));
  const highs = ok.map((r) => Math.max(...r.queries[0].values.slice(ctx.warmup)));
  assert.deepEqual([...box.lowerfence].sort((a, b) => a - b), lows.sort((a, b) => a - b));
  assert.deepEqual([...box.upperfence].sort((a, b) => a - b), highs.sort((a, b) => a - b));
  assert.ok(box.q1.every((q, i) => q <= box.median[i] && box.median[i] <= box.q3[i]));
  assert.deepEqual((f.data as Trace[]).map((t) => t.type).sort(), ['box', 'scatter'], 'the boxes and the restart means, no dot per execution');
});
