// One writer of an experiment file at a time across processes (the app, browser mode, any number of
// CLIs, whatever VARLAB_HOME each has): a lock file beside the experiment, created exclusively and
// naming its process, held while a writer reads the file, decides and renames its new content over
// it. Without it, an app's label edit and a CLI run's save could each read the file, then each write
// their own change over the other's (a save dropping the results a run had just written).
//
// A lock whose process is gone (killed mid-save; the pid reused by a later process) is stale and
// taken over. A live one is waited for: a save holds it for as long as writing the file takes.
import { readFile, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError } from '../../common/api.js';
import { ownerRuns, processStart } from '../process.js';

interface WriteLockInfo {
  pid: number;
  pidStart?: number;
  since: number;
}

/** Longer than any one save takes (a large file on a slow disk), short enough that a user is told. */
const WAIT_MS = 60_000;
const POLL_MS = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const writeLockPath = (abs: string) => join(dirname(abs), `.${basename(abs)}.lock`);

async function holder(path: string): Promise<WriteLockInfo | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as WriteLockInfo;
  } catch {
    return null;
  }
}

/** Run `fn` holding the file's write lock; waits while another live process holds it. */
export async function withWriteLock<T>(abs: string, fn: () => Promise<T>, waitMs = WAIT_MS): Promise<T> {
  const path = writeLockPath(abs);
  const mine: WriteLockInfo = { pid: process.pid, pidStart: processStart(process.pid), since: Date.now() };
  const text = JSON.stringify(mine);
  const end = Date.now() + waitMs;
  let emptySince: number | null = null;
  for (;;) {
    try {
      await writeFile(path, text, { flag: 'wx', mode: 0o644 });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        // Not created, or created and not written (a full disk): what is there is ours (O_EXCL). A folder
        // that cannot hold the lock cannot hold the file either: the write itself then says why.
        await unlink(path).catch(() => {});
        return fn();
      }
    }
    const held = await holder(path);
    if (!held) {
      // Empty: a writer between its create and its write, for a moment; for longer, torn by a crash.
      emptySince ??= Date.now();
      if (Date.now() - emptySince > 1_000) await unlink(path).catch(() => {});
      else await sleep(POLL_MS);
      continue;
    }
    emptySince = null;
    // Its process is gone (or its pid is another process's now): nothing will release it.
    if (!ownerRuns(held.pid, held.pidStart)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (Date.now() > end) throw new ApiError('busy', `${abs} is being written by another varlab (pid ${held.pid}, since ${new Date(held.since).toISOString()}); try again when it is done`);
    await sleep(POLL_MS);
  }
  try {
    return await fn();
  } finally {
    if ((await holder(path))?.pid === process.pid) await unlink(path).catch(() => {});
  }
}
