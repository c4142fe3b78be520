// Older experiment files are brought up to the current version on open; each step is one function.
import { CURRENT_VERSION, FORMAT } from './types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Version 1 (the first drafts) kept the order and seed together and called restarts `restarts`. */
function v1to2(doc: Json): { doc: Json; notice: string } {
  const design = { ...(doc.design ?? {}) };
  if (design.order && typeof design.order === 'object') {
    design.seed = design.order.seed ?? 1;
    design.order = design.order.kind;
  }
  if (design.restarts !== undefined && design.restartsPerCell === undefined) {
    design.restartsPerCell = design.restarts;
    delete design.restarts;
  }
  design.excludedCells ??= [];
  design.idleSeconds ??= 0;
  design.estimates ??= { restartSeconds: 30, executionMs: 100 };
  return { doc: { ...doc, version: 2, design }, notice: 'migrated from version 1: order and seed are now separate fields' };
}

/**
 * Version 3: a server profile saved in a file names the target it belongs to, and is never used to
 * run on another. A version 2 profile was the one of the file's target.
 */
function v2to3(doc: Json): { doc: Json; notice: string } {
  const design = { ...(doc.design ?? {}) };
  const p = design.serverProfile;
  if (!p || typeof p !== 'object' || p.target !== undefined) return { doc: { ...doc, version: 3, design }, notice: '' };
  design.serverProfile = { target: design.target, ...p };
  return { doc: { ...doc, version: 3, design }, notice: `migrated from version 2: the server profile is now kept for its target (${String(design.target)}) only` };
}

const STEPS: Record<number, (doc: Json) => { doc: Json; notice: string }> = { 1: v1to2, 2: v2to3 };

export interface Migrated {
  doc: unknown;
  notices: string[];
  /** Set when the document cannot be migrated; names the field and the problem. */
  problem?: string;
}

export function migrate(input: unknown): Migrated {
  if (!input || typeof input !== 'object' || Array.isArray(input)) return { doc: input, notices: [], problem: '(document): expected a JSON object' };
  let doc = input as Json;
  if (doc.format !== FORMAT) return { doc, notices: [], problem: `format: expected "${FORMAT}", found ${JSON.stringify(doc.format)}` };
  if (!Number.isInteger(doc.version)) return { doc, notices: [], problem: 'version: expected an integer' };
  if (doc.version > CURRENT_VERSION) {
    return { doc, notices: [], problem: `version: this file is version ${doc.version}, written by a newer varlab; this one reads up to version ${CURRENT_VERSION}` };
  }
  const notices: string[] = [];
  while (doc.version < CURRENT_VERSION) {
    const step = STEPS[doc.version];
    if (!step) return { doc, notices, problem: `version: no migration from version ${doc.version}` };
    const r = step(doc);
    doc = r.doc;
    if (r.notice) notices.push(r.notice);
  }
  return { doc, notices };
}
