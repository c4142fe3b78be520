// The tidy data model the analysis works on: every execution as (cell, restart, query, rep, value),
// held once, column-wise. A million executions are one Float64Array of values and one Uint32Array of
// repetition numbers, grouped by series (one cell and query) and restart, never an object per execution.
import type { ExperimentDoc } from '../experiment/types.js';
import { factorKey, hostCell, levelsByCell, resultHosts, withHostFactor } from '../plan.js';
import { parseCount, parseDecimal } from '../csv/numbers.js';

/** One cell and query: its restarts, each a contiguous run of executions in rep order. */
export interface Series {
  cell: string;
  query: string;
  /** Restart labels (the restart's seq in an experiment file, the `restart` column of a CSV). */
  restarts: string[];
  /** Restart i's executions are values[offsets[i] .. offsets[i + 1]). Length restarts.length + 1. */
  offsets: Uint32Array;
  /**
   * The round of each restart (from 1), when the design ran in rounds (interleaved or random order,
   * every round holding each cell once): what pairs a cell's restart with the baseline's.
   */
  rounds?: number[];
}

export interface TidyData {
  /** Sorted, as every output lists them. */
  cells: string[];
  queries: string[];
  /** Sorted by cell, then query. */
  series: Series[];
  /** Every execution, grouped by series and restart, each restart in rep order. */
  values: Float64Array;
  /** The repetition number (from 1, warm-up included) of each value. */
  reps: Uint32Array;
  /** The unit of the values when known (`ms`, `tps`…). */
  unit?: string;
  /** The unit of each query's values, when known (an experiment's QueryTimings.unit, a CSV's --unit). */
  units?: Record<string, string>;
  /**
   * The queries in the order people expect them (the workload's order in an experiment, first
   * appearance in a CSV). `queries` stays sorted for machine output; tables, views and legends use this.
   */
  order?: string[];
  /** An experiment's factors in design order, with their levels (the host last, when it ran on several). */
  factors?: { key: string; levels: string[] }[];
  /** Each cell's levels by factor key (a cell id is a label, never parsed). */
  cellLevels?: Record<string, Record<string, string>>;
  /**
   * Whether the series carry rounds, and why (or why not): said beside every comparison. `blocks`: each
   * cell's host when the results come from several hosts, whose rounds are separate timelines (a round
   * pairs restarts of one host only).
   */
  rounds?: {
    known: boolean;
    why: string;
    blocks?: Record<string, string>;
    /** Cells measured only in a later run of a grown design (run --missing): no round holds them and an older cell. */
    later?: string[];
    /** A grown design: the runs (parts: 1 the first, 2… each run --missing) that measured each cell. */
    parts?: Record<string, number[]>;
  };
}

/** A problem with one input row, located by line so the user can find it. */
export class TidyError extends Error {
  constructor(
    readonly line: number | undefined,
    readonly problem: string,
  ) {
    super(line === undefined ? problem : `line ${line}: ${problem}`);
  }
}

/** Code-point order: the same everywhere (no locale), and what `sort` in most tools gives. */
export const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Restart labels are usually numbers: order 2 before 10, others by code point. */
function byRestartLabel(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a !== '' && b !== '' && Number.isFinite(x) && Number.isFinite(y) && x !== y) return x - y;
  return byCodePoint(a, b);
}

/** One restart of one cell and query while it is being collected: typed arrays that grow by doubling. */
interface Pending {
  n: number;
  reps: Uint32Array;
  values: Float64Array;
  /** The input line of each execution (CSV input), for messages; null when the input has no lines. */
  lines: Uint32Array | null;
  /** Reps arrived strictly increasing (the usual case): build() copies them without sorting. */
  sorted: boolean;
}

function newPending(withLines: boolean, capacity = 16): Pending {
  return { n: 0, reps: new Uint32Array(capacity), values: new Float64Array(capacity), lines: withLines ? new Uint32Array(capacity) : null, sorted: true };
}

function reserve(p: Pending, more: number): void {
  const need = p.n + more;
  if (need <= p.values.length) return;
  const size = Math.max(need, p.values.length * 2);
  const grow = <T extends Uint32Array | Float64Array>(a: T): T => {
    const b = new (a.constructor as new (n: number) => T)(size);
    b.set(a.subarray(0, p.n));
    return b;
  };
  p.reps = grow(p.reps);
  p.values = grow(p.values);
  if (p.lines) p.lines = grow(p.lines);
}

