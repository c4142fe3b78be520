// The run locks on the target itself, whichever machine, process or app started the run: one run at a
// time restarts a server profile's mysqld (the profile's lock, in its own directory), and a run that
// changes host-wide settings (THP, governor, turbo, ASLR host-wide, the page cache) has the host to
// itself (the host's lock, beside the host's restore record: one per host, whatever the profile or
// the name the host is reached by; acquireRunLock). A lock is a directory (mkdir is atomic on every
// POSIX file system) named `varlab-run.lock`, holding an `owner` file: the run's id, the experiment
// file, and who runs it (user, machine, pid). With a sudo profile it is taken as root, like the record.
//
// A lock is stale, and taken over, when
//   - its owner runs on the machine asking and that process is gone (the pid is dead, or another
//     process has it now: its start time differs), or
//   - its owner is a detached runner on the target (the lock's `runner` file: pid, start time, boot
//     id, run directory) and that process is gone: the runner was killed (SIGKILL, the OOM killer)
//     without its end, which is then begun from its directory (REAP: the host put back, in a process
//     of its own): the lock is taken once that end is made and said (issue 24, item 7); while it is
//     being made, taking the lock is refused as busy (`@winding`), or
//   - its owner is an attached run whose connection to the target is gone (the lock's `runner` file
//     names the session's anchor, a process on the target that lives as long as the connection, with
//     `-` for its directory): the run's varlab was killed, or its machine closed the connection. So a
//     run of another machine is seen gone at once too, where its pid says nothing here, or
//   - its owner has not refreshed it for `staleAfterS` seconds (a run refreshes it every restart and
//     at least every half minute; a laptop asleep longer than that loses its claim).
import { hostname } from 'node:os';
import { ApiError } from '../../common/api.js';
import { asRoot, shellQuote } from './shell.js';
import type { TargetSession } from './types.js';
import { processRuns, processStart } from '../process.js';
import { ANCHOR_PATTERN, OWNED_SAFE, REAP, RUN_DIR_SAFE, RUNNER_ALIVE } from './script.js';

export interface LockOwner {
  runId: string;
  /** The experiment file being run (as its machine names it). */
  file: string;
  /** The machine and process running it. */
  host: string;
  pid: number;
  /** The process's start time (clock ticks since boot), on the machine `host`: a pid reused since is not it. */
  pidStart?: number;
  user?: string;
  startedAt: number;
}

export interface TargetLock {
  readonly path: string;
  /** Every lock directory held (the profile's, and the host's when the run changes host-wide settings). */
  readonly paths: string[];
  /** Other runs on the host, holding locks of `also` (runs that change only their own mysqld). */
  readonly also?: LockOwner[];
  /** What taking it did besides: a killed detached runner's run ended and the host put back. */
  readonly said?: string;
  /** Show the run is alive; throws if another run took the lock over meanwhile. */
  refresh(): Promise<void>;
  release(): Promise<void>;
}

export const LOCK_NAME = 'varlab-run.lock';
export const DEFAULT_STALE_AFTER_S = 180;

export function targetLockPath(dir: string): string {
  return `${dir.replace(/\/+$/, '')}/${LOCK_NAME}`;
}

function parseOwner(text: string): LockOwner | null {
  try {
    const o = JSON.parse(text) as LockOwner;
    return typeof o.runId === 'string' && typeof o.pid === 'number' ? o : null;
  } catch {
    return null;
  }
}

/** What a run ended for a runner found gone says (its journal's end, and the lock's taker). */
export function runnerGone(pid: number, lastMs: number, restart: number): string {
  const upTo = restart > 0 ? `its measurements up to restart ${restart} are in the journal` : 'no restart of it had finished';
  return `the runner (pid ${pid}) is gone since ${new Date(lastMs).toISOString()} (its last journal line; killed?); ${upTo}`;
}

export const RESTORED_AFTER_GONE = "its mysqld is stopped and the host's settings are restored from the record";

/** The same, while its end is still being made there (a slow stop of mysqld: REAP waits no longer for it). */
export const ENDING_AFTER_GONE = "its end is being made on the target now: stopping its mysqld, then restoring the host's settings from the record";

/** Locks that must not be held by another run while this one holds its own: shell words (globs allowed), and the rule said when one is. */
export interface LockConflicts {
  words: string[];
  rule: string;
}

/**
 * The script that takes the lock: `acquired`, or `held AGE` and the owner's line. A detached runner
 * holding it, or a lock in `conflicts`, that is gone is ended first (`@was OWNER`, then the runner's
 * `@gone` line, or `@unreaped WHY` when its directory is not one to use). Once taken, a lock of
 * `conflicts` held by another run gives it back: `@conflict PATH` and that owner's line. Each lock of
 * `also` held by another run is named: `@also` and its owner's line.
 */
