// Holding a detached run where it is, so that a test does not race it: its runner (a shell on the
// target, here this machine) stopped with SIGSTOP. The command it waits for (a query, a step in a
// session of its own) still ends, but the runner writes no further line, starts nothing and cannot end
// the run until `release` (SIGCONT); its lock stays fresh (refreshed by a process of its own) and it
// still counts as running. A held run is also the run that writes nothing for a while (a long DBT-3
// load, a slow query), as a follower sees it.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Lines of the target's own journal (the runner's), by their first letter; none before it exists. */
export function targetJournal(dir: string): string[] {
  try {
    return readFileSync(join(dir, 'journal'), 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The runner's pid, as its run directory on the target records it. */
export const runnerOf = (dir: string) => Number(readFileSync(join(dir, 'pid'), 'utf8').trim());

const held = new Set<number>();

/** Holds the run; returns the lines of the target's journal, which no longer grows from the runner. */
export function hold(dir: string, runner: number): string[] {
  process.kill(runner, 'SIGSTOP');
  held.add(runner);
  const lines = targetJournal(dir);
  assert.ok(!lines.some((l) => l.startsWith('E ')), `the run was held before its end: ${lines.join('\n')}`);
  return lines;
}

export function release(runner: number): void {
  held.delete(runner);
  try {
    process.kill(runner, 'SIGCONT');
  } catch {
    // Gone already.
  }
}

/** A runner a failed test left held goes on, so that the environment's stop can end it. */
export function releaseAll(): void {
  for (const r of [...held]) release(r);
}
