// The detached runner's journal, read back: its lines become ordinary journal records, so the fold,
// the analysis, the live view and the experiment file treat a detached run like any other.
//
// The runner writes one line per event, fields separated by one space, every free text base64
// (`-` when empty), so nothing a query returns or an error says can break a line:
//
//   V 1 RUN AT PID          the runner started            A AT              the client logged in
//   R AT SEQ                restart SEQ started           U AT SKIPPED N MS the setup script
//   F AT SEQ REPLY VARS [STEP=MS…]  the restart script's reply and the server variables (the verify
//                           facts), and the step times so far
//   T AT SOURCE [LACKS [N OFFSET SPREAD]]  the statement timer (profiling: what the exact timer lacks,
//                           off|names|-, and how it compared with the client's time, vs_client in runner.ts)
//   X AT SEQ Q REP RAW      one execution, raw timer figure
//   I AT SEQ SECONDS        the idle time began (mysqld stopped, before the start)
//   C AT SEQ REP RC OUT     one run of the benchmark command and its output
//   P AT SEQ T I ROWS MS    the preload                   D AT SEQ [STEP=MS…] restart SEQ finished, its step times
//   Z AT SEQ REASON         restart SEQ thrown away (it is run again: the connection lost, or a figure of the timer not provably its execution's)
//   E AT STATE [WHY…]       the run ended                 H AT ok|fail [WHAT]  the host was put back
//   E AT failed gone PID LAST K   the runner died without its end (killed); written by whoever found it gone
//
// Judging happens here, with the functions an attached run uses: the facts of F with judgeStart,
// the raw timer figures with serverMs, the command's output with commandExecution, the failures'
// texts with startFailure, setupFailure and queryProblems.
import { CANCELLED_MESSAGE } from '../../common/events.js';
import { RESTART_STEPS, type Design, type RestartStep, type ServerProfile, type TimerVsClient, type TimingSource } from '../../common/experiment/types.js';
import type { HostFingerprint } from '../../common/host.js';
import type { ScheduledRestart } from '../../common/plan.js';
import type { JournalRecord, RecordOf } from '../../common/records.js';
import { datadirKey, restartProcedure, verifyFailure } from '../../common/restart.js';
import { interruptedMessage, startFailuresMessage } from '../../common/restart-policy.js';
import { runnerGone, RESTORED_AFTER_GONE } from '../host/lock.js';
import { parseReply } from '../host/script.js';
import { noiseWindow, parseNoiseSample } from '../../common/noise.js';
import { judgeStart, startFailure } from '../host/server.js';
import { queryFailure, queryProblems } from '../workloads/check.js';
import { serverMs, whyNotExact } from '../workloads/queries.js';
import { timerNoteParts, timerNoteText, VS_CYCLE_QUERY } from '../../common/timer-note.js';
import { sessionStatementAt } from './runner.js';
import { commandExecution, commandIntervals } from '../workloads/runners.js';
import { setupFailure, splitStatements } from '../workloads/setup.js';

export const TARGET_JOURNAL_VERSION = 1;

export interface ImportContext {
  /** The design as run (the local journal's header). */
  design: Design;
  plan: ScheduledRestart[];
  profile: ServerProfile;
  host: HostFingerprint;
  target: string;
  /** Restarts open in the local journal now (started, not finished nor discarded). */
  open: Iterable<number>;
  timer?: TimingSource;
}

export interface Imported {
  /**
   * The records, in the order the runner wrote its lines; what it said (the runner started, the setup
   * script, the timer's note…) among them as `log` records, so the local journal keeps them with the
   * offset they were read up to, and the file's results.log says them as an attached run's does.
   */
  records: JournalRecord[];
  /** Bytes of the input turned into records: whole lines, and the run's end only together with the host's restore. */
  consumed: number;
  /** The run-finished record is among the records. */
  ended: boolean;
  /** The run's end (E) read but held back until the host is put back (H): how it ended, for whoever only looks (status). */
  pending?: { state: RecordOf<'run-finished'>['state']; message?: string };
}