export function acquireScript(path: string, owner: string, staleAfterS: number, opts: { runId?: string; conflicts?: string[]; also?: string[]; anchor?: string | null } = {}): string {
  const d = shellQuote(path);
  const dir = shellQuote(path.replace(/\/[^/]+$/, '') || '/');
  const parent = shellQuote(path.replace(/\/[^/]+\/[^/]+$/, '') || '/');
  const mine = shellQuote(`"runId":"${opts.runId ?? (parseOwner(owner)?.runId ?? '')}"`);
  // The session's anchor, beside the owner: `-` where a detached runner writes its directory (lock_held).
  const anchored = opts.anchor && ANCHOR_PATTERN.test(opts.anchor) ? ` && printf '%s -\\n' ${shellQuote(opts.anchor)} > "$d/runner"` : '';
  const each = (words: string[] | undefined, then: string) =>
    words?.length ? [`for o in ${words.join(' ')}; do`, `  [ "$o" != "$d" ] && [ -d "$o" ] || continue; grep -qF ${mine} "$o/owner" 2>/dev/null && continue`, `  if lock_held "$o"; then ${then}; fi`, 'done'] : [];
  return [
    // The folder is the restore record's: made as the record's own code makes it (parent 755, folder 700).
    `{ [ -d ${parent} ] || mkdir -p -m 755 ${parent}; } && { [ -d ${dir} ] || mkdir -m 700 ${dir}; } || { echo "cannot make ${dir.replace(/"/g, '')}" >&2; exit 1; }`,
    `d=${d}`,
    OWNED_SAFE,
    RUN_DIR_SAFE,
    RUNNER_ALIVE,
    REAP,
    // Held by a live owner: refreshed lately, and its detached runner (if one) still that process. A
    // gone runner's run is ended from its directory and its lock removed; a stale lock is just not held.
    'lock_held() {',
    '  [ -d "$1" ] || return 1',
    '  if [ -f "$1/runner" ]; then',
    '    read -r rp rs rb rd < "$1/runner"',
    '    if ! proc_is "$rp" "$rs" "$rb"; then',
    `      printf '@was %s\\n' "$(cat "$1/owner" 2>/dev/null)"`,
    // Its end being made (by this look or an earlier one: a run's second lock waits no more) keeps the lock held until that ends.
    `      case "$rd" in`,
    `        /*) if why=$(run_dir_safe "$rd" 2>&1); then`,
    `              winding "$rd" || reap "$rd" || printf '@unreaped \\n'`,
    `              winding "$rd" && { age=0; echo '@winding'; return 0; }`,
    `            else printf '@unreaped %s\\n' "$why"; fi ;;`,
    `        -) echo '@left' ;;`,
    `        *) echo '@unreaped no run directory' ;;`,
    `      esac`,
    '      rm -rf "$1"; return 1',
    '    fi',
    '  fi',
    '  now=$(date +%s); m=$(stat -c %Y "$1/owner" 2>/dev/null || stat -c %Y "$1" 2>/dev/null || echo "$now"); age=$((now - m))',
    `  [ "$age" -le ${Math.floor(staleAfterS)} ]`,
    '}',
    'others() {',
    ...each(opts.conflicts, `rm -rf "$d"; echo "@conflict $o"; cat "$o/owner" 2>/dev/null; echo; exit 0`),
    ...each(opts.also, `echo '@also'; cat "$o/owner" 2>/dev/null; echo`),
    '  true',
    '}',
    `take() { mkdir "$d" 2>/dev/null && printf '%s\\n' ${shellQuote(owner)} > "$d/owner"${anchored}; }`,
    // This run holds it already (it reconnected): its new session's anchor replaces the old one's.
    `if [ -d "$d" ] && grep -qF ${mine} "$d/owner" 2>/dev/null; then touch "$d/owner"${anchored}; others; echo acquired; exit 0; fi`,
    'if take; then others; echo acquired; exit 0; fi',
    'if ! lock_held "$d"; then rm -rf "$d"; if take; then others; echo acquired; exit 0; fi; fi',
    `echo "held $age"; cat "$d/owner" 2>/dev/null; exit 0`,
  ].join('\n');
}

export interface TargetLockOptions {
  staleAfterS?: number;
  sudo?: boolean;
  /** Said when another run holds this lock (default: one run at a time per target). */
  rule?: string;
  conflicts?: LockConflicts;
  /** Locks whose other holders are named in `TargetLock.also`. */
  also?: string[];
}

