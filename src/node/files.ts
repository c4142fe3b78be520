// Experiment files on disk: read (migrate, validate), write atomically, remember recent ones.
// readExperimentFile and writeExperimentFile are the one way an experiment file is read and written
// (the app, the engine, the CLI): each reads or writes the file once, in pieces (common/experiment/text.ts).
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { checkExperiment, parseExperiment, problemsBeforeSave, type Checked } from '../common/experiment/validate.js';
import { ExperimentJsonReader, experimentText, NotJson } from '../common/experiment/text.js';
import type { ExperimentDoc } from '../common/experiment/types.js';
import { ApiError } from '../common/api.js';
import { DEFAULT_LIMITS, type ExperimentLimits } from '../common/experiment/limits.js';
import { writeAtomic } from './atomic-write.js';
import { readJsonFile, updateJsonFile } from './json-file.js';

export { removeStaleTemporaries, writeAtomic } from './atomic-write.js';

/** Where varlab keeps its own state (recent files, known hosts, server profiles). VARLAB_HOME overrides it. */
export function varlabHome(): string {
  return process.env.VARLAB_HOME ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'varlab');
}

/**
 * The size limits experiment files are checked against: the defaults, or what the user raised them to
 * with VARLAB_MAX_CELLS and VARLAB_MAX_RESTARTS (the CLI's --max-cells and --max-restarts set these).
 */
export function experimentLimits(): { limits: ExperimentLimits; problem?: string } {
  const limits = { ...DEFAULT_LIMITS };
  for (const [name, key] of [['VARLAB_MAX_CELLS', 'maxCells'], ['VARLAB_MAX_RESTARTS', 'maxRestarts']] as const) {
    const raw = process.env[name];
    if (raw === undefined || raw === '') continue;
    if (!/^[1-9][0-9]{0,14}$/.test(raw.trim())) return { limits, problem: `${name}: expected a whole number of at least 1, got ${JSON.stringify(raw)}` };
    limits[key] = Number(raw);
  }
  return { limits };
}

/** Check a parsed document against the user's limits. */
function checkWithLimits(check: (limits: ExperimentLimits) => Checked): Checked {
  const { limits, problem } = experimentLimits();
  return problem ? { doc: null, problems: [problem], notices: [] } : check(limits);
}

/** Parse text the UI holds (a dropped file) as an experiment, against the user's limits. */
export function parseExperimentText(text: string): Checked {
  return checkWithLimits((limits) => parseExperiment(text, limits));
}

/** Why a file could not be read, in words. */
export function whyCannotRead(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  return err.code === 'ENOENT' ? 'no such file' : err.code === 'EACCES' ? 'permission denied' : err.code === 'EISDIR' ? 'a folder, not a file' : err.message;
}

const cannotRead = (path: string, e: unknown): Checked => ({ doc: null, problems: [`cannot read ${path}: ${whyCannotRead(e)}`], notices: [] });

/** A file's revision: the sha256 of its bytes (hex). */
export type Revision = string;

/**
 * Read, migrate and validate an experiment file: one pass over its bytes, never one string of all of
 * it. `revision` is the hash of the bytes read (set whenever the file could be read whole).
 */
export async function readExperimentFile(path: string): Promise<Checked & { revision?: Revision }> {
  const reader = new ExperimentJsonReader();
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      reader.push(chunk as Buffer);
    }
  } catch (e) {
    if (!(e instanceof NotJson)) return cannotRead(path, e);
    return finishExperimentRead(path, null);
  }
  return { ...(await finishExperimentRead(path, reader)), revision: hash.digest('hex') };
}

/**
 * The checked experiment from a reader fed the whole file, or null when the bytes were not JSON: then
 * the file is read again whole, only to say at which line and column.
 */
export async function finishExperimentRead(path: string, reader: ExperimentJsonReader | null): Promise<Checked> {
  if (reader) {
    try {
      const json = reader.end();
      return checkWithLimits((limits) => checkExperiment(json, limits));
    } catch (e) {
      if (!(e instanceof NotJson)) throw e;
    }
  }
  try {
    const text = await readFile(path, 'utf8');
    return parseExperimentText(text);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_STRING_TOO_LONG') return { doc: null, problems: ['(document): not valid JSON'], notices: [] };
    return cannotRead(path, e);
  }
}

/** Write an experiment file atomically, in pieces (see experimentText): the one writer of experiment files. Returns the new revision. */
export async function writeExperimentFile(path: string, doc: ExperimentDoc): Promise<Revision> {
  const hash = createHash('sha256');
  let revision = '';
  // Read back before the rename: the bytes on disk must be the text written, byte for byte (a
  // stronger check than a parse, which the serialiser's text passes by construction).
  const check = async (tmp: string) => {
    revision = hash.digest('hex');
    const onDisk = await fileDigest(tmp);
    if (onDisk !== revision) throw new Error('the file read back differs from what was written');
  };
  await writeAtomic(path, hashed(experimentText(doc), hash), { check });
  return revision;
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

function* hashed(pieces: Iterable<string>, hash: ReturnType<typeof createHash>): Iterable<string> {
  for (const piece of pieces) {
    hash.update(piece, 'utf8');
    yield piece;
  }
}

/** What a document must pass before it is written (schema, rules, limits, no secrets): throws ApiError naming the problem. */
export function assertSavable(doc: ExperimentDoc): void {
  const { limits, problem } = experimentLimits();
  const problems = problem ? [problem] : problemsBeforeSave(doc, limits);
  if (problems.length) {
    const code = problems[0].startsWith('refused to save') ? 'secret-in-file' : 'invalid-file';
    throw new ApiError(code, problems.join('\n'));
  }
}

/** Validate (refusing secrets), then write atomically. Throws ApiError with a message naming the problem. */
export async function saveExperimentFile(path: string, doc: ExperimentDoc): Promise<string> {
  const abs = resolve(path);
  assertSavable(doc);
  try {
    await writeExperimentFile(abs, doc);
  } catch (e) {
    throw new ApiError('io', `cannot write ${abs}: ${(e as Error).message}`);
  }
  await rememberRecent(abs);
  return abs;
}

const RECENT_MAX = 10;
const recentPath = () => join(varlabHome(), 'recent.json');

const paths = (data: unknown): string[] => (Array.isArray(data) ? data.filter((x): x is string => typeof x === 'string') : []);

export function recentFiles(): Promise<string[]> {
  return readJsonFile(recentPath(), paths);
}

export function rememberRecent(path: string): Promise<void> {
  return updateJsonFile(recentPath(), paths, (list) => [path, ...list.filter((p) => p !== path)].slice(0, RECENT_MAX));
}

export async function writeFileIfAbsent(path: string, content: string): Promise<void> {
  await writeFile(path, content, { flag: 'wx' });
}
