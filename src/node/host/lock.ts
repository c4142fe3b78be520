// The run lock on the target itself: one run at a time restarts a server profile's mysqld and writes
// its restore record, whichever machine, process or app started it. It is a directory (mkdir is atomic
// on every POSIX file system) named `varlab-run.lock` in the folder given (the profile's own
// directory, beside its restore record), holding an `owner` file: the run's id, the experiment file,
// and who runs it (user, machine, pid). With a sudo profile it is taken as root, like the record.
//
// A lock is stale, and taken over, when
//   - its owner runs on the machine asking and that process is gone (the pid is dead, or another
//     process has it now: its start time differs), or
//   - its owner is a detached runner on the target (the lock's `runner` file: pid, start time, boot
//     id, run directory) and that process is gone: the runner was killed (SIGKILL, the OOM killer)
//     without its end, which is then made at once from its directory (REAP: the host put back), and
//     said (issue 24, item 7), or
//   - its owner has not refreshed it for `staleAfterS` seconds (a run refreshes it every restart and
//     at least every half minute; a laptop asleep longer than that loses its claim).
import { hostname } from 'node:os';
import { ApiError } from '../../common/api.js';
import { asRoot, shellQuote } from './shell.js';
import type { TargetSession } from './types.js';
import { processRuns, processStart } from '../process.js';
import { OWNED_SAFE, REAP, RUN_DIR_SAFE, RUNNER_ALIVE } from './script.js';

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

/**
 * The script that takes the lock: `acquired`, or `held AGE` and the owner's line. A detached runner
 * holding it that is gone is ended first (`@was OWNER`, then the runner's `@gone` line, or
 * `@unreaped WHY` when its directory is not one to use).
 */
export function acquireScript(path: string, owner: string, staleAfterS: number): string {
  const d = shellQuote(path);
  const dir = shellQuote(path.replace(/\/[^/]+$/, '') || '/');
  const parent = shellQuote(path.replace(/\/[^/]+\/[^/]+$/, '') || '/');
  return [
    // The folder is the restore record's: made as the record's own code makes it (parent 755, folder 700).
    `{ [ -d ${parent} ] || mkdir -p -m 755 ${parent}; } && { [ -d ${dir} ] || mkdir -m 700 ${dir}; } || { echo "cannot make ${dir.replace(/"/g, '')}" >&2; exit 1; }`,
    `d=${d}`,
    `take() { mkdir "$d" 2>/dev/null && printf '%s\\n' ${shellQuote(owner)} > "$d/owner" && echo acquired; }`,
    `take && exit 0`,
    OWNED_SAFE,
    RUN_DIR_SAFE,
    RUNNER_ALIVE,
    REAP,
    `if [ -f "$d/runner" ]; then`,
    `  read -r rp rs rb rd < "$d/runner"`,
    `  if ! proc_is "$rp" "$rs" "$rb"; then`,
    `    printf '@was %s\n' "$(cat "$d/owner" 2>/dev/null)"`,
    `    case "$rd" in /*) why=$(run_dir_safe "$rd" 2>&1) && reap "$rd" || printf '@unreaped %s\n' "$why" ;; *) echo '@unreaped no run directory' ;; esac`,
    `    rm -rf "$d"; take && exit 0`,
    `  fi`,
    `fi`,
    `now=$(date +%s); m=$(stat -c %Y "$d/owner" 2>/dev/null || stat -c %Y "$d" 2>/dev/null || echo "$now")`,
    `age=$((now - m))`,
    `if [ "$age" -gt ${Math.floor(staleAfterS)} ]; then rm -rf "$d"; take && exit 0; fi`,
    `echo "held $age"; cat "$d/owner" 2>/dev/null; exit 0`,
  ].join('\n');
}

/**
 * Take the lock on the target, or refuse with a message naming the run that holds it. A lock this
 * run already holds (after a reconnect) is kept.
 */
export async function acquireTargetLock(session: TargetSession, dir: string, owner: LockOwner, opts: { staleAfterS?: number; sudo?: boolean } = {}): Promise<TargetLock> {
  const path = targetLockPath(dir);
  const mine = owner.host === hostname() && owner.pidStart === undefined ? { ...owner, pidStart: processStart(owner.pid) } : owner;
  const line = JSON.stringify(mine);
  const staleAfterS = opts.staleAfterS ?? DEFAULT_STALE_AFTER_S;
  const sudo = opts.sudo === true;
  const exec = (script: string) => session.exec(asRoot(script, sudo), { timeoutMs: 30_000 });
  let said: string | undefined;
  for (let attempt = 0; ; attempt++) {
    const r = await exec(acquireScript(path, line, staleAfterS));
    const out = r.stdout.trim();
    if (r.code !== 0) throw new ApiError('internal', `cannot take the run lock ${path} on ${session.target}: ${r.stderr.trim() || out}`);
    const lines = out.split('\n');
    said = reaped(session.target, lines) ?? said;
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
    throw busy(session.target, path, held);
  }
  const lock: TargetLock = {
    path,
    ...(said ? { said } : {}),
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

/** What the lock script said of a gone runner it found holding the lock, for the run taking it to say. */
function reaped(target: string, lines: string[]): string | undefined {
  const was = lines.find((l) => l.startsWith('@was '));
  if (!was) return undefined;
  const o = parseOwner(was.slice(5));
  const file = o?.file ?? 'another file';
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

function busy(target: string, path: string, held: LockOwner | null, prefix = ''): ApiError {
  if (!held) return new ApiError('busy', `${prefix}${target} is busy: another varlab run holds ${path} (being set up just now)`);
  const where = held.host === hostname() ? `pid ${held.pid}` : `pid ${held.pid} on ${held.host}`;
  return new ApiError('busy', `${prefix}${target} is busy: ${held.file} is running there (${where}, since ${new Date(held.startedAt).toISOString()}); one run at a time per target. Wait for it to end or cancel it.`);
}