/**
 * Collects executions in any order and packs them into TidyData. Each restart is collected in typed
 * arrays (16 bytes an execution with line numbers, 12 without), released when build() returns; rows of
 * one restart usually arrive together, so the lookup of their restart is cached.
 */
export class TidyBuilder {
  private readonly groups = new Map<string, Map<string, Map<string, Pending>>>();
  private count = 0;
  /** Queries in the order they were first added. */
  private readonly seenQueries = new Set<string>();
  private last: { cell: string; query: string; restart: string; pending: Pending } | null = null;

  private pending(cell: string, query: string, restart: string, withLines: boolean): Pending {
    const l = this.last;
    if (l && l.cell === cell && l.query === query && l.restart === restart) return l.pending;
    this.seenQueries.add(query);
    let byQuery = this.groups.get(cell);
    if (!byQuery) this.groups.set(cell, (byQuery = new Map()));
    let byRestart = byQuery.get(query);
    if (!byRestart) byQuery.set(query, (byRestart = new Map()));
    let p = byRestart.get(restart);
    if (!p) byRestart.set(restart, (p = newPending(withLines)));
    this.last = { cell, query, restart, pending: p };
    return p;
  }

  add(cell: string, query: string, restart: string, rep: number, value: number, line?: number): void {
    const p = this.pending(cell, query, restart, line !== undefined);
    reserve(p, 1);
    if (p.n > 0 && rep <= p.reps[p.n - 1]) p.sorted = false;
    p.reps[p.n] = rep;
    p.values[p.n] = value;
    if (p.lines) p.lines[p.n] = line ?? 0;
    p.n++;
    this.count++;
  }

  /** A restart's values for one query in rep order (rep 1 first); non-finite values are skipped, their rep kept. */
  addRestart(cell: string, query: string, restart: string, values: ArrayLike<number>): void {
    const p = this.pending(cell, query, restart, false);
    reserve(p, values.length);
    // The same restart and query twice: build() sorts and reports the repeated reps.
    if (p.n > 0) p.sorted = false;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (!Number.isFinite(v)) continue;
      p.reps[p.n] = i + 1;
      p.values[p.n] = v;
      if (p.lines) p.lines[p.n] = 0;
      p.n++;
      this.count++;
    }
  }

  /**
   * One record of a tidy CSV (`cell,restart,query,rep,value`), checked field by field.
   * Throws TidyError naming the line and what is wrong.
   */
  addRecord(fields: string[], line: number): void {
    if (fields.length !== 5) throw new TidyError(line, `expected 5 fields (cell,restart,query,rep,value), found ${fields.length}`);
    const [cell, restart, query, repText, valueText] = fields;
    this.addFields(cell, restart, query, repText, valueText, line);
  }

  /** The fields of one execution as text, checked: decimal numbers only (no 0x10, 0b11, +5, Infinity). */
  addFields(cell: string, restart: string, query: string, repText: string, valueText: string, line: number): void {
    if (cell === '') throw new TidyError(line, 'cell is empty');
    if (restart === '') throw new TidyError(line, 'restart is empty');
    if (query === '') throw new TidyError(line, 'query is empty');
    const rep = parseCount(repText);
    if (!(rep >= 1 && rep <= 0xffffffff)) throw new TidyError(line, `rep ${JSON.stringify(repText)} is not a whole number from 1`);
    const value = parseDecimal(valueText);
    if (!Number.isFinite(value)) throw new TidyError(line, `value ${JSON.stringify(valueText)} is not a number`);
    this.add(cell, query, restart, rep, value, line);
  }

  /** The queries added so far, in the order they first came. */
  queries(): string[] {
    return [...this.seenQueries];
  }

  build(unit?: string, opts: { units?: Record<string, string>; order?: string[] } = {}): TidyData {
    const values = new Float64Array(this.count);
    const reps = new Uint32Array(this.count);
    const series: Series[] = [];
    let at = 0;
    const cells = [...this.groups.keys()].sort(byCodePoint);
    const querySet = new Set<string>();
    for (const cell of cells) {
      const byQuery = this.groups.get(cell)!;
      for (const query of [...byQuery.keys()].sort(byCodePoint)) {
        querySet.add(query);
        const byRestart = byQuery.get(query)!;
        const restarts = [...byRestart.keys()].sort(byRestartLabel);
        const offsets = new Uint32Array(restarts.length + 1);
        restarts.forEach((restart, i) => {
          offsets[i] = at;
          const p = byRestart.get(restart)!;
          if (p.sorted) {
            values.set(p.values.subarray(0, p.n), at);
            reps.set(p.reps.subarray(0, p.n), at);
            at += p.n;
            return;
          }
          const order = Array.from({ length: p.n }, (_, j) => j).sort((a, b) => p.reps[a] - p.reps[b]);
          for (let j = 0; j < order.length; j++) {
            const k = order[j];
            if (j > 0 && p.reps[k] === p.reps[order[j - 1]]) {
              const where = p.lines ? p.lines[k] : undefined;
              const first = p.lines ? ` (first on line ${p.lines[order[j - 1]]})` : '';
              throw new TidyError(where, `rep ${p.reps[k]} appears twice for cell "${cell}", restart "${restart}", query "${query}"${first}`);
            }
            reps[at] = p.reps[k];
            values[at] = p.values[k];
            at++;
          }
        });
        offsets[restarts.length] = at;
        series.push({ cell, query, restarts, offsets });
      }
    }
    this.groups.clear();
    this.last = null;
    // The preferred order first (queries with data only), then the rest as they first appeared.
    const order = [...(opts.order ?? []).filter((q) => querySet.has(q)), ...[...this.seenQueries].filter((q) => querySet.has(q) && !opts.order?.includes(q))];
    this.seenQueries.clear();
    const out: TidyData = { cells, queries: [...querySet].sort(byCodePoint), series, values, reps, unit, order };
    if (opts.units) out.units = opts.units;
    else if (unit !== undefined) out.units = Object.fromEntries([...querySet].map((q) => [q, unit]));
    return out;
  }
}

