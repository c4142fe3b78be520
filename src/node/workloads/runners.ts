// The workload runners of one restart: the query loop (each query, its repetitions, through the
// mysql protocol) and the benchmark command (a command line K times, its figure parsed from the
// output). Each hands every measured execution to `onExecution`; the engine journals it.
import type { Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import type { ServerProfile, Workload } from '../../common/experiment/types.js';
import type { RecordOf } from '../../common/records.js';
import { shellQuote } from '../host/shell.js';
import type { TargetSession } from '../host/types.js';
import { measure, type ServerTimer } from './queries.js';
import { parseSysbench, parseSysbenchInterval, parseWithRegex, sysbenchMetric, type SysbenchInterval } from './sysbench.js';

/** One measured execution: its journal record without the restart it belongs to (the engine adds it). */
export type Execution = Omit<RecordOf<'execution'>, 't' | 'at' | 'seq'>;

export interface RunnerHooks {
  /** Throws when the run was cancelled: checked before every execution. */
  checkCancel: () => void;
  onExecution: (x: Execution) => void;
}

/** Each query, `repetitions` times in a row; the first `warmup` of each are flagged warm-up. */
export async function runQueryLoop(conn: Connection, w: Workload, timer: ServerTimer, hooks: RunnerHooks): Promise<void> {
  for (const q of w.queries) {
    for (let rep = 1; rep <= w.repetitions; rep++) {
      hooks.checkCancel();
      const m = await measure(conn, q.sql, timer);
      hooks.onExecution({ query: q.name, rep, warmup: rep <= w.warmup, value: m.value, client: m.client, unit: 'ms', source: m.source });
    }
  }
}

/** The benchmark command line with `{socket}`, `{port}`, `{database}` substituted, each quoted. */
export function commandLine(w: Workload, profile: ServerProfile): string {
  const cmd = w.command;
  if (!cmd) throw new ApiError('invalid-file', 'design.workload.command: required when workload.kind is "command"');
  return cmd.line.replace(/\{(socket|port|database)\}/g, (_, k: string) => shellQuote(k === 'socket' ? profile.socket : k === 'port' ? profile.port : w.database));
}

/** One run of the benchmark command as an execution: its figure read from the output (throws when the output has none). */
export function commandExecution(w: Workload, rep: number, stdout: string): Execution {
  const cmd = w.command!;
  const value = cmd.parser === 'sysbench' ? sysbenchMetric(parseSysbench(stdout), cmd.metric) : parseWithRegex(stdout, cmd.regex ?? '');
  return { query: cmd.metric, rep, warmup: rep <= w.warmup, value, unit: cmd.unit, source: cmd.parser === 'sysbench' ? 'sysbench' : 'regex' };
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
