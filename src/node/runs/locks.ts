// One run per target and per experiment file across every varlab process on this machine (the app,
// browser mode, any number of CLIs): a lock file in varlab's folder (VARLAB_HOME/runs/), created
// exclusively, naming the running file, its target and the process. The target itself has its own
// lock beside the restore record (host/lock.ts), for runs started from other machines.
//
// A lock is stale, and taken over (by one run only, lock-takeover.ts), when the process named in it is
// gone: its pid is dead, or the pid now belongs to a process started later than the lock (the pid was reused).
import { createHash } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../common/api.js';
import { varlabHome } from '../files.js';
import { createLockFile, lockHolder, readText, takeOverLock } from '../lock-takeover.js';
import { ownerRuns, processStart } from '../process.js';

export interface RunLockInfo {
  runId: string;
  file: string;
  target: string;
  pid: number;
  /** When the process started (Linux: from /proc), to tell a reused pid from the owner. */
  pidStart?: number;
  startedAt: number;
}

export interface HeldLocks {
  release(): Promise<void>;
}

const key = (kind: string, name: string) => `${kind}-${createHash('sha256').update(name).digest('hex').slice(0, 24)}.lock`;
const runsDir = () => join(varlabHome(), 'runs');

/** Is the process named in a lock still running (and not a later one that got its pid)? */
const alive = (info: RunLockInfo) => ownerRuns(info.pid, info.pidStart);

async function readLock(path: string): Promise<RunLockInfo | null> {
  const text = await readText(path);
  return text === null ? null : lockHolder<RunLockInfo>(text);
}

function refusal(what: string, held: RunLockInfo): ApiError {
  const self = held.pid === process.pid ? 'in this process' : `pid ${held.pid}`;
  return new ApiError('busy', `${what} is busy: ${held.file} is running on ${held.target} (${self}, since ${new Date(held.startedAt).toISOString()}); one run at a time per target and per file. Wait for it to end or cancel it.`);
}

async function takeOne(path: string, what: string, info: RunLockInfo): Promise<void> {
  const text = JSON.stringify(info);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await createLockFile(path, text);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw new ApiError('io', `cannot write the run lock ${path}: ${(e as Error).message}`);
    }
    const seen = await readText(path);
    if (seen === null) continue; // released meanwhile
    const held = lockHolder<RunLockInfo>(seen);
    if (held && alive(held)) throw refusal(what, held);
    // Its process is gone (or the file was torn by a crash while being written): nothing will release
    // it. Taken over by one of the runs that find it at once: the others find that one's lock.
    await takeOverLock(path, seen);
  }
  const held = await readLock(path);
  throw held && alive(held) ? refusal(what, held) : new ApiError('busy', `${what} is busy: another varlab run is starting on it`);
}

/**
 * Lock the target (each of `targets`, for a run on several hosts) and the file for this run, or
 * refuse naming the running file. `fileOnly`: only the file (following a detached run writes into
 * the file; the target is the runner's, locked there).
 */
export async function acquireRunLocks(info: Omit<RunLockInfo, 'pid' | 'pidStart'>, opts: { fileOnly?: boolean; targets?: string[] } = {}): Promise<HeldLocks> {
  const full: RunLockInfo = { ...info, pid: process.pid, pidStart: processStart(process.pid) };
  await mkdir(runsDir(), { recursive: true });
  const targets = opts.fileOnly ? [] : (opts.targets ?? [info.target]);
  const paths = [...targets.map((t) => ({ path: join(runsDir(), key('target', t)), what: t })), { path: join(runsDir(), key('file', info.file)), what: info.file }];
  const taken: string[] = [];
  try {
    for (const p of paths) {
      await takeOne(p.path, p.what, full);
      taken.push(p.path);
    }
  } catch (e) {
    for (const path of taken) await unlink(path).catch(() => {});
    throw e;
  }
  const releaseOne = async (path: string) => {
    if ((await readLock(path))?.runId === info.runId) await unlink(path).catch(() => {});
  };
  return {
    async release() {
      for (const path of [...taken].reverse()) await releaseOne(path);
    },
  };
}

/** The run holding a lock on this file, if any (in any process on this machine). */
export async function runningOnFile(file: string): Promise<RunLockInfo | null> {
  const held = await readLock(join(runsDir(), key('file', file)));
  return held && alive(held) ? held : null;
}
