// Before a run: the experiment as it will run (overrides written into its design, the server
// profile resolved) and what the journal beside the output says (fresh start or resume).
// Shared by `varlab run` and the `run.start` API so both decide the same way.
import { resolve } from 'node:path';
import { ApiError } from '../../common/api.js';
import type { ExperimentDoc } from '../../common/experiment/types.js';
import { readExperimentFile } from '../files.js';
import { archiveJournal, journalPath } from './journal.js';
import { registeredProfile } from './profiles.js';
import { inspectJournal } from './run.js';

export interface RunRequest {
  file: string;
  out?: string;
  target?: string;
  restarts?: number;
  repetitions?: number;
  warmup?: number;
  /** false: an unfinished journal is moved aside and the run starts over. Default: resume it. */
  resume?: boolean;
}

export interface PreparedRun {
  doc: ExperimentDoc;
  /** Absolute path the results are saved into. */
  out: string;
  /** Set when an unfinished run is resumed: what the user is told. */
  resumeNote?: string;
}

export async function prepareRun(req: RunRequest): Promise<PreparedRun> {
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
    throw new ApiError('not-found', `no server profile for ${doc.design.target}: the file has none and none is registered for that target. Make one with: varlab sandbox create ${doc.design.target}`);
  }
  doc.design.serverProfile = profile;
  return { doc, out, ...(resumeNote ? { resumeNote } : {}) };
}
