// Restart means of a design run in rounds, simulated at given variance components: what the A/A test
// and `npm run bench -- sequential` run the stopping rule on. Seeded, so every run draws the same.
//   mean(cell, round) = μ · (1 + effect_cell) · (1 + ε_round + ε_restart + ε_within)
//   ε_round ~ N(0, ρ σ_b²)  shared by every cell of the round (the drift pairing removes),
//   ε_restart ~ N(0, (1 − ρ) σ_b²),  ε_within ~ N(0, σ_w² / reps)  (the mean of `reps` executions).
import { seededRandom } from '../plan.js';
import type { RoundSeries } from './sequential.js';

export interface Components {
  /** Between-restart CoV, as a fraction (0.05 for 5%). */
  between: number;
  /** Within-restart CoV of one execution, as a fraction. */
  within: number;
  /** Executions kept per restart. */
  reps: number;
  /** The share of the between-restart variance that a round's cells share (drift). */
  shared: number;
}

/** Standard normal draws (Box–Muller) from a seeded uniform generator. */
export function normalDraws(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** One simulated run: each cell's restart means over `rounds` rounds; effects in percent by cell (0 when absent). */
export function simulateRounds(cells: string[], rounds: number, c: Components, effectsPct: Record<string, number>, random: () => number, query = 'q'): RoundSeries[] {
  const z = normalDraws(random);
  const out = cells.map((cell) => ({ cell, query, means: [] as number[] }));
  const sdRound = c.between * Math.sqrt(c.shared);
  const sdRestart = c.between * Math.sqrt(1 - c.shared);
  const sdWithin = c.within / Math.sqrt(c.reps);
  for (let r = 0; r < rounds; r++) {
    const drift = sdRound * z();
    for (const s of out) s.means.push(10 * (1 + (effectsPct[s.cell] ?? 0) / 100) * (1 + drift + sdRestart * z() + sdWithin * z()));
  }
  return out;
}

export { seededRandom };
