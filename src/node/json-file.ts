// varlab's own small JSON files in varlabHome(): the Hosts list (hosts.json), the server profiles
// (profiles.json), the consent records (consent.json), the recent files (recent.json) and the
// keychain's blobs (secrets.json). Each change reads the file, changes one entry and writes it all
// back, from the app, browser mode and any number of CLIs sharing one VARLAB_HOME, and from several
// hosts probed at once in one process. Two such changes at once each read the old file and the
// second wrote over the first: a host added, a sandbox registered, lost. updateJsonFile makes every
// change wait its turn: in this process (a queue per file), and across processes (the file's write
// lock, documents/write-lock.ts, as for experiment files); the file is replaced atomically
// (writeAtomic: a temporary file renamed over it), so a reader never sees half of one.
import { mkdir, readFile, rename } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ApiError } from '../common/api.js';
import { Turns } from '../common/turns.js';
import { withWriteLock } from './documents/write-lock.js';
import { writeAtomic } from './atomic-write.js';

/** The file's JSON, or undefined when it is missing or is not JSON (then `parse` says what that means: none yet). */
async function readJson(path: string): Promise<unknown> {
  return (await readJsonOrWhy(path)).data;
}

/** The file's JSON; or that it is missing; or that it holds something that is not JSON (cut by a full disk, edited by hand). */
async function readJsonOrWhy(path: string): Promise<{ data: unknown; unreadable?: boolean; error?: Error }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    // Missing is none yet; any other error (no permission, too many open files) is not "empty".
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { data: undefined } : { data: undefined, error: e as Error };
  }
  try {
    return { data: JSON.parse(text) };
  } catch {
    return { data: undefined, unreadable: true };
  }
}

/**
 * Where a file that is not JSON is kept before a change writes a new one in its place: beside it,
 * named by the time, so the entries it held can still be read back by hand.
 */
export const keptAsidePath = (abs: string, at = new Date()) => `${abs}.unreadable-${at.toISOString().replace(/[:.]/g, '-')}`;

/** A JSON object of entries by name, or none when the file holds anything else. */
export function entries<V>(data: unknown): Record<string, V> {
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, V>) : {};
}

/** What the file holds now, through `parse` (which gets undefined when it is missing or not JSON). */
export async function readJsonFile<T>(path: string, parse: (data: unknown) => T): Promise<T> {
  return parse(await readJson(path));
}

const turns = new Turns();

/**
 * Change the file: `change` gets what it holds now (through `parse`) and returns what to write (as
 * JSON), or undefined to leave the file as it is. Resolves once the new content is in place. `mode` and
 * `dirMode` as writeAtomic's (0600 and 0700 for a file that names key files or holds secrets).
 */
export function updateJsonFile<T>(path: string, parse: (data: unknown) => T, change: (now: T) => object | undefined, opts: { mode?: number; dirMode?: number } = {}): Promise<void> {
  const abs = resolve(path);
  return turns.take(abs, async () => {
    // The folder first: the lock lives in it, and a lock that cannot be made is no lock (write-lock.ts).
    await mkdir(dirname(abs), { recursive: true, mode: opts.dirMode });
    await withWriteLock(abs, async () => {
      const now = await readJsonOrWhy(abs);
      // Written over with only this change, every entry it holds would be lost: nothing is written, and the error says why.
      if (now.error) throw new ApiError('io', `cannot read ${abs} to change it: ${now.error.message}`);
      const next = change(parse(now.data));
      if (next === undefined) return;
      // A file that is not JSON reads as none; writing over it would lose every entry it held: kept aside first, and said.
      if (now.unreadable) {
        const aside = keptAsidePath(abs);
        await rename(abs, aside);
        console.error(`varlab: ${abs} was not JSON: kept as ${aside}, and a new one started with this change`);
      }
      await writeAtomic(abs, JSON.stringify(next, null, 2) + '\n', opts);
    });
  });
}
