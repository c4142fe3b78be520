// Before a run: the experiment as it will run (overrides written into its design, the target and
// server profile resolved), what the file keeps during the run, and what the journal beside it says
// (a fresh start, a resume, a run that finished, or an unfinished run of another design).
//
// prepareRun only reads; what it decides to change on disk (results kept in a copy, a journal
// archived) happens in `commit()`, once the run holds its locks.
import { copyFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiError, type UntilAnswered } from '../../common/api.js';
import { missingRestarts, missingSentence, nextPart, type Missing } from '../../common/experiment/carry.js';
import { designChanges } from '../../common/experiment/changes.js';
import type { Design, ExperimentDoc } from '../../common/experiment/types.js';
import { buildPlan, designHosts, expandCells, hostDesign } from '../../common/plan.js';
import { checkProfile } from '../../common/profile.js';
import { targetProblem } from '../../common/target.js';
import { isComplete, restorePending, type JournalState } from '../../common/records.js';
import { hostResults } from '../../common/stats/planner.js';
import { keepResults, keptResultsNote, resultsCopyPath, unusedPath } from '../documents/results-copy.js';
import { archiveJournal, hostJournalPath, inspectJournal, journalPath, readJournal, runJournals, type JournalVerdict } from '../engine/journal.js';
import { noProfileMessage, resolveProfile, type ResolvedProfile } from '../engine/profiles.js';
import { readExperimentFile } from '../files.js';

export interface RunRequest {
  file: string;
  out?: string;
  target?: string;
  /** Several hosts at once (`--target A --target B`): the same design on each, written into the design as its `targets`. */
  targets?: string[];
  restarts?: number;
  repetitions?: number;
  warmup?: number;
  /** Start over: a finished or unfinished run's results are kept in a copy of the file and its journal archived. */
  fresh?: boolean;
  /** Go on with the unfinished journal's design although the file's design changed. */
  resume?: boolean;
  /** Run only what the file's results miss (cells added to a finished design, or more restarts per cell), keeping them. */
  missing?: boolean;
  /** Stop when answered (`--until-answered`): written into the design as its `stopping`, with what the file's stopping leaves unsaid. */
  untilAnswered?: UntilAnswered | false;
  /** The run is to go on on its target by itself (`--detach`); with a stopping rule, the follower takes the looks (attach.ts). */
  detach?: boolean;
}

export interface PreparedRun {
  /** The experiment as it runs: overrides applied, target and server profile resolved. */
  doc: ExperimentDoc;
  /** What the file holds while the run saves into it: the design as run, with the file's own server profile (a registered one is not written in). */
  saved: ExperimentDoc;
  /** Absolute path the results are saved into. */
  out: string;
  profileFrom: 'registered' | 'file';
  /** Whose design runs: the file's, or (resuming an unfinished run of another design) its journal's, which consent treats as a design of its own. */
  designFrom: 'file' | 'journal';
  verdict: JournalVerdict['kind'];
  /** Said before the run starts: resuming, starting over, where earlier results are kept. */
  notes: string[];
  /** Make the decisions on disk (keep results, archive a journal, keep an edited file). Returns what to tell the user. */
  commit(): Promise<string[]>;
  /** Set when the design runs on several hosts: each host's own run. */
  hosts?: HostRun[];
  /** A run of what the file misses (run --missing): its restarts join the file's as this part. */
  grows?: { part: number };
  /**
   * The file's results as read (`doc` has none: this run's replace them): a finished run run again from
   * scratch, the file a run --missing grows. The costs its time left starts from, as the estimate said
   * before the run does (stats/planner.ts learnedEstimate).
   */
  measured?: ExperimentDoc['results'];
}

/** What the file's results held for this target before the run (PreparedRun.measured, a host's HostRun.measured): the costs its time left starts from. */
export function measuredBefore(prepared: Pick<PreparedRun, 'measured' | 'hosts'>, target: string): ExperimentDoc['results'] {
  return prepared.hosts ? prepared.hosts.find((h) => h.target === target)?.measured : prepared.measured;
}

/** One host of a design run on several hosts. */
export interface HostRun {
  target: string;
  /** The experiment as this host runs it: its own target, seed (its own order) and server profile. */
  doc: ExperimentDoc;
  journal: string;
  /** Its journal holds a finished run already (the other hosts resume): it is not run again. */
  done: boolean;
  /** What this host measured in the file's results as read (PreparedRun.measured, stats/planner.ts hostResults): the costs its time left starts from. */
  measured?: ExperimentDoc['results'];
}

