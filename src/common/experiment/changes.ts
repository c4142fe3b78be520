// What an edit changes in an experiment, in words, and whether it touches what was measured.
//
// The labels or notes of an experiment are its top-level `name` and `description`: nothing a run
// measures depends on them, so results stay with a file whose only edits are there. Any other field
// (factors and levels, cells left out, restarts per cell, the workload and its queries' names and
// SQL, repetitions, warm-up, run order, seed, idle time, estimates, target, server profile) is part
// of the design the results were measured with.
import type { Design, ExperimentDoc } from './types.js';

export const LABEL_FIELDS = ['name', 'description'] as const;

/** Stable JSON: keys sorted, undefined left out, so equal values give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** How much a file's results hold: finished restarts and their executions (warm-ups included). */
export function measurementsIn(doc: Pick<ExperimentDoc, 'results'> | null | undefined): { restarts: number; executions: number } {
  const restarts = doc?.results?.restarts ?? [];
  let executions = 0;
  for (const r of restarts) for (const q of r.queries) executions += q.values.length;
  return { restarts: restarts.length, executions };
}

/** True when the two documents have the same design: they differ at most in their labels or notes (and results). */
export function sameDesign(a: ExperimentDoc, b: ExperimentDoc): boolean {
  return canonicalJson(a.design) === canonicalJson(b.design);
}

const short = (v: unknown): string => {
  if (v === undefined) return '(none)';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.length > 48 ? `${text.slice(0, 45)}…` : text;
};

/** A list keyed by a field (queries by name, factors by tunable): what was added, removed, changed. */
function keyedChanges<T>(what: string, before: T[], after: T[], key: (x: T) => string, describe: (k: string, a: T, b: T) => string[]): string[] {
  const out: string[] = [];
  const a = new Map(before.map((x) => [key(x), x]));
  const b = new Map(after.map((x) => [key(x), x]));
  for (const k of a.keys()) if (!b.has(k)) out.push(`${what} ${k} removed`);
  for (const [k, y] of b) {
    const x = a.get(k);
    if (!x) out.push(`${what} ${k} added`);
    else if (canonicalJson(x) !== canonicalJson(y)) out.push(...describe(k, x, y));
  }
  const orderA = before.map(key).filter((k) => b.has(k));
  const orderB = after.map(key).filter((k) => a.has(k));
  if (!out.length && orderA.join('\u0000') !== orderB.join('\u0000')) out.push(`${what}s in another order`);
  return out;
}

/**
 * What changed from one design to another, one line per change, in words a user recognises
 * (`query Q2: SQL changed`, `restarts per cell: 5 → 3`). `ignore` leaves fields out (by key).
 */
export function designChanges(before: Design, after: Design, ignore: (keyof Design)[] = []): string[] {
  const out: string[] = [];
  const skip = new Set<string>(ignore);
  const field = (k: keyof Design, label: string) => {
    if (!skip.has(k) && canonicalJson(before[k]) !== canonicalJson(after[k])) out.push(`${label}: ${short(before[k])} → ${short(after[k])}`);
  };
  if (!skip.has('factors')) {
    const fkey = (f: Design['factors'][number]) => (f.name ? `${f.tunable}:${f.name}` : f.tunable);
    out.push(...keyedChanges('factor', before.factors, after.factors, fkey, (k, a, b) => [`factor ${k}: levels ${a.levels.join(', ')} → ${b.levels.join(', ')}`]));
  }
  if (!skip.has('excludedCells') && canonicalJson([...before.excludedCells].sort()) !== canonicalJson([...after.excludedCells].sort())) {
    out.push(`cells left out: ${before.excludedCells.length} → ${after.excludedCells.length}`);
  }
  field('restartsPerCell', 'restarts per cell');
  if (!skip.has('workload')) {
    const a = before.workload;
    const b = after.workload;
    const w = (k: keyof typeof a, label: string, show = true) => {
      if (canonicalJson(a[k]) !== canonicalJson(b[k])) out.push(show ? `${label}: ${short(a[k])} → ${short(b[k])}` : `${label} changed`);
    };
    w('kind', 'workload');
    w('database', 'database');
    w('setupSql', 'setup script', false);
    // '' (the user chose no table) and no field (an older file) both run the setup every time: no change.
    const skipOf = (x: typeof a) => x.setupSkipIfTable || undefined;
    if (skipOf(a) !== skipOf(b)) out.push(`setup skipped when table exists: ${short(skipOf(a))} → ${short(skipOf(b))}`);
    out.push(...keyedChanges('query', a.queries, b.queries, (q) => q.name, (k) => [`query ${k}: SQL changed`]));
    w('repetitions', 'repetitions');
    w('warmup', 'warm-up');
    w('command', 'benchmark command', false);
  }
  field('order', 'run order');
  field('seed', 'seed');
  field('idleSeconds', 'idle seconds');
  field('estimates', 'estimates');
  field('target', 'target');
  field('targets', 'hosts');
  if (!skip.has('serverProfile') && canonicalJson(before.serverProfile) !== canonicalJson(after.serverProfile)) out.push('server profile changed');
  return out;
}
