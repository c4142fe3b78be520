// Writing a file so that a crash, a kill or a full disk leaves either its old content or its new one,
// never half of one, and no temporary file behind for long.
import { mkdir, readdir, rename, open, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { processRuns } from './process.js';

/**
 * Temporary files of `path` left by a writer that was killed before it renamed them (its pid is in
 * the name): removed before the next write, so a crash leaves no `.tmp` behind for long.
 */
export async function removeStaleTemporaries(path: string): Promise<void> {
  const prefix = `.${basename(path)}.`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  for (const name of names) {
    const m = name.startsWith(prefix) ? /^(\d+)\.[0-9a-f]{8}\.tmp$/.exec(name.slice(prefix.length)) : null;
    if (m && Number(m[1]) !== process.pid && !processRuns(Number(m[1]))) await unlink(join(dirname(path), name)).catch(() => {});
  }
}

/**
 * Write a file so that a crash leaves either the old or the new content, never half of one:
 * a temporary file beside it, flushed to disk, checked, then renamed over the original. A full disk
 * is an error here, never a shorter file: every write is checked for all its bytes, and the
 * temporary file's size (and `check`, when given) before it replaces anything.
 */
export async function writeAtomic(
  path: string,
  content: string | Uint8Array | Iterable<string>,
  opts: { mode?: number; dirMode?: number; check?: (tmp: string) => Promise<void> } = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: opts.dirMode });
  await removeStaleTemporaries(path);
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fh = await open(tmp, 'w', opts.mode ?? 0o644);
    let size = 0;
    try {
      const pieces = typeof content === 'string' || content instanceof Uint8Array ? [content] : content;
      for (const piece of pieces) size += await writeWhole(fh, typeof piece === 'string' ? Buffer.from(piece, 'utf8') : piece);
      await fh.sync();
      const written = (await fh.stat()).size;
      if (written !== size) throw new Error(`${size} bytes were written but the file holds ${written} (is the disk full?)`);
    } finally {
      await fh.close();
    }
    await opts.check?.(tmp);
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
}

/**
 * All of `data`, or an error: a write(2) may write fewer bytes than asked (the disk filled up under
 * it) and say so only in its count, so the count is checked and the rest written again, which then
 * fails with ENOSPC if there is no more room.
 */
async function writeWhole(fh: FileHandle, data: Uint8Array): Promise<number> {
  for (let done = 0; done < data.length; ) {
    const { bytesWritten } = await fh.write(data, done, data.length - done);
    if (bytesWritten <= 0) throw Object.assign(new Error(`no space left to write (${done} of ${data.length} bytes written)`), { code: 'ENOSPC' });
    done += bytesWritten;
  }
  return data.length;
}