/** A run of this file that already finished: nothing to do unless the user asks for a fresh run. */
export interface FinishedRun {
  done: number;
  planned: number;
  /** Where the current results are kept (a copy of the experiment file) if the user runs it again from scratch. */
  keepResultsAs: string;
  /** The finished journal, archived on a fresh run. */
  journal: string | null;
  /** Stop when answered: the round each host's run stopped at (the plan's count is then a maximum). */
  stoppedAt?: number[];
}

/**
 * Has the run of this file finished (its journal says every planned restart is done, or with no
 * journal the file itself holds results)? Reads only; used before anything is asked or touched.
 */
export async function finishedRun(file: string, out?: string, hosts?: Pick<Design, 'target' | 'targets'>): Promise<FinishedRun | null> {
  const target = resolve(out ?? file);
  // Several hosts: finished when every host's journal is.
  const journals = hosts ? runJournals(target, hosts).map((j) => j.path) : [journalPath(target)];
  const states = journals.map((j) => readJournal(j));
  if (states.some((s) => s?.header)) {
    if (!states.every((s) => s?.header && isComplete(s) && !restorePending(s))) return null;
    const sum = (f: (s: JournalState) => number) => states.reduce((n, s) => n + f(s!), 0);
    const at = Math.max(...states.map((s) => s!.finishedAt ?? s!.startedAt ?? 0)) || Date.now();
    // The journal of a run of what the file missed (run --missing) holds that run alone: the file counts them all.
    const grown = states.some((s) => s!.header!.grows) ? await readExperimentFile(target).catch(() => null) : null;
    if (grown?.doc?.results) {
      const planned = buildPlan(grown.doc.design).length * designHosts(grown.doc.design).length;
      return { done: grown.doc.results.restarts.length, planned, keepResultsAs: resultsCopyPath(target, at), journal: journals.join(', ') };
    }
    const stoppedAt = states.flatMap((s) => (s!.stopped ? [s!.stopped.round] : []));
    return { done: sum((s) => s.restarts.length), planned: sum((s) => s.header!.planned), keepResultsAs: resultsCopyPath(target, at), journal: journals.join(', '), ...(stoppedAt.length ? { stoppedAt } : {}) };
  }
  if (!existsSync(target)) return null;
  const r = await readExperimentFile(target).catch(() => null);
  const results = r?.doc?.results;
  if (!results?.restarts.length) return null;
  const planned = r?.doc ? buildPlan(r.doc.design).length * designHosts(r.doc.design).length : results.restarts.length;
  return { done: results.restarts.length, planned, keepResultsAs: resultsCopyPath(target, results.finishedAt ?? results.startedAt ?? Date.now()), journal: null };
}

/** Said beside the consent list when the design that runs is not the file's own. */
export function consentNote(p: Pick<PreparedRun, 'designFrom' | 'out'>): string | undefined {
  return p.designFrom === 'journal' ? `the design of the unfinished run in ${journalPath(p.out)}, which differs from the file's: asked about as a design of its own` : undefined;
}

/** What the user is told when a finished file is run again without --fresh. */
export function finishedMessage(file: string, f: FinishedRun, missing: Missing[] = []): string {
  if (missing.length) return `${file}: its run finished, and the design grew since: ${missingSentence(missing).replace('FILE', file)}. To run it all again from scratch, pass --fresh (the current results are kept in ${f.keepResultsAs})`;
  const stopped = f.stoppedAt ? `stopped when answered at round ${f.stoppedAt.join(', ')}: ${f.done} of at most ${f.planned} restarts` : `${f.done} of ${f.planned} restarts`;
  return `${file}: already finished (${stopped}); nothing to run. To run it again from scratch, pass --fresh (the current results are kept in ${f.keepResultsAs})`;
}

/** What differs between an unfinished journal's design and the file's, in what decides the plan (the target, idle time and profile may change on resume). */
export function journalDesignChanges(journalDesign: ExperimentDoc['design'], fileDesign: ExperimentDoc['design']): string[] {
  return designChanges(journalDesign, fileDesign, ['target', 'serverProfile', 'idleSeconds', 'estimates']);
}

const stamp = (at: number) => new Date(at).toISOString().replace(/[:.]/g, '-');

