// The analysis of a full experiment: 16 cells × 22 queries × 10 restarts × 284 repetitions, about a
// million executions (issue 5: the goal is under a second on a 2-core machine, one copy of the data).
// Prints figures; asserts nothing.
import { analyze, TidyBuilder, type TidyData } from '../../src/common/stats/index.js';
import { seededRandom } from '../../src/common/plan.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A handle on the garbage collector without --expose-gc on the command line, so heap figures mean something. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const CELLS = 16;
const QUERIES = 22;
const RESTARTS = 10;
const REPS = 284;
const WARMUP = 10;

/** Synthetic timings with the shapes the analysis looks for: warm-up, restart levels, a bimodal cell. */
function synthetic(): TidyData {
  const random = seededRandom(2016);
  const b = new TidyBuilder();
  for (let c = 0; c < CELLS; c++) {
    const cell = `aslr=${c & 1 ? 'off' : 'on'},ahi=${c & 2 ? 'off' : 'on'},preload=${c & 4 ? 'on' : 'off'},numa=${c & 8 ? 'interleave' : 'default'}`;
    for (let q = 0; q < QUERIES; q++) {
      const base = 5 + q * 3;
      for (let r = 1; r <= RESTARTS; r++) {
        const level = c === 5 && r % 3 === 0 ? base * 1.08 : base * (1 + (random() - 0.5) * 0.03);
        for (let rep = 1; rep <= REPS; rep++) {
          const warm = rep <= 6 ? 1 + (7 - rep) * 0.05 : 1;
          b.add(cell, `Q${q + 1}`, String(r), rep, level * warm * (1 + (random() - 0.5) * 0.004));
        }
      }
    }
  }
  return b.build('ms');
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

export async function bench(): Promise<void> {
  let t = performance.now();
  const data = synthetic();
  const built = performance.now() - t;
  const executions = data.values.length;
  console.log(`data: ${CELLS} cells × ${QUERIES} queries × ${RESTARTS} restarts × ${REPS} repetitions = ${executions.toLocaleString('en-US')} executions`);
  console.log(`  built in ${built.toFixed(0)} ms; held as ${mb(data.values.byteLength + data.reps.byteLength)} of typed arrays`);

  const gc = collector();
  t = performance.now();
  analyze(data, { warmup: WARMUP, baseline: data.cells[0] });
  const cold = performance.now() - t;
  const times: number[] = [];
  let heapDelta = 0;
  let result;
  for (let i = 0; i < 3; i++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    t = performance.now();
    result = analyze(data, { warmup: WARMUP, baseline: data.cells[0] });
    times.push(performance.now() - t);
    // Everything allocated during the run, garbage included: an upper bound on the peak.
    heapDelta = Math.max(heapDelta, process.memoryUsage().heapUsed - before);
  }
  times.sort((a, b) => a - b);
  console.log(`analysis (warm-up ${WARMUP}, comparisons with one baseline adjusted by Holm, bimodal, steady state of every restart by change points):`);
  console.log(`  first run ${cold.toFixed(0)} ms; then best ${times[0].toFixed(0)} ms, median ${times[1].toFixed(0)} ms of 3 (goal: under 1000 ms)`);
  console.log(`  heap allocated during one analysis (garbage included): ${mb(heapDelta)}; the data itself is not copied`);
  console.log(`  ${result!.cells.length} cells, ${result!.comparisons.length} comparisons, ${result!.bimodal.length} bimodal series, warm-up suggestion ${result!.warmup.suggested}`);
  const classes = { flat: 0, warmup: 0, slowdown: 0, none: 0 };
  for (const c of result!.cells) for (const q of c.queries) for (const k of Object.keys(classes) as (keyof typeof classes)[]) classes[k] += q.steady[k];
  console.log(`  restarts classified: ${Object.entries(classes).map(([k, n]) => `${n} ${k}`).join(', ')}`);
}
