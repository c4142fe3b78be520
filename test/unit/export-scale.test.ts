// Exports of big experiments: a per-execution image has a height cap and draws one dot per pixel of a
// row, says so in its caption, and keeps what matters exact (every restart's row and mean); the
// executions CSV comes in pieces and reads back row for row.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import { syntheticExperiment } from '../../scripts/bench/lib/generate.js';
import { exportContext, executionsCsv, executionsCsvPieces } from '../../src/common/export/index.js';
import { buildFigures, executionsFigure, EXECUTIONS_MAX_HEIGHT, THIN_ABOVE } from '../../src/common/figures/build.js';

type Trace = { name: string; x: number[]; y: number[] };
const big = syntheticExperiment({ queries: 2, restartsPerCell: 12, reps: 120 });
const ctx = exportContext(big);

test('an exported executions figure: height capped, one dot per pixel of a row, and the caption says how many were drawn', () => {
  const query = ctx.queries[0];
  const total = big.results!.restarts.reduce((n, r) => n + r.queries.find((q) => q.query === query)!.values.length, 0);
  assert.ok(total > THIN_ABOVE);
  const screen = executionsFigure(ctx, query);
  const image = executionsFigure(ctx, query, { image: true });
  const dots = (f: typeof screen) => (f.data as Trace[]).filter((t) => t.name !== 'restart mean').reduce((n, t) => n + t.x.length, 0);
  assert.equal(dots(screen), total, 'on screen every execution is a dot');
  assert.ok(screen.height > EXECUTIONS_MAX_HEIGHT, 'this many restarts would be taller than the cap');
  assert.equal(image.height, EXECUTIONS_MAX_HEIGHT);
  // On screen, dots or boxes, the same height as the image: a reader sees every restart without scrolling through it.
  assert.equal(executionsFigure(ctx, query, { screen: { pixels: 760 } }).height, EXECUTIONS_MAX_HEIGHT);
  assert.equal(executionsFigure(ctx, query, { boxes: true }).height, EXECUTIONS_MAX_HEIGHT);
  const drawn = dots(image);
  assert.ok(drawn < total / 3, `thinned: ${drawn} of ${total}`);
  const caption = ((image.layout.annotations as { text: string }[])[0]).text;
  assert.match(caption, new RegExp(`Drawn: ${drawn.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} executions, one dot per pixel of a restart's row`));
  assert.match(caption, new RegExp(`Image height capped at ${EXECUTIONS_MAX_HEIGHT.toLocaleString('en-US')} px\\.`));
  assert.doesNotMatch(((screen.layout.annotations as { text: string }[])[0]).text, /Drawn:|capped/);

  // Every restart keeps its row, its mean (the same as on screen) and at least one dot per kind.
  const means = (f: typeof screen) => {
    const t = (f.data as (Trace & { text: string[] })[]).find((t) => t.name === 'restart mean')!;
    return { x: t.x, y: t.y, text: t.text };
  };
  assert.deepEqual(means(image), means(screen));
  const rows = (f: typeof screen, name: string) => new Set((f.data as Trace[]).find((t) => t.name.startsWith(name))!.y);
  assert.deepEqual(rows(image, 'execution'), rows(screen, 'execution'));
  assert.deepEqual(rows(image, 'warm-up'), rows(screen, 'warm-up'));
  // The axis spans every execution, thinned or not.
  const xs = (f: typeof screen) => (f.data as Trace[]).flatMap((t) => t.x);
  const [lo, hi] = (image.layout.xaxis as { range: [number, number] }).range;
  assert.ok(lo < Math.min(...xs(screen)) && hi > Math.max(...xs(screen)));
  // No two dots of one kind share a pixel column in a row.
  const kept = (image.data as Trace[]).find((t) => t.name === 'execution')!;
  const px = (x: number) => Math.floor(((x - lo) / (hi - lo)) * 1000);
  const seen = new Set(kept.x.map((x, i) => `${kept.y[i]}:${px(x)}`));
  assert.ok(seen.size > kept.x.length * 0.5);

  // Small experiments are drawn whole, image or not.
  const small = exportContext(syntheticExperiment({ queries: 1, restartsPerCell: 2, reps: 10 }));
  assert.deepEqual(executionsFigure(small, small.queries[0], { image: true }).data, executionsFigure(small, small.queries[0]).data);
  assert.equal(buildFigures(ctx, { image: true }).length, buildFigures(ctx).length);
});

test('executions.csv in pieces: the pieces make the same file, a row per execution', () => {
  const pieces = [...executionsCsvPieces(ctx)];
  const text = executionsCsv(ctx);
  assert.equal(pieces.join(''), text);
  assert.ok(pieces.length > 1, 'more than one piece for a file over a megabyte');
  const rows = parse(text, { columns: true }) as Record<string, string>[];
  assert.equal(rows.length, big.results!.restarts.reduce((n, r) => n + r.queries.reduce((m, q) => m + q.values.length, 0), 0));
  const first = big.results!.restarts[0];
  assert.deepEqual(rows.filter((r) => r.restart === String(first.seq) && r.query === first.queries[0].query).map((r) => Number(r.value)), first.queries[0].values);
  assert.equal(rows[0].cell, first.cell);
});
