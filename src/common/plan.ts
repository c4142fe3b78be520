// From a design to a run plan: the full factorial expansion into cells, the order in which
// restarts run, and how long it will take.
import type { Design, Factor, OrderKind, RestartStep } from './experiment/types.js';

export interface Cell {
  /**
   * `aslr=off,ahi=on,…`: stable, readable, and the key results are filed under. Only a label: it is
   * never parsed back (a CPU list such as `0,2` holds a comma); the levels travel as `levels`.
   */
  id: string;
  /** factor key → level */
  levels: Record<string, string>;
  excluded: boolean;
}

export interface ScheduledRestart {
  /** Position in the plan, from 1. */
  seq: number;
  /** The cell's id: a label. */
  cell: string;
  /** factor key → level: what the restart applies, shows and exports. */
  levels: Record<string, string>;
  /** Which restart of its cell this is, from 1. */
  restartOfCell: number;
  /** The round (one pass over the included cells), from 1. */
  round: number;
  queries: string[];
}

/** The key a factor is known by in cell ids: the tunable, or the variable's name. */
export function factorKey(f: Factor): string {
  return f.tunable === 'variable' && f.name ? f.name : f.tunable;
}

export function cellId(levels: Record<string, string>, factors: Factor[]): string {
  return factors.map((f) => `${factorKey(f)}=${levels[factorKey(f)]}`).join(',');
}

/**
 * The block factor of a design run on several hosts (issue 14): its levels are the targets. It is
 * never in a saved design; the analysis and the exports add it when the results come from several
 * hosts, so the host appears like any factor: in cell ids (`aslr=off,host=ssh://db2`) and CSV columns.
 */
export const HOST_FACTOR = 'host';

/** A restart's cell with its host when the run had several (each host ran the same cells). */
export function hostCell(cell: string, host: string | undefined): string {
  if (host === undefined) return cell;
  return cell ? `${cell},${HOST_FACTOR}=${host}` : `${HOST_FACTOR}=${host}`;
}

/** The hosts the results came from, when they came from several (in the design's order of hosts); else none. */
export function resultHosts(design: Pick<Design, 'target' | 'targets'>, restarts: readonly { host?: string }[] | undefined): string[] {
  const seen = new Set<string>();
  for (const r of restarts ?? []) if (r.host !== undefined) seen.add(r.host);
  if (!seen.size) return [];
  const first = designHosts(design).filter((t) => seen.has(t));
  return [...first, ...[...seen].filter((h) => !first.includes(h))];
}

/** The hosts a design runs on: its `targets` when it names several, else its one `target`. */
export function designHosts(design: Pick<Design, 'target' | 'targets'>): string[] {
  return design.targets?.length ? design.targets : [design.target];
}

/**
 * The seed of one host's order: FNV-1a (32 bit) of `seed:host`. Each host of a several-host run has
 * its own randomised order, reproducible from the design's seed, whatever the order of the list.
 */
export function hostSeed(seed: number, host: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}:${host}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** The design as one host of a several-host run runs it: that target, its own seed, no list of hosts. */
export function hostDesign(design: Design, host: string): Design {
  const { targets: _all, ...one } = design;
  return { ...one, target: host, seed: hostSeed(design.seed, host) };
}

/** The design as analysed and exported: with the host as its last factor when there are hosts. */
export function withHostFactor<D extends Pick<Design, 'factors' | 'excludedCells'>>(design: D, hosts: string[]): D {
  if (!hosts.length) return design;
  const factors = [...design.factors, { tunable: HOST_FACTOR, levels: hosts }];
  const excluded = expandCells(design)
    .filter((c) => c.excluded)
    .flatMap((c) => hosts.map((h) => hostCell(c.id, h)));
  return { ...design, factors, excludedCells: excluded };
}

/** Each included and excluded cell's levels by its id: how a label becomes levels again, without parsing it. */
export function levelsByCell(design: Pick<Design, 'factors' | 'excludedCells'>): Map<string, Record<string, string>> {
  return new Map(expandCells(design).map((c) => [c.id, c.levels]));
}

/** Every combination of levels, first factor varying slowest. A design with no factors has one cell. */
export function expandCells(design: Pick<Design, 'factors' | 'excludedCells'>): Cell[] {
  let combos: Record<string, string>[] = [{}];
  for (const f of design.factors) {
    const key = factorKey(f);
    combos = combos.flatMap((c) => f.levels.map((l) => ({ ...c, [key]: l })));
  }
  const excluded = new Set(design.excludedCells);
  return combos.map((levels) => {
    const id = cellId(levels, design.factors);
    return { id, levels, excluded: excluded.has(id) };
  });
}

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same plan everywhere. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * The order restarts run in. Every order is built from rounds so cells share the same drift:
 * - interleaved: A B C, then B C A, then C A B … (rotating, so no cell always runs first);
 * - random: each round a fresh seeded permutation (a randomized complete block design);
 * - blocked: A A A B B B … (kept for comparison with old scripts; drift then looks like an effect).
 */
