// Server first: while a `local` target is open, varlab's own processes yield the CPU to mysqld.
//
// Why: on `local`, varlab's process and mysqld share the host's CPUs. When a result arrives, the kernel
// wakes varlab's thread and, under the ordinary policy (SCHED_OTHER), lets it preempt mysqld on its
// CPU before the server has timed the statement's end: the server's timer then holds varlab's work.
// At a ~0.5 ms query varlab read 1.01–1.11× a by-hand loop through the `mariadb` client (whose wake-up
// is lighter), on a quiet machine (npm run bench -- fidelity; FIDELITY_PART=clients shows it per client).
// A SCHED_BATCH thread never preempts another on wake-up (the kernel's fair class: "batch tasks do not
// preempt non-batch tasks"); it runs when mysqld waits for the next statement, or at the next tick.
// Under SCHED_BATCH the same bench read 0.99–1.02× (README, Performance).
//
// The host's processes keep the ordinary policy: every local command starts under `chrt --other 0`
// (localArgv), so mysqld, the restart script, sysbench and a detached runner are started as they would
// be from a shell. Linux only, and only when varlab itself runs under SCHED_OTHER (a user who chose a
// policy for varlab keeps it); without `chrt` (util-linux) nothing changes and `serverFirstState` says so.
// VARLAB_SERVER_FIRST=0 turns it off, for the bench's comparison (FIDELITY_SERVER_FIRST=both).
import { execFileSync } from 'node:child_process';
import { statFields } from '../process.js';

/** SCHED_OTHER and SCHED_BATCH, as /proc/PID/stat's policy field gives them. */
export const SCHED_OTHER = 0;
export const SCHED_BATCH = 3;

/** A process's scheduling policy (its main thread's): /proc/PID/stat's field 41; undefined where unreadable. */
export function schedPolicy(pid: number | 'self'): number | undefined {
  const policy = Number(statFields(pid === 'self' ? process.pid : pid)?.[41 - 3]);
  return Number.isInteger(policy) ? policy : undefined;
}

let holders = 0;
/** The pids set to SCHED_BATCH by the first holder, set back by the last. */
let yielded: number[] = [];
/** Why the processes were not yielded, for `serverFirstState`; null while they are (or before any holder). */
let notYielded: string | null = null;

/** `chrt` with its arguments; false where it cannot run or failed. */
function chrt(args: string[]): boolean {
  try {
    execFileSync('chrt', args, { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * The first holder sets this process and `own` (the app's other processes: Electron's renderers draw the
 * live plots) to SCHED_BATCH, all threads; the returned release, called by the last holder, sets them
 * back. Calling a release twice does nothing.
 */
export function holdServerFirst(own: () => number[] = () => []): () => void {
  if (holders++ === 0) {
    yielded = [];
    notYielded = null;
    if (process.env.VARLAB_SERVER_FIRST === '0') notYielded = 'VARLAB_SERVER_FIRST=0';
    else if (process.platform !== 'linux') notYielded = 'not on Linux';
    else if (schedPolicy('self') !== SCHED_OTHER) notYielded = 'varlab runs under a scheduling policy of its own choosing';
    else {
      let pids: number[] = [];
      try {
        pids = own().filter((p) => Number.isInteger(p) && p > 1 && p !== process.pid);
      } catch {
        /* the app is going away */
      }
      for (const pid of [process.pid, ...pids]) if (schedPolicy(pid) === SCHED_OTHER && chrt(['--all-tasks', '--batch', '--pid', '0', String(pid)])) yielded.push(pid);
      if (!yielded.includes(process.pid)) {
        notYielded = 'chrt (util-linux) could not set SCHED_BATCH';
        yielded = [];
      }
    }
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--holders > 0) return;
    for (const pid of yielded) chrt(['--all-tasks', '--other', '--pid', '0', String(pid)]);
    yielded = [];
  };
}

/** The argv that starts `argv` on this machine under the ordinary policy while varlab's processes yield. */
export function localArgv(argv: readonly string[]): string[] {
  return yielded.length ? ['chrt', '--other', '0', ...argv] : [...argv];
}

/** Whether varlab's process yields to the server now, and if not, why (null before any local target opened). */
export function serverFirstState(): { yielding: boolean; reason: string | null } {
  return { yielding: yielded.length > 0, reason: yielded.length ? null : notYielded };
}

/**
 * What a run on `local` says once about it: that varlab yields, or that it could not and what that may
 * cost. Null before any connection to a local server.
 */
export function serverFirstMessage(): { level: 'info' | 'warn'; message: string } | null {
  const s = serverFirstState();
  if (s.yielding) return { level: 'info', message: "varlab's process yields the CPU to mysqld on this host while connected (SCHED_BATCH): its wake-ups on a result never delay the server's own timing" };
  if (!s.reason) return null;
  return { level: 'warn', message: `varlab's process could not yield the CPU to mysqld on this host (${s.reason}): on a query of about a millisecond or less, the server's time may hold varlab's own wake-ups (up to about 5 % here)` };
}
