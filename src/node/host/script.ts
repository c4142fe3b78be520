// The restart procedure's target steps as one POSIX sh script: stop, restore, set, drop caches,
// start, wait until mysqld listens, and read the verification facts, in one remote call. The script
// reports on stdout in tagged lines (`@pid 123`, `@fact cpus 0,2`, `@fail kind message`, `@log …`)
// that parseReply turns back into values. It needs nothing on the target beyond a POSIX shell and
// coreutils, so the detached runner can run the same text without varlab.
//
// Every value that reaches the script is validated (levels by the registry, paths by checkProfile,
// probed paths by assertPath) and quoted by shellQuote.
import { ApiError } from '../../common/api.js';
import { parseNoiseSample, type NoiseSample } from '../../common/noise.js';
import type { Build, ServerProfile } from '../../common/experiment/types.js';
import type { HostFingerprint } from '../../common/host.js';
import { assertPath, checkBuilds, pidFileOf } from '../../common/profile.js';
import { describeStep, factLabel, onTarget, type RestartProcedure, type RestartStep, type StartServer, type StartWrapper } from '../../common/restart.js';
import { HOST_FILES } from '../../common/tunables/registry.js';
import type { Fact, HostFile } from '../../common/tunables/types.js';
import { shellQuote } from './shell.js';

/** Where the host files and the restore records are: parameters, so tests use a temporary tree. */
export interface HostPaths {
  /** The sysfs root: /sys. */
  sys: string;
  /** The /proc/sys root. */
  procSys: string;
  /** Parent of the per-profile restore record directories: /var/lib/varlab (root-owned). */
  records: string;
}

export const DEFAULT_HOST_PATHS: HostPaths = { sys: '/sys', procSys: '/proc/sys', records: '/var/lib/varlab' };

export function hostPaths(p: Partial<HostPaths> = {}): HostPaths {
  const out = { ...DEFAULT_HOST_PATHS, ...p };
  for (const [k, v] of Object.entries(out)) assertPath(`host path ${k}`, v);
  return out;
}

/** The restore record's directory for a profile: one per server profile, named after it. */
export function recordDir(paths: HostPaths, profileId: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(profileId) || profileId.startsWith('.')) throw new ApiError('invalid-argument', `profile id ${JSON.stringify(profileId)}: expected letters, digits, . _ -`);
  return `${paths.records.replace(/\/$/, '')}/${profileId}`;
}

/** One part of a script: the step it runs and its text, so the dry run shows what the run executes. */
export interface ScriptSection {
  what: string;
  text: string;
}

export interface Script {
  sections: ScriptSection[];
  /** Exactly what runs on the target (before sudo -n sh -c, when the profile says so). */
  text: string;
  /** Runs as root through `sudo -n sh -c`. */
  sudo: boolean;
}

const q = shellQuote;
const ROOT_OF: Record<HostFile['root'], keyof HostPaths> = { sys: 'sys', 'proc-sys': 'procSys' };

/** The shell words naming a host file; a per-CPU file is a constant glob expanded on the host. */
function fileWords(f: HostFile, paths: HostPaths): string {
  const root = paths[ROOT_OF[f.root]].replace(/\/$/, '');
  if (!f.perCpu) return q(`${root}/${f.path}`);
  const [before, after] = f.path.split('cpu*');
  return `${q(`${root}/${before}`)}cpu[0-9]*${q(after)}`;
}

function script(sections: ScriptSection[], sudo: boolean): Script {
  return { sections, sudo, text: sections.map((s) => `# ${s.what}\n${s.text}`).join('\n') + '\n' };
}

// ---- shared pieces ----

/**
 * The helpers every script starts with (the detached runner too): say, fail, alive, nap, now (`stamp
 * VAR` sets VAR to it without the subshell of $(now)), and
 * `first_line FILE` (its first line in $fl, empty when it cannot be read). `alive` and `first_line`
 * are built-ins only: a restart runs them several times (the stop's wait runs alive every 50 ms), and
 * each process a script starts costs 1.5–5 ms on a busy host (issue 22, a lean restart).
 */
export const HELPERS = String.raw`say() { printf '@%s\n' "$*"; }
fail() { say "fail $1 $2"; exit 1; }
first_line() { fl=; read -r fl 2>/dev/null < "$1"; }
alive() { first_line "/proc/$1/stat"; case "%{fl##*) }" in ''|Z*) return 1 ;; esac; }
nap() { sleep "%{1:-0.05}" 2>/dev/null || sleep 1; }
deadline() { first_line /proc/uptime; dl=$(( %{fl%%.*} + $1 + 1 )); }
past() { first_line /proc/uptime; [ "%{fl%%.*}" -ge "$dl" ]; }
stamp() { st=$(date +%s%N 2>/dev/null); case "$st" in *N*|'') st=$(date +%s)000000000 ;; esac; eval "$1=\$st"; }
now() { stamp t; echo "$t"; }`.replaceAll('%{', '${');

/**
 * `noise_sample WHEN MYSQLD_PID SYS`: one `@noise` line with the host's counters now (parsed by
 * common/noise.ts parseNoiseSample): /proc/uptime, the 1-minute load, the CPU count, /proc/stat's cpu
 * totals (user … steal), steal and context switches, the mean scaling_cur_freq under SYS (`-` where
 * there is none), mysqld's CPU time, and varlab's own processes' CPU time. Built-ins only (`read`,
 * `case`, arithmetic): no process is started, so reading it costs the measured host next to nothing.
 *
 * varlab's own processes are the sampling shell ($$) and every process above it (its parent, theirs…)
 * up to pid 1, as `pid:start:ticks`: over SSH the connection's shell and the sshd that carries
 * varlab's commands and its forwarded mysql connection; locally varlab itself (its mysql client work
 * included); in the detached runner the runner. The sampling shell counts with the children it has
 * waited for (cutime, cstime: the detached runner's client processes, which live inside the window);
 * the processes above it count without, since a shell above counts a restart script only once it has
 * waited for it, after its end sample, which would take the script's CPU time before the window for
 * the window's. Processes are matched across the two ends by pid and start time (common/noise.ts), so
 * each call's own short-lived shell, in one sample only, is left out of both sides. VARLAB_OWN_PIDS,
 * in the environment, names more of varlab's own that are not above the shell: the app's renderer
 * and GPU processes on the target `local` (host/local.ts setOwnProcesses).
 */
