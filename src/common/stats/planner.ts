// Planning: how many restarts a given effect needs, how many repetitions per restart are worth their
// cost, and what the planned design will cost in time. The unit of evidence is the restart.
import type { DataStepResult, Design, ExperimentDoc, RestartResult } from '../experiment/types.js';
import { buildPlan, designHosts, estimatePlan, expandCells, factorKey, formatDuration, formatShortDuration, hostDesign, type PlanEstimate } from '../plan.js';
import { DEFAULT_SEED, dataLoadSeconds } from '../dbt3/scale.js';
import { COV_REDUCERS, PLAN_LIMITS, outOfReachText } from './evidence.js';
import { MDE_LABELS, minimumDetectableEffect, restartsForTarget, type Mde } from './mde.js';
import { groupReasons, roundPairs } from './analysis.js';
import { pairedLogRatio } from './paired.js';
import { ratioOfMeans } from './ratio.js';
import { HOST_FACTOR } from '../plan.js';
import { fmtPctValue } from '../export/format.js';
import { executionWord, measureWord } from '../experiment/words.js';

/**
 * Kalibera and Jones ("Rigorous benchmarking in reasonable time"): the repetitions per restart that
 * minimise the cost of a given precision, ⌈√((restart cost / execution cost) · σ²within / σ²between)⌉.
 * Null, with why, when there is no between-restart variance to weigh against.
 */
export function optimalRepetitions(restartSeconds: number, executionSeconds: number, varWithin: number, varBetween: number): { value: number | null; reason?: string } {
  if (!(executionSeconds > 0)) return { value: null, reason: 'the cost of an execution is unknown' };
  if (!(restartSeconds >= 0)) return { value: null, reason: 'the cost of a restart is unknown' };
  if (!(varBetween > 0)) return { value: null, reason: "the restart means vary no more than their executions' own noise predicts (σ between is 0, whatever the CoV of the means): more repetitions per restart are the cheaper precision" };
  return { value: Math.max(1, Math.ceil(Math.sqrt((restartSeconds / executionSeconds) * (varWithin / varBetween)))) };
}

export interface Costs {
  /** Seconds for one restart beyond its executions and the idle time (stop, start, verify, preload). */
  restartSeconds: number;
  /** Seconds for one execution, as the run's measuring loop took it (the client's round trip and its recording included). */
  executionSeconds: number;
  /**
   * Seconds a run costs once, beyond its restarts: reaching the host and probing it before the first
   * restart, stopping mysqld and restoring the host after the last. 0 until a run measured it.
   */
  runSeconds: number;
  /**
   * Of runSeconds, the part after the last restart (stopping mysqld, restoring the host): what a run's
   * time left still holds once its restarts have begun (timeLeftMs). 0 until a run measured it.
   */
  runEndSeconds: number;
  /**
   * Seconds a data directory's set-up adds to its first restart in a run, beyond an ordinary restart and
   * beyond its data step's load (loadSeconds): the setup script, the measuring account, the queries'
   * check, the second start (engine/restart.ts). The mean over the run's set-ups; absent until a run
   * measured one (the setup script's cost is then unknown: 0).
   */
  setupSeconds?: number;
  /**
   * Seconds the data step (DBT-3) took to load each data directory (by build, '' for the profile's own),
   * as the file's runs measured it: the latest load of rows there (a load recognised is no load). An
   * attached run loads in the directory's first restart, a detached run at its launch, before its
   * runner's restarts; each is counted here and nowhere else. Absent until a run loaded one (the data
   * step's estimate then stands in, dbt3/scale.ts dataLoadSeconds).
   */
  loadSeconds?: Record<string, number>;
  /**
   * The data directories whose data step ended in the file's runs (a load, or a load recognised): their
   * data is there, so a new run on that host recognises it and pays no load (onceSeconds). A run
   * elsewhere, or after the sandbox was made anew, loads and takes longer than said, by what the data
   * step's progress shows.
   */
  dataThere?: string[];
  /** Whether the journal measured them or the design's estimates stand in. */
  source: 'journal' | 'estimates';
  /** When measured: the start of the run that measured them (epoch ms). */
  runAt?: number;
}

