// One writer of an experiment file at a time across processes (the app, browser mode, any number of
// CLIs, whatever VARLAB_HOME each has): a lock file beside the experiment, created exclusively and
// naming its process, held while a writer reads the file, decides and renames its new content over
// it. Without it, an app's label edit and a CLI run's save could each read the file, then each write
// their own change over the other's (a save dropping the results a run had just written).
//
// A lock whose process is gone (killed mid-save; the pid reused by a later process) is stale and
// taken over, by one waiter only (takeOver). A live one is waited for: a save holds it for as long as
// writing the file takes.
import { createHash, randomBytes } from 'node:crypto';
import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { ApiError } from '../../common/api.js';
import { ownerRuns, processStart } from '../process.js';

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
/** An empty lock (or marker) is a writer between its create and its write; for this long, torn by a crash. */
const TORN_MS = 1_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const writeLockPath = (abs: string) => join(dirname(abs), `.${basename(abs)}.lock`);

const readText = (path: string) => readFile(path, 'utf8').catch(() => null);

function parsed(text: string): WriteLockInfo | null {
  try {
    const info = JSON.parse(text) as WriteLockInfo;
    return typeof info?.pid === 'number' ? info : null;
  } catch {
    return null;
  }
}

/** Run `fn` holding the file's write lock; waits while another live process holds it. */
export async function withWriteLock<T>(abs: string, fn: () => Promise<T>, waitMs = WAIT_MS): Promise<T> {
  const path = writeLockPath(abs);
  const mine: WriteLockInfo = { pid: process.pid, pidStart: processStart(process.pid), since: Date.now(), nonce: randomBytes(8).toString('hex') };
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
    const seen = await readText(path);
    if (seen === null) continue; // released between the create and the read: try again at once
    const held = parsed(seen);
    if (!held) {
      emptySince ??= Date.now();
      if (Date.now() - emptySince <= TORN_MS || !(await takeOver(path, seen))) await sleep(POLL_MS);
      continue;
    }
    emptySince = null;
    // Its process is gone (or its pid is another process's now): nothing will release it.
    if (!ownerRuns(held.pid, held.pidStart)) {
      if (!(await takeOver(path, seen))) await sleep(POLL_MS);
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

/**
 * Remove the lock at `path` if it still is the one read as `stale`, and never another. Several waiters
 * find a killed holder's lock at once; one that removed the path after another had already taken it
 * over would remove that one's live lock, and both would write. So one taker per stale lock: the
 * marker PATH.DIGEST.K (DIGEST of the stale lock's text, which its nonce makes its own) is created
 * exclusively, and its maker alone removes the lock, after reading that it is still the stale one.
 * The others go back to waiting (false: wait a moment before looking again). A marker whose maker
 * died before removing it is passed over (K + 1).
 */
async function takeOver(path: string, stale: string): Promise<boolean> {
  const id = createHash('sha256').update(stale).digest('hex').slice(0, 16);
  const me = JSON.stringify({ pid: process.pid, pidStart: processStart(process.pid) });
  for (let k = 0; ; k++) {
    const marker = `${path}.${id}.${k}`;
    try {
      await writeFile(marker, me, { flag: 'wx', mode: 0o644 });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        // A folder where no marker can be made (the lock was made before it became so): remove it as before.
        if ((await readText(path)) === stale) await unlink(path).catch(() => {});
        return true;
      }
      const text = await readText(marker);
      if (text === null) return true; // its maker is done: look at the lock again
      const taker = parsed(text);
      const mtime = taker ? 0 : ((await stat(marker).catch(() => null))?.mtimeMs ?? 0);
      const dead = taker ? !ownerRuns(taker.pid, taker.pidStart) : Date.now() - mtime > TORN_MS;
      if (!dead) return false; // another waiter is taking it over
      continue;
    }
    try {
      if ((await readText(path)) === stale) await unlink(path).catch(() => {});
      for (let j = 0; j < k; j++) await unlink(`${path}.${id}.${j}`).catch(() => {}); // the dead makers' markers
    } finally {
      await unlink(marker).catch(() => {});
    }
    return true;
  }
}
