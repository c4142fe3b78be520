// The dry run, in one place for the CLI (`varlab run --dry-run`) and the UI (host.dryRun): the
// server profile a run would use (by the same precedence as a run), and for each cell the very
// script its restart would send to the target (the host layer's dryRunCells, for the probed host).
// Nothing runs on the target but the probe, and the probe only on a host the user chose (chosenTarget).
import { ApiError, type DryRun } from '../../common/api.js';
import type { Design, Results } from '../../common/experiment/types.js';
import { buildPlan, estimatePlan, expandCells, formatDuration } from '../../common/plan.js';
import { targetSyntax } from '../../common/target.js';
import { listHosts } from '../host/profiles.js';
import type { TrustCheck } from '../../common/trust.js';
import { learnedEstimate, resumeEstimate } from '../../common/stats/planner.js';
import { noProfileMessage, resolveProfile } from '../engine/profiles.js';
import { buildsCheckScript } from '../host/builds.js';
import { describeDataSet } from '../../common/dbt3/scale.js';
import { visible } from '../../common/printable.js';
import { executionsText } from '../../common/experiment/words.js';
import { createServerControl, dryRunCells, formatScript, type TargetSession } from '../host/index.js';

export interface DryRunReport extends DryRun {
  target: string;
  /** Where the profile came from: the target's registered one, or the file's own. */
  profileFrom: 'registered' | 'file' | null;
  restarts: number;
  /** Resuming an unfinished run: the restarts still to run, which `seconds` is the time of. */
  left?: number;
  seconds: number;
  /** Where the time's costs come from when the file's run measured them: `from the run of DATE`. */
  costsFrom?: string;
  executions: number;
  /** Per included cell: its restarts in the plan. */
  seqs: Record<string, number[]>;
  /**
   * The run's build check, once before its first restart (builds.ts checkRunBuilds): the one remote
   * call asking whether each registered build the plan starts is there to start, exactly as sent.
   */
  buildCheck?: string;
  /** Not connected (the host was not asked for): the cells are listed without their scripts. */
  unread?: boolean;
}

/** Open the target, run fn on it, close it (the caller's way: its prompts, its key files). */
export type WithTarget = <T>(fn: (session: TargetSession) => Promise<T>) => Promise<T>;

/** The failures of reaching a host (connect.ts words them, naming user@host:port), not of the design. */
const REACHING = new Set(['connection', 'auth', 'host-key-rejected', 'host-key-changed']);

/**
 * May a dry run read `target` without asking? A file names its target, and a teammate's file may name
 * any host: the dry run connects with the user's keys only to a host the user chose here: `local`, one
 * they named (--target), one in their Hosts list (added, probed, run on, or with a sandbox or
 * registered server), or one where they agreed to this file's commands. Otherwise the caller asks (the
 * app's button names the host; the command line asks on a terminal, or takes --connect).
 */
export async function chosenTarget(consent: TrustCheck, target: string, named: boolean): Promise<boolean> {
  if (named || targetSyntax(target).kind === 'local') return true;
  if ((await listHosts()).some((h) => h.target === target)) return true;
  // Agreed to a list of commands there: a file with none to agree to has agreed nothing.
  return consent.commands.length > 0 && !consent.needsConsent;
}

/**
 * withTarget null: the target is not read (the user did not ask for it); the report has everything
 * else (profile, plan, time, build check), and the cells without their scripts.
 * resumed: what the unfinished run the file's journal holds measured (resultsFromJournal), when the run
 * would resume it: the time is then that of the restarts left, as the Run view says before a resume.
 */