/** The date of a run as people read it: `2026-11-20 10:00 UTC`. */
export function runDate(ms: number | undefined): string {
  return ms === undefined ? 'an unknown date' : `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Where a time estimate's costs come from, in words: `from the run of 2026-11-20 10:00 UTC` or `from the design's estimates`. */
export function costsBasis(costs: Costs): string {
  return costs.source === 'journal' ? `from the run of ${runDate(costs.runAt)}` : 'from the design’s estimates';
}

const SECONDS_PER: Record<string, number> = { s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };

/**
 * The costs measured from the results when they allow it, otherwise the design's estimates:
 * - an execution: the restarts' measuring loops (their `measure` step) over the executions they ran,
 *   so the client's round trip and the recording of each are in it; for restarts without steps (files
 *   from before them), the timings when they are durations;
 * - a restart: the median of its wall time less its executions and the design's idle time;
 * - a run, once: from the run's start to its first restart, and from its last restart to its end.
 * `npm run bench -- plan-check` compares a time planned from these with a rerun's.
 */
export function measuredCosts(doc: Pick<ExperimentDoc, 'design' | 'results'>): Costs {
  const est: Costs = {
    restartSeconds: doc.design.estimates.restartSeconds,
    executionSeconds: doc.design.estimates.executionMs / 1000,
    runSeconds: 0,
    runEndSeconds: 0,
    source: 'estimates',
  };
  const restarts = (doc.results?.restarts ?? []).filter((r) => r.status === 'ok' && r.finishedAt > r.startedAt);
  if (!restarts.length) return est;
  let execTotal = 0;
  let execCount = 0;
  const overheads: number[] = [];
  for (const r of restarts) {
    let timed = 0;
    let countInRestart = 0;
    for (const q of r.queries) {
      const per = SECONDS_PER[q.unit];
      countInRestart += q.values.length;
      if (per === undefined) continue;
      for (const v of q.values) timed += v * per;
    }
    // The loop's own wall time where the restart has it: a tps workload's too (its values are no durations).
    const restartExec = r.steps?.measure !== undefined && countInRestart ? r.steps.measure / 1000 : timed;
    // The wall time holds the idle time spent before the start, mysqld stopped (common/restart.ts), which
    // estimatePlan adds on its own: taken out here, so it is counted once.
    const wall = (r.finishedAt - r.startedAt) / 1000 - doc.design.idleSeconds;
    execTotal += restartExec;
    execCount += countInRestart;
    // When execution time is unknown (tps timings and no steps), spread the wall time evenly later.
    overheads.push(restartExec > 0 ? Math.max(0, wall - restartExec) : Number.NaN);
  }
  if (!(execTotal > 0) || !execCount) return est;
  // An ordinary restart: the median of those that set up no data directory (no `setup` step), when there are
  // any; with 2 restarts a build, half of them set one up, and the median alone would count it in every restart.
  const setsUp = (i: number) => restarts[i].steps?.setup !== undefined;
  const ordinary = overheads.filter((x, i) => Number.isFinite(x) && !setsUp(i));
  const known = (ordinary.length ? ordinary : overheads.filter(Number.isFinite)).sort((a, b) => a - b);
  const restartSeconds = known.length ? known[Math.floor(known.length / 2)] : est.restartSeconds;
  // The restarts that set up a data directory: what they took beyond an ordinary one, less the load of
  // rows their data step made inside them (an attached run's); a detached run's launch loads before its
  // runner starts, outside any restart (and outside this, as that restart's `setup` holds the script alone).
  const steps = setUpDataSteps(doc.design, doc.results!, restarts);
  const loadIn = (r: RestartResult) => {
    const d = steps.get(r.seq);
    return d && !d.recognised && d.at >= r.startedAt ? d.ms / 1000 : 0;
  };
  const setups = restarts.flatMap((r, i) => (setsUp(i) && Number.isFinite(overheads[i]) ? [Math.max(0, overheads[i] - restartSeconds - loadIn(r))] : []));
  // The loads before the first restart (a detached launch's) are not the run's start: each is its directory's load.
  const loadsBefore = [...steps.values()].filter((d) => !d.recognised && d.at < Math.min(...restarts.map((r) => r.startedAt))).reduce((n, d) => n + d.ms, 0);
  // Only data steps of the design's data set (a file from before they said it: any): a changed scale factor or seed loads anew.
  const same = (doc.results!.dataSteps ?? []).filter((d) => sameDataSet(doc.design, d));
  const loads = measuredLoads({ dataSteps: same });
  const there = [...new Set(same.map((d) => d.datadir ?? ''))];
  return {
    restartSeconds,
    executionSeconds: execTotal / execCount,
    ...(setups.length ? { setupSeconds: setups.reduce((a, b) => a + b, 0) / setups.length } : {}),
    ...(Object.keys(loads).length ? { loadSeconds: loads } : {}),
    ...(there.length ? { dataThere: there } : {}),
    ...runOnce(doc.results!, loadsBefore),
    source: 'journal',
    runAt: doc.results?.startedAt ?? Math.min(...restarts.map((r) => r.startedAt)),
  };
}

/**
 * The data step of each restart that set up a data directory, by its seq: the latest data step of that
 * directory after the previous restart that set it up and before this one finished. One inside the
 * restart (from its start on) is an attached run's; one before it, a detached run's launch's.
 */
function setUpDataSteps(design: Design, results: Pick<NonNullable<ExperimentDoc['results']>, 'dataSteps'>, restarts: readonly RestartResult[]): Map<number, DataStepResult> {
  const out = new Map<number, DataStepResult>();
  const steps = results.dataSteps ?? [];
  if (!steps.length) return out;
  const levels = new Map(expandCells(design).map((c) => [c.id, c.levels]));
  const lastSetUp = new Map<string, number>();
  for (const r of [...restarts].sort((a, b) => a.startedAt - b.startedAt)) {
    if (r.steps?.setup === undefined || !levels.has(r.cell)) continue;
    const dir = dataDirectoryOf(design, levels.get(r.cell)!);
    const after = lastSetUp.get(dir) ?? -Infinity;
    const step = steps.filter((d) => (d.datadir ?? '') === dir && d.at > after && d.at <= r.finishedAt).pop();
    if (step) out.set(r.seq, step);
    lastSetUp.set(dir, r.finishedAt);
  }
  return out;
}

/** Is the data step of the design's data set (database, scale factor, seed), as far as its record says? */
function sameDataSet(design: Design, d: DataStepResult): boolean {
  const data = design.workload.data;
  if (!data) return false;
  return (d.sf === undefined || d.sf === data.sf) && (d.seed === undefined || d.seed === (data.seed ?? DEFAULT_SEED)) && (d.database === undefined || d.database === design.workload.database);
}

/** Each data directory's latest load of rows (seconds) in the results' data steps: what its load takes (Costs.loadSeconds). */
function measuredLoads(results: Pick<NonNullable<ExperimentDoc['results']>, 'dataSteps'>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const d of [...(results.dataSteps ?? [])].sort((a, b) => a.at - b.at)) if (!d.recognised) out[d.datadir ?? ''] = d.ms / 1000;
  return out;
}

/**
 * The costs with the loads a run under way has measured so far (its journal's data steps) over those
 * measured before: a build's load just measured is what the builds not loaded yet will take (the same
 * rows), where the estimate or an earlier run's said otherwise. What the engine's time left counts with.
 */
export function withLoadsSoFar(costs: Costs, dataSteps: readonly DataStepResult[]): Costs {
  const loads = measuredLoads({ dataSteps: [...dataSteps] });
  return Object.keys(loads).length ? { ...costs, loadSeconds: { ...costs.loadSeconds, ...loads } } : costs;
}