/** The hosts a run goes to: the request's (one: `target` alone; several: `targets`, the first as `target`), else the file's. */
function chooseHosts(d: Design, req: RunRequest): void {
  const wanted = req.targets?.length ? [...new Set(req.targets)] : req.target ? [req.target] : null;
  if (!wanted) return;
  // Held to a file's rules for design.target before anything looks it up or names it in a hint.
  for (const t of wanted) {
    const problem = targetProblem(t);
    if (problem) throw new ApiError('invalid-argument', `target: ${problem}`);
  }
  d.target = wanted[0];
  if (wanted.length > 1) d.targets = wanted;
  else delete d.targets;
}

export async function prepareRun(req: RunRequest): Promise<PreparedRun> {
  const out = resolve(req.out ?? req.file);
  const r = await readExperimentFile(req.file);
  if (!r.doc) throw new ApiError('invalid-file', r.problems.map((p) => `${req.file}: ${p}`).join('\n'));
  const fileProfile = r.doc.design.serverProfile;
  const doc: ExperimentDoc = structuredClone(r.doc);
  const d = doc.design;
  chooseHosts(d, req);
  // Some of a several-host file's hosts with --missing: what those hosts miss, run on them as hosts of
  // the file (their restarts alone count, and the new ones are saved as theirs).
  const fileHosts = designHosts(r.doc.design);
  const only = req.missing && fileHosts.length > 1 && designHosts(d).length < fileHosts.length && designHosts(d).every((h) => fileHosts.includes(h)) ? designHosts(d) : null;
  if (only) {
    d.target = r.doc.design.target;
    d.targets = fileHosts;
  }
  // Never throw away a finished run's results by running it again unasked.
  const finished = await finishedRun(req.file, req.out, d);
  if (finished && !req.fresh && !req.missing) throw new ApiError('already-finished', finishedMessage(req.file, finished, r.doc.results?.stopped?.length ? [] : missingRestarts(d, r.doc.results?.restarts ?? [])));
  if (req.restarts !== undefined) d.restartsPerCell = req.restarts;
  applyStopping(req, d);
  if (req.repetitions !== undefined) d.workload.repetitions = req.repetitions;
  if (req.warmup !== undefined) d.workload.warmup = req.warmup;
  if (d.workload.warmup >= d.workload.repetitions) {
    throw new ApiError('invalid-argument', `warm-up (${d.workload.warmup}) must be fewer than the repetitions (${d.workload.repetitions}): no measured execution would be left`);
  }
  // This run's results replace any in the file (earlier ones are kept in a copy first, or are this run's own on resume).
  delete doc.results;
  // A run of what the file missed, asked (--missing) or left unfinished (it goes on as one).
  const growth = req.missing || (!req.fresh && runJournals(out, d).some((j) => unfinishedGrowth(j.path))) ? missingRun(req.file, r.doc, d, out, only ?? undefined) : undefined;
  if (designHosts(d).length > 1) return prepareHosts(req, r.doc, doc, out, finished, growth);
  const notes: string[] = [];
  let grows: PreparedRun['grows'];
  if (growth) {
    // The run's design: the file's with the complete cells left out, each new one in its own rounds.
    Object.assign(d, growth.hosts.get(d.target));
    grows = { part: growth.part };
    notes.push(growth.note);
  }

  const verdict = inspectJournal(out, d);
  const steps: (() => Promise<string | null>)[] = [];
  let journalProfile: ExperimentDoc['design']['serverProfile'];
  let designFrom: PreparedRun['designFrom'] = 'file';
  if (req.fresh && (finished || verdict.kind === 'resume' || verdict.kind === 'other-plan' || existsSync(out))) {
    const at = finished ? null : verdict.kind === 'resume' || verdict.kind === 'other-plan' ? (verdict.state.startedAt ?? Date.now()) : null;
    const keepAs = finished?.keepResultsAs ?? resultsCopyPath(out, at ?? Date.now());
    const doneBefore = verdict.kind === 'resume' || verdict.kind === 'other-plan' ? verdict.state.restarts.length : 0;
    const hasResults = finished || doneBefore > 0 || (r.doc.results?.restarts.length ?? 0) > 0;
    if (hasResults) {
      const which = finished ? 'the finished run' : 'the unfinished run';
      notes.push(`would start from scratch; the results of ${which} would be kept in ${keepAs}`);
      steps.push(async () => `starting from scratch; ${keptResultsNote(await keepResults(out, keepAs), which)}`);
    } else if (verdict.kind !== 'fresh') {
      // An unfinished run that finished no restart has no results to keep: no copy, its journal archived.
      notes.push(`would start from scratch; the unfinished run finished no restart, so there are no results to keep (its journal would be archived)`);
      steps.push(async () => `starting from scratch; ${noRestartNote(archiveJournals([journalPath(out)]))}`);
    }
  } else if (verdict.kind === 'other-plan') {
    const header = verdict.state.header!;
    const changes = journalDesignChanges(header.design, d);
    if (!req.resume) {
      const done = verdict.state.restarts.length;
      throw new ApiError(
        'design-changed',
        `${req.file}: the design changed since its unfinished run started (${done} of ${header.planned} restarts done): ${changes.join('; ') || 'the plan differs'}. ` +
          `Start over with the new design (the unfinished run's results are kept in a copy and its journal archived), or resume the old design.`,
        { designChanged: { path: out, restartsDone: done, restartsPlanned: header.planned, changes, journal: journalPath(out) } },
      );
    }
    // Resume the design the journal started; the file's edited design is kept beside it.
    journalProfile = header.design.serverProfile;
    designFrom = 'journal';
    doc.design = { ...header.design, target: d.target, idleSeconds: d.idleSeconds, estimates: d.estimates };
    const edited = `${out.replace(/\.varlab\.json$/i, '').replace(/\.json$/i, '')}.edited-${stamp(Date.now())}.varlab.json`;
    notes.push(`resuming ${out} with the design its journal started (${verdict.state.restarts.length} of ${header.planned} restarts already done); the edited file would be kept as ${edited}`);
    steps.push(async () => {
      const copy = unusedPath(edited);
      await copyFile(out, copy);
      return `your edited design is kept in ${copy}`;
    });
  } else if (verdict.kind === 'resume' && verdict.done === verdict.planned) {
    notes.push(`resuming ${out}: all ${verdict.planned} restarts are done, but the last run did not stop mysqld and restore the host (${verdict.state.hostLeft?.problem ?? 'it ended before that'}); finishing that now`);
  } else if (verdict.kind === 'resume') {
    notes.push(`resuming ${out}: ${verdict.done} of ${verdict.planned} restarts already done (journal ${journalPath(out)})`);
  }

  const resolved = await resolveProfile(doc.design.target, fileProfile, journalProfile);
  if (!resolved) throw new ApiError('not-found', noProfileMessage(doc.design.target, fileProfile));
  // A profile that could not safely become a command line is refused before anyone is asked about it.
  refuseUnsafeProfile(req.file, doc.design.target, resolved);
  const saved = savedDoc(doc, fileProfile);
  doc.design.serverProfile = resolved.profile;
  return { doc, saved, out, profileFrom: resolved.from, designFrom, verdict: req.fresh ? 'fresh' : verdict.kind, notes, commit: () => commitSteps(steps), ...(grows ? { grows } : {}), ...(r.doc.results ? { measured: r.doc.results } : {}) };
}

