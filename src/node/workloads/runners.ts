// The workload runners of one restart: the query loop (each query, its repetitions, through the
// mysql protocol) and the benchmark command (a command line K times, its figure parsed from the
// output). Each hands every measured execution to `onExecution`; the engine journals it.
import type { Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import type { ServerProfile, Workload } from '../../common/experiment/types.js';
import type { RecordOf } from '../../common/records.js';
import { shellQuote } from '../host/shell.js';
import type { TargetSession } from '../host/types.js';
import { QueryRefused } from './check.js';
import { BATCH, historyMark, measureBatch, type ServerTimer } from './queries.js';
import { parseSysbench, parseSysbenchInterval, parseWithRegex, sysbenchMetric, type SysbenchInterval } from './sysbench.js';

/** One measured execution: its journal record without the restart it belongs to (the engine adds it), and when it ended if known. */
export type Execution = Omit<RecordOf<'execution'>, 't' | 'at' | 'seq'> & { at?: number };

export interface RunnerHooks {
  /** Throws when the run was cancelled: checked before every execution. */
  checkCancel: () => void;
  onExecution: (x: Execution) => void;
}

/** Batches in a row whose executions all went without a figure before the run gives up on the timer. */
const FRUITLESS_BATCHES = 3;

/**
 * Each query, `repetitions` times in a row (the first `warmup` of each flagged warm-up): back to back
 * in batches of at most BATCH, the server timer's figures read after each batch. An execution whose
 * figure cannot be proved its own is measured again in the next batch; the executions reach
 * `onExecution` (the journal) only between batches, off the measured path. `mark`: the newest
 * statement id of the connection's history, when the caller has just read it (else read here).
 */
export async function runQueryLoop(conn: Connection, w: Workload, timer: ServerTimer, hooks: RunnerHooks, mark?: number): Promise<void> {
  // Where this connection's statement history stands: `mark` when the timer's own query read it (reuseExactTimer).
  let after = mark ?? (await historyMark(conn, timer));
  for (const q of w.queries) {
    let todo = Array.from({ length: w.repetitions }, (_, i) => i + 1);
    let fruitless = 0;
    while (todo.length) {
      const reps = todo.slice(0, BATCH);
      const batch = await measureBatch(conn, q.sql, reps.length, timer, after, hooks.checkCancel).catch((e: unknown) => {
        throw e instanceof QueryRefused ? new QueryRefused(q.name, e.why) : e;
      });
      after = batch.last;
      const again: number[] = [];
      reps.forEach((rep, i) => {
        const m = batch.executions[i];
        if (m) hooks.onExecution({ at: m.at, query: q.name, rep, warmup: rep <= w.warmup, value: m.value, client: m.client, unit: 'ms', source: m.source });
        else again.push(rep);
      });
      fruitless = again.length === reps.length ? fruitless + 1 : 0;
      if (fruitless >= FRUITLESS_BATCHES) {
        throw new ApiError(
          'internal',
          `the server's statement timer (${timer.source}) gave no figure for query ${q.name} in ${FRUITLESS_BATCHES} batches in a row (is its statement history being switched off, or overwritten by other sessions? performance_schema_events_statements_history_long_size is the room it has)`,
        );
      }
      todo = [...again, ...todo.slice(reps.length)];
    }
  }
}

/** The benchmark command line with `{socket}`, `{port}`, `{database}`, `{user}` (the profile's account) substituted, each quoted. */
export function commandLine(w: Workload, profile: ServerProfile): string {
  const cmd = w.command;
  if (!cmd) throw new ApiError('invalid-file', 'design.workload.command: required when workload.kind is "command"');
  const value: Record<string, string | number> = { socket: profile.socket, port: profile.port, database: w.database, user: profile.user };
  return cmd.line.replace(/\{(socket|port|database|user)\}/g, (_, k: string) => shellQuote(value[k]));
}

/** One run of the benchmark command as an execution: its figure read from the output (throws when the output has none). */
export function commandExecution(w: Workload, rep: number, stdout: string): Execution {
  const cmd = w.command!;
  const value = cmd.parser === 'sysbench' ? sysbenchMetric(parseSysbench(stdout), cmd.metric) : parseWithRegex(stdout, cmd.regex ?? '');
  return { query: cmd.metric, rep, warmup: rep <= w.warmup, value, unit: cmd.unit, source: cmd.parser === 'sysbench' ? 'sysbench' : 'regex' };
}

/** sysbench's --report-interval lines in a repetition's whole output (a detached run's, read when it is imported). */
export function commandIntervals(w: Workload, stdout: string): SysbenchInterval[] {
  if (w.command?.parser !== 'sysbench') return [];
  return stdout.split('\n').map(parseSysbenchInterval).filter((iv): iv is SysbenchInterval => iv !== null);
}

/** The benchmark command, `repetitions` times; sysbench's --report-interval lines reach `onInterval` as they are printed. */
export async function runBenchmarkCommand(session: TargetSession, w: Workload, profile: ServerProfile, hooks: RunnerHooks & { onInterval: (rep: number, iv: SysbenchInterval) => void }): Promise<void> {
  const line = commandLine(w, profile);
  const cmd = w.command!;
  for (let rep = 1; rep <= w.repetitions; rep++) {
    hooks.checkCancel();
    let partial = '';
    const live = cmd.parser === 'sysbench';
    const onStdout = (chunk: string) => {
      partial += chunk;
      let nl;
      while ((nl = partial.indexOf('\n')) >= 0) {
        const iv = parseSysbenchInterval(partial.slice(0, nl));
        partial = partial.slice(nl + 1);
        if (iv) hooks.onInterval(rep, iv);
      }
    };
    const res = await session.exec(line, live ? { onStdout } : {});
    if (res.code !== 0) {
      const tail = (res.stderr || res.stdout).trim().split('\n').slice(-3).join(' | ');
      throw new Error(`the benchmark command exited with ${res.code}: ${tail}`);
    }
    hooks.onExecution(commandExecution(w, rep, res.stdout));
  }
}