export const NOISE_SAMPLE = String.raw`ns_proc() { # PID CHILDREN: ns_t=pid:start:ticks, ns_pp=its parent
  ns_t=; ns_pp=0
  read -r ns_line 2>/dev/null < "/proc/$1/stat" || return 1
  set -- "$1" "$2" %{ns_line##*) }
  ns_pp=$4
  if [ "$2" = 1 ]; then ns_t="$1:%{22}:$((%{14} + %{15} + %{16} + %{17}))"; else ns_t="$1:%{22}:$((%{14} + %{15}))"; fi
}
noise_sample() {
  read -r ns_up ns_rest 2>/dev/null < /proc/uptime || return 0
  read -r ns_l ns_rest 2>/dev/null < /proc/loadavg || return 0
  ns_n=0; ns_x=0; ns_tot=0; ns_busy=0; ns_steal=0
  while read -r ns_k ns_u ns_ni ns_s ns_i ns_io ns_irq ns_si ns_st ns_rest; do
    case "$ns_k" in
      cpu) ns_tot=$((%{ns_u:-0} + %{ns_ni:-0} + %{ns_s:-0} + %{ns_i:-0} + %{ns_io:-0} + %{ns_irq:-0} + %{ns_si:-0} + %{ns_st:-0})); ns_busy=$((%{ns_u:-0} + %{ns_ni:-0} + %{ns_s:-0})); ns_steal=%{ns_st:-0} ;;
      cpu[0-9]*) ns_n=$((ns_n + 1)) ;;
      ctxt) ns_x=$ns_u; break ;;
    esac
  done < /proc/stat
  ns_f=0; ns_c=0
  for ns_p in "$3"/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_cur_freq; do
    [ -r "$ns_p" ] && read -r ns_v < "$ns_p" && case "$ns_v" in ''|*[!0-9]*) ;; *) ns_f=$((ns_f + ns_v)); ns_c=$((ns_c + 1)) ;; esac
  done
  if [ "$ns_c" -gt 0 ]; then ns_mhz=$((ns_f / ns_c / 1000)); else ns_mhz=-; fi
  ns_m=-; case "$2" in ''|*[!0-9]*) ;; *) ns_proc "$2" 0 && ns_m=$ns_t ;; esac
  ns_own=; ns_p=$$; ns_c=1; ns_k=0
  while [ "$ns_p" -gt 1 ] && [ "$ns_k" -lt 32 ] && ns_proc "$ns_p" "$ns_c"; do ns_own="$ns_own $ns_t"; ns_p=$ns_pp; ns_c=0; ns_k=$((ns_k + 1)); done
  for ns_p in %{VARLAB_OWN_PIDS:-}; do
    case "$ns_p" in ''|*[!0-9]*) continue ;; esac
    case "$ns_own " in *" $ns_p:"*) continue ;; esac
    ns_proc "$ns_p" 0 && ns_own="$ns_own $ns_t"
  done
  say "noise $1 $ns_up $ns_l $ns_n $ns_tot $ns_busy $ns_steal $ns_x $ns_mhz $ns_m$ns_own"
}`.replaceAll('%{', '${');

/** A record another user could have written is never replayed: owner = this user, not a link, no group/other write. */
export const OWNED_SAFE = String.raw`owned_safe() { [ -e "$1" ] && [ ! -h "$1" ] || return 1; set -- $(ls -ldn "$1"); [ "$3" = "$(id -u)" ] || return 1; case "$1" in ?????w*|????????w*) return 1 ;; esac; }`;

/**
 * `proc_start PID`: the process's start time in clock ticks since boot (/proc/PID/stat field 22) and
 * the boot's id. `proc_is PID START BOOT`: that very process still runs (not a zombie): a pid reused
 * since, or a reboot, is not mistaken for it. The command name in /proc/PID/stat may hold spaces and
 * parentheses, so the fields are counted after its last `) `.
 */
export const PROC_IS = String.raw`proc_start() { printf '%s %s\n' "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20)" "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)"; }
proc_is() { [ -n "$1" ] && [ -n "$2" ] && [ -n "$3" ] || return 1; set -- "$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null)" "$2" "$3"; case "$1" in ''|Z*) return 1 ;; esac; [ "$(printf '%s' "$1" | cut -d' ' -f20)" = "$2" ] && [ "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" = "$3" ]; }`;

/** A session's anchor as a lock records it: its pid, start time (clock ticks since boot) and boot id. */
export const ANCHOR_PATTERN = /^[1-9][0-9]* [0-9]+ [0-9a-f-]{8,64}$/;

/**
 * The anchor of an SSH session: a shell that prints its own pid, start time and boot id, then becomes
 * `cat` (same pid and start time) and waits on the channel's stdin. When the connection closes, for
 * whatever reason (a clean end, the client killed and its kernel closing the socket), stdin ends and
 * so does the process.
 */
export const ANCHOR_SCRIPT = `${PROC_IS}
printf '%s %s\n' "$$" "$(proc_start $$)"
exec cat >/dev/null`;

/** How long a stop outside a restart (the end of a run) waits for mysqld to exit after SIGTERM. */
export const STOP_LIMIT_S = 600;

/**
 * `in_session SID`: the pids of the processes of session SID, SID itself left out (fields after the
 * command name's last `) `: state, parent, group, session). Built-ins only.
 */
export const IN_SESSION = String.raw`in_session() {
  for is_p in /proc/[0-9]*; do
    is_p=%{is_p#/proc/}; [ "$is_p" = "$1" ] && continue
    read -r is_s 2>/dev/null < "/proc/$is_p/stat" || continue
    set -- "$1" %{is_s##*) }
    [ "$5" = "$1" ] && echo "$is_p"
  done
}`.replaceAll('%{', '${');