const text = (b64: string | undefined): string => (!b64 || b64 === '-' ? '' : Buffer.from(b64, 'base64').toString('utf8'));
const int = (s: string | undefined): number => {
  const n = Number(s);
  return Number.isFinite(n) ? n : 0;
};

/**
 * Query profiling against the client's time as the runner measured it (vs_client: N OFFSET SPREAD in
 * milliseconds); null when it said nothing, or something else.
 */
function vsClientOf(words: string[], at: number): TimerVsClient | null {
  const [n, offset, spread] = words.map(Number);
  if (!(words.length === 3 && Number.isInteger(n) && n >= 3 && n <= 1000 && Number.isFinite(offset) && Number.isFinite(spread) && spread >= 0)) return null;
  return { source: 'profiling', query: VS_CYCLE_QUERY, n, offsetMs: offset, spreadMs: spread, at };
}

/** A restart's step times from the runner's `NAME=MS` words (a word that is not a step, or not a count, is left out). */
function stepsOf(words: string[]): Partial<Record<RestartStep, number>> {
  return Object.fromEntries(words.map((x) => x.split('=')).filter(([k, v]) => (RESTART_STEPS as readonly string[]).includes(k) && /^[0-9]+$/.test(v ?? '')).map(([k, v]) => [k, Number(v)]));
}

/** The client's batch output escapes \n, \t, \\ and \0 in values. */
function unescapeBatch(s: string): string {
  return s.replace(/\\([nt0\\])/g, (_, c: string) => (c === 'n' ? '\n' : c === 't' ? '\t' : c === '0' ? '\0' : '\\'));
}

/** `SHOW GLOBAL VARIABLES` as the client prints it in batch mode: name TAB value per line. */
export function parseVariables(out: string): Record<string, string> {
  const live: Record<string, string> = {};
  for (const line of out.split('\n')) {
    const tab = line.indexOf('\t');
    if (tab > 0) live[line.slice(0, tab).toLowerCase()] = unescapeBatch(line.slice(tab + 1));
  }
  return live;
}

/**
 * The runner's word for what the exact timer lacks (timer_off): off, the consumers that are off, or -;
 * a journal of a runner that did not say (or said something else) reads as "none off".
 */
export function whyNotExactWord(word: string | undefined): string {
  if (word === 'off') return whyNotExact(null);
  return whyNotExact(word && /^[a-z_]{1,64}(,[a-z_]{1,64}){0,7}$/.test(word) ? word.split(',') : []);
}

/** The server's words from the client's error line (`ERROR 1146 (42S02) at line 3: Table … doesn't exist`). */
export function clientError(line: string): string {
  return line.replace(/^ERROR \d+ \([0-9A-Z]+\)(?: at line \d+)?: /, '').trim() || 'the mysql client failed and said nothing';
}

