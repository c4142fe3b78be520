// Pure helpers about the open experiment document: a blank experiment, where Save As suggests
// writing it, and what the title bar calls it.
import { CURRENT_VERSION, FORMAT, type ExperimentDoc } from '../../common/experiment/types.js';

/** A new experiment's name until the user gives one (or Save As takes the file's). */
export const UNTITLED = 'Untitled experiment';

/** `/x/ab.varlab.json` → `ab`: the name Save As gives an untitled experiment. */
export function nameFromPath(path: string): string {
  return baseName(path).replace(/(\.varlab)?\.json$/i, '') || UNTITLED;
}

/** A new experiment: one factor and one query, so the grid and the plan show something at once. */
export function blankExperiment(): ExperimentDoc {
  return {
    format: FORMAT,
    version: CURRENT_VERSION,
    name: UNTITLED,
    design: {
      factors: [{ tunable: 'aslr', levels: ['on', 'off'] }],
      excludedCells: [],
      restartsPerCell: 5,
      workload: {
        kind: 'queries',
        database: 'varlab_bench',
        setupSql: '',
        queries: [{ name: 'Q1', sql: 'SELECT 1' }],
        repetitions: 10,
        warmup: 2,
      },
      order: 'random',
      seed: newSeed(),
      idleSeconds: 2,
      estimates: { restartSeconds: 8, executionMs: 50 },
      target: 'local',
    },
  };
}

/** A fresh seed for the random order, within the schema's range (an unsigned 32-bit integer). */
export function newSeed(random: () => number = Math.random): number {
  return Math.floor(random() * 0xffffffff);
}

/** `My test: AHI` → `my-test-ahi`: a file name that needs no quoting anywhere. */
export function fileSlug(name: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return slug || 'experiment';
}

/** Where Save As suggests writing: beside the current file, else in `folder` (varlab's experiments folder, AppInfo.documents). */
export function suggestedPath(doc: Pick<ExperimentDoc, 'name'>, currentPath: string | null, folder: string): string {
  if (currentPath) return currentPath;
  const sep = folder.includes('\\') && !folder.includes('/') ? '\\' : '/';
  return `${folder.replace(/[\\/]+$/, '')}${sep}${fileSlug(doc.name)}.varlab.json`;
}

/** The last part of a path, for recent lists and the title. */
export function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

/** Compare documents by content: undoing back to the saved version makes it clean again. */
export function docKey(doc: ExperimentDoc | null): string | null {
  return doc ? JSON.stringify(doc) : null;
}
