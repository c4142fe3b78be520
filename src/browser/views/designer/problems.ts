// What is wrong with a design, field by field, as the designer shows it inline. The same rules
// the backend checks on save (src/common/experiment/validate.ts), said where the user is typing.
// (The schema validator itself compiles code at run time, which the strict CSP forbids, so the
// browser keeps its own light copy of the rules that a user can break from the designer.)
import { levelProblem, tunable } from '../../../common/catalog.js';
import { expandCells, factorKey } from '../../../common/plan.js';
import type { Design } from '../../../common/experiment/types.js';

/** JSON path (as in backend messages) → problem. */
export type Problems = Record<string, string>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function designProblems(d: Design): Problems {
  const p: Problems = {};
  const keys = new Set<string>();
  d.factors.forEach((f, i) => {
    const at = `design.factors[${i}]`;
    const t = tunable(f.tunable);
    if (!t) {
      p[`${at}.tunable`] = `unknown tunable "${f.tunable}"`;
      return;
    }
    if (t.needsName && !f.name) p[`${at}.name`] = 'required for a server variable factor';
    const key = factorKey(f);
    if (keys.has(key)) p[`${at}.tunable`] = `"${key}" appears twice; a factor may appear only once`;
    keys.add(key);
    if (f.levels.length === 0) p[`${at}.levels`] = 'expected at least 1 level';
    f.levels.forEach((l, j) => {
      const problem = levelProblem(f.tunable, l);
      if (problem) p[`${at}.levels[${j}]`] = problem;
    });
  });
  const cells = expandCells(d);
  if (cells.length > 0 && cells.every((c) => c.excluded)) p['design.excludedCells'] = 'every cell is excluded; nothing would run';
  if (!d.target.trim()) p['design.target'] = 'local, ssh://[user@]host[:port] or an ssh config alias';
  else if (/\s/.test(d.target)) p['design.target'] = 'no spaces: local, ssh://[user@]host[:port] or an ssh config alias';
  const w = d.workload;
  if (!IDENT.test(w.database)) p['design.workload.database'] = 'a database name: letters, digits and _, not starting with a digit';
  if (w.setupSkipIfTable !== undefined && w.setupSkipIfTable !== '' && !IDENT.test(w.setupSkipIfTable)) {
    p['design.workload.setupSkipIfTable'] = 'a table name: letters, digits and _';
  }
  if (w.kind === 'queries' && w.queries.length === 0) p['design.workload.queries'] = 'expected at least 1 query';
  const names = new Set<string>();
  w.queries.forEach((q, i) => {
    if (!q.name.trim()) p[`design.workload.queries[${i}].name`] = 'a query needs a name';
    else if (names.has(q.name)) p[`design.workload.queries[${i}].name`] = `"${q.name}" is used twice`;
    names.add(q.name);
    if (!q.sql.trim()) p[`design.workload.queries[${i}].sql`] = 'the query is empty';
  });
  if (w.warmup >= w.repetitions) {
    p['design.workload.warmup'] = `${w.warmup} warm-up executions leave none of ${w.repetitions} repetitions to measure`;
  }
  return p;
}

/** Problems as lines `path: message`, the form the status line and the backend use. */
export function problemLines(p: Problems): string[] {
  return Object.entries(p).map(([path, msg]) => `${path}: ${msg}`);
}

/** Why a typed number is not acceptable for a field, or null. */
export function numberProblem(text: string, opts: { min: number; max: number; integer: boolean }): string | null {
  if (!/^\s*-?\d+(\.\d+)?\s*$/.test(text)) return opts.integer ? 'a whole number' : 'a number';
  const n = Number(text);
  if (opts.integer && !Number.isInteger(n)) return 'a whole number';
  if (n < opts.min) return `at least ${opts.min}`;
  if (n > opts.max) return `at most ${opts.max}`;
  return null;
}
