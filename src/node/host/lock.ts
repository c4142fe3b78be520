// The run lock on the target itself: one run at a time restarts a server profile's mysqld and writes
// its restore record, whichever machine, process or app started it. It is a directory (mkdir is atomic
// on every POSIX file system) named `varlab-run.lock` in the folder given (the profile's own
// directory, beside its restore record), holding an `owner` file: the run's id, the experiment file,
// and who runs it (user, machine, pid). With a sudo profile it is taken as root, like the record.
//
// A lock is stale, and taken over, when
//   - its owner runs on the machine asking and that process is gone (the pid is dead), or
//   - its owner has not refreshed it for `staleAfterS` seconds (a run refreshes it every restart and
//     at least every half minute; a laptop asleep longer than that loses its claim).
import { hostname } from 'node:os';
import { ApiError } from '../../common/api.js';
import { asRoot, shellQuote } from './shell.js';
import type { TargetSession } from './types.js';
import { processRuns } from '../process.js';

export interface LockOwner {
  runId: string;
  /** The experiment file being run (as its machine names it). */
  file: string;
  /** The machine and process running it. */
  host: string;
  pid: number;
  user?: string;
  startedAt: number;
}

export interface TargetLock {
  readonly path: string;
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

/** The script that takes the lock: `acquired`, or `held AGE` and the owner's line. */
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
  const line = JSON.stringify(owner);
  const staleAfterS = opts.staleAfterS ?? DEFAULT_STALE_AFTER_S;
  const sudo = opts.sudo === true;
  const exec = (script: string) => session.exec(asRoot(script, sudo), { timeoutMs: 30_000 });
  for (let attempt = 0; ; attempt++) {
    const r = await exec(acquireScript(path, line, staleAfterS));
    const out = r.stdout.trim();
    if (r.code !== 0) throw new ApiError('internal', `cannot take the run lock ${path} on ${session.target}: ${r.stderr.trim() || out}`);
    if (out.startsWith('acquired')) break;
    const held = parseOwner(out.split('\n').slice(1).join('\n'));
    if (held?.runId === owner.runId) break;
    // Its owner ran on this machine and is gone: nothing will release it.
    const gone = held && held.host === hostname() && !processRuns(held.pid);
    if ((gone || !held) && attempt === 0) {
      if (!held && Number(out.split(/\s+/)[1]) < 5) throw busy(session.target, path, null);
      await exec(`rm -rf ${shellQuote(path)}`);
      continue;
    }
    throw busy(session.target, path, held);
  }
  const lock: TargetLock = {
    path,
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

function busy(target: string, path: string, held: LockOwner | null, prefix = ''): ApiError {
  if (!held) return new ApiError('busy', `${prefix}${target} is busy: another varlab run holds ${path} (being set up just now)`);
  const where = held.host === hostname() ? `pid ${held.pid}` : `pid ${held.pid} on ${held.host}`;
  return new ApiError('busy', `${prefix}${target} is busy: ${held.file} is running there (${where}, since ${new Date(held.startedAt).toISOString()}); one run at a time per target. Wait for it to end or cancel it.`);
}
