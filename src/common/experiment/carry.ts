// What becomes of a file's results when its design is edited (issue 25): results stay with the
// design they fit, under the names it now uses, and nothing measured is dropped.
//
//   - a query renamed (the same SQL under a new name) is renamed in the results;
//   - factors in another order give the same cells under new ids (a cell is its levels);
//   - a level, a cell or a query removed: its restarts (or the query's timings) are `removed`, to be
//     kept in the results copy beside the file, after the user was asked;
//   - a level or a cell added, or more restarts per cell: the file keeps its results and the design
//     says what is `missing`, which a run can measure alone (run --missing);
//   - anything that changes how a restart is measured (the workload, a query's SQL, a query added,
//     repetitions, warm-up, a factor added or removed, the hosts, the server profile, idle time) is
//     `blocking`: the old results do not describe the new design, and the existing two ways (a new
//     experiment, or all the results in the copy) are offered.
//
// A level is the value a tunable applies (`aslr=off`, `innodb_buffer_pool_size=512M`), not a label:
// a level changed is a level removed and another added, never a rename.
import { cellId, designHosts, expandCells, factorKey, levelsByCell } from '../plan.js';
import { designChanges } from './changes.js';
import type { Design, ExperimentDoc, RestartResult, Results } from './types.js';

export interface Carried {
  /** Why the results cannot stay with the new design, one line each; empty when they can. */
  blocking: string[];
  /** The results as the new design reads them, without what the edit removes. */
  kept: Results;
  /** What the edit removes: restarts of removed cells, and the timings of removed queries. */
  removed: Results;
  /** Restarts that leave the file whole, and restarts that lose some of their queries' timings. */
  removedRestarts: number;
  trimmedRestarts: number;
  /** Names carried over, in words: `query Q1 → Q1 pricing`. */
  renamed: string[];
  /** Included cells with fewer restarts than the design asks, per host when it has several. */
  missing: Missing[];
  /** Old name → new name of every cell and query that stays (a journal is relabelled with them). */
  cells: Map<string, string>;
  queries: Map<string, string>;
}

export interface Missing {
  cell: string;
  /** The host, for a design on several hosts. */
  host?: string;
  have: number;
  need: number;
}

/** What the design's run order, seed, estimates and stopping rule are: how restarts are scheduled, not what one measures. */
const SCHEDULING: (keyof Design)[] = ['order', 'seed', 'estimates', 'stopping', 'restartsPerCell', 'excludedCells', 'factors'];

/** Query renames: a query of `after` that is not in `before` by name, but whose SQL is a query of `before` that is gone. */
function queryRenames(before: Design, after: Design): Map<string, string> {
  const out = new Map<string, string>();
  const afterNames = new Set(after.workload.queries.map((q) => q.name));
  const beforeNames = new Set(before.workload.queries.map((q) => q.name));
  const gone = before.workload.queries.filter((q) => !afterNames.has(q.name));
  for (const q of after.workload.queries) {
    if (beforeNames.has(q.name)) continue;
    const was = gone.find((g) => g.sql === q.sql && !out.has(g.name));
    if (was) out.set(was.name, q.name);
  }
  return out;
}

/** The restarts each included cell still needs to reach the design's restarts per cell. */
export function missingRestarts(design: Design, restarts: readonly Pick<RestartResult, 'cell' | 'host'>[]): Missing[] {
  const several = designHosts(design).length > 1;
  const hosts: (string | undefined)[] = several ? designHosts(design) : [undefined];
  const count = new Map<string, number>();
  for (const r of restarts) {
    const k = `${several ? (r.host ?? '') : ''}\u0000${r.cell}`;
    count.set(k, (count.get(k) ?? 0) + 1);
  }
  const out: Missing[] = [];
  for (const c of expandCells(design).filter((c) => !c.excluded)) {
    for (const host of hosts) {
      const have = count.get(`${host ?? ''}\u0000${c.id}`) ?? 0;
      if (have < design.restartsPerCell) out.push({ cell: c.id, ...(host !== undefined ? { host } : {}), have, need: design.restartsPerCell - have });
    }
  }
  return out;
}

