// A file shorter than its journal: the run's last save did not reach the disk (the disk was full, the
// process was killed between two saves) while the journal, written first, holds more. The journal is
// the truth, so the file's results are rebuilt from it, on the next `run` of the file or when it is
// opened. Only when the journal is this file's: every restart in the file is in the journal with the
// same cell, and the factors and the workload are the journal's. A run of what the file missed (run
// --missing) journals its own restarts alone: they are rebuilt as its part, the earlier runs kept.
import { resolve } from 'node:path';
import { canonicalJson } from '../../common/experiment/changes.js';
import type { Design, ExperimentDoc } from '../../common/experiment/types.js';
import { designHosts } from '../../common/plan.js';
import { resultsFromJournal, type JournalState } from '../../common/records.js';
import { grownResults } from '../../common/experiment/carry.js';
import { journalPath, readJournal } from '../engine/journal.js';
import { readExperimentFile, writeExperimentFile } from '../files.js';

const sameExperiment = (a: Design, b: Design) => canonicalJson([a.factors, a.workload]) === canonicalJson([b.factors, b.workload]);

/** Rebuild the file's results from its journal when the journal holds more; says what it did, or null. */
export async function rebuildFromJournal(path: string): Promise<string | null> {
  const abs = resolve(path);
  const state = readJournal(journalPath(abs));
  if (!state?.header) return null;
  const file = await readExperimentFile(abs).catch(() => null);
  const doc = file?.doc;
  // A run on several hosts keeps a journal per host, and the file holds them all: not rebuilt from one.
  if (!doc || designHosts(doc.design).length > 1 || state.restarts.some((r) => r.host)) return null;
  const held = doc.results?.restarts ?? [];
  if (state.header.grows) return rebuildGrown(abs, doc, state);
  if (state.restarts.length < held.length) return null;
  // As many restarts, but the journal knows more of them: a record that comes after a restart's end
  // (its host noise, read at the next call) reached the journal, the last save did not.
  const ended = state.lastState !== undefined;
  const fromJournal = resultsFromJournal(state, ended ? 'interrupted before it finished' : 'interrupted before it finished; run again');
  if (state.restarts.length === held.length && canonicalJson(held) === canonicalJson(fromJournal.restarts)) return null;
  const journal = new Map(state.restarts.map((r) => [r.seq, r.cell]));
  if (held.some((r) => journal.get(r.seq) !== r.cell)) return null;
  // The overrides the run wrote into the design (restarts, repetitions) are the journal's; the file keeps its own profile.
  const design: Design = { ...state.header.design };
  if (doc.design.serverProfile) design.serverProfile = doc.design.serverProfile;
  else delete design.serverProfile;
  if (!sameExperiment({ ...doc.design, workload: { ...doc.design.workload, repetitions: design.workload.repetitions, warmup: design.workload.warmup } }, design)) return null;
  const rebuilt: ExperimentDoc = { ...doc, design, results: fromJournal };
  await writeExperimentFile(abs, rebuilt);
  const what = held.length < state.restarts.length ? `held ${held.length} of the ${state.restarts.length} restarts its journal has` : `held its ${held.length} restarts without all their journal has of them`;
  return `${abs} ${what} (its last save did not reach the disk): rebuilt from ${journalPath(abs)}`;
}

/**
 * A run of what the file missed (run --missing) journals that run alone, as part N: the file holds
 * the earlier runs and what of this one its last save took, each seq after the earlier runs' last.
 * The file's design stays (the run's leaves out the complete cells); this part is rebuilt from the
 * journal, the other parts kept as they are (grownResults, as every save of the run does).
 */
async function rebuildGrown(abs: string, doc: ExperimentDoc, state: JournalState): Promise<string | null> {
  const part = state.header!.grows!.part;
  const held = doc.results?.restarts ?? [];
  const earlier = held.filter((r) => (r.part ?? 1) !== part);
  const mine = held.filter((r) => (r.part ?? 1) === part);
  if (state.restarts.length <= mine.length) return null;
  const offset = Math.max(0, ...earlier.map((r) => r.seq));
  const journal = new Map(state.restarts.map((r) => [r.seq + offset, r.cell]));
  if (mine.some((r) => journal.get(r.seq) !== r.cell) || !sameExperiment(doc.design, state.header!.design)) return null;
  const ended = state.lastState !== undefined;
  const run = resultsFromJournal(state, ended ? 'interrupted before it finished' : 'interrupted before it finished; run again');
  await writeExperimentFile(abs, { ...doc, results: grownResults(doc.results, run, part) });
  return `${abs} held ${mine.length} of the ${state.restarts.length} restarts its journal has of the run of what it missed (run ${part}; its last save did not reach the disk): rebuilt from ${journalPath(abs)}, its ${earlier.length} earlier restarts kept`;
}

/** What a run says when its results reached the journal but not the file (a full disk at the save). */
export function resultsNotSaved(journal: string, path: string, e: unknown): string {
  return `results are safe in ${journal}, but ${path} could not be written (the next run or open rebuilds it from there): ${(e as Error).message}`;
}
