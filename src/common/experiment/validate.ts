// Checking an experiment document: migration, the JSON Schema (by Ajv), then the rules a schema
// cannot say (levels valid for their tunable, unique names, known cells). Every problem names its
// JSON path, e.g. `design.factors[2].levels: expected at least 1 level`.
import Ajv, { type ErrorObject } from 'ajv';
import schema from './experiment.schema.json' with { type: 'json' };
import { levelProblem, tunable } from '../catalog.js';
import { expandCells, factorKey } from '../plan.js';
import { migrate } from './migrate.js';
import { jsonPath } from './paths.js';
import { findSecrets, secretsMessage } from './secrets.js';
import type { ExperimentDoc } from './types.js';

const ajv = new Ajv({ allErrors: true, strict: false });
const check = ajv.compile(schema);

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
    case 'pattern':
      return `${path}: not an accepted value (letters, digits and a few safe characters only)`;
    default:
      return `${path}: ${e.message ?? 'invalid'}`;
  }
}

/** Rules beyond the schema. Assumes the schema passed. */
function semanticProblems(doc: ExperimentDoc): string[] {
  const problems: string[] = [];
  const d = doc.design;
  const keys = new Set<string>();
  d.factors.forEach((f, i) => {
    const at = `design.factors[${i}]`;
    const t = tunable(f.tunable);
    if (!t) {
      problems.push(`${at}.tunable: ${levelProblem(f.tunable, '')}`);
      return;
    }
    if (t.needsName && !f.name) problems.push(`${at}.name: required for a server variable factor`);
    const key = factorKey(f);
    if (keys.has(key)) problems.push(`${at}.tunable: "${key}" appears twice; a factor may appear only once`);
    keys.add(key);
    const seen = new Set<string>();
    f.levels.forEach((level, j) => {
      const p = levelProblem(f.tunable, level);
      if (p) problems.push(`${at}.levels[${j}]: ${p}`);
      if (seen.has(level)) problems.push(`${at}.levels[${j}]: level "${level}" appears twice`);
      seen.add(level);
    });
  });
  if (problems.length) return problems;
  const cells = new Set(expandCells(d).map((c) => c.id));
  d.excludedCells.forEach((c, i) => {
    if (!cells.has(c)) problems.push(`design.excludedCells[${i}]: "${c}" is not a cell of this design`);
  });
  if (d.excludedCells.length >= cells.size && cells.size > 0) problems.push('design.excludedCells: every cell is excluded; nothing would run');
  const names = new Set<string>();
  d.workload.queries.forEach((q, i) => {
    if (names.has(q.name)) problems.push(`design.workload.queries[${i}].name: "${q.name}" is used twice`);
    names.add(q.name);
  });
  if (d.workload.kind === 'queries' && d.workload.queries.length === 0) problems.push('design.workload.queries: expected at least 1 query');
  if (d.workload.kind === 'command' && !d.workload.command) problems.push('design.workload.command: required when the workload kind is "command"');
  if (d.workload.warmup >= d.workload.repetitions) {
    problems.push(`design.workload.warmup: ${d.workload.warmup} warm-up executions leave none of ${d.workload.repetitions} repetitions to measure`);
  }
  if (d.workload.command?.parser === 'regex') {
    try {
      new RegExp(d.workload.command.regex ?? '');
    } catch (e) {
      problems.push(`design.workload.command.regex: ${(e as Error).message}`);
    }
  }
  return problems;
}

export interface Checked {
  doc: ExperimentDoc | null;
  problems: string[];
  notices: string[];
}

/** Migrate and validate; `doc` is null when there are problems. */
export function checkExperiment(input: unknown): Checked {
  const m = migrate(input);
  if (m.problem) return { doc: null, problems: [m.problem], notices: m.notices };
  if (!check(m.doc)) {
    const seen = new Set<string>();
    const problems = (check.errors ?? []).map(describe).filter((p) => !seen.has(p) && seen.add(p));
    return { doc: null, problems, notices: m.notices };
  }
  const doc = m.doc as unknown as ExperimentDoc;
  const problems = semanticProblems(doc);
  return { doc: problems.length ? null : doc, problems, notices: m.notices };
}

/** Parse text as an experiment; a JSON syntax error names the line and column. */
export function parseExperiment(text: string): Checked {
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
  return checkExperiment(json);
}

/** What must be true before a document is written: valid, and no secret in it. */
export function problemsBeforeSave(doc: unknown): string[] {
  const secrets = findSecrets(doc);
  if (secrets.length) return [secretsMessage(secrets)];
  return checkExperiment(doc).problems;
}
