// A file shorter than its journal: the run's last save did not reach the disk (the disk was full, the
// process was killed between two saves) while the journal, written first, holds more. The journal is
// the truth, so the file's results are rebuilt from it, on the next `run` of the file or when it is
// opened. Only when the journal is this file's: every restart in the file is in the journal with the
// same cell, and the factors and the workload are the journal's. A run of what the file missed (run
// --missing) journals its own restarts alone: they are rebuilt as its part, the earlier runs kept.
// A design on several hosts has a journal per host, and its file every host's restarts, each with its
// host: each host's are compared with its own journal, and the file rebuilt from them all.
import { resolve } from 'node:path';
import { canonicalJson } from '../../common/experiment/changes.js';
import type { Design, ExperimentDoc, RestartResult, Results } from '../../common/experiment/types.js';
import { designHosts } from '../../common/plan.js';
import { resultsFromJournal, severalHostsResults, type JournalState } from '../../common/records.js';
import { grownResults } from '../../common/experiment/carry.js';
import { readJournal, runJournals } from '../engine/journal.js';
import { readExperimentFile, writeExperimentFile } from '../files.js';

const sameExperiment = (a: Design, b: Design) => canonicalJson([a.factors, a.workload]) === canonicalJson([b.factors, b.workload]);

/** A host's journal that holds a run (its header). */
interface HostJournal {
  host: string;
  path: string;
  state: JournalState;
}

const fromJournal = (state: JournalState) => resultsFromJournal(state, state.lastState !== undefined ? 'interrupted before it finished' : 'interrupted before it finished; run again');

/** Rebuild the file's results from its journals when they hold more; says what it did, or null. */
export async function rebuildFromJournal(path: string): Promise<string | null> {
  const abs = resolve(path);
  const file = await readExperimentFile(abs).catch(() => null);
  const doc = file?.doc;
  if (!doc) return null;
  const several = designHosts(doc.design).length > 1;
  const journals: HostJournal[] = runJournals(abs, doc.design).flatMap((j) => {
    const state = readJournal(j.path);
    return state?.header ? [{ ...j, state }] : [];
  });
  // A one-host journal with hosts in it is not this file's.
  if (!journals.length || (!several && journals[0].state.restarts.some((r) => r.host))) return null;
  // After a run of what the file missed, a host that missed nothing keeps the earlier run's journal: the latest part is rebuilt.
  const grown = journals.filter((j) => j.state.header!.grows);
  if (grown.length) {
    const part = Math.max(...grown.map((j) => j.state.header!.grows!.part));
    return rebuildGrown(abs, doc, grown.filter((j) => j.state.header!.grows!.part === part), part, several);
  }
  const held = doc.results?.restarts ?? [];
  // Each host's restarts in the file beside its journal's; the file's host is what says whose they are.
  const heldOf = (host: string) => (several ? held.filter((r) => r.host === host).map(({ host: _h, ...r }) => r) : held);
  if (several && held.some((r) => !r.host || !journals.some((j) => j.host === r.host))) return null;
  let more = false;
  for (const j of journals) {
    const mine = heldOf(j.host);
    if (j.state.restarts.length < mine.length) return null;
    const journal = new Map(j.state.restarts.map((r) => [r.seq, r.cell]));
    if (mine.some((r) => journal.get(r.seq) !== r.cell)) return null;
    // As many restarts, but the journal knows more of them: a record that comes after a restart's end
    // (its host noise, read at the next call) reached the journal, the last save did not.
    if (j.state.restarts.length > mine.length || canonicalJson(mine) !== canonicalJson(fromJournal(j.state).restarts)) more = true;
  }
  if (!more) return null;
  // The overrides the run wrote into the design (restarts, repetitions) are the journal's; the file keeps
  // its own profile, and on several hosts its hosts and seed (each host's journal has its own).
  const header = journals[0].state.header!.design;
  const design: Design = several ? { ...header, target: doc.design.target, targets: doc.design.targets, seed: doc.design.seed } : { ...header };
  if (doc.design.serverProfile) design.serverProfile = doc.design.serverProfile;
  else delete design.serverProfile;
  if (!sameExperiment({ ...doc.design, workload: { ...doc.design.workload, repetitions: design.workload.repetitions, warmup: design.workload.warmup } }, design)) return null;
  const results = several ? severalHostsResults(journals.map((j) => ({ host: j.host, results: fromJournal(j.state) }))) : fromJournal(journals[0].state);
  await writeExperimentFile(abs, { ...doc, design, results });
  const had = journals.reduce((n, j) => n + j.state.restarts.length, 0);
  const what = held.length < had ? `held ${held.length} of the ${had} restarts its journal${journals.length > 1 ? 's have' : ' has'}` : `held its ${held.length} restarts without all their journal${journals.length > 1 ? 's have' : ' has'} of them`;
  return `${abs} ${what} (its last save did not reach the disk): rebuilt from ${journals.map((j) => j.path).join(', ')}`;
}

/**
 * A run of what the file missed (run --missing) journals that run alone, as part N: the file holds
 * the earlier runs and what of this one its last save took, each seq after the earlier runs' last
 * (of its host, on several hosts). The file's design stays (the run's leaves out the complete cells);
 * this part is rebuilt from the journals of the hosts it ran on, the other parts kept as they are
 * (grownResults, as every save of the run does).
 */
async function rebuildGrown(abs: string, doc: ExperimentDoc, journals: HostJournal[], part: number, several: boolean): Promise<string | null> {
  const held = doc.results?.restarts ?? [];
  const earlier = held.filter((r) => (r.part ?? 1) !== part);
  const mine = held.filter((r) => (r.part ?? 1) === part);
  const ofHost = (rs: RestartResult[], host: string) => (several ? rs.filter((r) => r.host === host) : rs);
  // Every restart of this part in the file is of a host that journaled it.
  if (several && mine.some((r) => !journals.some((j) => j.host === r.host))) return null;
  for (const j of journals) {
    const offset = Math.max(0, ...ofHost(earlier, j.host).map((r) => r.seq));
    const journal = new Map(j.state.restarts.map((r) => [r.seq + offset, r.cell]));
    if (ofHost(mine, j.host).some((r) => journal.get(r.seq) !== r.cell) || !sameExperiment(doc.design, j.state.header!.design)) return null;
  }
  const had = journals.reduce((n, j) => n + j.state.restarts.length, 0);
  if (had <= mine.length) return null;
  const run: Results = several ? severalHostsResults(journals.map((j) => ({ host: j.host, results: fromJournal(j.state) }))) : fromJournal(journals[0].state);
  await writeExperimentFile(abs, { ...doc, results: grownResults(doc.results, run, part) });
  return `${abs} held ${mine.length} of the ${had} restarts its journal${journals.length > 1 ? 's have' : ' has'} of the run of what it missed (run ${part}; its last save did not reach the disk): rebuilt from ${journals.map((j) => j.path).join(', ')}, its ${earlier.length} earlier restarts kept`;
}

/** What a run says when its results reached the journal but not the file (a full disk at the save). */
export function resultsNotSaved(journal: string, path: string, e: unknown): string {
  return `results are safe in ${journal}, but ${path} could not be written (the next run or open rebuilds it from there): ${(e as Error).message}`;
}