/**
 * The executions of an experiment's results. Only restarts with status `ok` count: a restart whose
 * tunables failed verification measured a different cell than its label says.
 */
export function tidyFromExperiment(doc: ExperimentDoc): TidyData {
  const b = new TidyBuilder();
  let unit: string | undefined;
  const units: Record<string, string> = {};
  // Results from several hosts: the host is a block factor, part of every cell.
  const hosts = resultHosts(doc.design, doc.results?.restarts);
  const roundOf = restartRounds(doc);
  const roundByLabel = new Map<string, number>();
  for (const r of doc.results?.restarts ?? []) {
    if (r.status !== 'ok') continue;
    const cell = hostCell(r.cell, hosts.length ? r.host : undefined);
    const round = roundOf?.get(`${hosts.length ? (r.host ?? '') : ''}\u0000${r.seq}`);
    if (round !== undefined) roundByLabel.set(`${cell}\u0000${r.seq}`, round);
    for (const q of r.queries) {
      unit ??= q.unit;
      units[q.query] ??= q.unit;
      b.addRestart(cell, q.query, String(r.seq), q.values);
    }
  }
  const data = b.build(unit, { units, order: doc.design.workload.queries.map((q) => q.name) });
  const design = withHostFactor(doc.design, hosts);
  data.factors = design.factors.map((f) => ({ key: factorKey(f), levels: f.levels }));
  data.cellLevels = Object.fromEntries(levelsByCell(design));
  if (roundOf) {
    for (const s of data.series) s.rounds = s.restarts.map((label) => roundByLabel.get(`${s.cell}\u0000${label}`) ?? 0);
    data.rounds = { known: true, why: ROUNDS_WHY };
    if (hosts.length) data.rounds.blocks = Object.fromEntries((doc.results?.restarts ?? []).map((r) => [hostCell(r.cell, r.host), r.host ?? '']));
    const first = new Set((doc.results?.restarts ?? []).filter((r) => (r.part ?? 1) === 1).map((r) => hostCell(r.cell, hosts.length ? r.host : undefined)));
    const later = [...new Set((doc.results?.restarts ?? []).filter((r) => (r.part ?? 1) > 1).map((r) => hostCell(r.cell, hosts.length ? r.host : undefined)))].filter((c) => !first.has(c));
    if (later.length) data.rounds.later = later;
    const parts = new Map<string, Set<number>>();
    for (const r of doc.results?.restarts ?? []) {
      const cell = hostCell(r.cell, hosts.length ? r.host : undefined);
      if (!parts.has(cell)) parts.set(cell, new Set());
      parts.get(cell)!.add(r.part ?? 1);
    }
    if ([...parts.values()].some((p) => [...p].some((n) => n > 1))) data.rounds.parts = Object.fromEntries([...parts].map(([c, p]) => [c, [...p].sort((a, b) => a - b)]));
  } else data.rounds = { known: false, why: 'the blocked order runs each cell\'s restarts together, not in rounds: no restart has a partner in time' };
  return data;
}