/**
 * What a run took beyond its restarts, once: from its start (the journal's header) to its first restart,
 * and from its last restart to its end (mysqld stopped, the host restored), and the latter alone. The
 * waits between restarts (a save, a look) are not in it: a resumed run's pause would be. Nor are the
 * loads before the first restart (`loadMs`: a detached run's launch loads): each is its data
 * directory's load (Costs.loadSeconds), counted once. What else the launch does for each data directory
 * (mysqld started and stopped around its data step, the host put back, a load recognised) stays in it:
 * a launch again does it again. 0 for what the results do not date.
 */
function runOnce(results: Pick<NonNullable<ExperimentDoc['results']>, 'startedAt' | 'finishedAt' | 'restarts'>, loadMs = 0): Pick<Costs, 'runSeconds' | 'runEndSeconds'> {
  if (!results.restarts.length) return { runSeconds: 0, runEndSeconds: 0 };
  const first = Math.min(...results.restarts.map((r) => r.startedAt));
  const last = Math.max(...results.restarts.map((r) => r.finishedAt));
  const before = results.startedAt !== undefined ? Math.max(0, first - results.startedAt - loadMs) : 0;
  const after = results.finishedAt !== undefined ? Math.max(0, results.finishedAt - last) : 0;
  return { runSeconds: (before + after) / 1000, runEndSeconds: after / 1000 };
}

/**
 * A run's time left in ms, counted as learnedEstimate counts the whole run: the restarts left at
 * `perRestartMs` each (plan.ts perRestartMs), plus what the run still pays once (onceSeconds at `at`:
 * its start until this attempt's first restart has begun, its end, the set-ups still ahead), which is
 * `endMs`. So a run's first time left is the estimate said before Run (or before resuming it). The
 * attached engine and a detached run's follower say it alike.
 */
export function timeLeftMs(design: Design, costs: Costs, perRestartMs: number, at: RunPoint): { remainingMs: number; endMs: number } {
  const endMs = Math.round(1000 * onceSeconds(design, costs, at));
  return { remainingMs: Math.round(at.left.length * perRestartMs) + endMs, endMs };
}

/**
 * The time a design will take, learned from its own run when the file has one (issue 21: the estimates
 * learn): the design's restarts at the costs measured there, idle time counted once (estimatePlan adds
 * it; measuredCosts took it out of each restart's wall time), and what the run pays once (onceSeconds:
 * its start and end as that run took them, each data directory's set-up). Without a measured run, the
 * design's estimates.
 */
export function learnedEstimate(doc: Pick<ExperimentDoc, 'design' | 'results'>, restarts?: number): LearnedEstimate {
  // On several hosts at once the run takes what its slowest host takes, each at the costs it measured itself.
  if (designHosts(doc.design).length > 1 && doc.results?.restarts.some((r) => r.host !== undefined)) {
    return slowest(designHosts(doc.design).map((h) => ({ ...estimateAt(hostDoc(doc, h), restarts), host: h })));
  }
  return estimateAt(doc, restarts);
}

/**
 * What resuming the file's unfinished run takes: the restarts its results lack (on several hosts, each
 * host's own; the time is the slowest host's), the run's start again, and the set-ups a new attempt
 * makes again (runPoint): the first time left the resumed run says (engine/run.ts).
 */
export function resumeEstimate(doc: Pick<ExperimentDoc, 'design' | 'results'>): LearnedEstimate {
  const hosts = designHosts(doc.design);
  const done = doc.results?.restarts ?? [];
  if (hosts.length === 1) return estimateAt(doc, undefined, runPoint(doc.design, done, undefined, doc.results?.dataSteps));
  // Each host goes on from where it stopped; one with nothing left (it finished) takes no time, whatever its start cost.
  const each = hosts.map((h) => ({ ...estimateAt(hostDoc(doc, h), undefined, runPoint(hostDesign(doc.design, h), done.filter((r) => r.host === h), undefined, doc.results?.dataSteps?.filter((d) => d.host === h))), host: h }));
  const going = each.filter((e) => e.estimate.restarts > 0);
  return slowest(going.length ? going : each);
}

/** The design's restarts (`restarts`, or those left at `at`) at the costs learned from its results, and what the run pays once. */
function estimateAt(doc: Pick<ExperimentDoc, 'design' | 'results'>, restarts?: number, at?: RunPoint): LearnedEstimate {
  const costs = measuredCosts(doc);
  const estimate = estimatePlan(designWithCosts(doc.design, costs), at ? at.left.length : restarts);
  return { estimate: { ...estimate, seconds: estimate.seconds + onceSeconds(doc.design, costs, at) }, costs, basis: costsBasis(costs) };
}

/** One host of a run on several hosts as a run of its own: its design, and what it measured (the others' when it measured nothing). */
function hostDoc(doc: Pick<ExperimentDoc, 'design' | 'results'>, host: string): Pick<ExperimentDoc, 'design' | 'results'> {
  const measuredByHost = doc.results?.restarts.some((r) => r.host !== undefined);
  return { design: hostDesign(doc.design, host), results: measuredByHost ? hostResults(doc.results!, host) : doc.results };
}

const slowest = (each: LearnedEstimate[]): LearnedEstimate => each.reduce((a, b) => (b.estimate.seconds > a.estimate.seconds ? b : a));

/** What learnedEstimate gives; on several hosts, `host` names the slowest one, whose time it is. */
export interface LearnedEstimate {
  estimate: PlanEstimate;
  costs: Costs;
  basis: string;
  host?: string;
}

/**
 * The costs its file's run measured, and the design with them as its estimates when it measured them
 * (what learnedEstimate plans with, and a run's time left starts from).
 */
export function learnedCosts(doc: Pick<ExperimentDoc, 'design' | 'results'>): { design: Design; costs: Costs } {
  const costs = measuredCosts(doc);
  return { design: designWithCosts(doc.design, costs), costs };
}

