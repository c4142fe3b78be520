// Stop when answered (issue 21): restarts to a verdict with the group-sequential rule, relative to the
// fixed design of the same α and power, by simulation at the seeds' variance components (within-restart
// CoV 0.1%, between-restart 3–6%) and at a noisier machine's (15–30%), for true effects 0, 1× and 2× the
// fixed design's MDE. Two cells (A and B, one comparison), run in rounds; a quarter of the
// between-restart variance is drift shared by the round (the issue's "at least a quarter"), which
// pairing removes and the fixed design's Welch comparison does not. Prints figures; asserts nothing.
import { replaySequential } from '../../src/common/stats/sequential.js';
import { seededRandom, simulateRounds } from '../../src/common/stats/simulate.js';
import { tq } from '../../src/common/stats/tdist.js';

const ALPHA = 0.05;
const POWER = 0.8;
/** The fixed design: restarts per cell, as the planner would ask for a target near the MDE. */
const FIXED = 20;
const RUNS = 2000;
const SHARED = 0.25;
/**
 * The sequential design's maximum: the same budget as the fixed design, and the maximum that gives the
 * same power at the MDE (pairing removes SHARED of the variance; O'Brien–Fleming spending and the
 * futility stop cost about 10% more: ⌈20 · 0.75 · 1.1⌉ = 17, power 0.80 in this simulation).
 */
const MAXIMA = [FIXED, Math.ceil(FIXED * (1 - SHARED) * 1.1)];

/** The fixed design's MDE at this between-restart CoV (mde.ts's formula, two cells of n restarts). */
function fixedMde(between: number, n: number): number {
  const nu = 2 * (n - 1);
  return 100 * Math.expm1((tq(1 - ALPHA / 2, nu) + tq(POWER, nu)) * between * Math.sqrt(2 / n));
}

const quantile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))];
};

export async function bench(): Promise<void> {
  console.log(`${RUNS} simulated runs per row; fixed design ${FIXED} restarts per cell (Welch), α ${ALPHA}, power ${POWER};`);
  console.log(`sequential: paired within rounds, target effect E = the fixed design's MDE; round drift ${SHARED * 100}% of the between-restart variance`);
  for (const maxRounds of MAXIMA) {
  console.log(`\nat most ${maxRounds} rounds (${maxRounds === FIXED ? 'the fixed design\'s budget' : 'the same power as the fixed design'})`);
  console.log('machine     between  MDE      true effect  restarts/fixed mean  p90   differs  equivalent  inconclusive');
  for (const [machine, betweens] of [
    ['seeds', [0.03, 0.06]],
    ['noisier', [0.15, 0.3]],
  ] as const) {
    for (const between of betweens) {
      const mde = fixedMde(between, FIXED);
      for (const k of [0, 1, 2]) {
        const random = seededRandom(21 + k + Math.round(between * 1000));
        const ratios: number[] = [];
        const count = { differs: 0, equivalent: 0, inconclusive: 0 };
        for (let i = 0; i < RUNS; i++) {
          const s = simulateRounds(['A', 'B'], maxRounds, { between, within: 0.001, reps: 10, shared: SHARED }, { B: k * mde }, random);
          const r = replaySequential(s, 'A', { effectPct: mde, alpha: ALPHA, power: POWER, maxRounds });
          ratios.push((r.stopped_round ?? maxRounds) / FIXED);
          count[r.comparisons[0].verdict]++;
        }
        const mean = ratios.reduce((a, b) => a + b, 0) / RUNS;
        const rate = (n: number) => (n / RUNS).toFixed(3).padStart(7);
        console.log(
          `${machine.padEnd(11)} ${(between * 100).toFixed(0).padStart(5)}%  ${mde.toFixed(2).padStart(6)}%  ${`${k}× MDE`.padStart(11)}  ${mean.toFixed(2).padStart(19)}  ${quantile(ratios, 0.9).toFixed(2).padStart(4)}  ${rate(count.differs)}  ${rate(count.equivalent).padStart(10)}  ${rate(count.inconclusive).padStart(12)}`,
        );
      }
    }
  }
  }
  console.log('Goals: restarts/fixed ≤ 0.6 at 0 and 1× MDE, ≤ 0.4 at 2×; "differs" at 0 (false positives) ≤ α.');
}
