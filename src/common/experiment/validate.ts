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
import { visible } from '../printable.js';
import { jsonPath } from './paths.js';
import { findSecrets, secretsMessage } from './secrets.js';
import type { ExperimentDoc, Results } from './types.js';

const NOUNS: Record<string, string> = { levels: 'level', queries: 'query', factors: 'factor', restarts: 'restart' };
const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : noun.endsWith('y') ? '' : 's'}`.replace(/querys$/, 'queries');

/** The value at a JSON pointer of the schema's errors (`/design/factors/0/name`), or undefined. */
function valueAt(doc: unknown, pointer: string): unknown {
  let v = doc;
  for (const key of pointer.split('/').slice(1)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return v;
}

/** Words that may be (or hold) a secret: such a value is never said back in a message. */
const SECRET_LIKE = /pass|secret|token|key/i;

/**
 * A value not to say back: one with such a word, and any server option (extraArgs), which may carry a
 * password in a form without one (mysqld's and the client's `-pSECRET`).
 */
const mayBeSecret = (v: string, pointer: string) => SECRET_LIKE.test(v) || /\/extraArgs\//.test(pointer) || /^-p\S/.test(v);

function describe(e: ErrorObject, doc: unknown): string {
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
    case 'exclusiveMinimum':
      return `${path}: expected more than ${String(p.limit)}`;
    case 'exclusiveMaximum':
      return `${path}: expected less than ${String(p.limit)}`;
    case 'pattern': {
      // The value (cut, control characters escaped) and the field's pattern: which character of a long path is
      // the matter is then plain to see. A value that may be a password is not said back.
      const v = valueAt(doc, e.instancePath);
      const shown = typeof v === 'string' && !mayBeSecret(v, e.instancePath) ? `${visible(JSON.stringify(v.length > 120 ? `${v.slice(0, 120)}…` : v))} is ` : '';
      return `${path}: ${shown}not accepted: expected ${String(p.pattern)} (letters, digits and a few safe characters only)`;
    }
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
    const problems = (check.errors ?? []).map((e) => describe(e, m.doc)).filter((p) => !seen.has(p) && seen.add(p));
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
  // A restart is known by its number, and its timings by query: one of each, or the executions repeat.
  // Each host of a run on several hosts numbers its own plan.
  const seqs = new Map<string, number>();
  results.restarts.forEach((r, i) => {
    const key = `${r.host ?? ''}\u0000${r.seq}`;
    if (seqs.has(key)) problems.push(`results.restarts[${i}].seq: restart ${r.seq}${r.host === undefined ? '' : ` on ${quoted(r.host)}`} appears twice (also results.restarts[${seqs.get(key)}])`);
    else seqs.set(key, i);
    if (!cells.has(r.cell)) problems.push(`results.restarts[${i}].cell: ${quoted(r.cell)} is not a cell of this design`);
    const seen = new Set<string>();
    r.queries.forEach((q, j) => {
      if (!queries.has(q.query)) problems.push(`results.restarts[${i}].queries[${j}].query: ${quoted(q.query)} is not a query of this design`);
      else if (seen.has(q.query)) problems.push(`results.restarts[${i}].queries[${j}].query: ${quoted(q.query)} appears twice in this restart`);
      seen.add(q.query);
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
    return { doc: null, problems: [jsonSyntaxProblem(text, (e as Error).message)], notices: [] };
  }
  return checkExperiment(json, limits);
}

/**
 * `(document): not valid JSON at line L, column C: what`. V8 quotes a piece of the text in some messages
 * (`Unexpected token '…', "…" is not valid JSON`): that piece may hold newlines and escape sequences, so
 * it is left out, the token is shown escaped, and the place is found when V8 gives no position.
 */
function jsonSyntaxProblem(text: string, message: string): string {
  const what = visible(message.replace(/, (\.\.\.)?".*"(\.\.\.)? is not valid JSON$/s, ' is not valid JSON')).replace(/\n/g, '\\n');
  const position = /position (\d+)/.exec(message);
  const at = position ? Number(position[1]) : firstStrayCharacter(text);
  if (at < 0) return `(document): not valid JSON: ${what}`;
  const before = text.slice(0, at);
  const line = before.split('\n').length;
  const column = at - before.lastIndexOf('\n');
  return `(document): not valid JSON at line ${line}, column ${column}: ${what}`;
}

/** The first character outside strings that no JSON text holds there (a control character, a letter that starts no literal), or -1. */
function firstStrayCharacter(text: string): number {
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (!/[ \t\n\r{}[\],:0-9+\-.eEtrufalsn]/.test(c)) return i;
  }
  return -1;
}

/** What must be true before a document is written: valid, and no secret in it. */
export function problemsBeforeSave(doc: unknown, limits: ExperimentLimits = DEFAULT_LIMITS): string[] {
  const deep = nestingProblem(doc);
  if (deep) return [deep];
  const secrets = findSecrets(doc);
  if (secrets.length) return [secretsMessage(secrets)];
  return checkExperiment(doc, limits).problems;
}
