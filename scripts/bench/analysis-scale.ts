// How the analysis and the exports grow with restarts and cells (issue 13: bimodality and the grouping
// of reasons were quadratic; 20,000 restarts in one cell took 52 s). Each size is about twice the last:
// near-linear code takes about twice as long, quadratic code four times. Prints figures; asserts nothing.
import { analyze, TidyBuilder } from '../../src/common/stats/index.js';
import { exportContext, markdownReport, summaryCsv } from '../../src/common/export/index.js';
import { expandCells, seededRandom } from '../../src/common/plan.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readFileSync } from 'node:fs';

const ms = (t0: number) => `${(performance.now() - t0).toFixed(0)} ms`;

function oneCell(restarts: number): string {
  const random = seededRandom(1);
  const b = new TidyBuilder();
  for (let r = 1; r <= restarts; r++) for (let rep = 1; rep <= 10; rep++) b.add('aslr=on', 'Q1', String(r), rep, (r % 3 ? 302 : 330) * (1 + (random() - 0.5) * 0.01));
  const data = b.build('ms');
  const t0 = performance.now();
  analyze(data, { warmup: 2 });
  return ms(t0);
}

/** Three server-variable factors of `levels` levels, 2 restarts per cell, 2 queries of 5 executions. */
function manyCells(levels: number): { cells: number; analysis: string; summary: string; markdown: string } {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.factors = [0, 1, 2].map((i) => ({ tunable: 'variable', name: `var_${i}`, levels: Array.from({ length: levels }, (_, j) => String(j)) }));
  doc.design.excludedCells = [];
  doc.design.workload.queries = doc.design.workload.queries.slice(0, 2);
  const random = seededRandom(3);
  const cells = expandCells(doc.design);
  let seq = 0;
  doc.results = { restarts: [] };
  for (let r = 0; r < 2; r++)
    for (const c of cells)
      doc.results.restarts.push({ seq: ++seq, cell: c.id, status: 'ok', startedAt: 1, finishedAt: 2, checks: [], queries: doc.design.workload.queries.map((q) => ({ query: q.name, unit: 'ms', source: 'client' as const, values: Array.from({ length: 5 }, () => 1 + random()) })) });
  let t0 = performance.now();
  const ctx = exportContext(doc, { warmup: 1 });
  const analysis = ms(t0);
  t0 = performance.now();
  summaryCsv(ctx);
  const summary = ms(t0);
  t0 = performance.now();
  markdownReport(ctx);
  return { cells: cells.length, analysis, summary, markdown: ms(t0) };
}

export async function bench(): Promise<void> {
  console.log('one cell, 10 executions per restart: analysis (bimodality, warm-up, reasons)');
  for (const n of [5_000, 10_000, 20_000]) console.log(`  ${n.toLocaleString('en-US')} restarts: ${oneCell(n)}`);
  console.log('many cells, 2 restarts of 2 queries each: tidy data + analysis, summary.csv, Markdown report');
  for (const levels of [10, 13, 16]) {
    const r = manyCells(levels);
    console.log(`  ${r.cells.toLocaleString('en-US')} cells: analysis ${r.analysis}, summary.csv ${r.summary}, report ${r.markdown}`);
  }
}
