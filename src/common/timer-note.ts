// The timer note (issue 22, Deliver 2): which statement timer measured a run's queries when it is not
// performance_schema's exact one, and why; how to turn the exact one on; how it compared with the
// client's time. Its parts travel as they were found (the journal's timer record, the file's
// results.timers: source, why, vsClient; the exact timer's options are EXACT_TIMER_OPTIONS), and are
// put into words here only: the Run view shows the parts one under another, and the report, the run's
// log and the file's timerNote say them in one line (timerNoteText). Nothing is split back out of that
// line, except in a file or journal written before the parts were kept (partsOfOldNote, at the end).
import type { ExperimentDoc, Results, TimerVsClient, TimingSource } from './experiment/types.js';
import { resultHosts } from './plan.js';

/**
 * performance_schema's statement timer, exact to the picosecond (MariaDB starts with it off): the
 * query loop reads its figures from events_statements_history_long, which needs the statements'
 * current and history consumers. A sandbox starts with these; each is read back at every start.
 */
export const EXACT_TIMER_OPTIONS = [
  '--performance-schema=ON',
  '--performance-schema-consumer-events-statements-current=ON',
  '--performance-schema-consumer-events-statements-history=ON',
  '--performance-schema-consumer-events-statements-history-long=ON',
];

/**
 * The statement a detached runner holds query profiling against its client with (runner.ts vs_client):
 * the mysql client on the target times nothing, so the client's time is taken by the server's clock,
 * from one execution's start to the next's (its round trip and the client's turn between the two).
 */
export const VS_CYCLE_QUERY = 'SELECT UNIX_TIMESTAMP(NOW(6))';

/**
 * What a run found of its timer: the timer record's fields (less its time), and a host's entry of the
 * file's results.timers. `why` is why the exact timer is not the one; `note` is the whole note in words,
 * all that a journal or file written before the parts were kept holds.
 */
export interface TimerFound {
  source?: TimingSource;
  why?: string;
  vsClient?: TimerVsClient;
  note?: string;
}

/** A note in its parts, in words. */
export interface TimerNoteParts {
  /** Which timer, and why not the exact one. */
  what: string;
  /**
   * How to turn on the exact timer: the sentence, the server options it names, and the words before
   * the first option and after the last (unbracketed), for a view that lists the options on their own.
   */
  help?: { text: string; options: string[]; before: string; after: string };
  /** How the timer compared with the client's time. */
  vsClient?: string;
}

const HELP_BEFORE = "for performance_schema's exact timer (TIMER_WAIT, in picoseconds), start mysqld with";
const HELP_AFTER = "add them to the server profile's options; a varlab sandbox has them";

/** How to turn the exact timer on, for a server without it. */
export const EXACT_TIMER_HELP: NonNullable<TimerNoteParts['help']> = {
  text: `${HELP_BEFORE} ${EXACT_TIMER_OPTIONS.join(' ')} (${HELP_AFTER})`,
  options: EXACT_TIMER_OPTIONS,
  before: HELP_BEFORE,
  after: HELP_AFTER,
};

/** How a timer compared with the client's round trip, in words. */
export function vsClientText(v: TimerVsClient): string {
  const how = v.query === VS_CYCLE_QUERY ? ", the client's time taken by the server's clock from one execution's start to the next's" : '';
  return `compared with the client's round trip at the start of the run (${v.n} executions of ${v.query}${how}): the client's time is ${v.offsetMs.toFixed(3)} ms longer (median), spread ${v.spreadMs.toFixed(3)} ms (standard deviation)`;
}

/** Which timer, in words, for the two timers that are not the exact one. */
function whatOf(source: TimingSource | undefined, why: string): string | null {
  if (source === 'profiling') return `times from query profiling (SHOW PROFILES), not the exact timer: ${why}`;
  if (source === 'client') return `no server-side statement timer on this server (${why}, query profiling unavailable): times are client round trips and include the network`;
  return null;
}

/** The note of a timer as the run found it, in its parts; null for the exact timer (or nothing found). */
export function timerNoteParts(t: TimerFound): TimerNoteParts | null {
  if (t.why === undefined) return t.note ? partsOfOldNote(t.note) : null;
  const what = whatOf(t.source, t.why);
  if (!what) return null;
  return { what, help: EXACT_TIMER_HELP, ...(t.vsClient ? { vsClient: vsClientText(t.vsClient) } : {}) };
}

/** The note in one line: the run's warning, the report's "Timer" line, the file's timerNote. */
export function timerNoteText(p: TimerNoteParts): string {
  return [p.what, p.help?.text, p.vsClient].filter((s) => s !== undefined).join('; ');
}

/**
 * What the file says of one host's timer ('' in results from one host; `hosts` as plan.ts resultHosts
 * gives them), in one run of a grown design (`part`, as a restart's; any run when not given): its
 * entry of results.timers, else what a file from before them holds, its note's text (of that host,
 * in a run on several hosts) and, from one host, its timerVsClient (both the first run's, where no
 * run of this host has an entry). Undefined when nothing is said: the exact timer.
 */
export function timerFoundOf(results: Results | undefined, host: string, hosts: readonly string[], part?: number): TimerFound | undefined {
  const found = results?.timers?.find((t) => (t.host ?? '') === host && (part === undefined || (t.part ?? 1) === part));
  if (found) {
    const { host: _host, part: _part, ...t } = found;
    return t;
  }
  // The words alone are a file's from before `timers`, of its first run (a grown run adds its note to them).
  if ((part ?? 1) !== 1 || results?.timers?.some((t) => (t.host ?? '') === host)) return undefined;
  const note = hosts.length ? oldHostNote(results?.timerNote, host, hosts) : results?.timerNote;
  return note ? { note, ...(!hosts.length && results?.timerVsClient ? { vsClient: results.timerVsClient } : {}) } : undefined;
}