/** The results of `doc` carried to the design `after`. */
export function carryResults(doc: ExperimentDoc, after: Design): Carried {
  const before = doc.design;
  const renames = queryRenames(before, after);
  // What a restart is measured with, queries aside (they are carried one by one below).
  const noQueries = (d: Design): Design => ({ ...d, workload: { ...d.workload, queries: [] } });
  const blocking = designChanges(noQueries(before), noQueries(after), SCHEDULING);
  const beforeKeys = before.factors.map(factorKey);
  const afterKeys = after.factors.map(factorKey);
  for (const k of beforeKeys) if (!afterKeys.includes(k)) blocking.push(`factor ${k} removed: every cell changes`);
  for (const k of afterKeys) if (!beforeKeys.includes(k)) blocking.push(`factor ${k} added: every cell changes`);
  const afterSql = new Map(after.workload.queries.map((q) => [q.name, q.sql]));
  const renamedTo = new Set(renames.values());
  for (const q of before.workload.queries) {
    const sql = afterSql.get(q.name);
    if (sql !== undefined && sql !== q.sql) blocking.push(`query ${q.name}: SQL changed`);
  }
  const beforeNames = new Set(before.workload.queries.map((q) => q.name));
  for (const q of after.workload.queries) {
    if (!beforeNames.has(q.name) && !renamedTo.has(q.name)) blocking.push(`query ${q.name} added: the old restarts did not run it`);
  }

  const results = doc.results ?? { restarts: [] };
  const empty: Carried = { blocking, kept: results, removed: { restarts: [] }, removedRestarts: 0, trimmedRestarts: 0, renamed: [], missing: [], cells: new Map(), queries: new Map() };
  if (blocking.length) return empty;

  // A cell is its levels: its id under the new factors, or null when a level of it is gone or it is left out.
  const oldLevels = levelsByCell(before);
  const included = new Set(expandCells(after).filter((c) => !c.excluded).map((c) => c.id));
  const newCell = (cell: string): string | null => {
    const levels = oldLevels.get(cell);
    if (!levels) return null;
    if (!after.factors.every((f) => f.levels.includes(levels[factorKey(f)]))) return null;
    const id = cellId(levels, after.factors);
    return included.has(id) ? id : null;
  };
  const keptQuery = (name: string): string | null => renames.get(name) ?? (afterSql.has(name) ? name : null);

  const kept: RestartResult[] = [];
  const removed: RestartResult[] = [];
  let trimmed = 0;
  for (const r of results.restarts) {
    const cell = newCell(r.cell);
    if (cell === null) {
      removed.push(r);
      continue;
    }
    const stay = r.queries.filter((q) => keptQuery(q.query) !== null).map((q) => ({ ...q, query: keptQuery(q.query)! }));
    const gone = r.queries.filter((q) => keptQuery(q.query) === null);
    if (gone.length) {
      trimmed++;
      removed.push({ ...r, queries: gone });
    }
    kept.push({ ...r, cell, queries: stay });
  }
  const discarded = (results.discarded ?? []).flatMap((d) => {
    const cell = newCell(d.cell);
    return cell === null ? [] : [{ ...d, cell }];
  });
  const discardedGone = (results.discarded ?? []).filter((d) => newCell(d.cell) === null);
  const { restarts: _all, discarded: _d, ...meta } = results;
  return {
    blocking,
    kept: { ...meta, ...(discarded.length ? { discarded } : {}), restarts: kept },
    removed: { ...meta, ...(discardedGone.length ? { discarded: discardedGone } : {}), restarts: removed },
    removedRestarts: removed.length - trimmed,
    trimmedRestarts: trimmed,
    renamed: [...renames].map(([a, b]) => `query ${a} → ${b}`),
    missing: missingRestarts(after, kept),
    cells: new Map([...oldLevels.keys()].flatMap((c) => (newCell(c) === null ? [] : [[c, newCell(c)!] as [string, string]]))),
    queries: new Map(before.workload.queries.flatMap((q) => (keptQuery(q.name) === null ? [] : [[q.name, keptQuery(q.name)!] as [string, string]]))),
  };
}

