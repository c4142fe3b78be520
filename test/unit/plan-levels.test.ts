// A cell id is a label; the levels travel as a map. A CPU list with a comma (`cpubind=0,2`) must come
// out whole in the plan, the CSV level columns, the Markdown report and the CoV-by-level figure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc, RestartResult } from '../../src/common/experiment/types.js';
import { buildPlan } from '../../src/common/plan.js';
import { executionsCsv, exportContext, markdownReport, restartsCsv, summaryCsv } from '../../src/common/export/index.js';
import { buildFigures } from '../../src/common/figures/index.js';
import { finishedQuickstart } from '../fixtures/export-experiment.js';

function cpuListExperiment(): ExperimentDoc {
  const doc = finishedQuickstart();
  doc.design.factors = [
    { tunable: 'aslr', levels: ['on', 'off'] },
    { tunable: 'cpubind', levels: ['none', '0,2'] },
  ];
  doc.design.excludedCells = [];
  doc.design.restartsPerCell = 3;
  const plan = buildPlan(doc.design);
  doc.results!.restarts = plan.map((p, i): RestartResult => ({
    seq: p.seq,
    cell: p.cell,
    status: 'ok',
    startedAt: 1000 * i,
    finishedAt: 1000 * i + 500,
    checks: [],
    // Restart means that differ, so every cell has a between-restart CoV.
    queries: [{ query: 'q', unit: 'ms', source: 'client', values: [10, 10 + p.restartOfCell, 10 + p.restartOfCell] }],
  }));
  doc.design.workload.queries = [{ name: 'q', sql: 'SELECT 1' }];
  return doc;
}

test('the plan carries each restart\'s levels as a map, whole CPU lists included', () => {
  const plan = buildPlan(cpuListExperiment().design);
  const bound = plan.filter((p) => p.levels.cpubind === '0,2');
  assert.equal(bound.length, 6);
  assert.ok(bound.every((p) => p.cell.endsWith('cpubind=0,2')), 'the id is still the readable label');
  assert.deepEqual(plan.find((p) => p.cell === 'aslr=off,cpubind=0,2')!.levels, { aslr: 'off', cpubind: '0,2' });
});

test('CSV level columns, the report and the CoV-by-level figure read `0,2` from the levels, not the id', () => {
  const ctx = exportContext(cpuListExperiment());
  for (const csv of [executionsCsv(ctx), restartsCsv(ctx), summaryCsv(ctx)]) {
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    assert.deepEqual([...new Set(rows.map((r) => r.cpubind))].sort(), ['0,2', 'none']);
    for (const r of rows.filter((x) => x.cell)) assert.equal(r.cpubind, r.cell.endsWith('cpubind=0,2') ? '0,2' : 'none');
  }
  const report = markdownReport(ctx);
  assert.match(report, /\| aslr=on,cpubind=0,2 +\| on +\| 0,2 +\|/);
  const cov = buildFigures(ctx).find((f) => f.id === 'cov-levels')!;
  const bars = cov.data.find((d) => d.name === 'cpubind') as { x: string[]; y: (number | null)[] };
  assert.deepEqual(bars.x, ['cpubind=none', 'cpubind=0,2']);
  assert.ok(bars.y.every((v) => typeof v === 'number' && v > 0), `both levels have a CoV: ${JSON.stringify(bars.y)}`);
});