/** Why restarts are paired: the same words for an experiment file and the CSVs exported from it. */
export const ROUNDS_WHY = 'the restarts ran in rounds, each holding every cell once';

/**
 * The round of every restart of an experiment's results, by host and seq (`host\0seq`, host '' on one
 * host); null for the blocked order, which has no rounds. In a design run in rounds every round holds
 * each cell once, so the k-th restart of a cell in run order (any status: a failed restart still took
 * its place) is in round k, the round the plan gave it (plan.ts). Old files, which did not record
 * rounds, derive them the same way.
 */
export function restartRounds(doc: ExperimentDoc): Map<string, number> | null {
  if (doc.design.order === 'blocked') return null;
  const hosts = resultHosts(doc.design, doc.results?.restarts);
  const sorted = [...(doc.results?.restarts ?? [])].sort((a, b) => a.seq - b.seq);
  const hostOf = (r: { host?: string }) => (hosts.length ? (r.host ?? '') : '');
  // A grown design's later run (part 2, 3…) has rounds of its own, numbered after the earlier runs'.
  const count = new Map<string, number>();
  const rank = new Map<string, number>();
  const last = new Map<string, number>();
  for (const r of sorted) {
    const key = `${hostOf(r)}\u0000${r.part ?? 1}\u0000${r.cell}`;
    const k = (count.get(key) ?? 0) + 1;
    count.set(key, k);
    rank.set(`${hostOf(r)}\u0000${r.seq}`, k);
    const partKey = `${hostOf(r)}\u0000${r.part ?? 1}`;
    last.set(partKey, Math.max(last.get(partKey) ?? 0, k));
  }
  const before = (host: string, part: number) => {
    let n = 0;
    for (let p = 1; p < part; p++) n += last.get(`${host}\u0000${p}`) ?? 0;
    return n;
  };
  const out = new Map<string, number>();
  for (const r of sorted) out.set(`${hostOf(r)}\u0000${r.seq}`, rank.get(`${hostOf(r)}\u0000${r.seq}`)! + before(hostOf(r), r.part ?? 1));
  return out;
}

/**
 * Rounds by rank, for a CSV (which does not say the run order): restart k of every cell is round k, as
 * it is in any design run in rounds. `why` says where the pairing comes from.
 */
export function withRankRounds(data: TidyData, why: string): TidyData {
  for (const s of data.series) s.rounds = s.restarts.map((_, i) => i + 1);
  data.rounds = { known: true, why };
  return data;
}

/** The values of one restart of a series, warm-up included. A view, not a copy. */
export function restartValues(data: TidyData, s: Series, i: number): Float64Array {
  return data.values.subarray(s.offsets[i], s.offsets[i + 1]);
}

/** The index of the first execution of restart i with rep > warmup (reps are sorted within a restart). */
export function firstKept(data: TidyData, s: Series, i: number, warmup: number): number {
  let j = s.offsets[i];
  const end = s.offsets[i + 1];
  // Reps usually count 1, 2, 3…: jump straight to the answer, then fix up for gaps.
  const guess = j + warmup;
  if (guess < end && data.reps[guess] === warmup + 1 && (guess === j || data.reps[guess - 1] <= warmup)) return guess;
  while (j < end && data.reps[j] <= warmup) j++;
  return j;
}