/** How long a process started to make a gone runner's end may take to write its pid (DIR/gone/pid) before the next REAP starts another. */
const GONE_SAYS_PID_S = 60;

/**
 * How long REAP waits for a gone runner's end once it is being made, at most. The end is made in a
 * process of its own, since it stops mysqld with the limit of a stop (STOP_LIMIT_S): inline, a slow stop held
 * whoever found the runner gone past the limit of its own command (120 s for a journal read, 30 s for
 * taking a lock), and left mysqld running (the fault suite's detached-runner-killed, seed 1210572468).
 * Well under the 30 s of a lock's script, which may wait once (a run's second lock finds the end
 * being made, `winding`, and waits no more).
 */
export const REAP_WAIT_S = 15;

/** The line of a runner script whose `gone` mode can run in a process of its own (REAP). */
export const GONE_MODE = '# gone: in a process of its own';

/**
 * `of_run PID DIR`: PID is a process of the run in DIR (its runner, a step of it, its lock refresher):
 * its command line names DIR/runner.sh. A pid read from a file may be another process's by now, and
 * is signalled only when this says it is the run's.
 *
 * `runner_alive DIR PID`: that pid is the detached runner of the run in DIR: of_run, and when the
 * runner wrote its start (DIR/started: start time and boot id), it is that very process.
 *
 * `winding DIR`: the runner of DIR was found gone and its end is being made now (REAP) by the process
 * DIR/gone/pid names (pid, start time, boot id; written whole), or by one just started that has not
 * written it yet (DIR/gone made less than GONE_SAYS_PID_S ago). A process making an end was killed
 * when DIR/gone/pid names a process that is no more and the journal has no H: the next REAP makes it again.
 */
export const RUNNER_ALIVE = String.raw`${PROC_IS}
of_run() { [ -n "$1" ] && tr '\0' '\n' 2>/dev/null < "/proc/$1/cmdline" | grep -qxF "$2/runner.sh"; }
runner_alive() { of_run "$2" "$1" || return 1; [ -f "$1/started" ] || return 0; read -r ra_s ra_b < "$1/started"; proc_is "$2" "$ra_s" "$ra_b"; }
winding() {
  if [ -f "$1/gone/pid" ]; then read -r wd_p wd_s wd_b < "$1/gone/pid"; proc_is "$wd_p" "$wd_s" "$wd_b"; return; fi
  [ -d "$1/gone" ] && [ $(($(date +%s) - $(stat -c %Y "$1/gone" 2>/dev/null || echo 0))) -lt ${GONE_SAYS_PID_S} ]
}`;

/**
 * `run_dir_safe DIR`: DIR is a run directory as launch made it, not one someone else made or pointed
 * at (issue 24, item 4): its real path is itself (no symlink anywhere on the way: a `runs` that links
 * to another user's runs directory is refused), DIR, its `runs` and its profile directory are owned
 * by this user and writable by no one else (launch's own check), and every directory above is owned
 * by root or this user and writable by no one else unless sticky. Says why on stderr. Needs OWNED_SAFE.
 */
export const RUN_DIR_SAFE = String.raw`run_dir_safe() {
  [ "$(readlink -f -- "$1" 2>/dev/null)" = "$1" ] || { echo "varlab: refusing $1: its real path is $(readlink -f -- "$1" 2>/dev/null) (a symbolic link on the way)" >&2; return 1; }
  rp=$1; rn=0
  while [ "$rp" != / ]; do
    rn=$((rn + 1))
    if [ $rn -le 3 ]; then
      owned_safe "$rp" || { echo "varlab: refusing $1: $rp is not owned by uid $(id -u) or others can write it" >&2; return 1; }
    else
      set -- "$1" $(ls -ldn "$rp")
      { [ "$4" = 0 ] || [ "$4" = "$(id -u)" ]; } || { echo "varlab: refusing $1: $rp is owned by uid $4" >&2; return 1; }
      case "$2" in ?????????[tT]*) ;; ?????w*|????????w*) echo "varlab: refusing $1: others can write $rp" >&2; return 1 ;; esac
    fi
    rp=$(dirname "$rp")
  done
}`;

/**
 * `reap DIR`: the detached run in DIR whose runner is gone without its end (SIGKILL, the OOM killer)
 * is ended by its own runner script's `gone` mode: its step stopped, its end journaled, mysqld
 * stopped and the host put back from the record, its lock let go. That runs in a process of its own
 * (setsid, DIR/gone/pid: `winding`), which reap starts and waits for, at most REAP_WAIT_S: it prints
 * the runner's `@gone` line when the end is made by then; else the end goes on, and `winding` says so
 * to whoever looks next (the journal read says `@state ending`), without waiting again. A runner compiled before that mode
 * (no `# gone: in a process of its own` line) is ended inline, as it was.
 * Only a runner that has a `gone` mode, that is not running, and whose journal lacks its last line (H).
 * Needs RUNNER_ALIVE; DIR is checked by run_dir_safe before.
 */
export const REAP = String.raw`reap() {
  [ -f "$1/journal" ] && ! grep -q '^H ' "$1/journal" && grep -q '^gone() {' "$1/runner.sh" 2>/dev/null || return 0
  runner_alive "$1" "$(cat "$1/pid" 2>/dev/null)" && return 0
  if ! grep -qxF '${GONE_MODE}' "$1/runner.sh"; then /bin/sh "$1/runner.sh" gone < /dev/null 2>/dev/null | grep '^@gone '; return; fi
  # Nothing makes its end (never begun, or its maker was killed): begun now, once (mkdir).
  winding "$1" || rm -rf "$1/gone"
  # Begun by an earlier look: said now, not waited for again (a follower's every read would wait).
  mkdir "$1/gone" 2>/dev/null || { grep '^@gone ' "$1/gone/out" 2>/dev/null || winding "$1"; return; }
  (cd / && exec setsid /bin/sh "$1/runner.sh" gone held < /dev/null > "$1/gone/out" 2>&1 &)
  read -r rp_u rp_x < /proc/uptime; rp_end=$((%{rp_u%%.*} + ${REAP_WAIT_S}))
  while winding "$1" && ! grep -q '^@gone ' "$1/gone/out" 2>/dev/null; do
    read -r rp_u rp_x < /proc/uptime; [ "%{rp_u%%.*}" -lt "$rp_end" ] || break
    # Five looks a second (each starts a few processes): an end made is seen within 0.2 s.
    sleep 0.2 2>/dev/null || sleep 1
  done
  grep '^@gone ' "$1/gone/out" 2>/dev/null || winding "$1"
}`.replaceAll('%{', '${');