/**
 * What one host of a run on several hosts measured, as a run of its own: its restarts (when it has
 * none, a host new to the design, the other hosts' stand in), the run's start (the hosts start at
 * once), and the run's end only when this host's last restart was the run's last: a host that
 * finished sooner waited for the others, so its own stop and restore are not in the file. What each
 * host's time left (runs/prepare.ts HostRun.measured) and the time said before Run start from.
 */
export function hostResults(results: NonNullable<ExperimentDoc['results']>, host: string): NonNullable<ExperimentDoc['results']> {
  const own = results.restarts.filter((r) => r.host === host);
  const restarts = own.length ? own : results.restarts;
  const last = (rs: typeof restarts) => Math.max(...rs.map((r) => r.finishedAt));
  const endsLast = restarts.length > 0 && last(restarts) >= last(results.restarts);
  const { finishedAt, dataSteps, ...rest } = results;
  const ownSteps = dataSteps?.filter((d) => d.host === host);
  return { ...rest, ...(endsLast && finishedAt !== undefined ? { finishedAt } : {}), ...(own.length && ownSteps?.length ? { dataSteps: ownSteps } : {}), restarts };
}

/** Costs read from a journal (which may come from anyone's machine): measured, every figure finite and not negative. */
export function sensibleCosts(c: Costs): boolean {
  const n = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  return c.source === 'journal' && n(c.restartSeconds) && n(c.executionSeconds) && n(c.runSeconds) && n(c.runEndSeconds) && (c.runAt === undefined || n(c.runAt)) && (c.setupSeconds === undefined || n(c.setupSeconds)) && (c.loadSeconds === undefined || (typeof c.loadSeconds === 'object' && c.loadSeconds !== null && Object.values(c.loadSeconds).every(n))) && (c.dataThere === undefined || (Array.isArray(c.dataThere) && c.dataThere.every((d) => typeof d === 'string')));
}

/** The design with measured costs as its estimates (unchanged when the costs are the design's own estimates). */
export function designWithCosts(design: Design, costs: Costs): Design {
  return costs.source === 'journal' ? { ...design, estimates: { restartSeconds: costs.restartSeconds, executionMs: costs.executionSeconds * 1000 } } : design;
}

/**
 * A learned estimate's time in words: `about 4 min 10 s`, and where its costs come from when the file's
 * run measured them (`about 4 min 10 s (costs from the run of 2026-11-20 10:00 UTC)`): the Designer,
 * `varlab new`, `run` and its dry run say it as `plan` and the Plan view do.
 */
export function aboutText(l: { estimate: PlanEstimate; costs: Costs; basis: string }): string {
  return `about ${formatDuration(l.estimate.seconds)}${l.costs.source === 'journal' ? ` (costs ${l.basis})` : ''}`;
}

/** Seconds the design will take with the given restarts per cell and repetitions, at the given costs (what a run costs once included). */
export function plannedSeconds(design: Design, restartsPerCell: number, repetitions: number, costs: Costs): number {
  const planned: Design = {
    ...design,
    restartsPerCell,
    workload: { ...design.workload, repetitions },
    estimates: { restartSeconds: costs.restartSeconds, executionMs: costs.executionSeconds * 1000 },
  };
  const cells = expandCells(design).filter((c) => !c.excluded).length;
  return estimatePlan(planned, cells * restartsPerCell).seconds + onceSeconds(design, costs);
}

/**
 * Where a run stands, for what it still pays once (onceSeconds): the restarts it has left; whether this
 * attempt (this process) has begun its first restart; the data directories this attempt has set up (a
 * run sets each up at its first restart there, engine/restart.ts and the detached runner alike, and a
 * resume is a new attempt: it sets them up again); and those whose data step's load is there (any
 * attempt of the run set them up, or ran their data step: a resume recognises it).
 */
export interface RunPoint {
  left: readonly { levels: Readonly<Record<string, string>> }[];
  begun: boolean;
  setUpHere: ReadonlySet<string>;
  loaded: ReadonlySet<string>;
}

/**
 * A run's point from the restarts it has done (its journal's or its file's, `done`), and of those the
 * ones this attempt finished (`here`, by seq): none, for a run about to start or resume; and the data
 * steps the run has made (a data directory whose data step ended is loaded, even when the restart
 * around it did not finish).
 */
export function runPoint(design: Design, done: readonly Pick<RestartResult, 'seq' | 'cell' | 'steps'>[] = [], here: ReadonlySet<number> = new Set(), dataSteps: readonly Pick<DataStepResult, 'datadir'>[] = []): RunPoint {
  const levels = new Map(expandCells(design).map((c) => [c.id, c.levels]));
  const setUp = (rs: typeof done) => new Set(rs.flatMap((r) => (r.steps?.setup !== undefined && levels.has(r.cell) ? [dataDirectoryOf(design, levels.get(r.cell)!)] : [])));
  const seqs = new Set(done.map((r) => r.seq));
  const loaded = new Set([...setUp(done), ...dataSteps.map((d) => d.datadir ?? '')]);
  return { left: buildPlan(design).filter((p) => !seqs.has(p.seq)), begun: here.size > 0, setUpHere: setUp(done.filter((r) => here.has(r.seq))), loaded };
}

/**
 * What a run of the design still pays once beyond its restarts, at `at` (by default: a run about to
 * start): the run's start until its first restart has begun, its end, and the set-up of each data
 * directory (one per server build) that the restarts left reach and this attempt has not set up yet
 * (setUpSeconds): its load where it is not loaded yet (by an earlier attempt of this run, or by the
 * file's run on that host: Costs.dataThere), the setup script where it runs again.
 */
export function onceSeconds(design: Design, costs: Costs, at: RunPoint = runPoint(design)): number {
  const dirs = new Set(at.left.map((r) => dataDirectoryOf(design, r.levels)).filter((d) => !at.setUpHere.has(d)));
  let seconds = at.begun ? costs.runEndSeconds : costs.runSeconds;
  for (const d of dirs) seconds += setUpSeconds(design, costs, d, at.loaded.has(d) || !!costs.dataThere?.includes(d));
  return seconds;
}

