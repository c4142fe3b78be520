// The rules of a design that a user can break while editing it, field by field. One copy, used
// by the designer (inline, as the user types) and by validate.ts (on open and save, after the
// JSON Schema). The schema validator itself compiles code at run time, which the renderer's CSP
// forbids, so the renderer runs these rules only.
import { levelProblem, tunable } from '../catalog.js';
import { expandCells, factorKey } from '../plan.js';
import { refusedVariableMessage } from '../tunables/variables.js';
import { targetProblem } from '../target.js';
import { checkBuilds, pathProblem, PROFILE_PATH_FIELDS } from '../profile.js';
import { cellCount, count, DEFAULT_LIMITS, RAISE_CELLS, RAISE_RESTARTS, type ExperimentLimits } from './limits.js';
import type { Design } from './types.js';
import { executionsText } from './words.js';
import { sfProblem } from '../dbt3/scale.js';

/** JSON path (as in every message, e.g. `design.factors[2].levels`) → what is wrong there. */
export type Problems = Record<string, string>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function designProblems(d: Design, limits: ExperimentLimits = DEFAULT_LIMITS): Problems {
  const p: Problems = {};
  const keys = new Set<string>();
  d.factors.forEach((f, i) => {
    const at = `design.factors[${i}]`;
    const t = tunable(f.tunable);
    if (!t) {
      p[`${at}.tunable`] = levelProblem(f.tunable, '')!;
      return;
    }
    if (t.needsName && !f.name) p[`${at}.name`] = 'required for a server variable factor';
    // A file may tune the server, never change who it runs as, who gets in or which files it touches.
    const refused = t.needsName && f.name ? refusedVariableMessage(`${at} (${quoted(f.name)})`, f.name) : null;
    if (refused) p[`${at}.name`] = refused;
    const key = factorKey(f);
    if (keys.has(key)) p[`${at}.tunable`] = `"${key}" appears twice; a factor may appear only once`;
    keys.add(key);
    if (f.levels.length === 0) p[`${at}.levels`] = 'expected at least 1 level';
    const seen = new Set<string>();
    f.levels.forEach((level, j) => {
      const problem = levelProblem(f.tunable, level) ?? (seen.has(level) ? `level "${level}" appears twice` : null);
      if (problem) p[`${at}.levels[${j}]`] = problem;
      seen.add(level);
    });
  });
  // The size is known from the level counts: refuse a huge design before expanding it.
  const cellsInDesign = cellCount(d.factors);
  if (cellsInDesign > limits.maxCells) {
    const product = d.factors.map((f) => f.levels.length).join(' × ');
    p['design.factors'] = `${count(cellsInDesign)} cells (${product} levels) is more than the limit of ${count(limits.maxCells)}; leave out levels or factors, or ${RAISE_CELLS}`;
  }
  if (Object.keys(p).length === 0) {
    const cells = expandCells(d);
    const ids = new Set(cells.map((c) => c.id));
    d.excludedCells.forEach((c, i) => {
      if (!ids.has(c)) p[`design.excludedCells[${i}]`] = `${quoted(c)} is not a cell of this design`;
    });
    const included = cells.filter((c) => !c.excluded).length;
    if (cells.length > 0 && included === 0) p['design.excludedCells'] = 'every cell is excluded; nothing would run';
    const restarts = included * d.restartsPerCell;
    if (restarts > limits.maxRestarts) {
      p['design.restartsPerCell'] = `${count(restarts)} restarts (${count(included)} cells × ${d.restartsPerCell}) is more than the limit of ${count(limits.maxRestarts)}; run fewer restarts per cell or fewer cells, or ${RAISE_RESTARTS}`;
    }
  }
  // The same syntax the SSH layer accepts: a file's target is refused here, before anything connects.
  const target = targetProblem(d.target);
  if (target) p['design.target'] = target;
  const profileTarget = d.serverProfile?.target === undefined ? null : targetProblem(d.serverProfile.target);
  if (profileTarget) p['design.serverProfile.target'] = profileTarget;
  // The schema's pattern lets `.` through: a `..` in a path is refused here, as a run would refuse it.
  for (const field of PROFILE_PATH_FIELDS) {
    const path = d.serverProfile?.[field];
    const problem = typeof path === 'string' ? pathProblem(path) : null;
    if (problem) p[`design.serverProfile.${field}`] = problem;
  }
  // A file's builds as a run would take them: paths without .., names and data directories once each.
  const builds = d.serverProfile?.builds;
  if (Array.isArray(builds)) {
    try {
      checkBuilds(builds, d.serverProfile?.datadir);
    } catch (e) {
      p['design.serverProfile.builds'] = (e as Error).message;
    }
  }
  if (d.targets !== undefined) {
    const seen = new Set<string>();
    d.targets.forEach((t, i) => {
      const problem = targetProblem(t) ?? (seen.has(t) ? `${quoted(t)} appears twice` : null);
      if (problem) p[`design.targets[${i}]`] = problem;
      seen.add(t);
    });
    if (d.targets.length < 2) p['design.targets'] = 'several hosts: at least 2 (one host is design.target alone)';
    else if (d.targets[0] !== d.target) p['design.targets'] = `the first host must be design.target (${quoted(d.target)})`;
  }
  const w = d.workload;
  if (!IDENT.test(w.database)) p['design.workload.database'] = 'a database name: letters, digits and _, not starting with a digit';
  if (w.setupSkipIfTable !== undefined && w.setupSkipIfTable !== '' && !IDENT.test(w.setupSkipIfTable)) {
    p['design.workload.setupSkipIfTable'] = 'a table name: letters, digits and _';
  }
  if (w.data) {
    const sf = sfProblem(w.data.sf);
    if (sf) p['design.workload.data.sf'] = sf;
  }
  if (w.kind === 'queries' && w.queries.length === 0) p['design.workload.queries'] = 'expected at least 1 query';
  if (w.kind === 'command' && !w.command) p['design.workload.command'] = 'required when the workload kind is "command"';
  if (w.command?.parser === 'regex') {
    try {
      new RegExp(w.command.regex ?? '');
    } catch (e) {
      p['design.workload.command.regex'] = (e as Error).message;
    }
  }
  const names = new Set<string>();
  w.queries.forEach((q, i) => {
    if (!q.name.trim()) p[`design.workload.queries[${i}].name`] = 'a query needs a name';
    else if (names.has(q.name)) p[`design.workload.queries[${i}].name`] = `${quoted(q.name)} is used twice`;
    names.add(q.name);
    if (!q.sql.trim()) p[`design.workload.queries[${i}].sql`] = 'the query is empty';
  });
  if (w.warmup >= w.repetitions) {
    p['design.workload.warmup'] = `${executionsText(w.warmup, w.kind, 'warm-up')} ${w.warmup === 1 ? 'leaves' : 'leave'} none of ${w.repetitions} repetition${w.repetitions === 1 ? '' : 's'} to measure`;
  }
  return p;
}

/** A name from a file inside a message: quoted, control characters escaped (a terminal shows them as text), cut at 100 characters. */
export function quoted(name: string): string {
  const s = JSON.stringify(name.length > 100 ? name.slice(0, 100) + '…' : name);
  return s.replace(/[\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Problems as lines `path: message`, the form the status line, the CLI and the backend use. */
export function problemLines(p: Problems): string[] {
  return Object.entries(p).map(([path, msg]) => `${path}: ${msg}`);
}
