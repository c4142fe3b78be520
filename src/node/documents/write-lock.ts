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
import { unlink } from 'node:fs/promises';
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

/** Run `fn` holding the file's write lock; waits while another live process holds it. */
export async function withWriteLock<T>(abs: string, fn: () => Promise<T>, waitMs = WAIT_MS): Promise<T> {
  const path = writeLockPath(abs);
  const mine: WriteLockInfo = { pid: process.pid, pidStart: processStart(process.pid), since: Date.now(), nonce: randomBytes(8).toString('hex') };
  const text = JSON.stringify(mine);
  const end = Date.now() + waitMs;
  let emptySince: number | null = null;
  for (;;) {
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
    if (seen === null) continue; // released between the create and the read: try again at once
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
    if (Date.now() > end) throw new ApiError('busy', `${abs} is being written by another varlab (pid ${held.pid}, since ${new Date(held.since).toISOString()}); try again when it is done`);
    await sleep(POLL_MS);
  }
  try {
    return await fn();
  } finally {
    if ((await readText(path)) === text) await unlink(path).catch(() => {});
  }
}