/**
 * One data directory's set-up in a run, in seconds, as the run does it (engine/restart.ts; a detached
 * run's launch loads and its runner runs the script): the data step's load (loadCost) unless the
 * directory is loaded already (an earlier attempt of the run, or the file's run, loaded it: the run
 * recognises it), and the rest of the set-up (Costs.setupSeconds: the setup script, the
 * second start) where it happens: after a load, or where the setup script runs again (it has no skip
 * table; with one, a run on the host that ran it finds the table and skips it, so it is not counted: a
 * fresh host then takes longer than said, by what the Run view's time left shows after its first restart).
 */
export function setUpSeconds(design: Design, costs: Costs, datadir: string, loaded: boolean): number {
  const w = design.workload;
  const loads = !!w.data && !loaded;
  return (loads ? loadCost(design, costs, datadir) : 0) + (loads || scriptAgain(w) ? (costs.setupSeconds ?? 0) : 0);
}

/**
 * The data step's load of one data directory in seconds: as the file's runs measured it there
 * (Costs.loadSeconds), else the mean of the loads they measured in the other builds' directories (the
 * same rows), else the data step's estimate (DBT-3); 0 without a data step.
 */
export function loadCost(design: Design, costs: Pick<Costs, 'loadSeconds'>, datadir: string): number {
  if (!design.workload.data) return 0;
  const measured = Object.values(costs.loadSeconds ?? {});
  return costs.loadSeconds?.[datadir] ?? (measured.length ? measured.reduce((a, b) => a + b, 0) / measured.length : dataLoadSeconds(design.workload.data.sf));
}

/** The set-up's part of the costs, in words, for the planning table: empty when nothing is counted. */
function setupText(design: Design, costs: Costs): string {
  const w = design.workload;
  const dirs = dataDirectories(design);
  const inRun = dirs > 1 ? `; ${dirs} data directories in a run` : '';
  const load = w.data ? `, ${loadText(design, costs)}` : '';
  const rest = costs.setupSeconds ?? 0;
  if (!rest) return load ? `${load}${inRun}` : '';
  if (w.data || scriptAgain(w)) return `${load}, ${rest.toFixed(1)} s per data directory for the rest of its set-up (${scriptAgain(w) ? 'the setup script, ' : ''}the second start${w.data && !scriptAgain(w) ? ', after a load' : ''})${inRun}`;
  return w.setupSql.trim() ? `; the setup script's ${rest.toFixed(1)} s per data directory is not counted (a run finds table ${w.setupSkipIfTable} there and skips it)` : '';
}

/**
 * The data step's load in words, as a new run counts it: `the data step's load 12 s per data directory,
 * counted once in each`, each build's own when they differ (`10 s (A), 14 s (B)`), and none where the
 * file's run left the data (Costs.dataThere: `its data is there already in A, B: recognised, no load counted`).
 */
export function loadText(design: Design, costs: Pick<Costs, 'loadSeconds' | 'dataThere'>): string {
  const dirs = [...new Set(expandCells(design).filter((c) => !c.excluded).map((c) => dataDirectoryOf(design, c.levels)))];
  const name = (d: string) => d || 'the profile’s own';
  const there = dirs.filter((d) => costs.dataThere?.includes(d));
  const loads = dirs.filter((d) => !there.includes(d));
  const each = loads.map((d) => loadCost(design, costs, d));
  const same = each.every((x) => formatShortDuration(x) === formatShortDuration(each[0]));
  const figures = same ? `${formatShortDuration(each[0])} per data directory` : loads.map((d, i) => `${formatShortDuration(each[i])} (${name(d)})`).join(', ');
  const counted = loads.length ? `the data step's load ${figures}, counted once in each${there.length ? ` it loads (${loads.map(name).join(', ')})` : ''}` : '';
  const recognised = there.length ? `its data is there already in ${there.map(name).join(', ')} (the file's run left it): recognised, no load counted` : '';
  return [counted, recognised].filter(Boolean).join('; ');
}

/** Does every run run the setup script again (it has no skip table)? */
const scriptAgain = (w: Design['workload']) => w.setupSql.trim() !== '' && !w.setupSkipIfTable;

/** The data directory a restart's server runs on: its build's (each build has its own), '' without the build factor (as engine/restart.ts keys it). */
export function dataDirectoryOf(design: Design, levels: Readonly<Record<string, string>>): string {
  const f = design.factors.find((x) => x.tunable === 'build');
  return f ? (levels[factorKey(f)] ?? '') : '';
}

/** The data directories a run of the design sets up: one per server build it runs (one without the build factor). */
export function dataDirectories(design: Design): number {
  return new Set(expandCells(design).filter((c) => !c.excluded).map((c) => dataDirectoryOf(design, c.levels))).size || 1;
}

export interface QueryPlan {
  query: string;
  /**
   * The variance of the comparison paired within rounds over the unpaired one's, measured (median over
   * cells): the restarts needed are for the paired comparison when the planned design runs in rounds and
   * this is known; null otherwise (reasons.varianceRatio says why).
   */
  varianceRatio: number | null;
  /** The MDE pooled over cells at the restarts per cell measured: the number the Run view and the planning figure show. */
  mde: Mde;
  restartsNeeded: number | null;
  optimalRepetitions: number | null;
  reasons: { restartsNeeded?: string; optimalRepetitions?: string; varianceRatio?: string };
}

export interface PlanSuggestion {
  queries: QueryPlan[];
  costs: Costs;
  /** Restarts per cell so that every query can show the target; null when some query cannot (see reasons). */
  restartsPerCell: number | null;
  /** Measured repetitions: the median Kalibera–Jones optimum over queries (warm-up not included). */
  measuredRepetitions: number | null;
  /** Repetitions per restart to write into the design: warm-up plus the measured ones. */
  repetitions: number;
  seconds: number | null;
  currentSeconds: number;
  reasons: string[];
  /**
   * Set when the target is out of this host's reach (more than PLAN_LIMITS.restarts restarts per cell or
   * PLAN_LIMITS.seconds of running): the between-restart CoV that puts it there, what reduces it, and
   * what a day of running can resolve instead.
   */
  outOfReach: { restartsPerDay: number; mdePct: number | null; covPct: number | null; queries: string[]; reducers: readonly string[]; text: string } | null;
}