/** This journal (the one beside the file, or a host's) holds an unfinished run of what the file missed (run --missing). */
function unfinishedGrowth(journal: string): boolean {
  const state = readJournal(journal);
  return !!state?.header?.grows && !isComplete(state);
}

/** A run of what the file misses: its part, what is said of it, and each host it runs on with that host's cells and restarts per cell. */
interface Growth {
  part: number;
  note: string;
  /** The hosts with something missing (or whose journal holds this run), each with its design's excluded cells and restarts per cell. */
  hosts: Map<string, Pick<Design, 'excludedCells' | 'restartsPerCell'>>;
}

/**
 * What `run --missing` runs: the cells the file's results miss, each the restarts it lacks, in rounds
 * of their own (the design's order and seed); on several hosts, each host the cells it misses (a host
 * that misses none is left out). Or the unfinished run of them that the journals hold. Refused, saying
 * why, when there is nothing to add to or nothing missing.
 */
function missingRun(file: string, fileDoc: ExperimentDoc, d: Design, out: string, only?: string[]): Growth {
  // Some of a several-host file's hosts (--target): what those miss, on those alone.
  const asked = (host: string) => !only || only.includes(host);
  const onAsked = only ? ` (on ${only.join(', ')} only, as asked)` : '';
  const journals = runJournals(out, d).map((j) => ({ ...j, state: readJournal(j.path) }));
  const unfinished = journals.filter((j) => j.state?.header && !isComplete(j.state));
  if (unfinished.length) {
    const other = unfinished.find((j) => !j.state!.header!.grows);
    if (other) throw new ApiError('busy', `${file}: its journal ${other.path} holds an unfinished run (${other.state!.restarts.length} of ${other.state!.header!.planned} restarts): resume it first (varlab run ${file}), then run what is missing`);
    const part = unfinished[0].state!.header!.grows!.part;
    // Every host of that run, also one that finished its share before the others were interrupted.
    const ofPart = journals.filter((j) => j.state?.header?.grows?.part === part);
    const have = ofPart.reduce((n, j) => n + j.state!.restarts.length, 0);
    const planned = ofPart.reduce((n, j) => n + j.state!.header!.planned, 0);
    const hosts = new Map(ofPart.filter((j) => asked(j.host)).map((j) => [j.host, { excludedCells: j.state!.header!.design.excludedCells, restartsPerCell: j.state!.header!.design.restartsPerCell }]));
    if (!hosts.size) throw new ApiError('busy', `${file}: the unfinished run of what it missed is on ${ofPart.map((j) => j.host).join(', ')}, not on ${only!.join(', ')}: resume it there first (varlab run ${file} --missing)`);
    return { part, hosts, note: `resuming the run of what ${out} missed: ${have} of its ${planned} restarts done (journal ${ofPart.map((j) => j.path).join(', ')})${onAsked}` };
  }
  const restarts = fileDoc.results?.restarts ?? [];
  if (!restarts.length) throw new ApiError('invalid-argument', `${file} holds no results yet: run it without --missing`);
  // A run stopped when answered has the restarts its rule needed: none is missing.
  if (fileDoc.results?.stopped?.length) throw new ApiError('already-finished', `${file}: its run stopped when answered (round ${fileDoc.results.stopped.map((s) => s.round).join(', ')}): nothing is missing; pass --fresh to run it again from scratch`);
  const missing = missingRestarts(d, restarts).filter((m) => asked(m.host ?? d.target));
  if (!missing.length) throw new ApiError('already-finished', `${file}: nothing is missing${only ? ` on ${only.join(', ')}` : ''}: every cell has its ${d.restartsPerCell} restart${d.restartsPerCell === 1 ? '' : 's'}${only ? ' there' : designHosts(d).length > 1 ? ' on every host' : ''}`);
  const needs = [...new Set(missing.map((m) => m.need))];
  if (needs.length > 1) {
    throw new ApiError(
      'invalid-argument',
      `${file}: the cells miss different numbers of restarts (${missing.map((m) => `${m.cell}${m.host ? ` on ${m.host}` : ''}: ${m.need}`).join('; ')}), and a run of what is missing gives each the same; ` +
        `make them equal first (for instance set the restarts per cell to what the new cells need, run --missing, then raise it again)`,
    );
  }
  const hosts = new Map<string, Pick<Design, 'excludedCells' | 'restartsPerCell'>>();
  for (const host of designHosts(d)) {
    const wanted = new Set(missing.filter((m) => (m.host ?? d.target) === host).map((m) => m.cell));
    if (!wanted.size) continue;
    const complete = expandCells(d).filter((c) => !c.excluded && !wanted.has(c.id)).map((c) => c.id);
    hosts.set(host, { excludedCells: [...d.excludedCells, ...complete], restartsPerCell: needs[0] });
  }
  const part = nextPart(fileDoc.results);
  const onHosts = designHosts(d).length > 1 ? ` on ${[...hosts.keys()].join(', ')}` : '';
  return {
    part,
    hosts,
    note: `running only what ${out} misses${onHosts}: ${missingSentence(missing).replace(/: run only what is missing.*$/, '')}; its ${restarts.length} restarts stay, and these join them as run ${part}`,
  };
}