/** Functions for the restore record: only a directory and file owned by this user and writable by no one else are used. */
function recordFunctions(dir: string, paths: HostPaths): string {
  return [
    `recs=${q(paths.records)}; rec_dir=${q(dir)}; rec="$rec_dir/restore.tsv"; tab=$(printf '\\t')`,
    OWNED_SAFE,
    String.raw`rec_safe() {
  for p in "$recs" "$rec_dir" "$rec"; do
    [ "$p" = "$rec" ] && [ ! -e "$p" ] && continue
    owned_safe "$p" || { echo "varlab: refusing the restore record: $p is not owned by uid $(id -u) or is writable by others (remove it if you did not make it)" >&2; return 1; }
  done
}
rec_ready() { { [ -d "$recs" ] || mkdir -p -m 755 "$recs"; } && { [ -d "$rec_dir" ] || mkdir -m 700 "$rec_dir"; } && rec_safe; }
set_file() {
  [ -e "$1" ] || fail set "$1 does not exist on this host"
  [ -w "$1" ] || fail set "cannot write $1 (root needed)"
  rec_ready || fail record "cannot keep the restore record in $rec_dir"
  if ! { [ -f "$rec" ] && cut -f1 "$rec" | grep -qxF "$1"; }; then
    # The kernel's list marks the current word ([madvise]); a file holding one word is that word (as the verify reads it).
    if [ "$3" = bracketed ]; then cur=$(sed 's/.*\[\([a-z_]*\)\].*/\1/' "$1"); else cur=$(cat "$1"); fi || fail set "cannot read $1"
    ( umask 077; printf '%s\t%s\n' "$1" "$cur" >> "$rec" ) || fail record "cannot write $rec"
  fi
  printf '%s\n' "$2" > "$1" 2>/dev/null || fail set "cannot write $1 (root needed)"
}
# Write back the originals of the files given (real files of known tunables, never a pattern from the record).
restore_files() {
  [ -f "$rec" ] || return 0
  rec_safe || return 1
  ( umask 077; : > "$rec.new" ) || return 1
  bad=0
  while IFS="$tab" read -r f v; do
    hit=; for a in "$@"; do [ "$f" = "$a" ] && hit=1; done
    if [ -z "$hit" ]; then printf '%s\t%s\n' "$f" "$v" >> "$rec.new"; continue; fi
    case "$v" in ''|*[!A-Za-z0-9_.-]*) echo "varlab: not restoring $f: the record holds an unexpected value" >&2; bad=1; continue ;; esac
    printf '%s\n' "$v" > "$f" 2>/dev/null || { echo "varlab: cannot restore $f to $v" >&2; printf '%s\t%s\n' "$f" "$v" >> "$rec.new"; bad=1; }
  done < "$rec"
  if [ -s "$rec.new" ]; then mv "$rec.new" "$rec"; else rm -f "$rec.new" "$rec"; fi
  return $bad
}`,
  ].join('\n');
}

/** `set --` the existing files of these host files (per-CPU globs expanded on the host). */
function collectFiles(files: HostFile[], paths: HostPaths): string {
  return ['set --', ...files.map((f) => `for f in ${fileWords(f, paths)}; do [ -e "$f" ] && set -- "$@" "$f"; done`)].join('\n');
}

/** How long a stop waits for a mysqld that is still starting to say it is ready, before it kills it. */
export const STARTING_WAIT_S = 60;

/**
 * The stop's lines for a mysqld that has not finished starting, when the profile names its error log.
 * MariaDB 10.11.19 (at least) hangs for good when SIGTERM reaches it in the middle of its start-up:
 * its signal thread takes the signal, sets the server's abort flag and exits, and the main thread then
 * waits in init_slave() for ever, before "ready for connections"; a second SIGTERM stays pending. A
 * stop that sent SIGTERM then waited its whole limit (600 s) and left the mysqld running. So while
 * this mysqld's start ("as process PID" in its log) has no ": ready for connections" after it, the
 * stop waits for it (a start takes seconds); past WAIT_S it is killed (SIGKILL) instead. A kill is safe
 * here: a server that never said ready has served no client, and InnoDB's crash recovery at the next
 * start redoes from its log whatever the killed start had begun (recovery itself is repeatable).
 * A log that does not show this start (no log, rotated, truncated, or its last 64 KiB without the
 * line) counts as ready: the stop is then the plain SIGTERM and wait. The look is two processes
 * (tail, awk), a few ms, made once on a ready server.
 */
function startingText(p: ServerProfile, waitS: number): string[] {
  if (!p.errorLog || p.errorLog === '/dev/null') return [];
  return [
    `  starting() { tail -c 65536 ${q(p.errorLog)} 2>/dev/null | awk -v p="as process $pid" '$0 ~ (p "( |$)") { s = 1; r = 0 } s && /: ready for connections/ { r = 1 } END { exit !(s && !r) }'; }`,
    `  if starting; then`,
    `    deadline ${waitS}; while alive "$pid" && starting; do past && { sig=KILL; echo "varlab: mysqld (pid $pid) had not finished starting ${waitS} s after the stop began: killed (SIGKILL); InnoDB recovers at the next start" >&2; kill -KILL "$pid" || fail stop "cannot kill mysqld (pid $pid)"; break; }; nap 0.1; done`,
    `  fi`,
  ];
}