export function orderRestarts(cells: string[], restartsPerCell: number, order: OrderKind, seed: number): string[][] {
  if (order === 'blocked') {
    return cells.map((c) => Array.from({ length: restartsPerCell }, () => c));
  }
  const random = seededRandom(seed);
  const rounds: string[][] = [];
  for (let r = 0; r < restartsPerCell; r++) {
    if (order === 'interleaved') {
      rounds.push(cells.map((_, i) => cells[(i + r) % cells.length]));
    } else {
      rounds.push(shuffled(cells, random));
    }
  }
  return rounds;
}

export function buildPlan(design: Design, order: OrderKind = design.order): ScheduledRestart[] {
  const included = expandCells(design).filter((c) => !c.excluded);
  const levelsOf = new Map(included.map((c) => [c.id, c.levels]));
  const cells = included.map((c) => c.id);
  const queries = design.workload.kind === 'command' ? [design.workload.command?.metric ?? 'command'] : design.workload.queries.map((q) => q.name);
  const groups = orderRestarts(cells, design.restartsPerCell, order, design.seed);
  const seen = new Map<string, number>();
  const plan: ScheduledRestart[] = [];
  groups.forEach((group, g) => {
    for (const cell of group) {
      const n = (seen.get(cell) ?? 0) + 1;
      seen.set(cell, n);
      plan.push({
        seq: plan.length + 1,
        cell,
        levels: { ...levelsOf.get(cell)! },
        restartOfCell: n,
        // For blocked plans a "round" is the cell's own restart number.
        round: order === 'blocked' ? n : g + 1,
        queries,
      });
    }
  });
  return plan;
}

export interface PlanEstimate {
  restarts: number;
  executions: number;
  /** Seconds for the restarts, idle time included (what a run pays once is stats/planner.ts onceSeconds). */
  seconds: number;
  perRestartSeconds: number;
}

/**
 * Milliseconds per restart for a run's time left: the mean of the restarts it finished, each without
 * its one-off set-up, so the time left does not leap up after a data directory's first restart and
 * creep back down; before any, the design's estimate. The attached engine and a detached run's
 * follower say it alike.
 */
/** A restart a run finished: its wall time and where that went (the journal's steps). */
export interface FinishedRestart {
  ms: number;
  steps?: Partial<Record<RestartStep, number>>;
}

export function perRestartMs(finished: readonly FinishedRestart[], design: Design): number {
  if (!finished.length) return estimatePlan(design, 1).perRestartSeconds * 1000;
  return finished.reduce((n, f) => n + Math.max(0, f.ms - setUpMs(f.steps)), 0) / finished.length;
}

/**
 * What a restart paid once for its data directory: the set-up (setup script, data load) and the second
 * start after it, with its idle time and verify (the restart's steps hold both starts, summed), so
 * half of those. 0 for a restart that set up nothing.
 */
function setUpMs(steps: Partial<Record<RestartStep, number>> = {}): number {
  if (steps.setup === undefined) return 0;
  const starts = (steps.stop ?? 0) + (steps.idle ?? 0) + (steps.start ?? 0) + (steps.verify ?? 0);
  return steps.setup + starts / 2;
}

export function estimatePlan(design: Design, restarts = buildPlan(design).length): PlanEstimate {
  const perRestartExecutions = design.workload.repetitions * (design.workload.kind === 'command' ? 1 : design.workload.queries.length);
  const perRestartSeconds =
    design.estimates.restartSeconds + design.idleSeconds + (perRestartExecutions * design.estimates.executionMs) / 1000;
  return { restarts, executions: restarts * perRestartExecutions, seconds: restarts * perRestartSeconds, perRestartSeconds };
}

/**
 * A time that may be under a second (a sandbox restart's): `350 ms` below 1 s, where formatDuration
 * would say `0 s`; else as formatDuration.
 */
export function formatShortDuration(seconds: number): string {
  return seconds > 0 && seconds < 0.995 ? `${Math.max(1, Math.round(seconds * 1000))} ms` : formatDuration(seconds);
}

/** `1 h 05 min`, `4 min 10 s`, `12 s`. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${String(m % 60).padStart(2, '0')} min`;
}
