// Taking over a lock file whose holder is gone (killed; its pid reused since), for the locks made by
// creating a file exclusively: an experiment file's write lock (documents/write-lock.ts) and the run
// locks in varlab's folder (runs/locks.ts).
import { createHash, randomBytes } from 'node:crypto';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { ownerRuns, processStart } from './process.js';

/**
 * Create the lock file at `path` holding `text`, or fail with EEXIST when it is there. The text is
 * written to a file of this process's own first and hard-linked into place, so the lock appears whole:
 * a lock created and then written (O_EXCL) is empty in between, and a holder paused there long (a
 * loaded machine) looked torn and was taken over. Where the folder cannot hold hard links (or the
 * own file cannot be written), it is created and written as before.
 */
export async function createLockFile(path: string, text: string, mode = 0o644): Promise<void> {
  const own = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.new`;
  try {
    await writeFile(own, text, { flag: 'wx', mode });
  } catch {
    await unlink(own).catch(() => {}); // created and not written (a full disk)
    return writeFile(path, text, { flag: 'wx', mode });
  }
  try {
    await link(own, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw e;
    // No hard links here (EPERM, ENOTSUP…): the plain exclusive create, whose errors the callers know.
    return await writeFile(path, text, { flag: 'wx', mode });
  } finally {
    await unlink(own).catch(() => {});
  }
}

/** An empty lock (or marker) is a writer between its create and its write (a lock of an earlier varlab, or a folder without hard links); for this long, torn by a crash. */
export const TORN_MS = 1_000;

export const readText = (path: string) => readFile(path, 'utf8').catch(() => null);

/** What a lock's text says of its holder, or null when it is empty or torn. */
export function lockHolder<T extends { pid: number; pidStart?: number }>(text: string): T | null {
  try {
    const info = JSON.parse(text) as T;
    return typeof info?.pid === 'number' ? info : null;
  } catch {
    return null;
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
export async function takeOverLock(path: string, stale: string): Promise<boolean> {
  const id = createHash('sha256').update(stale).digest('hex').slice(0, 16);
  const me = JSON.stringify({ pid: process.pid, pidStart: processStart(process.pid) });
  for (let k = 0; ; k++) {
    const marker = `${path}.${id}.${k}`;
    try {
      // Whole from the start, as a lock: an empty marker of a paused taker would look dead.
      await createLockFile(marker, me);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        // A folder where no marker can be made (the lock was made before it became so): remove it as before.
        return (await readText(path)) === stale ? removed(path) : true;
      }
      const text = await readText(marker);
      if (text === null) return true; // its maker is done: look at the lock again
      const taker = lockHolder(text);
      const mtime = taker ? 0 : ((await stat(marker).catch(() => null))?.mtimeMs ?? 0);
      const dead = taker ? !ownerRuns(taker.pid, taker.pidStart) : Date.now() - mtime > TORN_MS;
      if (!dead) return false; // another waiter is taking it over
      continue;
    }
    let gone = true;
    try {
      if ((await readText(path)) === stale) gone = await removed(path);
      for (let j = 0; j < k; j++) await unlink(`${path}.${id}.${j}`).catch(() => {}); // the dead makers' markers
    } finally {
      await unlink(marker).catch(() => {});
    }
    return gone;
  }
}

/** Remove a stale lock: false when it stays (another user's, in a folder this one cannot change), so the caller waits and tells. */
async function removed(path: string): Promise<boolean> {
  try {
    await unlink(path);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