function stopText(p: ServerProfile, s: Extract<RestartStep, { kind: 'stop' }>): string {
  if (s.via === 'systemd') return `systemctl stop ${q(p.service!)} >&2 || fail stop ${q(`systemctl stop ${p.service} failed`)}`;
  return [
    `first_line ${q(pidFileOf(p))}; pid=$fl`,
    `case "$pid" in ''|*[!0-9]*) pid= ;; esac`,
    // Only a mysqld is signalled: a stale pid file may name another process by now. A registered
    // build whose binary has another name (mysqld-8.0.36) is known by its executable.
    ...(p.builds?.length ? [`exes=${q(p.builds.map((b) => b.exe).join('\n'))}`] : ['exes=']),
    `if [ -n "$pid" ] && alive "$pid"; then first_line "/proc/$pid/comm"; case "$fl" in mysqld|mariadbd|mysqld-debug|mariadbd-debug) ;; *) [ -n "$exes" ] && printf '%s\\n' "$exes" | grep -qxF -- "$(readlink "/proc/$pid/exe" 2>/dev/null)" || pid= ;; esac; else pid=; fi`,
    `if [ -n "$pid" ]; then`,
    `  sig=TERM`,
    ...startingText(p, Math.min(STARTING_WAIT_S, s.timeoutS)),
    `  if [ $sig = TERM ] && alive "$pid"; then kill -TERM "$pid" || fail stop "cannot signal mysqld (pid $pid)"; fi`,
    // Looked at every 10 ms (alive starts no process): mysqld's shutdown ends within one look of it,
    // not up to 50 ms after (which made a stop 60 or 110 ms by where its end fell).
    // The deadline is the clock's (/proc/uptime, read without a process), not a count of looks: on a
    // loaded host each look's `sleep` takes far longer than 10 ms, and a count of 100 a second let a
    // stop outlast the SSH command's own limit (the fault suite's killed runner, at load 5).
    `  deadline ${s.timeoutS}; while alive "$pid"; do past && fail stop "mysqld (pid $pid) still running ${s.timeoutS} s after SIG$sig"; nap 0.01; done`,
    `fi`,
  ].join('\n');
}

/**
 * The OS user mysqld runs as: the profile's, or under sudo the login user (the script runs as root,
 * and mysqld refuses to run as root without --user).
 */
export function mysqldUser(p: ServerProfile, host: Pick<HostFingerprint, 'user'>): string | undefined {
  if (p.osUser) return p.osUser;
  return p.sudo && host.user && host.user !== 'root' && /^[a-z_][a-z0-9_-]{0,31}$/.test(host.user) ? host.user : undefined;
}

/**
 * mysqld's own options: the profile's, then each tunable's. A build starts on its own data directory
 * (and basedir); the pid file stays the profile's, so the next restart's stop finds whichever build ran.
 */
export function mysqldArgs(p: ServerProfile, options: string[], user: string | undefined, server?: StartServer): string[] {
  const args = [p.defaultsFile ? `--defaults-file=${p.defaultsFile}` : '--no-defaults', ...(server?.basedir ? [`--basedir=${server.basedir}`] : []), `--datadir=${server?.datadir ?? p.datadir}`, `--port=${p.port}`, `--pid-file=${pidFileOf(p)}`];
  if (p.socket) args.push(`--socket=${p.socket}`);
  if (p.errorLog) args.push(`--log-error=${p.errorLog}`);
  if (user) args.push(`--user=${user}`);
  return [...args, ...p.extraArgs, ...options];
}

type Tool = 'numactl' | 'taskset' | 'setarch';
const toolsOf = (w: StartWrapper): Tool[] => [w.numactl.length ? 'numactl' : null, w.taskset ? 'taskset' : null, w.setarch ? 'setarch' : null].filter((t): t is Tool => t !== null);

/** The wrapper words, outermost first: env LD_PRELOAD, numactl, taskset, setarch ARCH -R. */
function wrapperWords(w: StartWrapper, path: (t: Tool) => string = (t) => t): string[] {
  const out: string[] = [];
  if (w.preload) out.push('env', `LD_PRELOAD=${w.preload}`);
  if (w.numactl.length) out.push(path('numactl'), ...w.numactl);
  if (w.taskset) out.push(path('taskset'), '-c', w.taskset);
  if (w.setarch) out.push(path('setarch'), w.setarch, '-R');
  return out;
}

function checkWrapper(w: StartWrapper): void {
  if (w.preload) assertPath('allocator library', w.preload);
  if (w.setarch && !/^[A-Za-z0-9_]{1,32}$/.test(w.setarch)) throw new ApiError('invalid-argument', `architecture ${JSON.stringify(w.setarch)} is not a uname -m word`);
}

/** The systemd drop-in that wraps ExecStart with the tunables' wrapper and options (tool paths from the probe). */
export function systemdDropIn(p: ServerProfile, s: Extract<RestartStep, { kind: 'start' }>, host: Pick<HostFingerprint, 'toolPaths' | 'target'>): string {
  // systemd does not run ExecStart through a shell: words are literal, tools by absolute path.
  const sysQuote = (w: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `"${w.replace(/(["\\])/g, '\\$1')}"`);
  const path = (t: Tool) => {
    const found = host.toolPaths?.[t];
    if (!found) throw new ApiError('unsupported', `${t} was not found on ${host.target}, and a systemd drop-in needs its absolute path`);
    assertPath(t, found);
    return found;
  };
  const { preload, ...rest } = s.wrapper;
  const lines = ['# Written by varlab for one restart; removed when the experiment ends.', '[Service]'];
  if (preload) lines.push(`Environment=LD_PRELOAD=${preload}`);
  lines.push('ExecStart=', `ExecStart=${[...wrapperWords({ ...rest }, path), p.mysqld].map(sysQuote).join(' ')} $MYSQLD_OPTS ${[...p.extraArgs, ...s.options].map(sysQuote).join(' ')}`.trimEnd());
  return lines.join('\n') + '\n';
}

