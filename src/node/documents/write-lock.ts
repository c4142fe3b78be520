// One writer of an experiment file at a time across processes (the app, browser mode, any number of
// CLIs, whatever VARLAB_HOME each has): a lock file beside the experiment, created exclusively and
// naming its process, held while a writer reads the file, decides and renames its new content over
// it. Without it, an app's label edit and a CLI run's save could each read the file, then each write
// their own change over the other's (a save dropping the results a run had just written).
//
// A lock whose process is gone (killed mid-save; the pid reused by a later process) is stale and
// taken over, by one waiter only (lock-takeover.ts). A live one is waited for: a save holds it for as long as
// writing the file takes.
import { randomBytes } from 'node:crypto';
import { stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError } from '../../common/api.js';
import { ownerRuns, processStart } from '../process.js';
import { createLockFile, lockHolder, readText, takeOverLock, TORN_MS } from '../lock-takeover.js';

interface WriteLockInfo {
  pid: number;
  pidStart?: number;
  since: number;
  /** Makes each lock's text its own: its holder removes it only while the text is still its own. */
  nonce?: string;
}

/** Longer than any one save takes (a large file on a slow disk), short enough that a user is told. */
const WAIT_MS = 60_000;
const POLL_MS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const writeLockPath = (abs: string) => join(dirname(abs), `.${basename(abs)}.lock`);

const exists = (path: string) => stat(path).then(
  () => true,
  () => false,
);

/** Why the lock could not be had in time: its holder and since when, or that the lock file is there and will not go. */
async function busy(abs: string, path: string): Promise<ApiError> {
  const seen = await readText(path);
  const held = seen === null ? null : lockHolder<WriteLockInfo>(seen);
  return held
    ? new ApiError('busy', `${abs} is being written by another varlab (pid ${held.pid}, since ${new Date(held.since).toISOString()}); try again when it is done`)
    : new ApiError('busy', `${abs}: its write lock ${path} is there and could not be taken over (unreadable, or not removable by this user); remove it if no varlab is writing the file`);
}

/** Run `fn` holding the file's write lock; waits while another live process holds it. */
export async function withWriteLock<T>(abs: string, fn: () => Promise<T>, waitMs = WAIT_MS): Promise<T> {
  const path = writeLockPath(abs);
  const mine: WriteLockInfo = { pid: process.pid, pidStart: processStart(process.pid), since: Date.now(), nonce: randomBytes(8).toString('hex') };
  const text = JSON.stringify(mine);
  const end = Date.now() + waitMs;
  let emptySince: number | null = null;
  for (;;) {
    // Whatever keeps it (a holder that runs on, a lock that cannot be read or removed), a writer is told in the end.
    if (Date.now() > end) throw await busy(abs, path);
    try {
      await createLockFile(path, text);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        // Not created, or created and not written (a full disk): what is there is ours (O_EXCL). A folder
        // that cannot hold the lock cannot hold the file either: the write itself then says why.
        await unlink(path).catch(() => {});
        return fn();
      }
    }
    const seen = await readText(path);
    if (seen === null) {
      // Released between the create and the read: at once again; there and unreadable: a moment later.
      if (await exists(path)) await sleep(POLL_MS);
      continue;
    }
    const held = lockHolder<WriteLockInfo>(seen);
    if (!held) {
      emptySince ??= Date.now();
      if (Date.now() - emptySince <= TORN_MS || !(await takeOverLock(path, seen))) await sleep(POLL_MS);
      continue;
    }
    emptySince = null;
    // Its process is gone (or its pid is another process's now): nothing will release it.
    if (!ownerRuns(held.pid, held.pidStart)) {
      if (!(await takeOverLock(path, seen))) await sleep(POLL_MS);
      continue;
    }
    await sleep(POLL_MS);
  }
  try {
    return await fn();
  } finally {
    if ((await readText(path)) === text) await unlink(path).catch(() => {});
  }
}