interface AnalysisLike {
  settings: { warmup: number; alpha: number; power: number; targetEffectPct: number };
  restarts: { cell: string; query: string; means: number[]; rounds?: number[] }[];
  cells: { queries: { query: string; sigma_within: number | null; sigma_between: number | null }[] }[];
}

const avgOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/**
 * The variance paired/unpaired a run in rounds measured for a query (issue 21): each cell against its
 * host's first cell, over the rounds holding both (analysis.ts roundPairs), the paired se² over the
 * Welch se² (as Analysis' variance_ratio), the median over cells. Null, with why, when no two cells
 * share two rounds (a blocked run, a single cell).
 */
export function measuredVarianceRatio(restarts: AnalysisLike['restarts'], query: string, alpha: number): { ratio: number; comparisons: number } | { ratio: null; why: string } {
  const hostOf = (cell: string) => new RegExp(`(^|,)${HOST_FACTOR}=.*$`).exec(cell)?.[0] ?? '';
  const first = new Map<string, AnalysisLike['restarts'][number]>();
  const ratios: number[] = [];
  for (const r of restarts) {
    if (r.query !== query || !r.rounds?.length || !r.means.length) continue;
    const base = first.get(hostOf(r.cell));
    if (!base) {
      first.set(hostOf(r.cell), r);
      continue;
    }
    const p = pairedLogRatio(roundPairs(r, base), alpha);
    const w = ratioOfMeans(r.means, base.means, alpha);
    if (p.se !== null && p.se > 0 && w.se !== undefined && w.se > 0) ratios.push((p.se * p.se) / (w.se * w.se));
  }
  if (!ratios.length) return { ratio: null, why: restarts.some((r) => r.query === query && r.rounds?.length) ? 'no two cells share two rounds with a spread' : 'the run measured did not run in rounds' };
  ratios.sort((x, y) => x - y);
  const m = ratios.length;
  return { ratio: m % 2 ? ratios[(m - 1) / 2] : (ratios[m / 2 - 1] + ratios[m / 2]) / 2, comparisons: m };
}

/**
 * The planner's suggestion for the next run of this design: restarts per cell so that every query can
 * show `targetPct`, and the repetitions per restart their measured variances justify. No number past
 * PLAN_LIMITS: the target is then out of reach at the measured between-restart CoV, which it names.
 */
export function suggestPlan(doc: ExperimentDoc, a: AnalysisLike, targetPct: number, costs: Costs = measuredCosts(doc)): PlanSuggestion {
  const { alpha, power, warmup } = a.settings;
  const design = doc.design;
  // In the workload's order (as every other table of the report), any other after it.
  const workload = design.workload.kind === 'queries' ? design.workload.queries.map((q) => q.name) : [];
  const at = (q: string) => (workload.includes(q) ? workload.indexOf(q) : workload.length);
  const queries = [...new Set(a.restarts.map((r) => r.query))].sort((x, y) => at(x) - at(y) || (x < y ? -1 : x > y ? 1 : 0));
  const meansOf = (query: string) => a.restarts.filter((r) => r.query === query && r.means.length).map((r) => r.means);
  const inRounds = design.order !== 'blocked';
  const plans: QueryPlan[] = queries.map((query) => {
    const mde = minimumDetectableEffect(meansOf(query), { definition: 'pooled', alpha, power });
    const stats = a.cells.flatMap((c) => c.queries.filter((q) => q.query === query));
    const vw = avgOf(stats.map((q) => q.sigma_within).filter((x): x is number => x !== null).map((x) => x * x));
    const vb = avgOf(stats.map((q) => q.sigma_between).filter((x): x is number => x !== null).map((x) => x * x));
    const plan: QueryPlan = { query, mde, varianceRatio: null, restartsNeeded: null, optimalRepetitions: null, reasons: {} };
    // A design in rounds is compared in pairs within rounds: its restarts are planned for that, at the variance ratio measured.
    const vr = inRounds ? measuredVarianceRatio(a.restarts, query, alpha) : { ratio: null, why: 'the blocked order has no rounds to pair within' };
    plan.varianceRatio = vr.ratio;
    if (vr.ratio === null) plan.reasons.varianceRatio = vr.why;
    if (mde.cov_pct === null) plan.reasons.restartsNeeded = mde.reason ?? 'no between-restart spread';
    else {
      plan.restartsNeeded = restartsForTarget(mde.cov_pct, targetPct, alpha, power, undefined, vr.ratio === null ? undefined : { varianceRatio: vr.ratio });
      if (plan.restartsNeeded === null) plan.reasons.restartsNeeded = outOfReachText(targetPct, mde.cov_pct);
    }
    if (vw === null || vb === null) plan.reasons.optimalRepetitions = 'needs two restarts with two executions each';
    else {
      const o = optimalRepetitions(costs.restartSeconds, costs.executionSeconds, vw, vb);
      plan.optimalRepetitions = o.value;
      if (o.reason) plan.reasons.optimalRepetitions = o.reason;
    }
    return plan;
  });
  const reasons: string[] = [];
  const unknown = plans.filter((p) => p.mde.cov_pct === null);
  const beyond = plans.filter((p) => p.mde.cov_pct !== null && p.restartsNeeded === null);
  let restartsPerCell: number | null = null;
  if (unknown.length) reasons.push(`no number of restarts: ${groupReasons(unknown.map((p) => ({ name: p.query, reason: p.reasons.restartsNeeded! })), plans.length, 'queries')}`);
  else if (beyond.length) reasons.push(`${beyond.map((p) => p.query).join(', ')}: more than ${PLAN_LIMITS.restarts.toLocaleString('en-US')} restarts per cell`);
  else if (plans.length) restartsPerCell = Math.max(...plans.map((p) => p.restartsNeeded!));
  const reps = plans.map((p) => p.optimalRepetitions).filter((n): n is number => n !== null).sort((x, y) => x - y);
  const measuredRepetitions = reps.length ? reps[Math.floor(reps.length / 2)] : null;
  if (measuredRepetitions === null) reasons.push('no optimal repetitions could be computed: the current repetitions are kept');
  const repetitions = measuredRepetitions === null ? design.workload.repetitions : warmup + measuredRepetitions;
  let seconds = restartsPerCell === null ? null : plannedSeconds(design, restartsPerCell, repetitions, costs);
  const tooLong = seconds !== null && seconds > PLAN_LIMITS.seconds;
  let outOfReach: PlanSuggestion['outOfReach'] = null;
  if (beyond.length || tooLong) {
    // The time grows linearly with restarts per cell: solve for a day from two points.
    const one = plannedSeconds(design, 1, repetitions, costs);
    const per = plannedSeconds(design, 2, repetitions, costs) - one;
    const restartsPerDay = per > 0 ? Math.max(0, Math.floor((86400 - (one - per)) / per)) : 0;
    const measurable = plans.filter((p) => p.mde.cov_pct !== null);
    // For the comparison the restarts are planned for: paired within rounds where the ratio is known.
    const mdes = restartsPerDay >= 2 ? measurable.map((p) => minimumDetectableEffect(meansOf(p.query), { definition: 'pooled', alpha, power, restarts: restartsPerDay, ...(p.varianceRatio === null ? {} : { paired: { varianceRatio: p.varianceRatio } }) }).pct!) : [];
    const culprits = beyond.length ? beyond : measurable;
    const covPct = Math.max(...culprits.map((p) => p.mde.cov_pct!));
    const limit = tooLong ? `more than ${PLAN_LIMITS.seconds / 86400} days of running` : null;
    const text = limit ? outOfReachText(targetPct, covPct).replace(/\(more than [\d,]+ restarts per cell\)/, `(${limit})`) : outOfReachText(targetPct, covPct);
    outOfReach = { restartsPerDay, mdePct: mdes.length ? Math.max(...mdes) : null, covPct, queries: culprits.map((p) => p.query), reducers: COV_REDUCERS, text };
    if (tooLong) {
      reasons.push(`it would take more than ${PLAN_LIMITS.seconds / 86400} days`);
      restartsPerCell = null;
      seconds = null;
    }
  }
  return {
    queries: plans,
    costs,
    restartsPerCell,
    measuredRepetitions,
    repetitions,
    seconds,
    currentSeconds: plannedSeconds(design, design.restartsPerCell, design.workload.repetitions, costs),
    reasons,
    outOfReach,
  };
}