export const dropInPath = (p: ServerProfile) => `/etc/systemd/system/${p.service}.d/varlab.conf`;

function startText(p: ServerProfile, s: Extract<RestartStep, { kind: 'start' }>, host: HostFingerprint): string {
  checkWrapper(s.wrapper);
  const lines: string[] = [];
  if (s.wrapper.preload) lines.push(`[ -r ${q(s.wrapper.preload)} ] || fail no-allocator ${q(`the allocator library ${s.wrapper.preload} is not on this host`)}`);
  for (const t of toolsOf(s.wrapper)) lines.push(`command -v ${t} >/dev/null 2>&1 || fail no-tool ${q(`${t} is not installed on this host`)}`);
  if (s.via === 'systemd') {
    const unit = p.service!;
    const dir = `/etc/systemd/system/${unit}.d`;
    lines.push(
      `mkdir -p ${q(dir)} && printf '%s' ${q(systemdDropIn(p, s, host))} > ${q(dropInPath(p))} && systemctl daemon-reload >&2 || fail systemd ${q(`cannot write the drop-in ${dropInPath(p)}`)}`,
      `stamp t0; since=$(date '+%Y-%m-%d %H:%M:%S')`,
      `systemctl restart ${q(unit)} >&2 || { say "fail exited systemctl restart ${unit} failed"; journalctl -u ${q(unit)} --since "$since" -n 40 --no-pager -o cat 2>/dev/null | sed 's/^/@log /'; exit 1; }`,
      `pid=$(systemctl show -p MainPID --value ${q(unit)})`,
    );
    return lines.join('\n');
  }
  const log = p.errorLog ?? '/dev/null';
  const user = mysqldUser(p, host);
  const mysqld = s.server?.mysqld ?? p.mysqld;
  if (s.server) {
    for (const [what, path] of [['build binary', s.server.mysqld], ['build data directory', s.server.datadir]] as const) assertPath(what, path);
    lines.push(`[ -d ${q(s.server.datadir)} ] || fail no-datadir ${q(`the data directory ${s.server.datadir} of build ${s.server.name} does not exist on this host (register the build again)`)}`);
  }
  lines.push(`[ -x ${q(mysqld)} ] || fail no-binary ${q(`${mysqld} does not exist or is not executable on this host`)}`);
  // A log created by root would be unwritable for mysqld once it switches to its own user.
  if (p.errorLog && user) lines.push(`[ -e ${q(p.errorLog)} ] || { : > ${q(p.errorLog)} && chown ${q(user)} ${q(p.errorLog)}; }`);
  // The log's size before this start (its new part is what this start wrote; a log that is not there
  // is 0) and the launch's time stamp t0, read by two processes side by side in one subshell (wc in
  // the background, date exec'd; the substitution ends when both have written): each process costs
  // 1-2 ms, and on two cores the second is nearly free (issue 22, a lean restart). date's word is
  // marked T; a date without %N leaves t0 to stamp's fallback.
  lines.push(`logsize=0; t0=; for w in $(wc -c 2>/dev/null < ${q(log)} & exec date +T%s%N 2>/dev/null); do case "$w" in T*) t0=\${w#T} ;; *) logsize=$w ;; esac; done`);
  lines.push(`case "$t0" in ''|*[!0-9]*) stamp t0 ;; esac; logsize=$((logsize + 0))`);
  const cmd = [...wrapperWords(s.wrapper), mysqld, ...mysqldArgs(p, s.options, user, s.server)].map(q).join(' ');
  // A simple command, so that the background job is mysqld itself (nohup and the wrapper exec), not a
  // subshell that would wait for it holding the channel open.
  lines.push('cd /', `nohup ${cmd} </dev/null >>${q(log)} 2>&1 &`, 'pid=$!');
  return lines.join('\n');
}

/** The lines mysqld wrote since this start: the error log's new part (or the unit's journal). */
function newLogText(p: ServerProfile): string {
  if (p.kind === 'systemd') return `journalctl -u ${q(p.service!)} --since "$since" -n 40 --no-pager -o cat 2>/dev/null | sed 's/^/@log /'`;
  if (!p.errorLog) return ':';
  return `tail -c +$((logsize + 1)) ${q(p.errorLog)} 2>/dev/null | tail -n 40 | sed 's/^/@log /'`;
}

function waitText(p: ServerProfile, s: Extract<RestartStep, { kind: 'wait-ready' }>): string {
  // Listening: the unix socket in /proc/net/unix with the accept flag, else the TCP port in LISTEN (0A).
  const listening = p.socket
    ? `VARLAB_SOCK=${q(p.socket)} awk '{ n = length(ENVIRON["VARLAB_SOCK"]) } $4 == "00010000" && substr($0, length($0) - n + 1) == ENVIRON["VARLAB_SOCK"] { f = 1 } END { exit !f }' /proc/net/unix`
    : `awk '$4 == "0A" && substr($2, length($2) - 4) == ":${p.port.toString(16).toUpperCase().padStart(4, '0')}" { f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null`;
  return [
    `deadline ${s.timeoutS}`,
    `while :; do`,
    `  alive "$pid" || { say "fail exited mysqld (pid $pid) exited during start-up"; ${newLogText(p)}; exit 1; }`,
    `  ${listening} && break`,
    // Every 20 ms: how late after it listens the start is seen (one awk a look, so not as often as the stop's).
    `  past && { say "fail timeout mysqld (pid $pid) did not accept connections within ${s.timeoutS} s"; ${newLogText(p)}; exit 1; }`,
    `  nap 0.02`,
    `done`,
    `stamp t1`,
    // The pid file is mysqld's own word on its pid (a wrapper could in principle have forked).
    `first_line ${q(pidFileOf(p))}; p2=$fl; case "$p2" in ''|*[!0-9]*) ;; *) alive "$p2" && pid=$p2 ;; esac`,
    `say "pid $pid"`,
    `say "ready $(( (t1 - t0) / 1000000 ))"`,
  ].join('\n');
}