/** One host's note in the file's words, as the report says it ('' in results from one host). */
export function timerNoteOf(results: Results | undefined, host: string, hosts: readonly string[]): TimerNoteParts | null {
  const t = timerFoundOf(results, host, hosts);
  return t ? timerNoteParts(t) : null;
}

/** One host's timer in one or more runs of a grown design (run --missing): its note, or the timer its restarts name when it has none. */
export interface RunsTimer {
  runs: number[];
  note: TimerNoteParts | null;
  source?: TimingSource;
}

/**
 * One host's timer by run of a grown design (a restart's `part`), the runs that said the same
 * together: one entry when every run measured with the same timer and said the same, as in a design
 * that did not grow.
 */
export function timersByRun(results: Results | undefined, host: string, hosts: readonly string[]): RunsTimer[] {
  const restarts = (results?.restarts ?? []).filter((r) => !hosts.length || r.host === host);
  const runs = [...new Set(restarts.map((r) => r.part ?? 1))].sort((a, b) => a - b);
  const out: RunsTimer[] = [];
  const said = (t: Omit<RunsTimer, 'runs'>) => (t.note ? timerNoteText(t.note) : t.source);
  for (const run of runs.length ? runs : [1]) {
    const found = timerFoundOf(results, host, hosts, run);
    const source = restarts.find((r) => (r.part ?? 1) === run)?.queries[0]?.source;
    const t = { note: found ? timerNoteParts(found) : null, ...(source ? { source } : {}) };
    const same = out.find((o) => said(o) === said(t));
    if (same) same.runs.push(run);
    else out.push({ runs: [run], ...t });
  }
  return out;
}

/** `run 2`, `runs 1, 3`: which runs of a grown design (run --missing). */
export const runsWords = (runs: readonly number[]): string => `run${runs.length > 1 ? 's' : ''} ${runs.join(', ')} of this grown design (run --missing)`;

/** The timer of runs without a note: the exact one, or (a file grown before each run's timer was kept) the timer its restarts name. */
export const noNoteWords = (source: TimingSource | undefined): string => (source === undefined || source === 'performance_schema' ? "performance_schema's exact timer (TIMER_WAIT)" : `times from ${source}`);

/**
 * The file's timer note, a line per host, and per run of a grown design whose runs' timers differ
 * (`Timer on HOST in run 2 …: NOTE`); none for the exact timer of a design that did not grow. What the
 * report, `varlab analyze` and the Analysis view say.
 */
export function timerLines(doc: Pick<ExperimentDoc, 'design' | 'results'>): string[] {
  const hosts = resultHosts(doc.design, doc.results?.restarts);
  return (hosts.length ? hosts : ['']).flatMap((h) => {
    const on = h ? ` on ${h}` : '';
    const byRun = timersByRun(doc.results, h, hosts);
    if (byRun.length === 1) return byRun[0].note ? [`Timer${on}: ${timerNoteText(byRun[0].note)}`] : [];
    return byRun.map((t) => `Timer${on} in ${runsWords(t.runs)}: ${t.note ? timerNoteText(t.note) : noNoteWords(t.source)}`);
  });
}

// Files and journals from before results.timers and the record's `why` kept the note only as its
// text: there, and only there, it is split back into its parts, by the words each part began with.

const EXACT_TIMER_HELP_START = "for performance_schema's exact timer";
const VS_CLIENT_START = "compared with the client's round trip";

/** An old note in its parts; a note of another shape is all `what`. */
export function partsOfOldNote(note: string): TimerNoteParts {
  const cut = (text: string, start: string) => {
    const i = text.indexOf(`; ${start}`);
    return i < 0 ? [text, undefined] : [text.slice(0, i), text.slice(i + 2)];
  };
  const [rest, vsClient] = cut(note, VS_CLIENT_START);
  const [what, help] = cut(rest!, EXACT_TIMER_HELP_START);
  return {
    what: what!,
    ...(help ? { help: oldHelpParts(help) } : {}),
    ...(vsClient ? { vsClient } : {}),
  };
}

function oldHelpParts(text: string): NonNullable<TimerNoteParts['help']> {
  const options = text.split(/\s+/).filter((w) => /^--[a-z0-9-]+(=\S+)?$/.test(w));
  if (!options.length) return { text, options, before: text, after: '' };
  const last = options[options.length - 1];
  return {
    text,
    options,
    before: text.slice(0, text.indexOf(options[0])).trim(),
    after: text.slice(text.indexOf(last) + last.length).trim().replace(/^\((.*)\)$/, '$1'),
  };
}

/**
 * One host's note out of an old several-host file's timerNote, which joined each host's as
 * `HOST: NOTE` with "; ": it runs from its host's name to the next host's (a note holds "; " itself).
 */
function oldHostNote(joined: string | undefined, host: string, hosts: readonly string[]): string | undefined {
  if (!joined) return undefined;
  const startOf = (h: string) => {
    if (joined.startsWith(`${h}: `)) return 0;
    const i = joined.indexOf(`; ${h}: `);
    return i < 0 ? -1 : i + 2;
  };
  const starts = hosts.map((h) => ({ h, at: startOf(h) })).filter((s) => s.at >= 0);
  const mine = starts.find((s) => s.h === host);
  if (!mine) return undefined;
  const next = Math.min(...starts.filter((s) => s.at > mine.at).map((s) => s.at - 2), joined.length);
  return joined.slice(mine.at + host.length + 2, next);
}