/** Why the run ended, from the E line's words after the state. */
function endMessage(state: string, why: string[], ctx: ImportContext, measuredBy: TimingSource | undefined): string | undefined {
  const w = ctx.design.workload;
  const cellOf = (seq: number) => ctx.plan[seq - 1]?.cell ?? `restart ${seq}`;
  if (state === 'finished') return undefined;
  const timer = measuredBy === 'performance_schema' || measuredBy === 'profiling' ? measuredBy : null;
  if (state === 'cancelled') return CANCELLED_MESSAGE;
  const [kind, ...a] = why;
  switch (kind) {
    case 'start': {
      // The count of starts that failed in a row, last (a runner of before it gave none: one).
      const last = startFailure(ctx.target, ctx.profile, false, { code: int(a[1]), stderr: text(a[3]) }, parseReply(text(a[2]))).message;
      const inARow = a[4] ? int(a[4]) : 1;
      return inARow > 1 ? startFailuresMessage(inARow, last) : last;
    }
    case 'query': {
      // The client names the line of the session file the refused statement begins on: a measured
      // execution, or the server's timer read after a batch (which is not the query's doing).
      const line = /^ERROR \d+ \([0-9A-Z]+\) at line (\d+): /.exec(text(a[1]));
      const refused = line && timer ? sessionStatementAt(ctx.design, timer, Number(line[1])) : null;
      if (refused?.kind === 'execution') return queryFailure(int(a[0]), cellOf(int(a[0])), w.queries[refused.query - 1]?.name ?? `#${refused.query}`, clientError(text(a[1]))).message;
      if (refused?.kind === 'read') {
        const name = w.queries[refused.query - 1]?.name ?? `#${refused.query}`;
        return `restart ${int(a[0])} (${cellOf(int(a[0]))}): the server's statement timer (${timer}) could not be read after executions ${refused.from}-${refused.from + refused.n - 1} of query ${JSON.stringify(name)}, which ran: ${clientError(text(a[1]))}. The run stopped there; the restarts measured before it are kept`;
      }
      if (refused?.kind === 'prologue') return `restart ${int(a[0])} (${cellOf(int(a[0]))}): the server's statement timer (${timer}) could not be set up for the measured session, before any query ran: ${clientError(text(a[1]))}. The run stopped there; the restarts measured before it are kept`;
      // The query and repetition the session had got to (a runner of before it said none): the refused statement is the next.
      if (!a[2]) return clientError(text(a[1]));
      const [q, rep] = [int(a[2]), int(a[3])];
      const next = q === 0 ? 1 : rep < w.repetitions ? q : q + 1;
      const name = w.queries[Math.min(next, w.queries.length) - 1]?.name ?? `#${next}`;
      return queryFailure(int(a[0]), cellOf(int(a[0])), name, clientError(text(a[1]))).message;
    }
    case 'setup':
      return setupFailure(int(a[0]), splitStatements(w.setupSql), clientError(text(a[1]))).message;
    case 'check': {
      const problems = text(a[0])
        .split('\n')
        .filter(Boolean)
        .map((l) => {
          const [i, err] = l.split(' ');
          return `query ${JSON.stringify(w.queries[int(i) - 1]?.name ?? `#${i}`)}: ${clientError(text(err))}`;
        });
      return queryProblems(problems).message;
    }
    case 'command':
      return `the benchmark command exited with ${int(a[1])}: ${text(a[2]).trim().split('\n').join(' | ')}`;
    case 'lost':
      return interruptedMessage(int(a[0]), cellOf(int(a[0])), int(a[1]), (a[2] && text(a[2])) || 'the connection to mysqld was lost during this restart');
    case 'msg':
      return a.map(text).filter(Boolean).join('. ') || 'the runner failed and said nothing';
    case 'gone':
      return runnerGone(int(a[0]), int(a[1]), int(a[2]));
    default:
      return `the runner ended: ${[state, ...why].join(' ')}`;
  }
}

/**
 * Turn the whole lines of `data` (the target journal from some offset) into journal records. A run's
 * end (E) waits for the line saying the host was put back (H), unless `runnerGone`: the runner is no
 * more and will not write it.
 */
