// The restore record: before varlab changes a host-wide file it appends `path<TAB>original` to a
// record on the host itself, so the host can be put back at the end, on cancel, on error, and after
// a crash of varlab (the next connection finds the record and offers to restore).
//
// The record lives in a directory per server profile under a root-owned parent (/var/lib/varlab by
// default): a record whose file or directories belong to another user, or that others could write,
// is refused; and only files of known tunables are written back, never a path taken on trust.
import { createHash } from 'node:crypto';
import { ApiError } from '../../common/api.js';
import { CommandTimedOut } from './command-timeout.js';
import { DEFAULT_STALE_AFTER_S, LOCK_NAME } from './lock.js';
import type { ServerProfile } from '../../common/experiment/types.js';
import { OWNED_SAFE, recordDir, restoreAllScript, RUNNER_ALIVE, type HostPaths, type Script } from './script.js';
import { asRoot, shellQuote, sudoRefused, sudoWantsPassword } from './shell.js';
import type { Prompter, TargetSession } from './types.js';

/** A stable name for a server profile's record directory: the same profile always finds its record. */
export function profileId(p: Pick<ServerProfile, 'kind' | 'datadir' | 'port' | 'service'>): string {
  const digest = createHash('sha256').update(JSON.stringify([p.kind, p.datadir.replace(/\/$/, ''), p.port, p.service ?? ''])).digest('hex');
  return `mysqld-${p.port}-${digest.slice(0, 10)}`;
}

/** The profile's own directory on the target (root's, 0700): its run lock, and its detached runs (runs/). */
export function profileDir(profile: Pick<ServerProfile, 'kind' | 'datadir' | 'port' | 'service'>, paths: HostPaths): string {
  return recordDir(paths, profileId(profile));
}

/**
 * The host's own directory (root's, 0700): the restore record of host-wide settings, and beside it the
 * host's lock (issue 24, item 8). One per host, whatever the server profile or the name the host is
 * reached by: it lives on the host, beside the profiles' directories.
 */
export function hostDir(paths: HostPaths): string {
  return recordDir(paths, 'host');
}

/**
 * Run a script, as root through sudo -n when it says so, turning sudo's password demand into one clear
 * error. A script cut by its limit is named (`what`), with the last part it said it was doing
 * (`@doing …`), not only as "a command".
 */
export async function runScript(session: TargetSession, s: Script, what: string, timeoutMs = 120_000): Promise<string> {
  let doing = '';
  let out = '';
  const onStdout = (chunk: string) => {
    out += chunk;
    const nl = out.lastIndexOf('\n');
    if (nl < 0) return;
    for (const m of out.slice(0, nl).matchAll(/^@doing (.+)$/gm)) doing = m[1];
    out = out.slice(nl + 1);
  };
  const r = await session.exec(asRoot(s.text, s.sudo), { timeoutMs, onStdout }).catch((e: unknown) => {
    if (!(e instanceof CommandTimedOut)) throw e;
    throw new CommandTimedOut(`${what} on ${session.target}`, e.limitMs, doing ? `: it was ${doing}` : '');
  });
  if (r.code !== 0) {
    if (s.sudo && sudoWantsPassword(r.stderr)) throw sudoRefused(session.target, what);
    const said = /^@fail \S+ (.*)$/m.exec(r.stdout)?.[1];
    throw new ApiError('internal', `${what} failed on ${session.target}: ${[said, r.stderr.trim()].filter(Boolean).join('; ') || `exit ${r.code}`}`);
  }
  return r.stdout;
}

export async function restoreHost(session: TargetSession, profile: ServerProfile, paths: HostPaths): Promise<void> {
  await runScript(session, restoreAllScript(profile, paths, hostDir(paths), profile.sudo), 'restoring host settings from the restore record');
}

export interface RecordEntry {
  file: string;
  original: string;
}

/** Records left on the host that this user may replay (unsafe ones are left out: they would be refused). */
export async function readRestoreRecords(session: TargetSession, paths: HostPaths): Promise<{ dir: string; entries: RecordEntry[] }[]> {
  const list = [
    OWNED_SAFE,
    RUNNER_ALIVE,
    `for d in ${shellQuote(paths.records.replace(/\/$/, ''))}/*/; do`,
    `  d=\${d%/}; f="$d/restore.tsv"; [ -f "$f" ] || continue`,
    `  owned_safe ${shellQuote(paths.records)} && owned_safe "$d" && owned_safe "$f" || continue`,
    // A detached run is going on there: its settings are in use, not left behind.
    // (Or its runner was found gone and its end is being made: it puts them back itself.)
    `  live=; for p in "$d"/runs/*/pid; do [ -f "$p" ] && { runner_alive "\${p%/pid}" "$(cat "$p")" || winding "\${p%/pid}"; } && live=1; done; [ -n "$live" ] && continue`,
    // A run holds the record's lock (the host's): its settings are in use. Refreshed lately, and its runner (if detached) is still that process.
    `  l="$d/${LOCK_NAME}"; if [ -d "$l" ] && [ $(($(date +%s) - $(stat -c %Y "$l/owner" 2>/dev/null || echo 0))) -le ${DEFAULT_STALE_AFTER_S} ]; then`,
    `    if [ -f "$l/runner" ]; then read -r rp rs rb rd < "$l/runner"; proc_is "$rp" "$rs" "$rb" && continue; else continue; fi`,
    `  fi`,
    `  printf '@record %s\\n' "$d"; sed 's/^/@entry /' "$f"`,
    'done',
  ].join('\n');
  // Root or sudo -n, whichever this login has: the records are root's.
  const cmd = `if [ "$(id -u)" = 0 ]; then sh -c ${shellQuote(list)}; else sudo -n sh -c ${shellQuote(list)} 2>/dev/null || sh -c ${shellQuote(list)}; fi`;
  const r = await session.exec(cmd);
  const out: { dir: string; entries: RecordEntry[] }[] = [];
  for (const line of r.stdout.split('\n')) {
    if (line.startsWith('@record ')) out.push({ dir: line.slice(8), entries: [] });
    else if (line.startsWith('@entry ') && out.length && line.includes('\t')) {
      const e = line.slice(7);
      out[out.length - 1].entries.push({ file: e.slice(0, e.indexOf('\t')), original: e.slice(e.indexOf('\t') + 1) });
    }
  }
  return out.filter((r) => r.entries.length);
}

/**
 * On connecting: a record left behind means varlab stopped without putting the host back (a crash,
 * a killed process). Offer to restore now. Declining, or no one to ask, leaves it for next time.
 */
export async function offerRestore(session: TargetSession, prompt: Prompter, paths: HostPaths): Promise<'none' | 'restored' | 'declined'> {
  const records = await readRestoreRecords(session, paths);
  if (!records.length) return 'none';
  const list = records.flatMap((r) => r.entries.map((e) => `${e.file} → ${e.original}`)).join('; ');
  let accept = false;
  try {
    accept = (await prompt({ kind: 'confirm', title: 'Restore host settings?', message: `A previous varlab run changed host settings on ${session.target} and did not put them back (it was interrupted). Restore them now? ${list}` })).accept;
  } catch {
    return 'declined';
  }
  if (!accept) return 'declined';
  const root = (await session.exec('id -u')).stdout.trim() === '0';
  for (const r of records) {
    const id = r.dir.slice(r.dir.lastIndexOf('/') + 1);
    await runScript(session, restoreAllScript(null, paths, recordDir(paths, id), !root), 'restoring host settings');
  }
  return 'restored';
}