/**
 * Take the lock on the target, or refuse with a message naming the run that holds it (or holds one
 * of `conflicts`). A lock this run already holds (after a reconnect) is kept.
 */
export async function acquireTargetLock(session: TargetSession, dir: string, owner: LockOwner, opts: TargetLockOptions = {}): Promise<TargetLock> {
  const path = targetLockPath(dir);
  const mine = owner.host === hostname() && owner.pidStart === undefined ? { ...owner, pidStart: processStart(owner.pid) } : owner;
  const line = JSON.stringify(mine);
  const staleAfterS = opts.staleAfterS ?? DEFAULT_STALE_AFTER_S;
  const sudo = opts.sudo === true;
  const exec = (script: string) => session.exec(asRoot(script, sudo), { timeoutMs: 30_000 });
  const anchor = await session.anchor();
  let said: string | undefined;
  let also: LockOwner[] = [];
  for (let attempt = 0; ; attempt++) {
    const r = await exec(acquireScript(path, line, staleAfterS, { runId: owner.runId, conflicts: opts.conflicts?.words, also: opts.also, anchor }));
    const out = r.stdout.trim();
    if (r.code !== 0) throw new ApiError('internal', `cannot take the run lock ${path} on ${session.target}: ${r.stderr.trim() || out}`);
    const lines = out.split('\n');
    said = reaped(session.target, lines) ?? said;
    if (lines.includes('@winding')) throw endBeingMade(session.target, lines);
    const conflict = lines.findIndex((l) => l.startsWith('@conflict '));
    if (conflict >= 0) throw busy(session.target, lines[conflict].slice(10), parseOwner(lines[conflict + 1] ?? ''), '', opts.conflicts!.rule);
    also = lines.flatMap((l, i) => (l === '@also' ? [parseOwner(lines[i + 1] ?? '')].filter((o): o is LockOwner => o !== null) : []));
    if (lines.includes('acquired')) break;
    const heldAt = lines.findIndex((l) => l.startsWith('held '));
    const held = parseOwner(lines.slice(heldAt + 1).join('\n'));
    if (held?.runId === owner.runId) break;
    // Its owner ran on this machine and is gone (or its pid is another process's now): nothing will release it.
    const gone = held && held.host === hostname() && (!processRuns(held.pid) || (held.pidStart !== undefined && processStart(held.pid) !== held.pidStart));
    if ((gone || !held) && attempt === 0) {
      if (!held && Number(lines[heldAt]?.split(/\s+/)[1]) < 5) throw busy(session.target, path, null);
      await exec(`rm -rf ${shellQuote(path)}`);
      continue;
    }
    throw busy(session.target, path, held, '', opts.rule);
  }
  const lock: TargetLock = {
    path,
    paths: [path],
    ...(said ? { said } : {}),
    ...(also.length ? { also } : {}),
    async refresh() {
      const r = await exec(`grep -qF ${shellQuote(`"runId":"${owner.runId}"`)} ${shellQuote(`${path}/owner`)} && touch ${shellQuote(`${path}/owner`)} && echo ok`);
      if (!r.stdout.includes('ok')) {
        const now = parseOwner((await exec(`cat ${shellQuote(`${path}/owner`)} 2>/dev/null`)).stdout);
        throw busy(session.target, path, now, 'this run lost its lock on the target (it was away too long); ');
      }
    },
    async release() {
      await exec(`grep -qF ${shellQuote(`"runId":"${owner.runId}"`)} ${shellQuote(`${path}/owner`)} 2>/dev/null && rm -rf ${shellQuote(path)}; true`);
    },
  };
  return lock;
}

/** Where a run's locks are on the target: its profile's directory, the host's, and the parent of every profile's. */
export interface RunLockDirs {
  profile: string;
  host: string;
  records: string;
}

/**
 * A run's locks on its target (issue 24, item 8). Every run holds its server profile's lock (it
 * restarts that mysqld). A run that changes host-wide settings (`hostWide`: the factors' labels) also
 * holds the host's, and has the host to itself: it is refused while any other run goes on there, on
 * any profile, and they are refused while it does. Runs that change only their own mysqld's settings
 * may go on at once on two profiles, and say so.
 */
