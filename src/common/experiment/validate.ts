// Checking an experiment document: migration, the JSON Schema (compiled by Ajv at build time into
// schema.generated.js: no schema compiler at start-up, no eval), then the design rules a
// schema cannot say (rules.ts: levels valid for their tunable, unique names, known cells). Every problem names its
// JSON path, e.g. `design.factors[2].levels: expected at least 1 level`.
import type { ErrorObject } from 'ajv';
import { validate as check } from './schema.generated.js';
import { migrate } from './migrate.js';
import { designProblems, problemLines, quoted } from './rules.js';
import { DEFAULT_LIMITS, nestingProblem, type ExperimentLimits } from './limits.js';
import { expandCells } from '../plan.js';
import { jsonPath } from './paths.js';
import { findSecrets, secretsMessage } from './secrets.js';
import type { ExperimentDoc, Results } from './types.js';

const NOUNS: Record<string, string> = { levels: 'level', queries: 'query', factors: 'factor', restarts: 'restart' };
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : noun.endsWith('y') ? '' : 's'}`.replace(/querys$/, 'queries');

function describe(e: ErrorObject): string {
  const path = jsonPath(e.instancePath);
  const last = e.instancePath.split('/').pop() ?? '';
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'minItems':
      return `${path}: expected at least ${plural(p.limit as number, NOUNS[last] ?? 'item')}`;
    case 'maxItems':
      return `${path}: expected at most ${plural(p.limit as number, NOUNS[last] ?? 'item')}`;
    case 'required':
      return `${jsonPath(e.instancePath + '/' + String(p.missingProperty))}: required but missing`;
    case 'additionalProperties':
      return `${jsonPath(e.instancePath + '/' + String(p.additionalProperty))}: unknown field`;
    case 'enum':
      return `${path}: expected one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `${path}: expected ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `${path}: expected ${String(p.type)}`;
    case 'maximum':
      return `${path}: expected at most ${String(p.limit)}`;
    case 'minimum':
      return `${path}: expected at least ${String(p.limit)}`;
    case 'pattern':
      return `${path}: not an accepted value (letters, digits and a few safe characters only)`;
    default:
      return `${path}: ${e.message ?? 'invalid'}`;
  }
}

export interface Checked {
  doc: ExperimentDoc | null;
  problems: string[];
  notices: string[];
}

/** Migrate and validate; `doc` is null when there are problems. */
export function checkExperiment(input: unknown, limits: ExperimentLimits = DEFAULT_LIMITS): Checked {
  // First, before anything walks the document recursively (the schema validator, migrations).
  const deep = nestingProblem(input);
  if (deep) return { doc: null, problems: [deep], notices: [] };
  const m = migrate(input);
  if (m.problem) return { doc: null, problems: [m.problem], notices: m.notices };
  if (!check(m.doc)) {
    const seen = new Set<string>();
    const problems = (check.errors ?? []).map(describe).filter((p) => !seen.has(p) && seen.add(p));
    return { doc: null, problems, notices: m.notices };
  }
  const doc = m.doc as unknown as ExperimentDoc;
  let problems = problemLines(designProblems(doc.design, limits));
  if (!problems.length && doc.results) problems = resultsProblems(doc.design, doc.results);
  return { doc: problems.length ? null : doc, problems, notices: m.notices };
}

/** Results name the design's own cells and queries (the command's metric for a command workload). */
function resultsProblems(design: ExperimentDoc['design'], results: Results): string[] {
  const cells = new Set(expandCells(design).map((c) => c.id));
  const w = design.workload;
  const queries = new Set(w.kind === 'command' ? [w.command?.metric ?? 'command'] : w.queries.map((q) => q.name));
  const problems: string[] = [];
  results.restarts.forEach((r, i) => {
    if (!cells.has(r.cell)) problems.push(`results.restarts[${i}].cell: ${quoted(r.cell)} is not a cell of this design`);
    r.queries.forEach((q, j) => {
      if (!queries.has(q.query)) problems.push(`results.restarts[${i}].queries[${j}].query: ${quoted(q.query)} is not a query of this design`);
    });
  });
  results.discarded?.forEach((d, i) => {
    if (!cells.has(d.cell)) problems.push(`results.discarded[${i}].cell: ${quoted(d.cell)} is not a cell of this design`);
  });
  // A file of garbage would otherwise print a line per restart.
  return problems.length > 20 ? [...problems.slice(0, 20), `results: ${problems.length - 20} more problems like these`] : problems;
}

/** Parse text as an experiment; a JSON syntax error names the line and column. */
export function parseExperiment(text: string, limits: ExperimentLimits = DEFAULT_LIMITS): Checked {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const msg = (e as Error).message;
    const pos = /position (\d+)/.exec(msg);
    if (pos) {
      const before = text.slice(0, Number(pos[1]));
      const line = before.split('\n').length;
      const col = Number(pos[1]) - before.lastIndexOf('\n');
      return { doc: null, problems: [`(document): not valid JSON at line ${line}, column ${col}: ${msg}`], notices: [] };
    }
    return { doc: null, problems: [`(document): not valid JSON: ${msg}`], notices: [] };
  }
  return checkExperiment(json, limits);
}

/** What must be true before a document is written: valid, and no secret in it. */
export function problemsBeforeSave(doc: unknown, limits: ExperimentLimits = DEFAULT_LIMITS): string[] {
  const deep = nestingProblem(doc);
  if (deep) return [deep];
  const secrets = findSecrets(doc);
  if (secrets.length) return [secretsMessage(secrets)];
  return checkExperiment(doc, limits).problems;
}
