// What a reader of the plots, tables and reports sees: the problems a new user reported (integer
// repetition ticks, restarts named within their cell, units, workload order, warnings, one number format).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportContext, markdownReport } from '../../src/common/export/index.js';
import { repetitionsFigure, repetitionDtick } from '../../src/common/figures/build.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

test('executions in order: integer repetition ticks, restarts named as restarts of the cell, plan number in the hover', () => {
  const doc = finishedQuickstart();
  const ctx = exportContext(doc);
  const cell = ctx.cells[0];
  const query = ctx.queries[0];
  const fig = repetitionsFigure(ctx, query, cell, 1, null);
  const x = fig.layout.xaxis as Record<string, unknown>;
  assert.equal(x.tickmode, 'linear');
  assert.equal(x.tick0, 1);
  assert.equal(x.dtick, 1, '3 repetitions: a tick on every repetition');
  assert.ok(Number.isInteger(x.dtick as number));
  assert.deepEqual(fig.data.map((d) => d.name), ['restart 1 of cell', 'restart 2 of cell']);
  const seqs = ctx.restarts.filter((r) => r.cell === cell).map((r) => r.seq);
  assert.ok(seqs[1] > 2, 'the second restart of the cell is not the second of the plan');
  assert.match(String(fig.data[1].hovertemplate), new RegExp(`restart 2 of this cell \\(restart #${seqs[1]} of the plan\\)`));
  assert.doesNotMatch(JSON.stringify(fig.data.map((d) => d.name)), new RegExp(`restart ${seqs[1]}\\b`));
  for (const n of [3, 20, 284, 1000]) {
    const d = repetitionDtick(n);
    assert.ok(Number.isInteger(d) && d >= 1 && n / d <= 12, `${n} repetitions: dtick ${d}`);
  }
});

test('the Markdown report: effects in the shared format with their sign convention, the few-restarts warning, CoV with 2 decimals, the probe\'s governor wording, the workload order', () => {
  const doc = finishedQuickstart();
  doc.results!.host!.governor = null;
  const ctx = exportContext(doc, { targetEffectPct: 0.1 });
  const md = markdownReport(ctx);
  assert.match(md, /Sign: effect = \(cell − baseline\) \/ baseline: positive = slower/);
  assert.match(md, /> \*\*Note:\*\* only 2 restarts per cell: intervals are wide; run at least 5 restarts per cell before trusting a comparison\./);
  assert.match(md, /\| Q1 pricing summary \| [−+]\d+\.\d\d % \| \[[−+]\d+\.\d\d, [−+]\d+\.\d\d\] % \| p (=|<) 0\.\d{3} \|/);
  assert.match(md, /\| CPU governor \| no cpufreq \(not exposed by this host\) \|/);
  assert.doesNotMatch(md, /governor \| unknown/);
  assert.match(md, /a 0\.1% effect is below what this workload can resolve/);
  const configRow = md.split('\n').find((l) => l.includes('★ most stable'))!;
  for (const cov of configRow.split('|').slice(-4, -2)) assert.match(cov.trim(), /^\d+\.\d\d$/, 'CoV with 2 decimals');
  const mde = md.slice(md.indexOf('## Minimum detectable effect'));
  const order = [...mde.matchAll(/^\| (Q\d+)/gm)].map((m) => m[1]);
  assert.deepEqual(order, ['Q1', 'Q3', 'Q6', 'Q12', 'Q14']);
});

test('exported plots: restart rows labelled with their cell, the MDE pooled over cells with curves told apart, the baseline and sign named', async () => {
  const { executionsFigure, mdeFigure, comparisonsFigure } = await import('../../src/common/figures/build.js');
  const ctx = exportContext(finishedQuickstart());
  const ex = executionsFigure(ctx, ctx.queries[0]);
  const y = ex.layout.yaxis as { tickvals: number[]; ticktext: string[] };
  assert.equal(y.ticktext.length, ctx.cells.length * 2, 'one labelled row per restart');
  assert.deepEqual(y.ticktext.slice(0, 2), [`${ctx.cells[0]} · r1`, `${ctx.cells[0]} · r2`]);
  assert.equal((ex.layout.shapes as unknown[]).length, ctx.cells.length - 1, 'a line between cells');
  // Every execution dot sits on a labelled row.
  const dots = ex.data.find((d) => d.name === 'execution') as { y: number[] };
  assert.ok(dots.y.every((v) => y.tickvals.includes(v)));

  const mde = mdeFigure(ctx);
  assert.match((mde.layout.title as { text: string }).text, /pooled over all cells/);
  const curves = mde.data.filter((d) => ctx.queries.includes(d.name as string));
  assert.deepEqual(curves.map((c) => (c.name as string).split(' ')[0]), ['Q1', 'Q3', 'Q6', 'Q12', 'Q14'], 'legend in the workload order');
  assert.equal(new Set(curves.map((c) => JSON.stringify([(c.line as { dash: string }).dash, (c.marker as { symbol: string }).symbol]))).size, curves.length, 'each curve has its own dash and marker');

  const cmp = comparisonsFigure(ctx)!;
  const title = (cmp.layout.title as { text: string }).text;
  assert.ok(title.includes(`baseline: ${ctx.baseline}`), title);
  assert.match(title, /effect = \(cell − baseline\) \/ baseline: positive = slower/);
  assert.match(title, /only 2 restarts per cell/);
});