/** What `--until-answered` takes when neither it nor the file's design.stopping says. */
export const STOPPING_DEFAULTS = { alpha: 0.05, power: 0.8 };

/**
 * Stop when answered: `--until-answered` (with --effect, --max-restarts) writes the rule into the
 * design; a design with a rule plans up to its maximum restarts per cell, and the engine stops at the
 * look that answers (engine/run.ts; a detached run: the varlab process that follows it, attach.ts,
 * which cancels the runner). Refused where the rule cannot look: a blocked order has no rounds, one
 * cell nothing to compare.
 */
function applyStopping(req: RunRequest, d: Design): void {
  const asked = req.untilAnswered;
  if (asked === false) delete d.stopping;
  if (asked) {
    const effect = asked.effect ?? d.stopping?.effect;
    if (effect === undefined) throw new ApiError('invalid-argument', `--until-answered: give the target effect with --effect E (${req.file} has no design.stopping)`);
    const max = asked.maxRestarts ?? d.stopping?.maxRestartsPerCell ?? Math.max(3, d.restartsPerCell);
    d.stopping = { effect, alpha: d.stopping?.alpha ?? STOPPING_DEFAULTS.alpha, power: d.stopping?.power ?? STOPPING_DEFAULTS.power, maxRestartsPerCell: max };
  }
  const s = d.stopping;
  if (!s) return;
  const where = asked ? '--until-answered' : `${req.file}: design.stopping`;
  if (d.order === 'blocked') throw new ApiError('invalid-argument', `${where}: the run order is blocked, so no round holds every cell to compare; use an interleaved or random order`);
  if (expandCells(d).filter((c) => !c.excluded).length < 2) throw new ApiError('invalid-argument', `${where}: the design has one cell, so there is nothing to compare; add a factor with two levels (a server build, a setting)`);
  if (req.restarts !== undefined && req.restarts !== s.maxRestartsPerCell) {
    throw new ApiError('invalid-argument', `--restarts ${req.restarts}: with stop when answered the run takes at most ${s.maxRestartsPerCell} restarts per cell (design.stopping.maxRestartsPerCell); set that instead (--max-restarts N)`);
  }
  d.restartsPerCell = s.maxRestartsPerCell;
}

