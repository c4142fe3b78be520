// The detached runner on the target, from varlab's side: put it there and start it under a process
// supervisor, look at it, read its journal from an offset, stop it, and clean up after it. Each is one
// script, one remote call (as root through sudo -n when the profile says so).
//
// The supervisor is an existing one, never a daemon of varlab's: a transient systemd unit
// (`systemd-run --unit=varlab-<id>`, as systemd-run(1) intends for work that must outlive a login)
// where the target runs systemd and the runner runs as root, else `setsid nohup`. Which one is
// decided on the target, in the same script, so the one text covers both.
import { ApiError } from '../../common/api.js';
import { HELPERS, OWNED_SAFE, REAP, REAP_WAIT_S, RUN_DIR_SAFE, RUNNER_ALIVE, type HostPaths, type Script } from '../host/script.js';
import { shellQuote } from '../host/shell.js';
import { checkRunId, RUN_MARKER, type RunnerFile } from './runner.js';

const q = shellQuote;

export type SupervisorKind = 'systemd' | 'setsid';

export const unitName = (runId: string) => `varlab-${checkRunId(runId)}`;

export interface LaunchInput {
  runId: string;
  dir: string;
  /** The profile's directory on the target: the run's directory is made in its runs/. */
  recordDir: string;
  paths: HostPaths;
  files: RunnerFile[];
  /** How long systemd lets the runner stop mysqld and restore the host after SIGTERM. */
  stopTimeoutS: number;
  sudo: boolean;
  /** Wait until the runner has logged in to the server it started (or said why not), at most this long. */
  waitS?: number;
}

/** The bytes the launch script reads from its stdin: the files, one after another (sizes in the script). */
export function launchInput(files: RunnerFile[]): string {
  return files.map((f) => f.text).join('');
}

/**
 * Make the run's directory (0700, in the profile's root-owned directory, refused when another user
 * owns or can write any directory on the way), write the files from stdin, start the runner under
 * the supervisor, and wait until its journal shows it started.
 */
export function launchScript(o: LaunchInput): Script {
  const unit = unitName(o.runId);
  const waitTicks = Math.round((o.waitS ?? 15) * 20);
  const writes = o.files.map((f) => {
    if (!/^[a-z0-9._-]{1,64}$/.test(f.name)) throw new ApiError('internal', `runner file name ${JSON.stringify(f.name)}`);
    const size = Buffer.byteLength(f.text, 'utf8');
    return `head -c ${size} > "$d/${f.name}" && [ "$(wc -c < "$d/${f.name}")" -eq ${size} ] && chmod ${f.mode.toString(8)} "$d/${f.name}" || fail upload "cannot write $d/${f.name}"`;
  });
  const text = [
    HELPERS,
    OWNED_SAFE,
    RUN_DIR_SAFE,
    'umask 077',
    `recs=${q(o.paths.records)}; rec_dir=${q(o.recordDir)}; runs="$rec_dir/runs"; d=${q(o.dir)}`,
    `{ [ -d "$recs" ] || mkdir -p -m 755 "$recs"; } && { [ -d "$rec_dir" ] || mkdir -m 700 "$rec_dir"; } && { [ -d "$runs" ] || mkdir -m 700 "$runs"; } || fail dir "cannot make $runs"`,
    `for p in "$recs" "$rec_dir" "$runs"; do owned_safe "$p" || fail dir "refusing $p: it is not owned by uid $(id -u) or others can write it"; done`,
    `mkdir -m 700 "$d" || fail dir "cannot make $d"`,
    // The checks status, attach and cancel make of it later, at once: a folder on the way that others
    // may rename things in (writable, not sticky) is refused here, not only when the run is read.
    `why=$(run_dir_safe "$d" 2>&1) || { rmdir "$d"; fail dir "\${why#varlab: }"; }`,
    ...writes,
    // systemd for a root runner on a host booted with systemd (sd_booted's test), else setsid nohup.
    `if [ "$(id -u)" = 0 ] && [ -d /run/systemd/system ] && command -v systemd-run >/dev/null 2>&1; then`,
    `  systemd-run --unit=${unit} --description=${q(`varlab detached run ${o.runId}`)} --property=KillMode=mixed --property=TimeoutStopSec=${Math.round(o.stopTimeoutS + 120)} --collect --quiet /bin/sh "$d/runner.sh" >&2 || fail supervisor "systemd-run could not start ${unit}"`,
    `  say "supervisor systemd"`,
    `else`,
    `  command -v setsid >/dev/null 2>&1 || fail no-tool "setsid is not installed on this host"`,
    `  (cd / && exec setsid nohup /bin/sh "$d/runner.sh" < /dev/null >> "$d/runner.log" 2>&1 &)`,
    `  say "supervisor setsid"`,
    `fi`,
    // Until the runner logged in to the mysqld it started (A), ended (H), or began the first restart's
    // idle time (I: mysqld is stopped then, and its login comes after the idle: waiting for it would
    // hold the launch for the whole idle; status and attach say if it fails), or the wait is over.
    `i=0; while ! grep -qE '^(A|H|I) ' "$d/journal" 2>/dev/null; do`,
    `  i=$((i + 1)); [ $i -gt ${waitTicks} ] && break; nap`,
    `done`,
    `[ -s "$d/journal" ] || { say "fail start the runner did not start"; tail -n 20 "$d/runner.log" 2>/dev/null | sed 's/^/@log /'; exit 1; }`,
    `say "pid $(cat "$d/pid" 2>/dev/null)"`,
  ].join('\n');
  return { sections: [{ what: `put the runner in ${o.dir} and start it (${unit} under systemd, else setsid nohup)`, text }], text: text + '\n', sudo: o.sudo };
}

