// Where the results of an experiment go when the user chooses to start its file afresh (a design
// edit, a run from scratch): a copy of the file as it is on disk, beside it, named after when its
// results were measured, and the journal of that run archived beside the journal.
import { copyFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import type { Design } from '../../common/experiment/types.js';
import { archiveJournal, journalPath, runJournals } from '../engine/journal.js';

/** `<name>.results-<when it finished>.varlab.json` beside the file: the same name every time it is asked for. */
export function resultsCopyPath(path: string, finishedAt: number): string {
  const stamp = new Date(finishedAt).toISOString().replace(/[:.]/g, '-');
  const base = path.replace(/\.varlab\.json$/i, '').replace(/\.json$/i, '');
  return `${base}.results-${stamp}.varlab.json`;
}

/** The first of `wanted`, `wanted-2`, `wanted-3`… that does not exist yet. */
export function unusedPath(wanted: string): string {
  let p = wanted;
  for (let i = 2; existsSync(p); i++) p = wanted.replace(/\.varlab\.json$/, `-${i}.varlab.json`);
  return p;
}

export interface KeptResults {
  /** The copy of the file with its results (null when there was no file to copy). */
  copy: string | null;
  /** The journal, archived (null when there was none). */
  journal: string | null;
}

/**
 * Copy the file aside (results and all) and archive its journal (each host's, for a design run on
 * several: `hosts`), before the file is started afresh.
 */
export async function keepResults(path: string, copyAs: string, hosts?: Pick<Design, 'target' | 'targets'>): Promise<KeptResults> {
  let copy: string | null = null;
  if (existsSync(path)) {
    copy = unusedPath(copyAs);
    await copyFile(path, copy);
  }
  const journals = [journalPath(path), ...(hosts ? runJournals(path, hosts).map((j) => j.path) : [])];
  const archived = [...new Set(journals)].filter((j) => existsSync(j)).map((j) => archiveJournal(j));
  return { copy, journal: archived.length ? archived.join(', ') : null };
}

/** What the user is told about where the results went. */
export function keptResultsNote(k: KeptResults, of = 'the file'): string {
  if (!k.copy && !k.journal) return 'there were no results to keep';
  return `the results of ${of} are kept in ${k.copy ?? '(no file)'}${k.journal ? ` (its journal in ${k.journal})` : ''}`;
}