export async function dryRun(design: Design, target: string, withTarget: WithTarget | null, saved: Design['serverProfile'][] = [], measured?: Results, resumed?: Results): Promise<DryRunReport> {
  const plan = buildPlan(design);
  // At the costs the file's run measured, when it has one (issue 21: the estimates learn).
  const learned = resumed ? resumeEstimate({ design, results: resumed }) : learnedEstimate({ design, results: measured }, plan.length);
  const est = learned.estimate;
  const resolved = await resolveProfile(target, design.serverProfile, ...saved);
  const seqs: Record<string, number[]> = {};
  for (const s of plan) (seqs[s.cell] ??= []).push(s.seq);
  const report: DryRunReport = { target, profile: resolved?.profile ?? null, profileFrom: resolved?.from ?? null, cells: [], restarts: plan.length, ...(resumed ? { left: est.restarts } : {}), seconds: est.seconds, ...(learned.costs.source === 'journal' ? { costsFrom: learned.basis } : {}), executions: estimatePlan(design, plan.length).executions, seqs };
  if (!resolved) {
    report.problem = noProfileMessage(target, design.serverProfile);
    return report;
  }
  try {
    // Checked first: a hostile build path is refused here as the run would refuse it.
    const check = buildsCheckScript(resolved.profile, design.factors, plan);
    if (check) report.buildCheck = `# one remote call on the target:\n${formatScript(check)}`;
    if (!withTarget) {
      report.unread = true;
      report.cells = expandCells(design).filter((c) => !c.excluded).map((c) => ({ cell: c.id, levels: c.levels, commands: [] }));
      return report;
    }
    report.cells = await withTarget((s) => dryRunCells(createServerControl(s, resolved.profile), { ...design, target, serverProfile: resolved.profile }));
  } catch (e) {
    // Not reached: said as what the dry run was doing there (the connection's own words name user@host:port).
    report.problem = e instanceof ApiError && REACHING.has(e.code) ? `the dry run could not read ${target} (it connects to read its CPUs, NUMA nodes and mysqld): ${e.message}` : (e as Error).message;
  }
  return report;
}

/** The dry run as the command line prints it. */
export function dryRunText(name: string, design: Design, r: DryRunReport, where: { out: string; journal: string; notes: string[] }): string[] {
  const p = r.profile!;
  const lines = [
    `${name}: ${r.restarts} restarts on ${r.target} (${p.kind} ${p.mysqld}, the ${r.profileFrom === 'registered' ? `profile registered for ${r.target}` : "file's profile"}), ${r.left !== undefined ? `${r.left} left to run, about ${formatDuration(r.seconds)} for those` : `about ${formatDuration(r.seconds)}`}${r.costsFrom ? ` (costs ${r.costsFrom})` : ''}`,
    `${executionsText(r.executions, design.workload.kind)}; results into ${where.out}; journal ${where.journal}`,
    ...where.notes,
  ];
  // The run's order: connected, the builds checked, then each restart.
  if (r.buildCheck) lines.push('', `== before the first restart (attached: before the target's lock; detached: before the launch): the builds the run starts are there to start`, r.buildCheck);
  const w = design.workload;
  // What the first restart on a data directory makes before it measures: the data the queries read.
  const first = `== once on ${design.factors.some((f) => f.tunable === 'build') ? "each build's data directory" : 'the data directory'}, before its first restart measures`;
  if (w.data) lines.push('', `${first}: the DBT-3 data step, as the server profile's admin account (a load already there is recognised)`, describeDataSet(w.database, w.data));
  if (w.setupSql.trim()) lines.push('', `${first}: the setup script, in database ${w.database} as the server profile's admin account${w.setupSkipIfTable ? `, unless table ${w.setupSkipIfTable} exists there` : ''}`, visible(w.setupSql));
  const restartsOf = (cell: string) => `restarts ${(r.seqs[cell] ?? []).join(', ')}`;
  // Not read: each cell's script is computed for what the host has, so the cells are listed alone.
  if (r.unread) lines.push('', `== the cells (each one's script is computed for what ${r.target} has: not read)`, ...r.cells.map((c) => `${c.cell}: ${restartsOf(c.cell)}`));
  else for (const c of r.cells) lines.push('', `== cell ${c.cell}: ${restartsOf(c.cell)}`, ...c.commands);
  lines.push('', w.kind === 'command' && w.command ? `then in each restart, ${w.repetitions} times: ${w.command.line}` : `then in each restart: ${w.queries.length} queries × ${w.repetitions} executions (${w.warmup} warm-up) through the mysql protocol`);
  if (r.unread) lines.push(`dry run: nothing was run; did not connect to ${r.target}, the host the file names. To let the dry run read it (read only: CPUs, NUMA nodes, mysqld) and show each cell's script: run again with --connect`);
  else lines.push('dry run: nothing was run');
  return lines;
}
