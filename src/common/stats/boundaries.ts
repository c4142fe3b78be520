// Group-sequential boundaries for a two-sided test of a normal statistic looked at K times
// (Jennison & Turnbull, "Group Sequential Methods with Applications to Clinical Trials", 2000, ch. 2,
// 7 and 19). Z_k is the standardized statistic at information fraction t_k; its score S_k = Z_k √t_k
// has independent normal increments, so the chance of crossing is computed look by look by numerical
// integration over the continuation region (Armitage, McPherson and Rowe 1969):
//   g_1(z) = φ(z − θ√t_1),
//   g_k(z) = ∫ g_{k−1}(u) · φ((z√t_k − u√t_{k−1} − θΔ_k) / √Δ_k) · √t_k / √Δ_k du,  Δ_k = t_k − t_{k−1},
// u over (−c_{k−1}, c_{k−1}). θ is the drift (the expected Z at t = 1); 0 under the null hypothesis.
import { dnorm, pnorm, pnormUpper, qnorm } from './normal.js';

/** Grid points per look (odd, for Simpson's rule): enough for 1e-6 in the crossing probabilities. */
const GRID = 401;
/** A boundary past this is no boundary: nothing below 1e-15 is spent. */
const CAP = 8;

interface Density {
  z: Float64Array;
  w: Float64Array;
}

/** Simpson's weights times the density on a grid over (−c, c). */
function grid(c: number, f: (z: number) => number): Density {
  const n = GRID;
  const h = (2 * c) / (n - 1);
  const z = new Float64Array(n);
  const w = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    z[i] = -c + i * h;
    const simpson = i === 0 || i === n - 1 ? 1 : i % 2 ? 4 : 2;
    w[i] = ((simpson * h) / 3) * f(z[i]);
  }
  return { z, w };
}

/** P(|Z_k| ≥ c at look k, having continued until then), from the continuation density of look k − 1. */
function exitAt(prev: Density | null, c: number, t: number, tPrev: number, theta: number): number {
  if (!prev) return pnormUpper(c - theta * Math.sqrt(t)) + pnorm(-c - theta * Math.sqrt(t));
  const d = t - tPrev;
  const sd = Math.sqrt(d);
  const st = Math.sqrt(t);
  const sp = Math.sqrt(tPrev);
  let p = 0;
  for (let i = 0; i < prev.z.length; i++) {
    // S_k given S_{k−1} = u√t_{k−1}: normal, mean u√t_{k−1} + θΔ, sd √Δ; Z_k = S_k / √t_k.
    const m = prev.z[i] * sp + theta * d;
    p += prev.w[i] * (pnormUpper((c * st - m) / sd) + pnorm((-c * st - m) / sd));
  }
  return p;
}

/** The continuation density of look k on (−c_k, c_k). */
function continueAt(prev: Density | null, c: number, t: number, tPrev: number, theta: number): Density {
  if (!prev) return grid(c, (z) => dnorm(z - theta * Math.sqrt(t)));
  const d = t - tPrev;
  const sd = Math.sqrt(d);
  const st = Math.sqrt(t);
  const sp = Math.sqrt(tPrev);
  return grid(c, (z) => {
    let s = 0;
    for (let i = 0; i < prev.z.length; i++) s += prev.w[i] * dnorm((z * st - prev.z[i] * sp - theta * d) / sd);
    return (s * st) / sd;
  });
}

/** P(|Z_k| ≥ c_k at some look) with these boundaries, at drift θ (0: the type I error). */
export function crossingProbability(bounds: readonly number[], fractions: readonly number[], theta = 0): number {
  let prev: Density | null = null;
  let total = 0;
  let tPrev = 0;
  for (let k = 0; k < bounds.length; k++) {
    const c = Math.min(bounds[k], CAP);
    total += exitAt(prev, c, fractions[k], tPrev, theta);
    prev = continueAt(prev, c, fractions[k], tPrev, theta);
    tPrev = fractions[k];
  }
  return total;
}

/**
 * The Lan–DeMets (1983) spending function of O'Brien–Fleming type for a two-sided test at total α,
 * as two one-sided tests at α/2: α(t) = 4 · (1 − Φ(z_{1−α/4} / √t)), α(1) = α.
 */
export function obfSpending(t: number, alpha: number): number {
  if (t <= 0) return 0;
  if (t >= 1) return alpha;
  return 4 * pnormUpper(qnorm(1 - alpha / 4) / Math.sqrt(t));
}

function solve(f: (c: number) => number, target: number): number {
  // f falls as c grows; bisection on [0, CAP].
  if (f(CAP) >= target) return CAP;
  let lo = 0;
  let hi = CAP;
  for (let i = 0; i < 60 && hi - lo > 1e-9; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) > target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Two-sided boundaries c_1 … c_K on |Z| at the given information fractions (increasing, the last may be
 * below 1 when the run ends early), each look spending α(t_k) − α(t_{k−1}) of the Lan–DeMets
 * O'Brien–Fleming-type function. Looks may be unequally spaced: that is what spending is for.
 */
export function spendingBoundaries(fractions: readonly number[], alpha: number): number[] {
  const out: number[] = [];
  let prev: Density | null = null;
  let tPrev = 0;
  let spent = 0;
  for (const t of fractions) {
    const target = obfSpending(t, alpha) - spent;
    const c = target <= 1e-15 ? CAP : solve((x) => exitAt(prev, x, t, tPrev, 0), target);
    out.push(c);
    spent += exitAt(prev, c, t, tPrev, 0);
    prev = continueAt(prev, c, t, tPrev, 0);
    tPrev = t;
  }
  return out;
}

/**
 * The original O'Brien–Fleming (1979) boundaries for K equally spaced looks: c_k = C · √(K / k), C such
 * that the chance of crossing under the null is α. Published for checking (Jennison & Turnbull, table
 * 2.3: C = 2.024 for K = 4, α = 0.05); the stopping rule spends α instead, so looks may be unequal.
 */
export function obrienFlemingBoundaries(K: number, alpha: number): number[] {
  const fractions = Array.from({ length: K }, (_, k) => (k + 1) / K);
  const at = (C: number) => fractions.map((_, k) => C * Math.sqrt(K / (k + 1)));
  const C = solve((x) => crossingProbability(at(x), fractions), alpha);
  return at(C);
}
