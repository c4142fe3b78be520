// The words for what a workload measures, one place for every view and export: a query workload's
// executions, or a benchmark command's runs ("run 3" on the Run view's interval line, `--runs` of
// `varlab new`), so a sysbench run never reads "12 executions"; and what its figures are named by (a
// query, or the command's metric).
import type { Workload } from './types.js';

/**
 * "1 execution", "12 executions"; for a command workload "1 run of the command", "12 runs of the command".
 * `what` goes before the noun: ("warm-up") "2 warm-up executions", "1 warm-up run of the command".
 */
export function executionsText(n: number, kind: Workload['kind'] | undefined, what?: string): string {
  return `${n.toLocaleString('en')}${what ? ` ${what}` : ''} ${executionWord(kind, n !== 1)}`;
}

/** The noun alone: "execution" or "run of the command" (plural: "executions", "runs of the command"). */
export function executionWord(kind: Workload['kind'] | undefined, plural = false): string {
  return kind === 'command' ? `run${plural ? 's' : ''} of the command` : `execution${plural ? 's' : ''}`;
}

/**
 * What a workload's figures are named by: a query workload's queries, a command's metric (the design's
 * `command.metric`, tps for sysbench), so `analyze` of a sysbench file says "1 metric", not "1 query".
 */
export function measureWord(kind: Workload['kind'] | undefined, plural = false): string {
  return kind === 'command' ? `metric${plural ? 's' : ''}` : plural ? 'queries' : 'query';
}

/** "1 query", "22 queries"; for a command "1 metric". */
export function measuresText(n: number, kind: Workload['kind'] | undefined): string {
  return `${n.toLocaleString('en')} ${measureWord(kind, n !== 1)}`;
}

/**
 * A reason the statistics give, said for the workload: they read tidy data, which has no kind, and say
 * "fewer than 5 executions per restart (every cell and query)"; a command's figures are runs of the
 * command and its one metric, so "fewer than 5 runs of the command per restart (every cell)".
 */
export function reasonFor(reason: string, kind: Workload['kind'] | undefined): string {
  if (kind !== 'command') return reason;
  return reason
    .replace(/\bexecutions'/g, "runs'")
    .replace(/\bexecutions\b/g, executionWord(kind, true))
    .replace(/\ban execution\b/g, `a ${executionWord(kind)}`)
    .replace(/\bexecution\b/g, executionWord(kind))
    .replace(/\bevery cell and query\b/g, 'every cell');
}
