// One MDE: the Run view, the Analysis view's tables, the planning figure and the report show the same
// number for the same restarts and the same definition, because they all call minimumDetectableEffect().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LiveRun } from '../../src/browser/views/run/live.js';
import { exportContext, markdownReport } from '../../src/common/export/index.js';
import { mdeFigure } from '../../src/common/figures/build.js';
import { analyze, minimumDetectableEffect, suggestPlan, tidyFromExperiment } from '../../src/common/stats/index.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

test('the Run view, the Analysis tables, the planning figure and the report show one MDE (pooled over cells)', () => {
  const doc = finishedQuickstart(4);
  const warmup = doc.design.workload.warmup;
  const live = new LiveRun();
  live.apply([
    { type: 'run-started', at: 0, planned: doc.results!.restarts.length, done: 0, cells: [...new Set(doc.results!.restarts.map((r) => r.cell))], queries: doc.design.workload.queries.map((q) => q.name), warmup },
    { type: 'history', at: 0, warmup, restarts: doc.results!.restarts },
  ]);
  const a = analyze(tidyFromExperiment(doc), { warmup });
  const plan = suggestPlan(doc, a, 1);
  const figure = mdeFigure(exportContext(doc));
  const marks = figure.data.find((d) => String(d.name).startsWith('these results')) as { y: number[]; text: string[] };
  const md = markdownReport(exportContext(doc));
  for (const query of a.order) {
    const pooled = a.mde.find((m) => m.query === query)!.mde;
    assert.equal(pooled.definition, 'pooled');
    assert.equal(pooled.restarts, 4);
    assert.ok(pooled.pct! > 0, `${query}: ${pooled.pct}`);
    const runView = live.mde(query)!;
    assert.equal(runView.pct, pooled.pct, `${query}: Run view`);
    assert.equal(runView.definition, 'pooled');
    assert.equal(runView.restartsPerCell, 4);
    assert.equal(plan.queries.find((q) => q.query === query)!.mde.pct, pooled.pct, `${query}: planning table`);
    assert.equal(marks.y[marks.text.findIndex((t) => t.startsWith(`${query}:`))], pooled.pct, `${query}: figure`);
    const row = md.split('\n').find((l) => l.startsWith(`| ${query.replace(/\|/g, '\\|')} | `) && l.includes(pooled.pct!.toFixed(2)));
    assert.ok(row, `${query}: report`);
  }
  // Per cell is a different definition, labelled as such: one cell's spread, not the pooled one.
  const cell = a.cells.find((c) => c.cell.startsWith('aslr=off'))!;
  const q = cell.queries[0];
  const own = minimumDetectableEffect([a.restarts.find((r) => r.cell === cell.cell && r.query === q.query)!.means], { definition: 'per-cell', alpha: 0.05, power: 0.8 });
  assert.equal(q.mde_pct, own.pct);
  assert.ok(q.mde_pct! < a.mde.find((m) => m.query === q.query)!.mde.pct!, 'an ASLR-off cell is steadier than the pool');
});
