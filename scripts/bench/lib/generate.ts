// Synthetic experiments for the benchmarks: a real design (the quickstart's 16 cells) with made-up
// timings that have the shapes the analysis looks for (warm-up, restart levels, one bimodal cell).
// Written as an experiment file or as a tidy CSV with quoted cell ids, streamed so that 10M rows
// never become one string.
import { createWriteStream, readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { ExperimentDoc, RestartResult } from '../../../src/common/experiment/types.js';
import { buildPlan, seededRandom } from '../../../src/common/plan.js';

export interface Shape {
  queries: number;
  restartsPerCell: number;
  reps: number;
}

/** The shape giving about `executions` executions over the quickstart's 16 cells and 10 restarts each. */
export function shapeFor(executions: number, queries = 22, restartsPerCell = 10): Shape {
  return { queries, restartsPerCell, reps: Math.max(2, Math.round(executions / (16 * restartsPerCell * queries))) };
}

function quickstart(): ExperimentDoc {
  return JSON.parse(readFileSync(new URL('../../../examples/quickstart.varlab.json', import.meta.url), 'utf8')) as ExperimentDoc;
}

/** One restart's values for one query. */
function timings(random: () => number, cellIndex: number, q: number, restartOfCell: number, reps: number): number[] {
  const base = 5 + q * 3;
  const level = cellIndex === 5 && restartOfCell % 3 === 0 ? base * 1.08 : base * (1 + (random() - 0.5) * 0.03);
  const out = new Array<number>(reps);
  for (let rep = 1; rep <= reps; rep++) {
    const warm = rep <= 6 ? 1 + (7 - rep) * 0.05 : 1;
    out[rep - 1] = Math.round(level * warm * (1 + (random() - 0.5) * 0.004) * 1e6) / 1e6;
  }
  return out;
}

/** A finished experiment of the given shape (design from the quickstart, results made up). */
export function syntheticExperiment(shape: Shape): ExperimentDoc {
  const doc = quickstart();
  const names = Array.from({ length: shape.queries }, (_, i) => `Q${i + 1}`);
  doc.name = `bench ${shape.queries} queries × ${shape.reps} repetitions`;
  doc.design.restartsPerCell = shape.restartsPerCell;
  doc.design.workload.repetitions = shape.reps;
  doc.design.workload.warmup = Math.min(5, shape.reps - 1);
  doc.design.workload.queries = names.map((name, i) => ({ name, sql: `SELECT ${i + 1}` }));
  const cells = [...new Set(buildPlan(doc.design).map((p) => p.cell))];
  const random = seededRandom(2016);
  const start = Date.UTC(2026, 0, 5, 9);
  const restarts: RestartResult[] = buildPlan(doc.design).map((p) => ({
    seq: p.seq,
    cell: p.cell,
    status: 'ok',
    startedAt: start + p.seq * 60_000,
    finishedAt: start + p.seq * 60_000 + 50_000,
    checks: [],
    queries: names.map((query, q) => ({ query, unit: 'ms', source: 'performance_schema' as const, values: timings(random, cells.indexOf(p.cell), q, p.restartOfCell, shape.reps) })),
  }));
  doc.results = { startedAt: start, finishedAt: start + restarts.length * 60_000, restarts };
  return doc;
}

/** A tidy CSV (`cell,restart,query,rep,value`) of the same shape; cell ids hold commas, so they are quoted. */
export async function writeTidyCsv(path: string, shape: Shape): Promise<number> {
  const doc = quickstart();
  doc.design.restartsPerCell = shape.restartsPerCell;
  const plan = buildPlan(doc.design);
  const cells = [...new Set(plan.map((p) => p.cell))];
  const random = seededRandom(2016);
  const out = createWriteStream(path);
  let rows = 0;
  let chunk = 'cell,restart,query,rep,value\n';
  for (const p of plan) {
    for (let q = 0; q < shape.queries; q++) {
      const values = timings(random, cells.indexOf(p.cell), q, p.restartOfCell, shape.reps);
      const prefix = `"${p.cell}",${p.seq},Q${q + 1},`;
      for (let i = 0; i < values.length; i++) chunk += `${prefix}${i + 1},${values[i]}\n`;
      rows += values.length;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return rows;
}
