// The restore record: before varlab changes a host-wide file it appends `path<TAB>original` to a
// file on the host itself, so the host can be put back at the end, on cancel, on error, and after
// a crash of varlab (the next connection finds the record and offers to restore).
import { ApiError } from '../../common/api.js';
import { asRoot, shellQuote, sudoWantsPassword } from './shell.js';
import type { HostChange } from './tunables/index.js';
import type { Prompter, TargetSession } from './types.js';

/** On the host, outside any one experiment: it must survive varlab. VARLAB_RESTORE_RECORD names another path on the host (tests). */
export const DEFAULT_RESTORE_RECORD = process.env.VARLAB_RESTORE_RECORD ?? '/var/tmp/varlab-restore.tsv';

const read = (how: HostChange['read']) => (how === 'bracketed' ? `sed -n 's/.*\\[\\([a-z_]*\\)\\].*/\\1/p' "$f"` : `cat "$f"`);

/** Save the original of every file the change touches (only the first time), then write the new value. */
export function applyChangeScript(c: HostChange, record: string): string {
  return [
    `rec=${shellQuote(record)}`,
    `for f in ${c.files}; do`,
    `  if [ ! -e "$f" ]; then echo "varlab: $f does not exist on this host, cannot set ${c.tunable}" >&2; exit 3; fi`,
    `  if ! { [ -f "$rec" ] && cut -f1 "$rec" | grep -qxF "$f"; }; then cur=$(${read(c.read)}) || exit 4; printf '%s\\t%s\\n' "$f" "$cur" >> "$rec" || exit 4; fi`,
    `  printf '%s\\n' ${shellQuote(c.value)} > "$f" || { echo "varlab: cannot write $f" >&2; exit 5; }`,
    `done`,
  ].join('\n');
}

/** Write back the originals of the files matching `glob` (a constant case pattern; `*` for all) and drop them from the record. */
export function restoreScript(record: string, glob = '*'): string {
  return [
    `rec=${shellQuote(record)}`,
    `[ -f "$rec" ] || exit 0`,
    `tmp="$rec.tmp"; : > "$tmp"; fail=0; tab=$(printf '\\t')`,
    `while IFS="$tab" read -r f v; do`,
    `  case "$f" in ${glob}) printf '%s\\n' "$v" > "$f" || { fail=1; echo "varlab: cannot restore $f to $v" >&2; printf '%s\\t%s\\n' "$f" "$v" >> "$tmp"; } ;;`,
    `  *) printf '%s\\t%s\\n' "$f" "$v" >> "$tmp" ;; esac`,
    `done < "$rec"`,
    `if [ -s "$tmp" ]; then mv "$tmp" "$rec"; else rm -f "$tmp" "$rec"; fi`,
    `exit $fail`,
  ].join('\n');
}

/** Run a root command, turning sudo's password demand into the one clear error. */
export async function runAsRoot(session: TargetSession, script: string, sudo: boolean, what: string): Promise<string> {
  const r = await session.exec(asRoot(script, sudo), { timeoutMs: 120000 });
  if (r.code !== 0) {
    if (sudo && sudoWantsPassword(r.stderr)) {
      throw new ApiError('sudo', `sudo on ${session.target} wants a password, and varlab runs sudo -n (it never types one): allow the commands without a password (NOPASSWD in sudoers) or log in as root. While: ${what}.`);
    }
    throw new ApiError('internal', `${what} failed on ${session.target} (exit ${r.code}): ${r.stderr.trim() || r.stdout.trim() || 'no output'}`);
  }
  return r.stdout;
}

export interface RecordEntry {
  file: string;
  original: string;
}

export async function readRestoreRecord(session: TargetSession, record = DEFAULT_RESTORE_RECORD): Promise<RecordEntry[]> {
  const r = await session.exec(`cat ${shellQuote(record)} 2>/dev/null`);
  return r.stdout
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((l) => ({ file: l.slice(0, l.indexOf('\t')), original: l.slice(l.indexOf('\t') + 1) }));
}

export async function restoreHost(session: TargetSession, sudo: boolean, record = DEFAULT_RESTORE_RECORD, glob = '*'): Promise<void> {
  await runAsRoot(session, restoreScript(record, glob), sudo, 'restoring host settings from the restore record');
}

/**
 * On connecting: a record left behind means varlab stopped without putting the host back (a crash,
 * a killed process). Offer to restore now. Declining, or no one to ask, leaves it for next time.
 */
export async function offerRestore(session: TargetSession, prompt: Prompter, record = DEFAULT_RESTORE_RECORD): Promise<'none' | 'restored' | 'declined'> {
  const entries = await readRestoreRecord(session, record);
  if (!entries.length) return 'none';
  const list = entries.map((e) => `${e.file} → ${e.original}`).join('; ');
  let accept = false;
  try {
    accept = (await prompt({ kind: 'confirm', title: 'Restore host settings?', message: `A previous varlab run changed host settings on ${session.target} and did not put them back (it was interrupted). Restore them now? ${list}` })).accept;
  } catch {
    return 'declined';
  }
  if (!accept) return 'declined';
  // Root or sudo -n, whichever this login has: the profile is not known yet.
  const r = await session.exec(`if [ "$(id -u)" = 0 ]; then sh -c ${shellQuote(restoreScript(record))}; else sudo -n sh -c ${shellQuote(restoreScript(record))}; fi`);
  if (r.code !== 0) throw new ApiError(sudoWantsPassword(r.stderr) ? 'sudo' : 'internal', `restoring host settings on ${session.target} failed: ${r.stderr.trim()}`);
  return 'restored';
}