function factText(f: Fact, paths: HostPaths): string {
  switch (f.kind) {
    case 'personality':
      return `say "fact personality $(cat "/proc/$pid/personality" 2>/dev/null)"`;
    case 'cpus':
      return `say "fact cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)"`;
    case 'numa':
      return `cut -d' ' -f2 "/proc/$pid/numa_maps" 2>/dev/null | sort | uniq -c | while read -r n p; do say "fact numa $p $n"; done`;
    case 'allocators':
      return `awk '{ print $6 }' "/proc/$pid/maps" 2>/dev/null | grep -E 'lib(jemalloc|tcmalloc)' | sort -u | sed 's/^/@fact allocators /'`;
    case 'file':
      return `for f in ${fileWords(f.file, paths)}; do [ -r "$f" ] && sed 's/^/@fact file:${f.file.id} /' "$f"; done; true`;
    case 'exe':
      // The executable the live process runs (a wrapper script has exec'd it by now), and a digest of
      // its content read through /proc, so a binary replaced on disk since the start is still the one measured.
      return `say "fact exe $(sha256sum < "/proc/$pid/exe" 2>/dev/null | cut -d' ' -f1 | grep -xE '[0-9a-f]{64}' || echo -) $(readlink "/proc/$pid/exe" 2>/dev/null)"`;
    case 'variable':
      return '';
  }
}

export interface CompileInput {
  proc: RestartProcedure;
  profile: ServerProfile;
  host: HostFingerprint;
  paths: HostPaths;
  /** The restore record's directory on the target (recordDir). */
  recordDir: string;
  /**
   * The part of a restart with an idle step: `down`, the steps before it (mysqld stopped, the host set);
   * `up`, the steps after it (the start). The caller idles between the two, where a cancel can end it
   * at once. Without: the whole restart, the idle a `sleep` in it.
   */
  part?: 'down' | 'up';
}

/** The steps of a part of the restart (all of them without a part). */
export function partSteps(proc: RestartProcedure, part?: 'down' | 'up'): RestartStep[] {
  const i = proc.steps.findIndex((s) => s.kind === 'idle');
  if (!part || i < 0) return part === 'down' ? [] : proc.steps;
  return part === 'down' ? proc.steps.slice(0, i) : proc.steps.slice(i + 1);
}

/**
 * The host's counters before anything else (the end of the last restart's measured window, whose
 * mysqld is still the one in the pid file): the first section after the helpers of every call that
 * begins a restart and of the stop script, so the window is read in calls the run makes anyway.
 * With `stampT0`, the script's start T0 too (a restart's stop lap begins there), read by date while
 * the sample runs: both in one subshell that ends when both have, the sample's line going straight to
 * the reply (fd 3) and date's word into T0 (issue 22, a lean restart: the shell waited ~1 ms for date).
 * The sampling shell ($$) is the script's shell as before; the subshell reads what it read.
 */
function noiseBeginSection(p: ServerProfile, paths: HostPaths, stampT0 = false): ScriptSection[] {
  const read = p.kind === 'systemd' ? `fl=$(systemctl show --value -p MainPID ${q(p.service!)} 2>/dev/null)` : `first_line ${q(pidFileOf(p))}`;
  const sample = `noise_sample begin "$fl" ${q(paths.sys)}`;
  return [
    {
      what: "read the host's counters (the end of the last measured window)",
      text: `${NOISE_SAMPLE}
${read}; ${stampT0 ? `{ T0=$(date +%s%N 2>/dev/null & ${sample} >&3); } 3>&1; case "$T0" in ''|*[!0-9]*) stamp T0 ;; esac` : sample}`,
    },
  ];
}

/** The one script a restart runs on the target: every target step of the procedure (or of its part), in order. */
export function restartScript({ proc, profile, host, paths, recordDir: dir, part }: CompileInput): Script {
  // T0, the script's start: read beside the host's counters where the call reads them first.
  const sections: ScriptSection[] = [{ what: 'helpers', text: part === 'up' ? `${HELPERS}\nstamp T0` : HELPERS }];
  const steps = partSteps(proc, part);
  if (part !== 'up') sections.push(...noiseBeginSection(profile, paths, true));
  if (steps.some((s) => s.kind === 'set' || s.kind === 'restore')) sections.push({ what: `the restore record (${dir}/restore.tsv)`, text: recordFunctions(dir, paths) });
  for (const s of steps) {
    const what = describeStep(s);
    switch (s.kind) {
      case 'stop':
        sections.push({ what, text: stopText(profile, s) });
        break;
      case 'restore':
        sections.push({ what, text: `${collectFiles(s.files, paths)}\nrestore_files "$@" || fail restore ${q(`cannot put ${s.tunable} back`)}` });
        break;
      case 'set':
        if (!/^[A-Za-z0-9_.-]{1,32}$/.test(s.value)) throw new ApiError('invalid-argument', `value ${JSON.stringify(s.value)} for ${s.file.path}`);
        sections.push({
          what,
          text: s.file.perCpu
            ? `n=0; for f in ${fileWords(s.file, paths)}; do [ -e "$f" ] || continue; n=$((n+1)); set_file "$f" ${q(s.value)} ${s.file.read}; done; [ $n -gt 0 ] || fail set ${q(`no ${s.file.path} on this host`)}`
            : `set_file ${fileWords(s.file, paths)} ${q(s.value)} ${s.file.read}`,
        });
        break;
      case 'idle':
        // A fraction of a second where sleep takes one, else the whole seconds above it.
        if (!(Number.isFinite(s.seconds) && s.seconds > 0 && s.seconds <= 86400)) throw new ApiError('invalid-argument', `idle time ${s.seconds}`);
        sections.push({ what, text: `sleep ${s.seconds} 2>/dev/null || sleep ${Math.ceil(s.seconds)}` });
        break;
      case 'drop-caches':
        sections.push({ what, text: `sync && printf '3\\n' > ${q(`${paths.procSys}/vm/drop_caches`)} 2>/dev/null || fail drop-caches 'cannot drop the page cache (root needed)'` });
        break;
      case 'start':
        sections.push({ what, text: startText(profile, s, host) });
        // Where the time before mysqld's launch went (stop, host settings, caches, the log's size): a lap
        // for the restart's step timings, from the launch's own time stamp (no `date` of its own: each
        // process a restart starts costs 1.5-5 ms on a busy host; issue 22, a lean restart).
        if (steps[0] !== s) sections.push({ what: 'lap: the steps before the start', text: 'say "lap stop $(( (t0 - T0) / 1000000 ))"' });
        break;
      case 'wait-ready':
        sections.push({ what, text: waitText(profile, s) });
        break;
      case 'verify': {
        const facts = s.facts.filter(onTarget);
        if (facts.length) sections.push({ what: `read back on the target: ${facts.map(factLabel).join(', ')}`, text: facts.map((f) => factText(f, paths)).join('\n') });
        break;
      }
      default:
        break; // preload and the workload run through the server connection
    }
  }
  // Last, once mysqld is ready and its facts read: the start of this restart's measured window.
  if (steps.some((s) => s.kind === 'wait-ready')) sections.push({ what: "read the host's counters (the start of the measured window)", text: `${part === 'up' ? `${NOISE_SAMPLE}\n` : ''}noise_sample end "$pid" ${q(paths.sys)}` });
  return script(sections, profile.sudo);
}