/** One cell of the planning table: its text, or null with why. */
export interface PlanningCell {
  value: string | null;
  reason?: string;
}

/**
 * The planning table (issue 21: "the planner everywhere"): the one the Analysis view's Planning panel,
 * `varlab plan` and the Markdown report show, made here once. Per query: the MDE now, the restarts per
 * cell it rests on, the between-restart CoV, the restarts per cell needed for the target effect and the
 * optimal repetitions; then the costs (and the run they were measured in), the suggestion in words and
 * its notes.
 */
export interface PlanningTable {
  targetPct: number;
  columns: { label: string; align: 'l' | 'r' }[];
  rows: { query: string; cells: PlanningCell[] }[];
  /** `Costs measured in the run of DATE: …` or `Costs from the design's estimates: …`. */
  costs: string;
  /** `To see a 1% change in every query: …` or `No suggestion: …`. */
  suggestion: string;
  /** Which comparison the restarts needed are for: paired within rounds (at the measured variance ratio) or unpaired, and why. */
  pairing: string;
  /** Out of reach, and the like. */
  notes: string[];
  plan: PlanSuggestion;
}

/**
 * The maximum of a design with stop when answered, for the power of the fixed count. `npm run bench --
 * sequential` searches the rule's same-power maximum by simulation (samePowerMax), at a fixed Welch
 * design of 20 restarts per cell: 24, 18, 15 and 13 rounds at ρ 0, 0.25, 0.4 and 0.5 (seeds, 3 %;
 * docs/STATISTICS.md, its what-if rows), where the paired fixed count (restartsForTarget at the
 * variance ratio 1 − ρ) is 21, 17, 14 and 12: 1.14, 1.06, 1.07 and 1.08 times it; 18–19 at 6–15 %
 * and ρ 0.25 (1.06–1.12). Within the search's own noise (±1 round at 2,000 runs), one factor across
 * the measured ratios: a table by ratio would fit that noise. Not derived at other fixed counts; at a
 * 30 % CoV the bench's model needs 25 (1.47), the pessimism of its left tail (docs/STATISTICS.md).
 */
export const STOPPING_MAX_FACTOR = 1.1;

function stoppingPlanText(design: Pick<Design, 'stopping' | 'order'>, restartsPerCell: number | null): string {
  if (!design.stopping || design.order === 'blocked' || restartsPerCell === null) return '';
  return `. With stop when answered, set its maximum to about ${Math.ceil(STOPPING_MAX_FACTOR * restartsPerCell)} restarts per cell for the same power (the rule's maximum is about ${Math.round((STOPPING_MAX_FACTOR - 1) * 100)} % above the fixed count for the same power, whatever the variance ratio: 6–14 % in npm run bench -- sequential's simulations at ρ 0–0.5 and a fixed count of 20); the run stops earlier when it answers`;
}