export interface Launched {
  supervisor: SupervisorKind;
  pid: number | null;
}

export function parseLaunch(stdout: string): Launched {
  const sup = /^@supervisor (systemd|setsid)$/m.exec(stdout)?.[1] as SupervisorKind | undefined;
  const pid = Number(/^@pid (\d+)$/m.exec(stdout)?.[1]);
  return { supervisor: sup ?? 'setsid', pid: Number.isInteger(pid) && pid > 0 ? pid : null };
}

/** A script's first lines on an existing run directory: what it holds is read or acted on only when launch's checks pass. */
const runDirChecked = (dir: string) => [OWNED_SAFE, RUN_DIR_SAFE, RUNNER_ALIVE, REAP, `d=${q(dir)}`];

/** The most of the journal one read brings back; the next read continues from where it stopped. */
export const READ_CHUNK = 4 << 20;

/**
 * Look at the runner and read its journal from a byte offset. Its state is taken before the bytes,
 * so a runner seen ended has written everything the read returns. A runner found gone has its end
 * made (REAP, in a process of its own): `ending` while that goes on past the little REAP waits for it.
 * Each part says itself first (`@doing`), so a read cut by its limit says where it was.
 */
export function readScript(dir: string, offset: number, sudo: boolean, max = READ_CHUNK): Script {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new ApiError('invalid-argument', `journal offset ${offset}`);
  const text = [
    ...runDirChecked(dir),
    `if [ ! -e "$d" ]; then echo '@state missing'; exit 0; fi`,
    `run_dir_safe "$d" || exit 1`,
    `if [ ! -f "$d/journal" ]; then echo '@state missing'; exit 0; fi`,
    `pid=$(cat "$d/pid" 2>/dev/null)`,
    // A runner gone without its end (killed) is ended here and now: the host is not left changed for anyone to find later.
    `if runner_alive "$d" "$pid"; then echo "@state running $pid"; else`,
    `  grep -q '^H ' "$d/journal" || echo "@doing ending the run of its runner, found gone (stopping mysqld, then restoring the host's settings; waited for at most ${REAP_WAIT_S} s)"`,
    `  reap "$d"`,
    `  if winding "$d"; then echo '@state ending'; else echo '@state ended'; fi`,
    `fi`,
    `echo '@doing reading the journal'`,
    `echo "@size $(wc -c < "$d/journal")"`,
    `echo '@data'`,
    `tail -c +${offset + 1} "$d/journal" | head -c ${max}`,
  ].join('\n');
  return { sections: [{ what: 'read the run journal', text }], text: text + '\n', sudo };
}

export interface JournalRead {
  /** ending: the runner was found gone and its end is being made there now (stopping mysqld, restoring the host). */
  state: 'running' | 'ending' | 'ended' | 'missing';
  pid: number | null;
  size: number;
  /** The bytes after the offset (at most READ_CHUNK). */
  data: string;
}

export function parseRead(stdout: string): JournalRead {
  const head = stdout.indexOf('@data\n');
  const meta = head < 0 ? stdout : stdout.slice(0, head);
  const st = /^@state (running|ending|ended|missing)(?: (\d+))?$/m.exec(meta);
  return {
    state: (st?.[1] as JournalRead['state']) ?? 'missing',
    pid: st?.[2] ? Number(st[2]) : null,
    size: Number(/^@size (\d+)$/m.exec(meta)?.[1] ?? 0),
    data: head < 0 ? '' : stdout.slice(head + '@data\n'.length),
  };
}

/** Ask the runner to stop (SIGTERM): it records the cancel, stops mysqld and restores the host itself. */
export function cancelScript(dir: string, sudo: boolean): Script {
  const text = [...runDirChecked(dir), `[ -e "$d" ] || { echo '@gone'; exit 0; }`, `run_dir_safe "$d" || exit 1`, `pid=$(cat "$d/pid" 2>/dev/null)`, `if runner_alive "$d" "$pid"; then kill -TERM "$pid" && echo "@signalled $pid"; else echo '@gone'; fi`].join('\n');
  return { sections: [{ what: 'ask the runner to stop', text }], text: text + '\n', sudo };
}

/** Remove the run's directory once its journal is in the file and the runner has ended. */
export function cleanupScript(dir: string, sudo: boolean): Script {
  const text = [
    ...runDirChecked(dir),
    `[ -e "$d" ] || exit 0`,
    `run_dir_safe "$d" || exit 1`,
    `pid=$(cat "$d/pid" 2>/dev/null)`,
    `runner_alive "$d" "$pid" && exit 0`,
    // Nor while the end of a runner found gone is being made (it journals there).
    `winding "$d" && exit 0`,
    // Only a directory with varlab's marker naming this very run (its name is the run id).
    `[ -f "$d/${RUN_MARKER}" ] && [ "$(cat "$d/${RUN_MARKER}")" = "$(basename "$d")" ] && rm -rf "$d"; rmdir "$(dirname "$d")" 2>/dev/null; true`,
  ].join('\n');
  return { sections: [{ what: 'remove the finished run directory', text }], text: text + '\n', sudo };
}
