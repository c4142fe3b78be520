// Start a detached run from the laptop (issue 14): the journal beside the file opened as for any run
// (a new run, or the unfinished one resumed), the target's run lock taken and handed to the runner,
// the runner launched with what the journal still lacks, and how to reach it again written into the
// journal (`detached`: target, the key and known-hosts files' paths, the run's directory; never a
// secret). Nothing of varlab stays running here once this returns.
import { resolve } from 'node:path';
import { userInfo } from 'node:os';
import { ApiError, type TargetAuth } from '../../common/api.js';
import { launchCancelledWords } from '../../common/event-line.js';
import { problemsBeforeSave } from '../../common/experiment/validate.js';
import type { RunEvent } from '../../common/events.js';
import type { Design, ExperimentDoc, Results } from '../../common/experiment/types.js';
import { buildPlan } from '../../common/plan.js';
import { learnedCosts } from '../../common/stats/planner.js';
import { hostWideFactors } from '../../common/tunables/registry.js';
import { JournalFold, remainingRestarts, resultsFromJournal, type RecordOf } from '../../common/records.js';
import { defaultHostLayer, type HostLayer } from '../engine/hostlayer.js';
import { openRunJournal } from '../engine/journal.js';
import { checkRunBuilds } from '../host/builds.js';
import { CommandTimedOut } from '../host/command-timeout.js';
import { closeConnection } from '../host/server.js';
import type { Prompter, ServerControl } from '../host/types.js';
import type { RestartProcedure } from '../../common/restart.js';
import { firstRestartPerDataDirectory, runDataStep } from '../workloads/data-step.js';
import { rememberLaunch } from './launched.js';
import { launchDetached } from './target.js';

export interface DetachRequest {
  runId: string;
  /** The experiment file (absolute); the journal sits beside it. */
  path: string;
  /** The experiment as it runs: overrides applied, server profile resolved. */
  doc: ExperimentDoc;
  auth?: TargetAuth;
  prompt: Prompter;
  host?: HostLayer;
  /** How the results so far reach the file (the document service). */
  save: (results: Results) => Promise<void>;
  /** How long to wait for the runner's first login to the server it started. */
  waitS?: number;
  /** A host of a several-host run: its own journal beside the file, and the run it belongs to (written into its `detached` record). */
  journalFile?: string;
  group?: { id: string; hosts: string[] };
  /** The run measures only what the file misses (run --missing): said in its journal's header. */
  grows?: { part: number };
  /** What the file's results held for this target before the launch (runs/prepare.ts measuredBefore): their costs go into the `detached` record. */
  measured?: Results;
  /** The data step's progress (DBT-3), which runs here before the runner is launched. */
  onEvent?: (e: RunEvent) => void;
  /**
   * A cancel of the launch (Ctrl-C, the app quitting): taken at the next step of it, within a DBT-3 load
   * between its chunks; mysqld is stopped, the host restored and the lock let go. Once the runner is
   * launched it is the detached run's to cancel (`varlab cancel`).
   */
  signal?: AbortSignal;
}

export interface DetachedStart {
  runId: string;
  target: string;
  dir: string;
  supervisor: 'systemd' | 'setsid';
  pid: number | null;
  planned: number;
  /** Restarts already done before this start (a resumed run). */
  done: number;
  /** The restarts the runner was given. */
  restarts: number;
  /** What taking the target's lock did besides (a killed runner's run ended, the host put back). */
  said?: string[];
}

const userName = () => {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
};

/** What the journal keeps of how the run connected: paths on this machine, made absolute (attach may run elsewhere in the tree). */
export function recordedAuth(auth: TargetAuth | undefined): RecordOf<'detached'>['auth'] {
  const out: NonNullable<RecordOf<'detached'>['auth']> = {};
  if (auth?.identity) out.identity = resolve(auth.identity);
  if (auth?.knownHosts) out.knownHosts = resolve(auth.knownHosts);
  return Object.keys(out).length ? out : undefined;
}

/** What a launch cancelled before its runner started says (its journal's end, the CLI's line; the Run view says the same with its own way to run again). */
export const LAUNCH_CANCELLED = launchCancelledWords('run the same command again');

