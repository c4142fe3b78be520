// A run's events as the lines a person reads while it goes on: one wording for `varlab run`,
// `varlab attach` and the Run view's log, so the three cannot drift apart.
import { busyReasons } from './noise.js';
import { dataOutcomeText } from './dbt3/words.js';
import type { RunEvent } from './events.js';
import { visible } from './printable.js';

export interface EventLine {
  level: 'info' | 'warn' | 'error';
  text: string;
  /** A restart that went well, a preload: left out where space is short (beside a progress bar, in the Run view's log). */
  routine: boolean;
}

/** How a run ended, in words: `cancelled`, `failed: mysqld …` (a message that starts with the state is kept as it is). */
export function endedWords(state: string, message?: string): string {
  if (!message) return state;
  return new RegExp(`^${state}\\b`).test(message) ? message : `${state}: ${message}`;
}

/** A detached run's launch cancelled before its runner started: what was undone, and how to launch it again (`again`: the CLI's command, the Run view's button). */
export const launchCancelledWords = (again: string) =>
  `the launch was cancelled before its runner started: a mysqld it started is stopped, the host's settings restored and the target let go; ${again} to launch it (a DBT-3 load goes on from its last whole chunk)`;

/** ` (1 measured, 2 failed)` when some restart done measured nothing (mysqld did not start, a tunable did not take effect); else nothing. Attached and detached runs' end lines alike. */
export function measuredIn(o: { done: number; measured?: number }): string {
  if (o.measured === undefined || o.measured === o.done) return '';
  return ` (${o.measured} measured, ${o.done - o.measured} failed)`;
}

/** A run that ended with restarts done and not one of them measured anything: it must not read as a run whose results were saved. */
export const measuredNothing = (o: { done: number; measured?: number }): boolean => o.measured === 0 && o.done > 0;

/** The line an event makes, or null for events that are not lines (executions, progress, state). In a run on several hosts it starts with the host. */
export function eventLine(e: RunEvent): EventLine | null {
  const line = lineOf(e);
  return line && e.host !== undefined ? { ...line, text: `${visible(e.host)}: ${line.text}` } : line;
}

function lineOf(e: RunEvent): EventLine | null {
  switch (e.type) {
    case 'restart-finished':
      return { level: e.status === 'ok' ? 'info' : 'warn', routine: e.status === 'ok', text: `restart ${e.seq} ${e.cell}: ${e.status}${e.reason ? ` (${e.reason})` : ''}` };
    case 'host-noise': {
      // A busy host is said where the run is followed (the Run view's log, `varlab run`'s lines); a quiet one is routine.
      const why = busyReasons(e.noise);
      return why
        ? { level: 'warn', routine: false, text: `restart ${e.seq} ran on a busy host: ${why.join('; ')}` }
        : { level: 'info', routine: true, text: `restart ${e.seq}: the host was quiet (others ${e.noise.othersCpuPct}% of the CPUs, load ${e.noise.load})` };
    }
    case 'restart-discarded':
      return { level: 'warn', routine: false, text: `restart ${e.seq} ${e.cell} discarded: ${e.reason}` };
    case 'log':
      return { level: e.level, routine: false, text: `${e.level === 'info' ? '' : `${e.level}: `}${e.message}` };
    case 'data':
      return { level: 'info', routine: false, text: dataOutcomeText(e) };
    case 'preload':
      return { level: 'info', routine: true, text: `restart ${e.seq}: preloaded ${e.tables} tables, ${e.indexes} indexes, ${e.rows} rows in ${(e.ms / 1000).toFixed(1)} s` };
    case 'stopped-answered':
      return { level: 'info', routine: false, text: `stopped when answered at round ${e.round}: ${e.because}` };
    case 'run-finished':
      return { level: e.state === 'finished' ? 'info' : e.state === 'cancelled' ? 'warn' : 'error', routine: false, text: `run ${endedWords(e.state, e.message)}` };
    default:
      return null;
  }
}