function refuseUnsafeProfile(file: string, target: string, resolved: ResolvedProfile): void {
  try {
    checkProfile(resolved.profile);
  } catch (e) {
    throw new ApiError('invalid-file', `${file}: the ${resolved.from === 'registered' ? `server profile registered for ${target}` : 'server profile in the file'}: ${(e as Error).message}`);
  }
}

/** What the file holds while the run saves into it: the design as run with the file's own server profile (a registered one is not written in). */
function savedDoc(doc: ExperimentDoc, fileProfile: Design['serverProfile']): ExperimentDoc {
  const saved: ExperimentDoc = structuredClone(doc);
  if (fileProfile) saved.design.serverProfile = fileProfile;
  else delete saved.design.serverProfile;
  return saved;
}

/** Archive the journals that exist of these; the archived paths. */
function archiveJournals(paths: string[]): string[] {
  return [...new Set(paths)].filter((j) => existsSync(j)).map((j) => archiveJournal(j));
}

function noRestartNote(archived: string[]): string {
  return `the unfinished run finished no restart, so no results copy was made${archived.length ? ` (its journal is archived in ${archived.join(', ')})` : ''}`;
}

async function commitSteps(steps: (() => Promise<string | null>)[]): Promise<string[]> {
  const said: string[] = [];
  for (const step of steps) {
    const line = await step();
    if (line) said.push(line);
  }
  return said;
}

/**
 * A design run on several hosts: each host runs `hostDesign` (its own order) with its own journal and
 * server profile. A fresh start keeps the results in one copy and archives every host's journal; a
 * resume goes on on each host from its journal (a host already finished is not run again). A design
 * edited since the hosts' journals started is started over (--fresh) or put back; resuming the old
 * design is for one host only.
 */
