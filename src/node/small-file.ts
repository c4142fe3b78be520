// Reading a file that a person or a file names (a private key, a known_hosts file): a regular file of
// at most SMALL_FILE_BYTES, read without blocking the event loop. A path can name /dev/zero, a FIFO
// or a huge file: read whole (readFileSync), the first stalls the process and takes all its memory,
// the second never returns, and browser mode stops answering everything, SIGTERM included (issue 24).
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ApiError } from '../common/api.js';

/** Keys and known_hosts files are a few kilobytes; a megabyte leaves room for any real one. */
export const SMALL_FILE_BYTES = 1 << 20;

/** The path names something that is not a small regular file (as opposed to one that cannot be opened). */
export class NotASmallFile extends ApiError {}

/**
 * The bytes of `path`, `what` naming it in messages ("the key file"). Refused with an ApiError of
 * `code` when it is not a regular file or is larger than `limit`. O_NONBLOCK: opening a FIFO with no
 * writer would otherwise wait for one.
 */
export async function readSmallFile(path: string, what: string, code: 'auth' | 'invalid-argument' = 'invalid-argument', limit = SMALL_FILE_BYTES): Promise<Buffer> {
  const got = await readSmallFileIfAny(path, what, code, limit);
  if (!got) throw new ApiError(code, `cannot read ${what} ${path}: ENOENT`);
  return got;
}

/** As readSmallFile, but null when nothing is there (a known_hosts file not made yet). */
export async function readSmallFileIfAny(path: string, what: string, code: 'auth' | 'invalid-argument' = 'invalid-argument', limit = SMALL_FILE_BYTES): Promise<Buffer | null> {
  let fh;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    const errno = (e as NodeJS.ErrnoException).code;
    if (errno === 'ENOENT' || errno === 'ENOTDIR') return null;
    throw new ApiError(code, `cannot read ${what} ${path}: ${errno ?? (e as Error).message}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new NotASmallFile(code, `${what} ${path} is not a regular file (${kindOf(st)}); name a file`);
    if (st.size > limit) throw new NotASmallFile(code, `${what} ${path} is ${st.size} bytes; at most ${limit} are read`);
    // The size can grow between stat and read: read at most one byte past the limit to see it.
    const buf = Buffer.alloc(limit + 1);
    let got = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (!bytesRead) break;
      got += bytesRead;
      if (got === buf.length) break;
    }
    if (got > limit) throw new NotASmallFile(code, `${what} ${path} is more than ${limit} bytes; at most ${limit} are read`);
    return buf.subarray(0, got);
  } finally {
    await fh.close().catch(() => {});
  }
}

export function kindOf(st: { isDirectory(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean; isSocket(): boolean }): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a file';
}