export async function startDetached(o: DetachRequest): Promise<DetachedStart> {
  const checkCancel = () => {
    if (o.signal?.aborted) throw new ApiError('cancelled', LAUNCH_CANCELLED);
  };
  checkCancel();
  const design = o.doc.design;
  const target = design.target;
  const profile = design.serverProfile;
  if (!profile) throw new ApiError('invalid-argument', `no server profile for ${target}: run \`varlab sandbox create ${target}\` first`);
  const problems = problemsBeforeSave(o.doc);
  if (problems.length) throw new ApiError('invalid-file', problems.join('\n'));
  const host = o.host ?? defaultHostLayer();
  const plan = buildPlan(design);
  const fold = new JournalFold();

  const session = await host.openTarget(target, { auth: o.auth, prompt: o.prompt });
  try {
    // The target's own lock first (nothing on the host is touched before it): the runner takes it
    // over (its pid for the 0), keeps it fresh while it runs and lets it go when it ends. Its owner
    // names the target, so no machine judges the runner's pid as one of its own processes.
    const owner = { runId: o.runId, file: o.path, host: `${target} (detached run)`, pid: process.pid, user: userName(), startedAt: Date.now() };
    const lock = await host.lockTarget(session, profile, owner, hostWideFactors(design.factors));
    let journal: ReturnType<typeof openRunJournal> | null = null;
    let launchedRunner = false;
    try {
      const control = await host.createServerControl(session, profile, { prompt: o.prompt });
      const fingerprint = await control.host();
      journal = openRunJournal(o.path, design, fold, o.journalFile, o.grows);
      const write = (r: Parameters<JournalFold['apply']>[0]) => {
        journal!.writer.append(r);
        fold.apply(r);
      };
      for (const r of journal.records) write(r);
      write({ t: 'host', at: Date.now(), host: fingerprint });
      journal.writer.sync();
      const restarts = remainingRestarts(plan, fold.state());
      // Every build the runner would start is registered and there to start, before the data step or the runner touch the host.
      await checkRunBuilds(session, profile, design.factors, restarts);
      // The DBT-3 rows are made on this machine and streamed over its connection (the runner on the
      // target has no generator): loaded, resumed or recognised here, before the runner takes over, in
      // every data directory the restarts left reach (each build has its own), as an attached run sets
      // each up at its first restart there.
      if (design.workload.data) {
        for (const { datadir, proc } of await firstRestartPerDataDirectory(control, design, restarts)) {
          checkCancel();
          await dataStepBeforeRunner(control, design, proc, datadir, write, { emit: o.onEvent, checkCancel });
          journal.writer.sync();
        }
      }
      checkCancel();
      const launched = await launchDetached({
        runId: o.runId,
        design,
        profile,
        session,
        control,
        paths: host.paths ?? defaultHostLayer().paths!,
        restarts,
        lock: { paths: lock.paths, owner: JSON.stringify({ ...owner, pid: 0 }) },
        waitS: o.waitS,
      });
      launchedRunner = true;
      const auth = recordedAuth(o.auth);
      // The costs the file's earlier run measured here: the save below may replace those results (a run again from scratch).
      const before = o.measured?.restarts.length ? learnedCosts({ design, results: o.measured }).costs : null;
      const costs = before?.source === 'journal' ? { costs: before } : {};
      write({ t: 'detached', at: Date.now(), runId: o.runId, target, ...(auth ? { auth } : {}), dir: launched.dir, supervisor: launched.supervisor, ...(launched.pid ? { pid: launched.pid } : {}), ...(o.group ? { group: o.group } : {}), ...costs });
      journal.writer.close();
      journal = null;
      // This machine's own record: only with it are the journal's paths used again (a shipped journal's are not).
      await rememberLaunch({ runId: o.runId, target, file: resolve(o.path), ...(auth ? { auth } : {}), at: Date.now() }).catch(() => {
        /* The run goes on; without the record, attach says it does not use the journal's paths and uses the user's own. */
      });
      await o.save(resultsFromJournal(fold.state(), 'interrupted before it finished; run again'));
      return { runId: o.runId, target, dir: launched.dir, supervisor: launched.supervisor, pid: launched.pid, planned: plan.length, done: fold.state().restarts.length, restarts: restarts.length, ...(lock.said ? { said: [lock.said] } : {}) };
    } catch (e) {
      // Not started: the lock goes back. A runner that started holds it itself until it ends.
      if (!launchedRunner) await lock.release().catch(() => {});
      // Not started after its journal opened (the data step, the runner's launch): the journal ends with
      // why and the file's log keeps it, as an attached run's failure is kept; the run resumes from there.
      // A launch cut by a timeout or a lost connection may have started the runner: its end is not known, so none is written.
      const unknown = e instanceof CommandTimedOut || (e instanceof ApiError && e.code === 'connection');
      if (journal && !launchedRunner && !unknown) {
        const cancelled = e instanceof ApiError && e.code === 'cancelled';
        const end: RecordOf<'run-finished'> = { t: 'run-finished', at: Date.now(), state: cancelled ? 'cancelled' : 'failed', message: cancelled ? (e as Error).message : `launching the detached run failed: ${(e as Error).message}` };
        try {
          journal.writer.append(end);
          fold.apply(end);
          journal.writer.sync();
          await o.save(resultsFromJournal(fold.state(), 'interrupted before it finished; run again'));
        } catch {
          // A full disk, say: the launch's own error is what is told now, not this one's.
        }
      }
      throw e;
    } finally {
      journal?.writer.close();
    }
  } finally {
    await session.close().catch(() => {});
  }
}

/**
 * The data step of one data directory of a detached run, at its launch: mysqld started as the first
 * restart there starts it (the same build, datadir and settings an attached run loads with), the data
 * loaded, resumed or recognised over this connection and journaled, then mysqld stopped and the host's
 * settings put back from the restore record, so that the next directory's start and the runner find the
 * host as it was (the runner records its own originals). Interrupted (a lost connection, Ctrl-C): what
 * was loaded stays and resumes at the next launch; a directory loaded before is recognised.
 */
async function dataStepBeforeRunner(control: ServerControl, design: Design, proc: RestartProcedure, datadir: string, write: (r: RecordOf<'data'>) => void, o: { emit?: (e: RunEvent) => void; checkCancel: () => void }): Promise<void> {
  try {
    await control.run(proc);
    o.checkCancel();
    const conn = await control.connect();
    try {
      write((await runDataStep(conn, design.workload, { emit: (e) => o.emit?.(e), checkCancel: o.checkCancel, datadir })).record);
    } finally {
      await closeConnection(conn);
    }
  } finally {
    await control.stop().catch(() => {});
    await control.restore();
  }
}
