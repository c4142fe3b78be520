// The restart procedure: one scheduled restart, from the server's restart to its last execution.
// Its steps are computed once from the cell's levels by the host layer (common/restart.ts):
//
//   restart mysqld with the cell's tunables (one remote call: stop, set, start, wait, read facts)
//   → the setup script, once per run, as the profile's (admin) account; then the read-only
//     measurement account is made and every query prepared on the server as it (then a clean
//     restart, so fresh data is not in the buffer pool)
//   → verify → the preload step when the cell has one → idle time (equal for every restart)
//   → each query, its repetitions (first W flagged warm-up), as the measurement account (the server
//     refuses INTO OUTFILE, SET GLOBAL and writes), or the benchmark command K times
//
// It reaches the host only through the HostLayer and ServerControl interfaces, so the host layer
// can change how a restart is carried out without touching the engine.
import { RESTART_POLICY, startFailuresMessage } from '../../common/restart-policy.js';
import type { Connection } from 'mysql2/promise';
import type { RunEvent } from '../../common/events.js';
import type { Design, RestartStep, ServerProfile } from '../../common/experiment/types.js';
import type { ScheduledRestart } from '../../common/plan.js';
import { datadirKey, verifyFailure } from '../../common/restart.js';
import type { JournalRecord } from '../../common/records.js';
import type { RunHooks, ServerControl, StartedServer, TargetSession } from '../host/types.js';
import { ApiError } from '../../common/api.js';
import { detectTimer, exactTimerFromProbe, reuseExactTimer, timerAgainstClient, type ServerTimer } from '../workloads/queries.js';
import { timerNoteParts, timerNoteText } from '../../common/timer-note.js';
import { runBenchmarkCommand, runQueryLoop, type Execution } from '../workloads/runners.js';
import { runSetup } from '../workloads/setup.js';
import { runDataStep } from '../workloads/data-step.js';
import { checkQueries, queryFailure, QueryRefused } from '../workloads/check.js';
import { makeMeasureAccount, type MeasureAccount } from '../workloads/account.js';
import type { HostLayer } from './hostlayer.js';
import { serverFirstMessage } from '../host/server-first.js';

/** What a restart needs from the run around it. */
export interface RestartContext {
  design: Design;
  host: HostLayer;
  control(): ServerControl;
  session(): TargetSession;
  profile(): ServerProfile;
  /** To the journal, then to everyone else (the event is derived from the record). */
  record(r: JournalRecord): void;
  /** An event that is not a record (log lines, data progress). */
  emit(e: RunEvent): void;
  /** Sleeps, ending early on cancel. */
  sleep(ms: number): Promise<void>;
  checkCancel(): void;
  /** A mysql connection of this restart: the run destroys it if the way to the target drops. */
  track(conn: Connection): Connection;
  release(conn: Connection): Promise<void>;
}



export class RestartProcedure {
  /** Data directories the setup script has filled in this run: each build's own is filled by the same setup. */
  private readonly setupDone = new Set<string>();
  /** A setup script was started and did not end (the connection dropped under it). */
  private setupInterrupted = false;
  /** The read-only account measured queries run as, per data directory (made after its setup script). */
  private readonly accounts = new Map<string, MeasureAccount>();
  private account: MeasureAccount | null = null;
  private startFailures = 0;
  private timer: ServerTimer | null = null;
  private saidServerFirst = false;
  /** Cells whose server proved the exact timer (its options are the cell's: the proof holds for its next restarts). */
  private readonly exactProved = new Set<string>();

  constructor(private readonly ctx: RestartContext) {}