/** Which comparison a plan's restarts needed are for, in words (planningTable's `pairing`). */
export function pairingPlanText(design: Pick<Design, 'order'>, queries: readonly Pick<QueryPlan, 'varianceRatio' | 'reasons'>[]): string {
  if (design.order === 'blocked') return 'Restarts needed are for an unpaired comparison (Welch): the blocked order has no rounds to pair within';
  const paired = queries.filter((q) => q.varianceRatio !== null).length;
  if (!paired) return `Restarts needed are for an unpaired comparison (Welch): no variance paired/unpaired was measured (${queries.map((q) => q.reasons.varianceRatio).find((x) => x) ?? 'no query'}), though Analysis will pair this design's restarts within rounds`;
  return `Restarts needed are for the comparison paired within rounds, as Analysis makes it for the ${design.order} order (paired t, df = restarts − 1): its variance is the measured variance paired/unpaired times the unpaired one's${paired < queries.length ? '; for a query without one, unpaired (Welch)' : ''}`;
}


export function planningTable(doc: ExperimentDoc, a: AnalysisLike, targetPct: number, costs: Costs = measuredCosts(doc)): PlanningTable {
  const plan = suggestPlan(doc, a, targetPct, costs);
  const design = doc.design;
  const inRounds = design.order !== 'blocked';
  const cell = (value: number | null, fmt: (x: number) => string, reason?: string): PlanningCell => (value === null || !Number.isFinite(value) ? { value: null, reason: reason ?? 'not computed' } : { value: fmt(value) });
  const rows = plan.queries.map((q) => ({
    query: q.query,
    cells: [
      { value: q.query },
      cell(q.mde.pct, fmtPctValue, q.mde.reason),
      q.mde.pct === null ? { value: '' } : { value: String(q.mde.restarts) },
      cell(q.mde.cov_pct, fmtPctValue, q.mde.reason),
      ...(inRounds ? [cell(q.varianceRatio, (x) => x.toFixed(2), q.reasons.varianceRatio)] : []),
      cell(q.restartsNeeded, String, q.reasons.restartsNeeded),
      cell(q.optimalRepetitions, String, q.reasons.optimalRepetitions),
    ],
  }));
  const measured = costs.source === 'journal' ? `Costs measured in the run of ${runDate(costs.runAt)}` : 'Costs from the design’s estimates (no run with durations measured them)';
  // A command's figures are its metric's and its runs are runs of the command (words.ts), not queries and executions.
  const kind = design.workload.kind;
  const runs = executionWord(kind, true);
  const costsText = `${measured}: a restart ${costs.restartSeconds.toFixed(1)} s beyond its ${runs} and the idle time, ${kind === 'command' ? 'a' : 'an'} ${executionWord(kind)} ${(costs.executionSeconds * 1000).toPrecision(3)} ms, idle ${design.idleSeconds} s per restart (counted once)${costs.runSeconds > 0 ? `, ${costs.runSeconds.toFixed(1)} s once per run (before its first restart and after its last)` : ''}${setupText(design, costs)}. Optimal repetitions: ⌈√((restart cost / ${kind === 'command' ? 'run' : 'execution'} cost) · σ²within / σ²between)⌉ (Kalibera and Jones)${kind === 'command' ? '' : ', the median over queries is suggested'}.`;
  const cells = expandCells(design).filter((c) => !c.excluded).length;
  const suggestion =
    plan.restartsPerCell === null
      ? `No suggestion: ${plan.reasons.join('; ') || 'not enough restarts measured'}.`
      : `To see a ${targetPct}% change in ${kind === 'command' ? design.workload.command?.metric ?? 'the metric' : 'every query'}: ${plan.restartsPerCell} restarts per cell and ${plan.repetitions} repetitions per restart (${a.settings.warmup} warm-up${plan.measuredRepetitions !== null ? ` + ${plan.measuredRepetitions} measured` : ', repetitions kept as they are'}), about ${plan.seconds === null ? 'n/a' : formatDuration(plan.seconds)} for ${cells} cell${cells === 1 ? '' : 's'} (the current design: ${design.restartsPerCell} × ${design.workload.repetitions}, about ${formatDuration(plan.currentSeconds)}).${plan.reasons.length ? ` ${plan.reasons.join('; ')}.` : ''}`;
  return {
    targetPct,
    columns: [
      { label: measureWord(kind), align: 'l' },
      { label: `MDE now (${MDE_LABELS.pooled})`, align: 'r' },
      { label: 'restarts per cell', align: 'r' },
      { label: 'between-restart CoV (pooled)', align: 'r' },
      ...(inRounds ? [{ label: 'variance paired/unpaired (measured)', align: 'r' as const }] : []),
      { label: `restarts needed for ${targetPct}%`, align: 'r' },
      { label: 'optimal repetitions per restart', align: 'r' },
    ],
    rows,
    costs: costsText,
    suggestion,
    pairing: pairingPlanText(design, plan.queries) + stoppingPlanText(design, plan.restartsPerCell),
    notes: plan.outOfReach ? [plan.outOfReach.text] : [],
    plan,
  };
}

/** The planning table as aligned lines of text (what `varlab plan` prints), a value with no number showing n/a and its reason below. */
export function planningTableText(t: PlanningTable, indent = '  '): string[] {
  const text = (c: PlanningCell) => c.value ?? 'n/a';
  const widths = t.columns.map((col, i) => Math.max(col.label.length, ...t.rows.map((r) => text(r.cells[i]).length)));
  const line = (cells: string[]) =>
    indent +
    cells
      .map((c, i) => (t.columns[i].align === 'l' ? c.padEnd(widths[i]) : c.padStart(widths[i])))
      .join('  ')
      .trimEnd();
  const reasons = new Map<string, string[]>();
  for (const r of t.rows) for (const c of r.cells) if (c.value === null && c.reason) reasons.set(c.reason, [...new Set([...(reasons.get(c.reason) ?? []), r.query])]);
  return [line(t.columns.map((c) => c.label)), ...t.rows.map((r) => line(r.cells.map(text))), ...[...reasons].map(([why, where]) => `${indent}n/a (${where.join(', ')}): ${why}`)];
}