export async function acquireRunLock(session: TargetSession, dirs: RunLockDirs, owner: LockOwner, opts: { sudo?: boolean; staleAfterS?: number; hostWide: string[] }): Promise<TargetLock> {
  const everyProfile = `${shellQuote(dirs.records.replace(/\/+$/, ''))}/*/${LOCK_NAME}`;
  const hostLock = targetLockPath(dirs.host);
  const base = { sudo: opts.sudo, staleAfterS: opts.staleAfterS };
  if (!opts.hostWide.length) {
    const p = await acquireTargetLock(session, dirs.profile, owner, {
      ...base,
      conflicts: { words: [shellQuote(hostLock)], rule: 'it changes host-wide settings there, which no other run may measure under' },
      also: [everyProfile],
    });
    if (!p.also?.length) return p;
    const files = [...new Set(p.also.map((o) => o.file))].join(', ');
    const both = `${files} ${p.also.length > 1 ? 'run' : 'runs'} on ${session.target} too, on another server profile; it and this run change only their own mysqld's settings, so both go on at once (each may disturb the other's numbers)`;
    return { ...p, said: [p.said, both].filter(Boolean).join('; ') };
  }
  const p = await acquireTargetLock(session, dirs.profile, owner, base);
  try {
    const changes = `this run changes host-wide settings (${opts.hostWide.join(', ')})`;
    const h = await acquireTargetLock(session, dirs.host, owner, {
      ...base,
      rule: `${changes}, and one run at a time changes them per host`,
      conflicts: { words: [everyProfile], rule: `${changes}, which would change them under it; a run that changes them has the host to itself` },
    });
    const said = [p.said, h.said].filter(Boolean).join('; ');
    return {
      path: p.path,
      paths: [p.path, h.path],
      ...(said ? { said } : {}),
      refresh: async () => {
        await p.refresh();
        await h.refresh();
      },
      release: async () => {
        await h.release();
        await p.release();
      },
    };
  } catch (e) {
    await p.release().catch(() => {});
    throw e;
  }
}

/** What the lock script said of a gone runner it found holding the lock, for the run taking it to say. */
function reaped(target: string, lines: string[]): string | undefined {
  const was = lines.find((l) => l.startsWith('@was '));
  if (!was) return undefined;
  const o = parseOwner(was.slice(5));
  const file = o?.file ?? 'another file';
  if (lines.includes('@left')) {
    const who = o ? (o.host === hostname() ? `pid ${o.pid}` : `pid ${o.pid} on ${o.host}`) : 'its process';
    return `the run of ${file} (${who}) held ${target}, but its connection to ${target} is gone (its varlab was stopped or killed, or its machine closed the connection): its lock is taken over; host-wide settings it changed, if any, stay in the restore record, which varlab offers to put back on connecting`;
  }
  const g = /^@gone (\d+) (\d+) (\d+) (ok|fail)$/m.exec(lines.join('\n'));
  if (g) {
    const host = g[4] === 'ok' ? RESTORED_AFTER_GONE : 'stopping its mysqld or restoring the host failed (its journal there says why)';
    return `the detached run of ${file} held ${target}, but ${runnerGone(Number(g[1]), Number(g[2]), Number(g[3]))}; its end is now in its journal there, ${host}; \`varlab attach ${file}\` brings it into the file`;
  }
  const unreaped = lines.find((l) => l.startsWith('@unreaped '));
  if (!unreaped) return `the detached run of ${file} had ended on ${target}, but its runner (pid ${o?.pid ?? '?'}) was gone before it let go of its lock: taken over`;
  const why = unreaped.slice(10).replace(/^varlab: /, '');
  return `the detached run of ${file} held ${target}, but its runner (pid ${o?.pid ?? '?'}) is gone${why ? ` and its directory was not used (${why})` : ''}: its lock is taken over; the host settings it changed stay in the restore record`;
}

/** A gone runner's lock, kept while its end is being made (stopping its mysqld, restoring the host): the run asking waits for that. */
function endBeingMade(target: string, lines: string[]): ApiError {
  const o = parseOwner(lines.find((l) => l.startsWith('@was '))?.slice(5) ?? '');
  const file = o?.file ?? 'another file';
  return new ApiError('busy', `${target} is busy: the detached run of ${file} held it, but its runner${o ? ` (pid ${o.pid})` : ''} is gone; ${ENDING_AFTER_GONE}. Try again once that is done (\`varlab status ${file}\` says when).`);
}

function busy(target: string, path: string, held: LockOwner | null, prefix = '', rule = 'one run at a time per target'): ApiError {
  if (!held) return new ApiError('busy', `${prefix}${target} is busy: another varlab run holds ${path} (being set up just now)`);
  const where = held.host === hostname() ? `pid ${held.pid}` : `pid ${held.pid} on ${held.host}`;
  return new ApiError('busy', `${prefix}${target} is busy: ${held.file} is running there (${where}, since ${new Date(held.startedAt).toISOString()}); ${rule}. Wait for it to end or cancel it.`);
}