async function prepareHosts(req: RunRequest, fileDoc: ExperimentDoc, doc: ExperimentDoc, out: string, finished: FinishedRun | null, growth?: Growth): Promise<PreparedRun> {
  const d = doc.design;
  const fileProfile = fileDoc.design.serverProfile;
  // A run of what the file misses goes to the hosts that miss something, each with its own cells.
  const hosts = designHosts(d)
    .filter((target) => !growth || growth.hosts.has(target))
    .map((target) => {
      const design = { ...hostDesign(d, target), ...growth?.hosts.get(target) };
      const journal = hostJournalPath(out, target);
      const verdict = inspectJournal(out, design, journal);
      // The finished journal of an earlier run is not this run's: it is archived when this one starts.
      const earlier = growth && verdict.kind !== 'fresh' && verdict.state.header?.grows?.part !== growth.part;
      return { target, design, journal, verdict: earlier ? ({ kind: 'fresh' } as const) : verdict };
    });
  const notes: string[] = growth ? [growth.note] : [];
  const steps: (() => Promise<string | null>)[] = [];
  const started = hosts.filter((h) => h.verdict.kind !== 'fresh');
  const fresh = req.fresh === true;
  if (fresh && (finished || started.length || existsSync(out))) {
    const doneBefore = started.reduce((n, h) => n + (h.verdict.kind === 'fresh' ? 0 : h.verdict.state.restarts.length), 0);
    if (!finished && !doneBefore && started.length && !(fileDoc.results?.restarts.length ?? 0)) {
      // Unfinished on every host it started on, with no restart finished: no copy, the journals archived.
      notes.push(`would start from scratch; the unfinished run finished no restart, so there are no results to keep (its journals would be archived)`);
      steps.push(async () => `starting from scratch; ${noRestartNote(archiveJournals(started.map((h) => h.journal)))}`);
    } else if (finished || started.length || (fileDoc.results?.restarts.length ?? 0) > 0) {
      const at = Math.min(...started.map((h) => (h.verdict.kind === 'fresh' ? Date.now() : (h.verdict.state.startedAt ?? Date.now()))), Date.now());
      const keepAs = finished?.keepResultsAs ?? resultsCopyPath(out, at);
      const which = finished ? 'the finished run' : 'the unfinished run';
      notes.push(`would start from scratch; the results of ${which} would be kept in ${keepAs}`);
      steps.push(async () => `starting from scratch; ${keptResultsNote(await keepResults(out, keepAs, d), which)}`);
    }
  } else {
    const other = hosts.find((h) => h.verdict.kind === 'other-plan');
    if (other && other.verdict.kind === 'other-plan') {
      const header = other.verdict.state.header!;
      const changes = journalDesignChanges(header.design, other.design).filter((c) => !c.startsWith('seed:'));
      const done = other.verdict.state.restarts.length;
      const resume = req.resume ? ' Resuming an edited design is possible on one host only: put the design back to resume it.' : '';
      throw new ApiError(
        'design-changed',
        `${req.file}: the design changed since its unfinished run on ${other.target} started (${done} of ${header.planned} restarts done): ${changes.join('; ') || 'the plan differs'}. ` +
          `Start over with the new design (the unfinished run's results are kept in a copy and its journals archived).${resume}`,
        { designChanged: { path: out, restartsDone: done, restartsPlanned: header.planned, changes, journal: other.journal } },
      );
    }
    const done = started.reduce((n, h) => n + (h.verdict.kind === 'fresh' ? 0 : h.verdict.state.restarts.length), 0);
    if (started.length && !growth) notes.push(`resuming ${out}: ${done} of ${buildPlan(hosts[0].design).length * hosts.length} restarts already done on ${hosts.length} hosts (journals ${hosts.map((h) => h.journal).join(', ')})`);
  }
  const runs: HostRun[] = [];
  let profileFrom: PreparedRun['profileFrom'] = 'file';
  for (const h of hosts) {
    const journalProfile = h.verdict.kind === 'fresh' ? undefined : h.verdict.state.header?.design.serverProfile;
    const resolved = await resolveProfile(h.target, fileProfile, journalProfile);
    if (!resolved) throw new ApiError('not-found', noProfileMessage(h.target, fileProfile));
    refuseUnsafeProfile(req.file, h.target, resolved);
    if (h === hosts[0]) profileFrom = resolved.from;
    const measured = fileDoc.results?.restarts.length ? hostResults(fileDoc.results, h.target) : undefined;
    runs.push({ target: h.target, doc: { ...doc, design: { ...h.design, serverProfile: resolved.profile } }, journal: h.journal, done: !fresh && h.verdict.kind === 'complete', ...(measured ? { measured } : {}) });
  }
  const saved = savedDoc(doc, fileProfile);
  doc.design.serverProfile = runs[0].doc.design.serverProfile;
  return { doc, saved, out, profileFrom, designFrom: 'file', verdict: fresh || !started.length ? 'fresh' : 'resume', notes, hosts: runs, commit: () => commitSteps(steps), ...(growth ? { grows: { part: growth.part } } : {}) };
}
