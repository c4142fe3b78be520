// Is a process running on this machine? The one answer for every lock and temporary file that
// names its owner by pid.
import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/PID/stat from the state on (field 3 first), or null where there is no such
 * file (no /proc, or no such process). The command name before them is in parentheses and may hold
 * spaces and parentheses itself, so the fields start after the last `)`.
 */
export function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * Is a process of this id running here? One that exists but is not ours to signal (EPERM) counts as
 * running. One that has exited but was not reaped yet (a zombie, state Z in /proc/PID/stat) does not:
 * where PID 1 reaps no orphans (some containers, CI), a dead process can stay a zombie for good.
 */
export function processRuns(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // Without /proc (or with it hiding other users' processes) the signal's answer stands.
  return statFields(pid)?.[0] !== 'Z';
}

/** When a process started, in clock ticks since boot (Linux: field 22 of /proc/PID/stat), or undefined. */
export function processStart(pid: number): number | undefined {
  const start = statFields(pid)?.[19];
  return start === undefined ? undefined : Number(start);
}

/**
 * Is the process a lock names still its owner: running, and not a later process that got its pid
 * (its start time, when the lock recorded one and /proc tells it, is the lock's)?
 */
export function ownerRuns(pid: number, pidStart: number | undefined): boolean {
  if (!processRuns(pid)) return false;
  const start = processStart(pid);
  return pidStart === undefined || start === undefined || start === pidStart;
}