/** Stop mysqld (SIGTERM, wait until gone) or the service: outside a restart (end of a run, `sandbox stop`); its counters end the last restart's window. */
export function stopScript(profile: ServerProfile, timeoutS = STOP_LIMIT_S, paths: HostPaths = DEFAULT_HOST_PATHS): Script {
  const step = { kind: 'stop', via: profile.kind === 'systemd' ? 'systemd' : 'signal', timeoutS } as const;
  return script([{ what: 'helpers', text: HELPERS }, ...noiseBeginSection(profile, paths), { what: describeStep(step), text: stopText(profile, step) }], profile.sudo);
}

/**
 * Before a run's first restart: is each build's binary there to start (`[ -x ]`, with the rights its
 * start has: as root under sudo)? A line `@missing NAME` for each that is not; it changes nothing.
 */
export function buildsThereScript(profile: ServerProfile, builds: Build[]): Script {
  checkBuilds(builds);
  return script([{ what: 'the builds this run starts are there to start', text: builds.map((b) => `[ -x ${q(b.mysqld)} ] || echo @missing ${q(b.name)}`).join('\n') }], profile.sudo);
}

/** Put every host file back from the profile's record (only files of known tunables), and remove a systemd drop-in. */
export function restoreAllScript(profile: ServerProfile | null, paths: HostPaths, dir: string, sudo: boolean): Script {
  const sections: ScriptSection[] = [
    { what: 'helpers', text: HELPERS },
    { what: `the restore record (${dir}/restore.tsv)`, text: recordFunctions(dir, paths) },
    {
      what: 'put every host setting varlab changed back',
      text: [
        collectFiles(HOST_FILES, paths),
        'restore_files "$@" || fail restore "some host settings could not be put back"',
        // What is left names no file varlab changes: it is not replayed.
        `if [ -f "$rec" ]; then echo "varlab: $rec names files varlab never changes; they were not replayed:" >&2; cut -f1 "$rec" >&2; rm -f "$rec"; fi`,
        `rmdir "$rec_dir" 2>/dev/null; true`,
      ].join('\n'),
    },
  ];
  if (profile?.kind === 'systemd') {
    sections.push({ what: 'remove the varlab systemd drop-in', text: `if [ -e ${q(dropInPath(profile))} ]; then rm -f ${q(dropInPath(profile))} && systemctl daemon-reload >&2; fi; true` });
  }
  return script(sections, sudo);
}

/** What the restart script said: tagged lines back into values. */
export interface Reply {
  pid: number | null;
  readyMs: number | null;
  facts: Record<string, string>;
  fail: { kind: string; message: string } | null;
  /** Lines the server wrote to its error log during this start (on failure: the reason). */
  log: string[];
  /** Milliseconds from the script's start to each lap it said (`@lap stop MS`). */
  laps: Record<string, number>;
  /** The host's counters at the call's beginning and, after a start, once mysqld was ready (`@noise`). */
  noise: { begin?: NoiseSample; end?: NoiseSample };
}

export function parseReply(stdout: string): Reply {
  const r: Reply = { pid: null, readyMs: null, facts: {}, fail: null, log: [], laps: {}, noise: {} };
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('@')) continue;
    const sp = line.indexOf(' ');
    const tag = sp < 0 ? line.slice(1) : line.slice(1, sp);
    const rest = sp < 0 ? '' : line.slice(sp + 1);
    if (tag === 'pid') r.pid = Number(rest) || null;
    else if (tag === 'ready') r.readyMs = Number.isFinite(Number(rest)) ? Number(rest) : null;
    else if (tag === 'log') r.log.push(rest);
    else if (tag === 'lap') {
      const [name, ms] = rest.split(' ');
      if (name && Number.isFinite(Number(ms))) r.laps[name] = Number(ms);
    } else if (tag === 'noise') {
      const n = parseNoiseSample(rest);
      if (n?.when === 'begin' || n?.when === 'end') r.noise[n.when] = n.sample;
    }
    else if (tag === 'fail') {
      const i = rest.indexOf(' ');
      r.fail = { kind: i < 0 ? rest : rest.slice(0, i), message: i < 0 ? '' : rest.slice(i + 1) };
    } else if (tag === 'fact') {
      const i = rest.indexOf(' ');
      const key = i < 0 ? rest : rest.slice(0, i);
      const value = i < 0 ? '' : rest.slice(i + 1);
      r.facts[key] = key in r.facts ? `${r.facts[key]}\n${value}` : value;
    }
  }
  return r;
}

/** How the run says a script would run: the text, and how it is started on the target. */
export function formatScript(s: Script): string {
  return (s.sudo ? '# runs as root: sudo -n sh -c SCRIPT, with SCRIPT:\n' : '') + s.text;
}
