// Building command lines for a POSIX shell on the target. Every value that reaches a shell goes
// through shellQuote; values that come from a level are validated against the catalog first.
import { ApiError } from '../../common/api.js';

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

/** Prefix a command that needs root with `sudo -n` when the profile says so. */
export function asRoot(command: string, sudo: boolean): string {
  return sudo ? `sudo -n sh -c ${shellQuote(command)}` : command;
}

/** sudo's own words when it wants a password it may not ask for (-n). */
export function sudoWantsPassword(stderr: string): boolean {
  return /sudo: (a password is required|a terminal is required)/.test(stderr);
}

/** The one message for sudo asking a password varlab will not type. */
export function sudoRefused(target: string, what: string): ApiError {
  return new ApiError('sudo', `sudo on ${target} wants a password, and varlab runs sudo -n (it never types one): allow the commands without a password (NOPASSWD in sudoers) or log in as root. While: ${what}.`);
}
