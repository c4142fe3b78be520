// Building command lines for a POSIX shell on the target. Every value that reaches a shell goes
// through shellQuote; values that come from a level are validated against the catalog first.
import { ApiError } from '../../common/api.js';
import { levelProblem } from '../../common/catalog.js';

/** Characters that never need quoting in a POSIX shell word. */
const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Quote one word for a POSIX shell: single quotes around it, and each single quote inside
 * written as '\'' (close, escaped quote, reopen). Plain words are left readable.
 */
export function shellQuote(word: string | number): string {
  const s = String(word);
  if (s === '') return "''";
  if (SAFE.test(s)) return s;
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

/** A command line from words, each quoted. */
export function shellJoin(words: (string | number)[]): string {
  return words.map(shellQuote).join(' ');
}

/** Refuse a level before anything is built from it: the catalog's rule, checked again at the edge. */
export function assertLevel(tunableId: string, level: string): void {
  const problem = levelProblem(tunableId, level);
  if (problem) throw new ApiError('invalid-argument', problem);
}

/** An absolute path without control characters: what a profile may name on the target. */
export function assertPath(what: string, path: string): void {
  if (!path.startsWith('/') || /[\0-\x1f\x7f]/.test(path) || path.length > 4096) {
    throw new ApiError('invalid-argument', `${what}: expected an absolute path without control characters, got ${JSON.stringify(path)}`);
  }
}

/** Prefix a command that needs root with `sudo -n` when the profile says so. */
export function asRoot(command: string, sudo: boolean): string {
  return sudo ? `sudo -n sh -c ${shellQuote(command)}` : command;
}

/** sudo's own words when it wants a password it may not ask for (-n). */
export function sudoWantsPassword(stderr: string): boolean {
  return /sudo: (a password is required|a terminal is required)/.test(stderr);
}