  async run(r: ScheduledRestart): Promise<void> {
    const { ctx } = this;
    const design = ctx.design;
    const t0 = Date.now();
    const control = ctx.control();
    const w = design.workload;
    ctx.record({ t: 'restart-started', at: t0, seq: r.seq, cell: r.cell });

    // Computed once for this restart; run again unchanged after the setup.
    const proc = await control.procedure(design.factors, r.levels, { schemas: [w.database], workload: true, idleSeconds: design.idleSeconds });
    // Where this restart's time goes, step by step (journaled with its end).
    const steps = new StepTimes();
    // The idle time, with mysqld stopped, before each start: spent here, so that a cancel ends it at once.
    const idleHooks: RunHooks = {
      // The verify step's login becomes the measuring one (or the setup's): one login less per restart.
      keepLogin: true,
      idle: (ms) =>
        steps.time('idle', async () => {
          await ctx.sleep(ms);
          ctx.checkCancel();
        }),
    };
    const datadir = datadirKey(proc);
    // A cancel gives the restart up at its next step boundary: an attempt given up on starts nothing,
    // sets nothing up and measures nothing after it (the run's end stops mysqld and restores the host).
    const startServer = async () => {
      ctx.checkCancel();
      // Once its data directory has the measuring account, the verify step logs in as it, to the
      // workload's database: the measuring connection then needs no switch (a round trip less).
      const account = w.kind === 'queries' ? this.accounts.get(datadir) : undefined;
      const hooks: RunHooks = account ? { ...idleHooks, verifyAs: { ...account, database: w.database } } : idleHooks;
      const s = await this.start(r, () => control.run(proc, hooks));
      if (s) steps.addAll(s.steps);
      ctx.checkCancel();
      return s;
    };
    let started = await startServer();
    if (!started) return;
    if (!this.saidServerFirst && ctx.session().isLocal) {
      // Once a run, on `local`, whatever the workload: whether varlab's process yields the CPU to the
      // server (host/server-first.ts), which it does from the verify's login on.
      this.saidServerFirst = true;
      const said = serverFirstMessage();
      if (said) ctx.emit({ type: 'log', at: Date.now(), ...said });
    }
    this.account = this.accounts.get(datadir) ?? null;
    if (!this.setupDone.has(datadir)) {
      const setupFrom = Date.now();
      const conn = ctx.track(await control.connect());
      let setup;
      let loaded = false;
      try {
        ctx.checkCancel();
        // The data step first, then the setup script, as a detached run does them (its launch loads, its
        // runner then runs the script: detach/launch.ts): a script may build on the DBT-3 tables (an
        // index, a table made from them), and the load refuses a database holding tables it did not
        // make. A script that sets globals loses nothing: the server is started again after both.
        if (w.data) loaded = await this.loadData(conn, datadir);
        ctx.checkCancel();
        // After a setup the connection dropped under, its skip table may be there with half the data:
        // the script runs again whole (a script that cannot run twice then fails, saying so).
        const skipIfTable = this.setupInterrupted ? undefined : w.setupSkipIfTable;
        if (this.setupInterrupted) ctx.emit({ type: 'log', at: Date.now(), level: 'warn', message: 'the setup script was interrupted by a lost connection: running it again whole' });
        setup = await runSetup(conn, w.database, w.setupSql, skipIfTable, () => (this.setupInterrupted = true));
        this.setupInterrupted = false;
        ctx.checkCancel();
        if (w.kind === 'queries') {
          this.account = await makeMeasureAccount(conn, w.database);
          this.accounts.set(datadir, this.account);
        }
      } finally {
        await ctx.release(conn);
      }
      // Every query prepared once as the account that will measure it: what it may not do is refused now, by the server.
      if (this.account) {
        const check = ctx.track(await control.connect(w.database, this.account));
        try {
          ctx.checkCancel();
          await checkQueries(check, w.queries);
        } finally {
          await ctx.release(check);
        }
      }
      this.setupDone.add(datadir);
      steps.add('setup', Date.now() - setupFrom);
      const what = (datadir ? `build ${datadir}: ` : '') + (setup.skipped ? `setup skipped: table ${w.setupSkipIfTable} already exists in ${w.database}` : `setup script ran (${setup.statements} statements, ${(setup.ms / 1000).toFixed(1)} s)`);
      // Said only of a script there is (a one-liner and a DBT-3 design have none: "0 statements" said nothing true).
      if (w.setupSql.trim()) ctx.emit({ type: 'log', at: Date.now(), level: 'info', message: what });
      // Fresh data sits in the buffer pool of this server: start a clean one for the measurements.
      if (!setup.skipped || loaded) started = await startServer();
      if (!started) return;
    }
    const checks = started.checks;
    ctx.record({ t: 'checks', at: Date.now(), seq: r.seq, checks, pid: started.pid, readyMs: started.readyMs, ...(started.options.length ? { options: started.options } : {}) });
    const reason = verifyFailure(checks);
    if (reason) {
      // A server that died while it was being verified says nothing about the levels: run the restart again.
      if (!(await this.answers())) throw new ApiError('connection', `mysqld (pid ${started.pid}) stopped answering while it was verified (${reason})`);
      ctx.record({ t: 'restart-finished', at: Date.now(), seq: r.seq, cell: r.cell, status: 'verify-failed', reason, steps: steps.all() });
      return;
    }

    // Queries (and the preload's scans) as the read-only account; a command workload brings its own login.
    const conn = ctx.track(await steps.time('connect', () => control.connect(w.database, w.kind === 'queries' && this.account ? this.account : undefined)));
    // The verify step's login handed over as it was: its read back took the exact timer's probe too.
    const probe = control.timerProbe?.(conn);
    const onExecution = ({ at, ...x }: Execution) => ctx.record({ t: 'execution', at: at ?? Date.now(), seq: r.seq, ...x });
    const hooks = { checkCancel: ctx.checkCancel, onExecution };
    try {
      ctx.checkCancel();
      const preload = proc.steps.find((s) => s.kind === 'preload');
      // (after a preload's scans the probe's history mark is behind them: the timer reads its own)
      if (preload?.kind === 'preload') {
        const p = await steps.time('preload', () => ctx.host.preloadSchemas(conn, preload.schemas));
        ctx.record({ t: 'preload', at: Date.now(), seq: r.seq, ...p });
      }
      const mark = w.kind === 'queries' ? await steps.time('timer', () => this.queryTimer(conn, r.cell, preload ? undefined : probe)) : undefined;
      ctx.checkCancel();
      await steps.time('measure', async () => {
        if (w.kind === 'queries')
          await runQueryLoop(conn, w, this.timer!, hooks, mark).catch((e: unknown) => {
            throw e instanceof QueryRefused ? queryFailure(r.seq, r.cell, e.query, e.why) : e;
          });
        else
          await runBenchmarkCommand(ctx.session(), w, ctx.profile(), {
            ...hooks,
            // Each interval line is a measurement: journaled as it is printed (the command runs in its own process on the target).
            onInterval: (rep, iv) => ctx.record({ t: 'interval', at: Date.now(), seq: r.seq, rep, ...iv }),
          });
      });
    } finally {
      await ctx.release(conn);
    }
    ctx.record({ t: 'restart-finished', at: Date.now(), seq: r.seq, cell: r.cell, status: 'ok', steps: steps.all() });
  }

