// Before a run: the experiment as it will run (overrides written into its design, the server
// profile resolved) and what the journal beside the output says (fresh start or resume).
// Shared by `varlab run` and the `run.start` API so both decide the same way.
import { copyFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiError } from '../../common/api.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { buildPlan } from '../../common/plan.js';
import { readExperimentFile } from '../files.js';
import { isComplete } from '../../common/records.js';
import { archiveJournal, inspectJournal, journalPath, readJournal } from './journal.js';
import { registeredProfile } from './profiles.js';

export interface RunRequest {
  file: string;
  out?: string;
  target?: string;
  restarts?: number;
  repetitions?: number;
  warmup?: number;
  /** false: an unfinished journal is moved aside and the run starts over. Default: resume it. */
  resume?: boolean;
  /** A finished run is only run again when the user says so: its journal is archived and the file copied aside first. */
  fresh?: boolean;
  /** Only say what would happen: nothing is archived or copied. */
  dryRun?: boolean;
}

export interface PreparedRun {
  doc: ExperimentDoc;
  /** Absolute path the results are saved into. */
  out: string;
  /** Set when an unfinished run is resumed: what the user is told. */
  resumeNote?: string;
  /** Set when a finished run was put aside for a fresh one (--fresh): where its results are kept. */
  freshNote?: string;
}

/** A run of this file that already finished: nothing to do unless the user asks for a fresh run. */
export interface FinishedRun {
  done: number;
  planned: number;
  /** Where the current results are kept (a copy of the experiment file) if the user runs it again from scratch. */
  keepResultsAs: string;
  /** The finished journal, archived on a fresh run. */
  journal: string | null;
}

/** `<name>.results-<when it finished>.varlab.json` beside the file: the same name every time it is asked for. */
function resultsCopyPath(out: string, finishedAt: number): string {
  const stamp = new Date(finishedAt).toISOString().replace(/[:.]/g, '-');
  const base = out.replace(/\.varlab\.json$/i, '').replace(/\.json$/i, '');
  return `${base}.results-${stamp}.varlab.json`;
}

/**
 * Has the run of this file finished (its journal says every planned restart is done, or with no
 * journal the file itself holds results)? Reads only; used before anything is asked or touched.
 */
export async function finishedRun(file: string, out?: string): Promise<FinishedRun | null> {
  const target = resolve(out ?? file);
  const journal = journalPath(target);
  const state = readJournal(journal);
  if (state?.header) {
    if (!isComplete(state)) return null;
    return { done: state.restarts.length, planned: state.header.planned, keepResultsAs: resultsCopyPath(target, state.finishedAt ?? state.startedAt ?? Date.now()), journal };
  }
  if (!existsSync(target)) return null;
  const r = await readExperimentFile(target).catch(() => null);
  const results = r?.doc?.results;
  if (!results?.restarts.length) return null;
  const planned = r?.doc ? buildPlan(r.doc.design).length : results.restarts.length;
  return { done: results.restarts.length, planned, keepResultsAs: resultsCopyPath(target, results.finishedAt ?? results.startedAt ?? Date.now()), journal: null };
}

/** What the user is told when a finished file is run again without --fresh. */
export function finishedMessage(file: string, f: FinishedRun): string {
  return `${file}: already finished (${f.done} of ${f.planned} restarts); nothing to run. To run it again from scratch, pass --fresh (the current results are kept in ${f.keepResultsAs})`;
}

export async function prepareRun(req: RunRequest): Promise<PreparedRun> {
  // Never throw away a finished run's results by running it again unasked.
  const finished = await finishedRun(req.file, req.out);
  if (finished && !req.fresh) throw new ApiError('already-finished', finishedMessage(req.file, finished));
  const r = await readExperimentFile(req.file);
  if (!r.doc) throw new ApiError('invalid-file', r.problems.map((p) => `${req.file}: ${p}`).join('\n'));
  const doc: ExperimentDoc = structuredClone(r.doc);
  const d = doc.design;
  if (req.target) d.target = req.target;
  if (req.restarts !== undefined) d.restartsPerCell = req.restarts;
  if (req.repetitions !== undefined) d.workload.repetitions = req.repetitions;
  if (req.warmup !== undefined) d.workload.warmup = req.warmup;
  if (d.workload.warmup >= d.workload.repetitions) {
    throw new ApiError('invalid-argument', `warm-up (${d.workload.warmup}) must be fewer than the repetitions (${d.workload.repetitions}): no measured execution would be left`);
  }
  const overridden = req.restarts !== undefined || req.repetitions !== undefined || req.warmup !== undefined;
  const out = resolve(req.out ?? req.file);
  let freshNote: string | undefined;
  if (finished && req.dryRun) {
    freshNote = `would start from scratch; the results of the finished run would be kept in ${finished.keepResultsAs}`;
  } else if (finished) {
    // Keep what the user had: a copy of the experiment file with its results, and the journal archived.
    let copy = finished.keepResultsAs;
    for (let i = 2; existsSync(copy); i++) copy = finished.keepResultsAs.replace(/\.varlab\.json$/, `-${i}.varlab.json`);
    if (existsSync(out)) copyFileSync(out, copy);
    const archived = finished.journal && existsSync(finished.journal) ? archiveJournal(finished.journal) : null;
    freshNote = `starting from scratch; the results of the finished run are kept in ${copy}${archived ? ` (its journal in ${archived})` : ''}`;
  }
  // This run's results replace any in the file (earlier ones stay in their archived journal).
  delete doc.results;

  let verdict = inspectJournal(out, d);
  if (req.resume === false && (verdict.kind === 'resume' || verdict.kind === 'other-plan')) {
    archiveJournal(journalPath(out));
    verdict = { kind: 'fresh' };
  }
  let resumeNote: string | undefined;
  if (verdict.kind === 'other-plan') {
    const header = verdict.state.header!;
    if (overridden) {
      throw new ApiError(
        'busy',
        `${journalPath(out)} holds an unfinished run of a different plan (${verdict.state.restarts.length} of ${header.planned} restarts done). ` +
          'Run again without --restarts/--repetitions/--warmup to resume it, or move the journal away to start over.',
      );
    }
    // The file was edited (or the overrides were not saved into it): resume the design the journal started.
    doc.design = { ...header.design, target: d.target, serverProfile: d.serverProfile ?? header.design.serverProfile, idleSeconds: d.idleSeconds };
    resumeNote = `resuming ${out}: ${verdict.state.restarts.length} of ${header.planned} restarts already done (journal ${journalPath(out)})`;
  } else if (verdict.kind === 'resume') {
    resumeNote = `resuming ${out}: ${verdict.done} of ${verdict.planned} restarts already done (journal ${journalPath(out)})`;
  }

  const profile = doc.design.serverProfile ?? (await registeredProfile(doc.design.target));
  if (!profile) {
    throw new ApiError('not-found', `no server profile for ${doc.design.target}: the file has none and none is registered for that target. Make a sandbox or register a server in the Hosts view, or run: varlab sandbox create ${doc.design.target}`);
  }
  doc.design.serverProfile = profile;
  return { doc, out, ...(resumeNote ? { resumeNote } : {}), ...(freshNote ? { freshNote } : {}) };
}