export function importLines(data: string, ctx: ImportContext, opts: { runnerGone?: boolean } = {}): Imported {
  const records: JournalRecord[] = [];
  const open = new Set(ctx.open);
  let timer = ctx.timer;
  let consumed = 0;
  let ended = false;
  let end: { at: number; state: RecordOf<'run-finished'>['state']; message?: string; gone?: boolean } | null = null;
  let endStart = 0;
  let endRecords = 0;
  const w = ctx.design.workload;
  const cellOf = (seq: number) => ctx.plan[seq - 1]?.cell ?? '';
  const log = (at: number, level: 'info' | 'warn' | 'error', message: string) => records.push({ t: 'log', at, level, message });
  const finishOpen = (at: number, reason: string) => {
    for (const seq of open) records.push({ t: 'restart-discarded', at, seq, cell: cellOf(seq), reason });
    open.clear();
  };

  let pos = 0;
  for (;;) {
    const nl = data.indexOf('\n', pos);
    if (nl < 0) break;
    const line = data.slice(pos, nl);
    const lineStart = pos;
    pos = nl + 1;
    const f = line.split(' ');
    const at = int(f[1]);
    const seq = int(f[2]);
    switch (f[0]) {
      case 'V':
        log(int(f[3]), 'info', `the runner started on ${ctx.target} (pid ${f[4]})`);
        break;
      case 'A':
        log(at, 'info', `mysqld on ${ctx.target} accepted the client's login: the run goes on there by itself`);
        break;
      case 'R':
        if (seq >= 1 && seq <= ctx.plan.length) {
          records.push({ t: 'restart-started', at, seq, cell: cellOf(seq) });
          open.add(seq);
        }
        break;
      case 'U': {
        // The runner says U for a design without a setup script too: nothing to tell, as an attached run tells nothing.
        if (!w.setupSql.trim()) break;
        // The setup runs once per data directory, in the restart in progress (the newest open one): named
        // with its build as an attached run names it ("build B: setup skipped …"), or two builds' lines
        // read as one run's contradicting itself.
        const current = Math.max(0, ...open);
        const proc = current >= 1 && current <= ctx.plan.length ? restartProcedure({ profile: ctx.profile, factors: ctx.design.factors, levels: ctx.plan[current - 1].levels, host: ctx.host }) : null;
        const build = proc ? datadirKey(proc) : '';
        const what = f[2] === '1' ? `setup skipped${w.setupSkipIfTable ? `: table ${w.setupSkipIfTable} already exists in ${w.database}` : ''}` : `setup script ran (${int(f[3])} statements, ${(int(f[4]) / 1000).toFixed(1)} s)`;
        log(at, 'info', (build ? `build ${build}: ` : '') + what);
        break;
      }
      case 'F': {
        if (!open.has(seq)) break;
        const reply = parseReply(text(f[3]));
        const proc = restartProcedure({ profile: ctx.profile, factors: ctx.design.factors, levels: ctx.plan[seq - 1].levels, host: ctx.host, schemas: [w.database], workload: true });
        const { checks, options } = judgeStart(proc, reply.facts, parseVariables(text(f[4])), ctx.host);
        records.push({ t: 'checks', at, seq, checks, ...(reply.pid ? { pid: reply.pid } : {}), ...(reply.readyMs !== null ? { readyMs: reply.readyMs } : {}), ...(options.length ? { options } : {}) });
        const reason = verifyFailure(checks);
        if (reason) {
          // The runner measured it anyway; those figures belong to no cell and stay out. Its step times
          // so far (stop … verify) follow the F line's fields, as an attached run journals them.
          const steps = stepsOf(f.slice(5));
          records.push({ t: 'restart-finished', at, seq, cell: cellOf(seq), status: 'verify-failed', reason, ...(Object.keys(steps).length ? { steps } : {}) });
          open.delete(seq);
        }
        break;
      }
      case 'S': {
        // A start that failed: the restart's result, as an attached run records it (common/restart-policy.ts).
        if (!open.has(seq)) break;
        const e = startFailure(ctx.target, ctx.profile, false, { code: int(f[3]), stderr: text(f[5]) }, parseReply(text(f[4])));
        const [why, ...more] = e.message.split('\n');
        if (more.length) log(at, 'error', e.message);
        records.push({ t: 'restart-finished', at, seq, cell: cellOf(seq), status: 'failed', reason: why });
        open.delete(seq);
        break;
      }
      case 'T':
        if (f[2] === 'performance_schema' || f[2] === 'profiling') {
          if (timer !== f[2]) {
            // Which timer, and why not the exact one: said once, as an attached run says it (a warning in its
            // log), with how query profiling compared with the client's time (N OFFSET SPREAD after the word).
            const source: TimingSource = f[2];
            const vsClient = source === 'profiling' ? vsClientOf(f.slice(4), at) : null;
            const found = { source, ...(f[2] === 'profiling' ? { why: whyNotExactWord(f[3]) } : {}), ...(vsClient ? { vsClient } : {}) };
            records.push({ t: 'timer', at, ...found });
            const note = timerNoteParts(found);
            if (note) log(at, 'warn', timerNoteText(note));
          }
          timer = f[2];
        }
        break;
      case 'X': {
        const q = w.queries[int(f[3]) - 1];
        const rep = int(f[4]);
        if (!open.has(seq) || !q || !(timer === 'performance_schema' || timer === 'profiling')) break;
        records.push({ t: 'execution', at, seq, query: q.name, rep, warmup: rep <= w.warmup, value: serverMs(timer, f[5]), unit: 'ms', source: timer });
        break;
      }
      case 'C': {
        if (!open.has(seq) || f[4] !== '0') break;
        try {
          const out = text(f[5]);
          const execution = commandExecution(w, int(f[3]), out);
          // Its throughput over time, as an attached run journals it (there, line by line as printed).
          for (const iv of commandIntervals(w, out)) records.push({ t: 'interval', at, seq, rep: int(f[3]), ...iv });
          records.push({ t: 'execution', at, seq, ...execution });
        } catch (e) {
          records.push({ t: 'restart-finished', at, seq, cell: cellOf(seq), status: 'failed', reason: (e as Error).message });
          open.delete(seq);
        }
        break;
      }
      case 'P':
        if (open.has(seq)) records.push({ t: 'preload', at, seq, tables: int(f[3]), indexes: int(f[4]), rows: int(f[5]), ms: int(f[6]) });
        break;
      case 'I':
        // The idle time began (mysqld stopped, before the start): a mark for whoever reads the journal on the target.
        break;
      case 'D': {
        // Its step times follow as NAME=MS (a runner of before 2026-11-27 wrote none).
        const steps = stepsOf(f.slice(3));
        if (open.has(seq)) records.push({ t: 'restart-finished', at, seq, cell: cellOf(seq), status: 'ok', ...(Object.keys(steps).length ? { steps } : {}) });
        open.delete(seq);
        break;
      }
      case 'N': {
        // The host's counters around the restart's measured queries (after its D): its noise.
        const samples = new Map(text(f[3]).split('\n').filter((l) => l.startsWith('@noise ')).map((l) => parseNoiseSample(l.slice(7))).filter((x) => x !== null).map((x) => [x.when, x.sample]));
        const from = samples.get('from');
        const to = samples.get('to');
        const noise = from && to ? noiseWindow(from, to) : null;
        if (noise && seq >= 1 && seq <= ctx.plan.length) records.push({ t: 'noise', at, seq, noise });
        break;
      }
      case 'Z':
        if (open.has(seq)) records.push({ t: 'restart-discarded', at, seq, cell: cellOf(seq), reason: text(f[3]) });
        open.delete(seq);
        break;
      case 'E': {
        const state = f[2] === 'finished' || f[2] === 'cancelled' ? f[2] : 'failed';
        const message = endMessage(f[2], f.slice(3), ctx, timer);
        end = { at, state, ...(message ? { message } : {}), ...(f[3] === 'gone' ? { gone: true } : {}) };
        endStart = lineStart;
        endRecords = records.length;
        finishOpen(at, state === 'cancelled' ? 'cancelled during this restart' : (message ?? 'the run ended during this restart'));
        break;
      }
      case 'H': {
        const e = end ?? { at, state: 'failed' as const, message: 'the runner ended without saying how' };
        let { state, message } = e;
        if (f[2] !== 'ok') {
          const problem = `the host may not be as it was found: ${text(f[3]).trim() || 'stopping mysqld or restoring the host failed'}`;
          log(at, 'error', problem);
          if (state === 'finished') state = 'failed';
          message = message ? `${message}; ${problem}` : problem;
        } else if (end?.gone) message = `${message}; ${RESTORED_AFTER_GONE}`;
        records.push({ t: 'run-finished', at, state, ...(message ? { message } : {}) });
        ended = true;
        end = null;
        break;
      }
      default:
        if (line.trim()) log(at, 'warn', `a line of the target journal was not understood and is skipped: ${line.slice(0, 80)}`);
    }
    consumed = pos;
    if (ended) break;
  }
  if (end && !ended) {
    if (opts.runnerGone) {
      const problem = 'the runner ended before it put the host back';
      records.push({ t: 'run-finished', at: end.at, state: 'failed', message: end.message ? `${end.message}; ${problem}` : problem });
      ended = true;
    } else {
      // Wait for H: the E line and what the records made of it are read again next time.
      records.length = endRecords;
      consumed = endStart;
      return { records, consumed, ended, pending: { state: end.state, ...(end.message ? { message: end.message } : {}) } };
    }
  }
  return { records, consumed, ended };
}