  /**
   * Start mysqld for this restart. A start that fails is the restart's result: recorded as failed with
   * why, and the run goes on; a failure that will repeat, or several in a row (a profile or host that
   * cannot start it at all), end the run with the cause.
   */
  private async start(r: ScheduledRestart, run: () => Promise<StartedServer>): Promise<StartedServer | null> {
    try {
      const started = await run();
      this.startFailures = 0;
      return started;
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'start-failed') throw e;
      // No binary, an option the server refuses, a permission error: every restart would fail the same way.
      if (e.details?.repeats) throw e;
      if (++this.startFailures >= RESTART_POLICY.startFailuresInARow) {
        throw new ApiError('start-failed', startFailuresMessage(this.startFailures, e.message));
      }
      const [why, ...log] = e.message.split('\n');
      if (log.length) this.ctx.emit({ type: 'log', at: Date.now(), level: 'error', message: e.message });
      this.ctx.record({ t: 'restart-finished', at: Date.now(), seq: r.seq, cell: r.cell, status: 'failed', reason: why });
      return null;
    }
  }

  /**
   * The data step (DBT-3) of this data directory: loaded, resumed or recognised, journaled with its checks; its progress
   * goes out as events. True when rows were loaded (the server is then restarted before measuring).
   */
  private async loadData(conn: Connection, datadir: string): Promise<boolean> {
    const { ctx } = this;
    const { record, loaded } = await runDataStep(conn, ctx.design.workload, { checkCancel: ctx.checkCancel, emit: (e) => ctx.emit(e), datadir });
    ctx.record(record);
    return loaded;
  }

  /** Does the server of this restart still answer a query? */
  private async answers(): Promise<boolean> {
    try {
      const conn = this.ctx.track(await this.ctx.control().connect());
      try {
        await conn.query('SELECT 1');
        return true;
      } finally {
        await this.ctx.release(conn);
      }
    } catch {
      return false;
    }
  }

  /**
   * Which statement timer this server offers; recorded when it changes (and on the first restart).
   * Proved by a probe statement on a cell's first restart; on its next ones, where it was the exact
   * timer, one query finds the connection's thread, the consumers still on and where the thread's
   * statement history stands (returned: the query loop's first mark; a lean restart), or none when the
   * verify step's read back on this very login took that probe already (`probe`).
   */
  private async queryTimer(conn: Connection, cell: string, probe?: string): Promise<number | undefined> {
    const reused = this.exactProved.has(cell) ? (probe !== undefined ? exactTimerFromProbe(probe) : await reuseExactTimer(conn)) : null;
    const timer = reused?.timer ?? (await detectTimer(conn));
    if (timer.source === 'performance_schema') this.exactProved.add(cell);
    else this.exactProved.delete(cell);
    if (timer.source !== this.timer?.source) {
      // Not the exact timer: held against the client's time now, and said with it (issue 22, Deliver 2).
      const vsClient = timer.source === 'profiling' ? await timerAgainstClient(conn, timer) : null;
      const found = { source: timer.source, ...(timer.why !== undefined ? { why: timer.why } : {}), ...(vsClient ? { vsClient } : {}) };
      this.ctx.record({ t: 'timer', at: Date.now(), ...found });
      const note = timerNoteParts(found);
      if (note) this.ctx.emit({ type: 'log', at: Date.now(), level: 'warn', message: timerNoteText(note) });
    }
    this.timer = timer;
    return reused?.after;
  }
}

/** Milliseconds per step of one restart, summed over the times a step ran (two starts around a setup). */
class StepTimes {
  private readonly ms: Partial<Record<RestartStep, number>> = {};

  add(step: RestartStep, ms: number): void {
    this.ms[step] = (this.ms[step] ?? 0) + Math.max(0, Math.round(ms));
  }

  addAll(steps: Partial<Record<RestartStep, number>>): void {
    for (const [k, v] of Object.entries(steps) as [RestartStep, number][]) this.add(k, v);
  }

  async time<T>(step: RestartStep, f: () => Promise<T>): Promise<T> {
    const t = Date.now();
    try {
      return await f();
    } finally {
      this.add(step, Date.now() - t);
    }
  }

  all(): Partial<Record<RestartStep, number>> {
    return { ...this.ms };
  }
}
