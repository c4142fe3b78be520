// The A/A test of issue 12: the same design run as ten "different" cells. Any difference found is a
// false alarm. At the seeds' variance components (within-restart CoV 0.1%, between-restart CoV 3–6%),
// 10 cells × 5 queries, 6 restarts per cell, compared with one baseline cell (45 comparisons per
// experiment), identical designs must be flagged in at most α of simulated experiments: the
// family-wise error rate that Holm's adjustment promises. Without the adjustment most experiments
// would flag something, which is what this test guards against. Seeded: the same draws every run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze, TidyBuilder } from '../../src/common/stats/index.js';
import { seededRandom } from '../../src/common/plan.js';

const CELLS = 10;
const QUERIES = 5;
const RESTARTS = 6;
const REPS = 5;
const EXPERIMENTS = 600;
const ALPHA = 0.05;

/** Standard normal draws by Box–Muller from the seeded uniform generator. */
function normal(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function aaExperiment(random: () => number) {
  const z = normal(random);
  const b = new TidyBuilder();
  // Identical designs: each query has one base time and one between-restart CoV (3–6%) for every cell.
  const queries = Array.from({ length: QUERIES }, (_, q) => ({ name: `Q${q + 1}`, base: 5 + 50 * random(), between: 0.03 + 0.03 * random() }));
  for (let c = 0; c < CELLS; c++) {
    for (const q of queries) {
      for (let r = 1; r <= RESTARTS; r++) {
        const level = q.base * (1 + q.between * z());
        for (let rep = 1; rep <= REPS; rep++) b.add(`cell${c}`, q.name, String(r), rep, level * (1 + 0.001 * z()));
      }
    }
  }
  return b.build('ms');
}

test(`A/A: ${EXPERIMENTS} simulated experiments of identical cells are flagged in at most α of them after Holm (and BH)`, () => {
  const random = seededRandom(12);
  let holm = 0;
  let bh = 0;
  let raw = 0;
  let comparisons = 0;
  for (let i = 0; i < EXPERIMENTS; i++) {
    const data = aaExperiment(random);
    const a = analyze(data, { baseline: 'cell0', alpha: ALPHA });
    comparisons += a.comparisons.length;
    if (a.comparisons.some((c) => c.verdict === 'differs')) holm++;
    if (a.comparisons.some((c) => c.p_value! <= ALPHA)) raw++;
    // BH on the same p-values: with every null true, its false discovery rate is the family-wise rate.
    const b = analyze(data, { baseline: 'cell0', alpha: ALPHA, adjustment: 'bh' });
    if (b.comparisons.some((c) => c.verdict === 'differs')) bh++;
  }
  assert.equal(comparisons, EXPERIMENTS * (CELLS - 1) * QUERIES);
  const rate = (k: number) => k / EXPERIMENTS;
  assert.ok(rate(holm) <= ALPHA, `Holm: ${holm} of ${EXPERIMENTS} A/A experiments flagged (${(100 * rate(holm)).toFixed(1)}%)`);
  assert.ok(rate(bh) <= ALPHA, `BH: ${bh} of ${EXPERIMENTS} A/A experiments flagged (${(100 * rate(bh)).toFixed(1)}%)`);
  // The test has teeth: unadjusted, most A/A experiments "find" a difference somewhere.
  assert.ok(rate(raw) > 0.5, `unadjusted: ${raw} of ${EXPERIMENTS} flagged`);
  // And it is not vacuous: Holm lets some false alarms through, as a test at level α must.
  assert.ok(holm > 0, 'a test at level α flags some A/A experiments');
});