/** `2 new cells need 5 restarts each` and the like: what a grown design still needs, in one line. */
export function missingSentence(missing: readonly Missing[]): string {
  if (!missing.length) return '';
  const total = missing.reduce((n, m) => n + m.need, 0);
  const needs = [...new Set(missing.map((m) => m.need))];
  const cells = new Set(missing.map((m) => m.cell)).size;
  const each = needs.length === 1 ? `${needs[0]} restart${needs[0] === 1 ? '' : 's'} each` : `${total} restarts in all`;
  const named = missing.slice(0, 4).map((m) => `${m.cell}${m.host ? ` on ${m.host}` : ''}: ${m.need}`);
  if (missing.length > named.length) named.push(`${missing.length - named.length} more`);
  return `${cells} cell${cells === 1 ? '' : 's'} need${cells === 1 ? 's' : ''} ${each} to reach the design's ${missing[0].have + missing[0].need} per cell (${named.join('; ')}): run only what is missing (the Run view's button, or varlab run FILE --missing)`;
}

/** The part a run that grows these results would be: one after the last (a first run's restarts are part 1). */
export function nextPart(results: Results | undefined): number {
  return Math.max(1, ...(results?.restarts ?? []).map((r) => r.part ?? 1)) + 1;
}

/**
 * The file's results with a grown run's joined (run --missing): the file's restarts of other parts
 * stay as they are; the run's restarts come after them in run order (their seq follows the file's
 * last on their host) and are marked with their `part`. Called with the run's results so far at every
 * save: what the file held of this part before is replaced by them.
 */
export function grownResults(file: Results | undefined, run: Results, part: number): Results {
  const kept = (file?.restarts ?? []).filter((r) => (r.part ?? 1) !== part);
  const offset = new Map<string, number>();
  for (const r of kept) offset.set(r.host ?? '', Math.max(offset.get(r.host ?? '') ?? 0, r.seq));
  const last = (host: string | undefined) => offset.get(host ?? '') ?? 0;
  // Restarts the earlier runs threw away have their seqs; this run's come after them.
  const discarded = [...(file?.discarded ?? []).filter((d) => d.seq <= last(d.host)), ...(run.discarded ?? []).map((d) => ({ ...d, seq: d.seq + last(d.host) }))];
  // Each run's timer stays its own (a grown run may measure with another timer): the other runs' as
  // the file holds them (one without a part is the first run's), this run's marked with its part.
  const timers = [...(file?.timers ?? []).filter((t) => (t.part ?? 1) !== part), ...(run.timers ?? []).map((t) => ({ ...t, part }))];
  // The data steps of every run (a grown run may set up a new build's data directory): the earlier runs'
  // (before this one started), then this run's so far; what the planner counts a set-up from (stats/planner.ts).
  const dataSteps = [...(file?.dataSteps ?? []).filter((d) => run.startedAt === undefined || d.at < run.startedAt), ...(run.dataSteps ?? [])];
  const { discarded: _d, finishedAt: _f, restarts: _r, timers: _t, dataSteps: _s, ...meta } = file ?? { restarts: [] };
  // The note in words for people: each run's once (varlab reads `timers`; timerVsClient stays the first run's, as a file from before them was read).
  const note = run.timerNote && !meta.timerNote?.includes(run.timerNote) ? `in run ${part} (run --missing): ${run.timerNote}` : undefined;
  return {
    ...meta,
    ...(note ? { timerNote: meta.timerNote ? `${meta.timerNote}; ${note}` : note } : {}),
    ...(timers.length ? { timers } : {}),
    ...(run.host ? { host: run.host } : {}),
    ...(meta.startedAt === undefined && run.startedAt !== undefined ? { startedAt: run.startedAt } : {}),
    ...(run.finishedAt !== undefined ? { finishedAt: run.finishedAt } : {}),
    ...(discarded.length ? { discarded } : {}),
    // What the grown run said, in place of what the run before it said (a log is one run's).
    ...(run.log ? { log: run.log } : {}),
    ...(dataSteps.length ? { dataSteps } : {}),
    restarts: [...kept, ...run.restarts.map((r) => ({ ...r, seq: r.seq + last(r.host), part }))],
  };
}
