// The words for what a workload measures, one place for every view and export: a query workload's
// executions, or a benchmark command's runs ("run 3" on the Run view's interval line, `--runs` of
// `varlab new`), so a sysbench run never reads "12 executions".
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
