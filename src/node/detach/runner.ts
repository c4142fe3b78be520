// The detached runner: the whole plan of a run compiled into one POSIX sh script that keeps going on
// the target while the laptop sleeps (issue 14). It is compiled from the same restart procedures the
// attached run executes (common/restart.ts), step by step:
//
//   stop … wait-ready, and the facts of verify → the very restart script of host/script.ts, per cell
//   verify (server variables)                 → SHOW GLOBAL VARIABLES through the mysql client
//   preload                                   → the scans of host/preload.ts's list query
//   workload                                  → a session file of the queries, timed by the server's
//                                               own statement timer; or the benchmark command
//
// and at the end (finished, failed, cancelled, or an error inside the runner: traps) the stop script
// and the restore script of the host layer, so the target puts itself back with no laptop attached.
//
// On the target it needs a POSIX shell, coreutils, setsid and the mysql/mariadb client: no runtime.
// It appends to its own journal (journal.ts's line format) in the run's directory, and every value in
// it that is not a number or a fixed word is base64, so query results and error texts cannot be
// mistaken for the runner's lines.
import { ApiError } from '../../common/api.js';
import { RESTART_STEPS, type Design, type ServerProfile } from '../../common/experiment/types.js';
import type { HostFingerprint } from '../../common/host.js';
import type { ScheduledRestart } from '../../common/plan.js';
import { assertPath } from '../../common/profile.js';
import type { RestartProcedure } from '../../common/restart.js';
import { preloadListSql } from '../host/preload.js';
import { GONE_MODE, HELPERS, IN_SESSION, NOISE_SAMPLE, restartScript, restoreAllScript, RUNNER_ALIVE, STOP_LIMIT_S, stopScript, type HostPaths } from '../host/script.js';
import { CONSUMER, CONSUMERS_SQL, REPEATING_START_FAILURES, verifyVariables } from '../host/server.js';
import { RESTART_POLICY } from '../../common/restart-policy.js';
import { shellQuote } from '../host/shell.js';
import { commandLine } from '../workloads/runners.js';
import { splitStatements } from '../workloads/setup.js';
import { MEASURE_USER, measureAccountSql } from '../workloads/account.js';
import { keptForm } from '../workloads/history.js';
import { TIMER_CONSUMERS } from '../workloads/queries.js';
import { VS_CYCLE_QUERY } from '../../common/timer-note.js';

/**
 * The steps a detached runner times (RESTART_STEPS less connect and timer: its client logs in for
 * each call, and the timer's probe runs inside measure).
 */
const STEP_NAMES = RESTART_STEPS.filter((n) => n !== 'connect' && n !== 'timer');

/** Where the measurement account's password goes in its SQL: the runner puts in the one it made. */
const PASSWORD_SLOT = '@@varlab_password@@';

const q = shellQuote;

export interface RunnerInput {
  runId: string;
  /** The run's directory on the target (runDir()): the runner, its data files and its journal. */
  dir: string;
  design: Design;
  profile: ServerProfile;
  host: HostFingerprint;
  paths: HostPaths;
  /** The host's directory on the target (hostDir): the restore record of host-wide settings. */
  recordDir: string;
  /** The restarts to run, in order (a resumed run: what its journal still lacks). */
  restarts: ScheduledRestart[];
  /** Each cell's restart procedure, computed once (by the same ServerControl.procedure as an attached run). */
  procedures: Map<string, RestartProcedure>;
  /** Random hex: the runner's markers in the client's output and the statement delimiter. */
  nonce: string;
  /** The run's locks on the target (its profile's, and the host's when it changes host-wide settings), which the runner keeps fresh while it runs. */
  lock?: { paths: string[]; owner: string };
}

export interface RunnerFile {
  name: string;
  text: string;
  mode: 0o700 | 0o600;
}

/** The run ids varlab makes (UUIDs): also the systemd unit's name, varlab-<id>. */
export const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9-]{7,63}$/;

export function checkRunId(id: string): string {
  if (!RUN_ID.test(id)) throw new ApiError('invalid-argument', `run id ${JSON.stringify(id)}: expected letters, digits and -`);
  return id;
}

/** Where a run lives on the target: beside the profile's restore record, in the root-owned directory. */
export function runDir(recordDir: string, runId: string): string {
  return `${recordDir.replace(/\/$/, '')}/runs/${checkRunId(runId)}`;
}

/**
 * A run directory named by a journal (which travels with the file, so whoever wrote the file wrote
 * it): only the shape runDir makes is accepted, `…/mysqld-PORT-ID/runs/RUN_ID` with this run's id, so
 * attach, cancel and the clean-up after them (`rm -rf` of that directory) can reach no other folder.
 */
export function checkJournalRunDir(dir: string, runId: string, where: string): string {
  checkRunId(runId);
  const m = /^(\/.+)\/(mysqld-[0-9]{1,5}-[0-9a-f]{10})\/runs\/([^/]+)$/.exec(dir);
  const ok = m !== null && m[3] === runId && !/[\0-\x1f\x7f]/.test(dir) && !dir.split('/').includes('..');
  if (!ok) throw new ApiError('invalid-file', `${where}: the detached run's directory ${JSON.stringify(dir)} is not one varlab makes (…/mysqld-PORT-ID/runs/${runId}); refusing to read, stop or remove it`);
  return dir;
}

/** The file in a run's directory that says varlab made it, for which run (its id, one line). */
export const RUN_MARKER = 'varlab-run';

/** The files a run's directory holds, runner.sh first. */
export function compileRunner(input: RunnerInput): RunnerFile[] {
  const { design, dir } = input;
  checkRunId(input.runId);
  assertPath('run directory', dir);
  if (!/^[0-9a-f]{16,64}$/.test(input.nonce)) throw new ApiError('invalid-argument', 'runner nonce: expected hex');
  const mark = `vl${input.nonce}`;
  // The mysql client keeps at most 15 characters of a delimiter.
  const delim = `;;${input.nonce.slice(0, 12)}`;
  const w = design.workload;
  const files: RunnerFile[] = [];
  const data = (name: string, text: string) => files.push({ name, text, mode: 0o600 });

  // Cells in first-use order; the plan file says which cell each restart runs.
  const cells: string[] = [];
  for (const r of input.restarts) if (!cells.includes(r.cell)) cells.push(r.cell);
  const procOf = (cell: string) => {
    const p = input.procedures.get(cell);
    if (!p) throw new ApiError('internal', `no restart procedure for cell ${cell}`);
    return p;
  };
  // varlab's marker: cleanup removes only a directory that carries it with this run's id.
  data(RUN_MARKER, `${input.runId}\n`);
  data('plan', input.restarts.map((r) => `${r.seq} ${cells.indexOf(r.cell) + 1}\n`).join(''));

  if (w.kind === 'queries') {
    // Each statement of the setup script, then a marker naming it, so a failure names its statement.
    data('setup.sql', splitStatements(w.setupSql).map((s, i) => `${s}\n${delim}\nSELECT '${mark} s ${i + 1}'\n${delim}\n`).join(''));
    w.queries.forEach((qq, i) => {
      const hex = Buffer.from(qq.sql, 'utf8').toString('hex');
      data(`check-${i + 1}.sql`, `SET @vl_q = CONVERT(X'${hex}' USING utf8mb4)\n${delim}\nPREPARE varlab_check FROM @vl_q\n${delim}\nDEALLOCATE PREPARE varlab_check\n${delim}\n`);
    });
    // The read-only measurement account, for either flavor (the runner asks the server which it is).
    // The password stands as a placeholder: the runner makes it in memory on the target, never on disk.
    for (const flavor of ['mariadb', 'mysql'] as const) data(`account-${flavor}.sql`, measureAccountSql(flavor, w.database, `'${PASSWORD_SLOT}'`).map((x) => `${x}\n${delim}\n`).join(''));
    // One session per restart, written once: nothing is generated on the target while it measures.
    for (const timer of ['profiling', 'performance_schema'] as const) data(`session-${timer}.sql`, sessionSql(design, timer, mark, delim));
    data('vs-client.sql', vsClientSql(mark, delim));
  }
  // The preload's list query (the attached run's own), each row turned into a marked COUNT statement.
  data('preload-list.sql', preloadListSql([w.database], (kind, source) => `CONCAT('SELECT CONCAT(''${mark} p ', ${kind}, ' '', COUNT(*)) FROM ', ${source}, '\n${delim}')`));

  const text = runnerScript(input, cells.map(procOf), mark, delim);
  return [{ name: 'runner.sh', text, mode: 0o700 }, ...files];
}

/**
 * Executions in a row before the timer is read. SHOW PROFILES keeps 100 statements, and a batch's
 * must all be there with the marker before them and the one after.
 */
export const DETACHED_BATCH = 98;

/** What a statement of a measured session is (sessionStatements): where the run's words for a refusal of it come from. */
export type SessionStatement =
  | { kind: 'prologue' }
  | { kind: 'execution'; query: number; rep: number }
  /** The server's timer read after a batch (and the batch's markers): `n` executions of `query` from repetition `from`. */
  | { kind: 'read'; query: number; from: number; n: number };

/**
 * The measured statements of one restart: each query, its repetitions back to back in batches, the
 * server's own timer read after each batch (what the attached query loop does, queries.ts).
 *   performance_schema: `h` lines, one per statement of the connection since the last read, with
 *   whether its text is the query's; query profiling: a `P` marker, then SHOW PROFILES's rows.
 * A `b` line ends each batch; MEASURE_AWK keeps a batch's figures only when they are provably its own.
 */
export function sessionStatements(design: Design, timer: 'profiling' | 'performance_schema', mark: string): { sql: string; is: SessionStatement }[] {
  const w = design.workload;
  const at = 'ROUND(UNIX_TIMESTAMP(NOW(3)) * 1000)';
  const out: { sql: string; is: SessionStatement }[] = [];
  const st = (sql: string, is: SessionStatement = { kind: 'prologue' }) => out.push({ sql, is });
  const since = 'FROM performance_schema.events_statements_history_long WHERE THREAD_ID = @vl_t';
  if (timer === 'profiling') {
    st('SET profiling = 1');
    st('SET profiling_history_size = 100');
    st(`SELECT '${mark} s'`);
  } else {
    st('SET @vl_t = (SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID())');
    st(`SET @vl_e = (SELECT IFNULL(MAX(EVENT_ID), 0) ${since})`);
  }
  w.queries.forEach((qq, i) => {
    const text = `CONVERT(X'${Buffer.from(keptForm(qq.sql), 'utf8').toString('hex')}' USING utf8mb4)`;
    for (let r0 = 1; r0 <= w.repetitions; r0 += DETACHED_BATCH) {
      const n = Math.min(DETACHED_BATCH, w.repetitions - r0 + 1);
      const read: SessionStatement = { kind: 'read', query: i + 1, from: r0, n };
      const head = `'${mark} ${timer === 'profiling' ? 'P' : 'h'} ${i + 1} ${r0} ${n} ', ${at}`;
      for (let k = 0; k < n; k++) st(qq.sql, { kind: 'execution', query: i + 1, rep: r0 + k });
      if (timer === 'profiling') {
        st(`SELECT CONCAT(${head})`, read);
        st('SHOW PROFILES', read);
      } else {
        // Byte for byte (a _ci collation would take SELECT 1 for select 1); a text the server cut short matches the query it begins.
        const same = `IF(BINARY SQL_TEXT = BINARY ${text} OR (CHAR_LENGTH(SQL_TEXT) >= 200 AND BINARY LEFT(${text}, CHAR_LENGTH(SQL_TEXT)) = BINARY SQL_TEXT), 1, 0)`;
        st(`SELECT CONCAT(${head}, ' ', EVENT_ID, ' ', IFNULL(TIMER_WAIT, '-'), ' ', ${same}) ${since} AND EVENT_ID > @vl_e AND NESTING_EVENT_LEVEL = 0 ORDER BY EVENT_ID`, read);
        st(`SET @vl_e = (SELECT IFNULL(MAX(EVENT_ID), 0) ${since})`, read);
      }
      st(`SELECT CONCAT('${mark} b ${i + 1} ${r0} ${n} ', ${at})`, read);
    }
  });
  return out;
}

/** The session file: each statement on its own lines, the delimiter on the line after it. */
function sessionSql(design: Design, timer: 'profiling' | 'performance_schema', mark: string, delim: string): string {
  return sessionStatements(design, timer, mark)
    .map((x) => `${x.sql}\n${delim}\n`)
    .join('');
}

/**
 * The statement of a measured session at `line` of its file (the client names the line a refused
 * statement begins on: `ERROR 1142 (42000) at line 57: …`); null past its end. The mark and the
 * delimiter are one line each whatever the nonce, so the lines are the design's alone.
 */
export function sessionStatementAt(design: Design, timer: 'profiling' | 'performance_schema', line: number): SessionStatement | null {
  let first = 1;
  for (const x of sessionStatements(design, timer, 'vl')) {
    const last = first + x.sql.split('\n').length; // its own lines, then the delimiter's
    if (line >= first && line < last) return x.is;
    first = last + 1;
  }
  return null;
}

/**
 * The lines of a measured session's output that are the runner's: each batch's times as journal `X`
 * lines, only when they are provably the batch's (history.ts's rule, here in awk):
 *   performance_schema: the rows since the previous read end with exactly n rows of the query, each
 *   timed (a row of another statement, the previous read's, comes before them, or the history wrapped
 *   past it and lost nothing of the batch);
 *   profiling: the n profiles right before the P marker's (Query_IDs are consecutive) are not
 *   markers, and the one before them is the previous marker.
 * A batch without them gives no X line: the count falls short and the restart is measured again.
 * With `last`, the query and repetition the last batch that ran ended at (`0 0` before any): a statement
 * the server refused is then named (the next one in the session's order).
 */
export const MEASURE_AWK = String.raw`function num(x) { return x ~ /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
index($0, N " h ") == 1 { split($0, f, " "); if (f[9] == 1 && num(f[8])) run[++len] = f[8]; else len = 0; next }
index($0, N " P ") == 1 { inp = 1; delete dur; delete mk; top = 0; next }
index($0, N " b ") == 1 {
  split($0, f, " "); q = f[3]; r0 = f[4]; n = f[5]; at = f[6]; ok = 0; lq = q; lr = r0 + n - 1
  if (inp) {
    ok = (top > n) && mk[top] && mk[top - n - 1]
    for (i = top - n; ok && i < top; i++) if (mk[i] || !(i in dur) || !num(dur[i])) ok = 0
    for (i = 1; ok && i <= n; i++) run[i] = dur[top - n - 1 + i]
  } else ok = (len == n)
  if (ok) { for (i = 1; i <= n; i++) { print "X " at " " seq " " q " " (r0 + i - 1) " " run[i]; c++ } fflush() }
  len = 0; inp = 0; next
}
inp { t = index($0, "\t"); id = substr($0, 1, t - 1) + 0; rest = substr($0, t + 1); u = index(rest, "\t"); dur[id] = substr(rest, 1, u - 1); mk[id] = index(rest, N) > 0; if (id > top) top = id; next }
END { print c + 0 > cnt; if (last != "") print (lq + 0) " " (lr + 0) > last }`;

/** Executions of VS_CYCLE_QUERY timed against the client: the first begins the first interval. */
const VS_CLIENT_N = 30;

/** The session vs_client runs: query profiling on, VS_CYCLE_QUERY (marked) back to back, then SHOW PROFILES. */
function vsClientSql(mark: string, delim: string): string {
  const one = `SELECT CONCAT('${mark} v ', ${VS_CYCLE_QUERY.slice('SELECT '.length)})`;
  return ['SET profiling = 1', 'SET profiling_history_size = 100', ...Array(VS_CLIENT_N + 1).fill(one), 'SHOW PROFILES'].map((x) => `${x}\n${delim}\n`).join('');
}

/**
 * vs_client's output to N OFFSET SPREAD: the start times (`N v SECONDS.MICROS`) and the profiles of
 * the marked statements (Query_ID TAB Duration TAB Query, in order); per execution but the last, the
 * time to the next one's start less its own profile (ms); their median and standard deviation.
 */
export const VS_CLIENT_AWK = String.raw`function us(x,  p) { p = index(x, "."); return (substr(x, 1, p - 1) - s0) * 1000000 + substr(x, p + 1, 6) }
index($0, N " v ") == 1 { x = substr($0, length(N) + 4); if (!nt) { s0 = substr(x, 1, index(x, ".") - 1) } t[++nt] = us(x); next }
/^[0-9]+\t/ && index($0, N " v ") { split($0, f, "\t"); d[++nd] = f[2] * 1000000 }
END {
  if (nt < 4 || nd < nt) exit
  for (i = 1; i < nt; i++) { v = (t[i + 1] - t[i] - d[nd - nt + i]) / 1000; for (j = i - 1; j >= 1 && x2[j] > v; j--) x2[j + 1] = x2[j]; x2[j + 1] = v; sum += v }
  n = nt - 1; m = sum / n; for (i = 1; i <= n; i++) ss += (x2[i] - m) ^ 2
  med = n % 2 ? x2[(n + 1) / 2] : (x2[n / 2] + x2[n / 2 + 1]) / 2
  printf "%d %.3f %.3f\n", n, med, sqrt(ss / (n - 1))
}`;

const PRELOAD_AWK = String.raw`index($0, N " p ") == 1 { split($0, f, " "); k = f[3]; if (k == "T" || k == "t") { tables++; rows += f[4] } if (k == "T" || k == "i") indexes++ }
END { printf "%d %d %.0f\n", tables, indexes, rows }`;

/** The build a procedure starts ('' for the profile's own server). */
const dataName = (proc: RestartProcedure) => {
  const start = proc.steps.find((s) => s.kind === 'start');
  return start?.kind === 'start' ? (start.server?.name ?? '') : '';
};

function runnerScript(input: RunnerInput, procs: RestartProcedure[], mark: string, delim: string): string {
  const { design, profile, host, paths, recordDir, dir } = input;
  const w = design.workload;
  const where = [profile.socket ? `--socket=${profile.socket}` : `--host=127.0.0.1`, ...(profile.socket ? [] : [`--port=${profile.port}`])];
  const conn = [...where, `--user=${profile.user}`, '--connect-timeout=10'].map(q).join(' ');
  // The measurement account logs in with the password in MYSQL_PWD, and --no-defaults so that no
  // [client] password of an option file is sent instead (MYSQL_PWD counts least).
  const measureConn = ['--no-defaults', ...where, `--user=${MEASURE_USER}`, '--connect-timeout=10'].map(q).join(' ');
  const db = q(`--database=${w.database}`);
  const stop = stopScript(profile, undefined, paths).text;
  const restore = restoreAllScript(profile, paths, recordDir, false).text;
  const loginHelp = `a detached run logs in with the client on the target as ${profile.user}, and varlab stores no password there: give that account socket authentication or a [client] password in the option file of the user the run runs as (~/.my.cnf)`;

  const cellText = procs.map((proc, i) => {
    const n = i + 1;
    const vars = verifyVariables(proc);
    const varsSql = vars.length ? `SHOW GLOBAL VARIABLES WHERE Variable_name IN (${vars.map((v) => `'${v}'`).join(', ')})` : '';
    if (vars.some((v) => !/^[a-z][a-z0-9_]{0,63}$/.test(v))) throw new ApiError('invalid-argument', `server variable names must be lower-case identifiers: ${vars.join(', ')}`);
    const preload = proc.steps.some((s) => s.kind === 'preload');
    // With idle time, the restart script in two parts around it, as an attached run makes two calls:
    // down (mysqld stopped, the host set), the idle as a step of the runner's own (a cancel stops it), up (the start).
    const idle = proc.steps.find((s) => s.kind === 'idle');
    const seconds = idle?.kind === 'idle' ? idle.seconds : 0;
    if (!(Number.isFinite(seconds) && seconds >= 0)) throw new ApiError('invalid-argument', `idle time ${seconds}`);
    const part = (p?: 'down' | 'up') => restartScript({ proc, profile, host, paths, recordDir, part: p }).text;
    return [
      `# cell ${n}: ${proc.cell.map((c) => `${c.key}=${c.level}`).join(', ').replace(/[^\x20-\x7e]/g, '?') || '(no factors)'}`,
      seconds > 0 ? `down_${n}() { (\n${part('down')}) }` : `down_${n}() { :; }`,
      `idle_${n}=${seconds > 0 ? q(`${seconds} ${Math.ceil(seconds)}`) : ''}`,
      `cell_${n}() { (\n${part(seconds > 0 ? 'up' : undefined)}) }`,
      `vars_${n}() { printf '%s' ${q(varsSql)}; }`,
      // performance_schema consumers are read back from setup_consumers, as the attached run reads them.
      `cons_${n}() { printf '%s' ${q(vars.some((v) => v.startsWith(CONSUMER)) ? CONSUMERS_SQL : '')}; }`,
      `preload_${n}=${preload ? 1 : ''}`,
      // Which data directory the cell's server runs on (its build's, or 0 for the profile's): each is set up once.
      `data_${n}=${procs.findIndex((p) => dataName(p) === dataName(proc)) + 1}`,
    ].join('\n');
  });

  const workload =
    w.kind === 'queries'
      ? String.raw`measure() { # $1 seq: the session of this restart; its times go straight to the journal
  timer=$(detect_timer)
  case "$timer" in
    performance_schema|profiling) ;;
    *) finish failed msg "$(printf '%s' "mysqld on $TARGET offers no server-side statement timer (performance_schema statement history is off and query profiling is unavailable): a detached run measures with the server's own timer only" | b64)" ;;
  esac
  # Profiling says why the exact timer is not the one (timer_off), and how it compares with the client's
  # time (vs_client), for the run's timer note.
  [ "$timer" = "$LAST_TIMER" ] || { why=; [ "$timer" = profiling ] && why=" $(timer_off) $(vs_client)"; jr "T $(ms) $timer$why"; LAST_TIMER=$timer; }
  bg measure "$1" "$timer"; rc=$?
  ck
  if [ "$rc" != 0 ]; then
    if lost "$DIR/measure.err"; then return 2; fi
    # The query and repetition the session got to: the refused statement comes next.
    lq=0; lr=0; read -r lq lr < "$DIR/measure.last" 2>/dev/null
    finish failed query "$1" "$(errline "$DIR/measure.err" | b64)" "$lq" "$lr"
  fi
  got=; read -r got < "$DIR/measure.count" 2>/dev/null; [ -n "$got" ] || got=0
  # A figure that is not provably its execution's is never guessed: the restart is measured again.
  [ "$got" = "$EXECUTIONS" ] || { WHY="the server's statement timer gave a time that is provably its own for $got of $EXECUTIONS executions"; return 2; }
}
# Query profiling held against the client's time, as an attached run holds it (queries.ts
# timerAgainstClient): ${VS_CLIENT_N + 1} executions back to back, each saying when it began by the server's clock;
# the time from one's start to the next's less its profile, per execution: N OFFSET SPREAD (ms), or nothing.
vs_client() { msql --delimiter="$D" < "$DIR/vs-client.sql" 2>/dev/null | awk -v N="$N" "$VS_CLIENT_AWK"; }
step_measure() { # $1 seq, $2 timer
  { msql ${db} --delimiter="$D" < "$DIR/session-$2.sql" 2> "$DIR/measure.err"; echo $? > "$DIR/measure.rc"; } |
    awk -v N="$N" -v seq="$1" -v cnt="$DIR/measure.count" -v last="$DIR/measure.last" "$MEASURE_AWK" >> "$J"
  read -r rc < "$DIR/measure.rc"; return "$rc"
}`
      : String.raw`measure() { # $1 seq: the benchmark command, each repetition; its output is parsed when varlab imports it
  rep=1
  while [ "$rep" -le ${w.repetitions} ]; do
    bg command; rc=$?
    ck
    jr "C $(ms) $1 $rep $rc $(b64 < "$DIR/command.out")"
    [ "$rc" = 0 ] || finish failed command "$1" "$rc" "$(tail -n 3 "$DIR/command.err" "$DIR/command.out" 2>/dev/null | b64)"
    rep=$((rep + 1))
  done
}
step_command() { /bin/sh -c ${q(commandLine(w, profile))} < /dev/null > "$DIR/command.out" 2> "$DIR/command.err"; }`;

  const setup =
    w.kind === 'queries'
      ? String.raw`# The setup script, once per run (as an attached run: after the first start), then every query
# prepared on the server, so a typo is named before hours of restarts.
setup() { # AGAIN=1 when the setup ran (fresh data: the restart is done again)
  AGAIN=0
  sql -e ${q(`CREATE DATABASE IF NOT EXISTS \`${w.database}\``)} 2> "$DIR/setup.err" || finish failed msg "$(errline "$DIR/setup.err" | b64)"
  ${w.setupSkipIfTable ? `skip=$(sql -e ${q(`SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = '${w.database}' AND TABLE_NAME = '${w.setupSkipIfTable}'`)} 2>/dev/null)` : 'skip='}
  if [ -n "$skip" ]; then jr "U $(ms) 1 0 0"; return; fi
  t0=$(ms)
  bg setup; rc=$?
  ck
  if [ "$rc" != 0 ]; then
    last=; read -r last < "$DIR/setup.last" 2>/dev/null; [ -n "$last" ] || last=0
    finish failed setup "$last" "$(errline "$DIR/setup.err" | b64)"
  fi
  jr "U $(ms) 0 ${splitStatements(w.setupSql).length} $(($(ms) - t0))"
  AGAIN=1
}
step_setup() {
  { sql ${db} --delimiter="$D" < "$DIR/setup.sql" 2> "$DIR/setup.err"; echo $? > "$DIR/setup.rc"; } |
    awk -v N="$N" 'index($0, N " s ") == 1 { split($0, f, " "); last = f[3] } END { print last + 0 }' > "$DIR/setup.last"
  read -r rc < "$DIR/setup.rc"; return "$rc"
}
# The read-only account measured queries run as: a new password for every runner, kept in its
# environment only (exported, so the steps it starts in sessions of their own can log in).
make_account() {
  # One password for every data directory of the run (each build's own has the account made in it).
  [ -n "$MPW" ] || MPW=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n'); export MPW
  [ -n "$MPW" ] || finish failed msg "$(printf '%s' "no random password for the measurement account (/dev/urandom)" | b64)"
  acct=mysql; sql -e 'SELECT VERSION()' 2>/dev/null | grep -qi mariadb && acct=mariadb
  # awk takes the password from its environment: an argument (sed's) is in every user's ps.
  awk '{ gsub(/${PASSWORD_SLOT}/, ENVIRON["MPW"]); print }' < "$DIR/account-$acct.sql" | sql --delimiter="$D" > /dev/null 2> "$DIR/account.err" ||
    finish failed msg "$(printf 'cannot make the read-only measurement account ${MEASURE_USER} as %s: %s' ${q(profile.user)} "$(errline "$DIR/account.err")" | b64)"
}
check_queries() {
  make_account
  : > "$DIR/check.out"; i=1
  while [ "$i" -le ${w.queries.length} ]; do
    if ! msql ${db} --delimiter="$D" < "$DIR/check-$i.sql" > /dev/null 2> "$DIR/check.err"; then
      # ER_UNSUPPORTED_PS: a statement the prepared-statement protocol cannot take is not checked.
      grep -q '^ERROR 1295 ' "$DIR/check.err" || printf '%s %s\n' "$i" "$(errline "$DIR/check.err" | b64)" >> "$DIR/check.out"
    fi
    i=$((i + 1))
  done
  [ -s "$DIR/check.out" ] && finish failed check "$(b64 < "$DIR/check.out")"
  true
}`
      : String.raw`setup() { AGAIN=0; jr "U $(ms) 1 0 0"; }
check_queries() { true; }`;

  const lock = input.lock;
  const lockText = lock
    ? String.raw`LOCKS=${q(lock.paths.join('\n'))}
REFRESH=
lock_take() {
  # The run's locks pass from varlab (which took them) to this runner.
  printf '%s\n' "$LOCKS" | while IFS= read -r L; do
    mkdir -p "$L" && printf '%s\n' ${q(lock.owner)} | sed "s/\"pid\":0/\"pid\":$$/" > "$L/owner" || exit 1
    # Who holds it, for whoever finds it held: this runner (pid, start time, boot) and its directory, so a
    # runner gone without its end (killed) is seen at once, and ended from its directory (REAP).
    printf '%s %s %s\n' "$1" "$(cat "$DIR/started")" "$DIR" > "$L/runner" || exit 1
  done || return 1
  # Kept fresh while this runner lives (a lock not refreshed for minutes counts as abandoned). Its sleep
  # is waited for, so that the runner's end (lock_release) stops it and its sleep at once: left alone it
  # outlived the runner by up to 30 s, a "runner.sh" still running after a cancel.
  ( s=; trap 'kill "$s" 2>/dev/null; exit 0' TERM; while kill -0 "$1" 2>/dev/null; do printf '%s\n' "$LOCKS" | while IFS= read -r L; do touch "$L/owner" 2>/dev/null; done; sleep 30 & s=$!; wait "$s"; done ) < /dev/null > /dev/null 2>&1 &
  REFRESH=$!
  # For the end made by whoever finds this runner killed (gone): its refresher is stopped too.
  echo "$REFRESH" > "$DIR/refresh.pid"
}
lock_release() {
  [ -n "$REFRESH" ] || read -r REFRESH < "$DIR/refresh.pid" 2>/dev/null
  of_run "$REFRESH" "$DIR" && kill "$REFRESH" 2>/dev/null
  printf '%s\n' "$LOCKS" | while IFS= read -r L; do grep -qF ${q(`"runId":"${input.runId}"`)} "$L/owner" 2>/dev/null && rm -rf "$L"; done; true
}`
    : String.raw`lock_take() { true; }
lock_release() { true; }`;

  const executions = w.kind === 'queries' ? w.queries.length * w.repetitions : w.repetitions;
  return String.raw`#!/bin/sh
# varlab detached run ${input.runId} on ${input.design.target.replace(/[^\x20-\x7e]/g, '?')}: ${input.restarts.length} restarts.
# Compiled by varlab from the design's restart procedures (the steps an attached run executes), with
# the same restart, stop and restore scripts. Needs a POSIX shell, coreutils, setsid and the
# mysql/mariadb client. Its journal ($DIR/journal) is read by varlab attach; nothing secret is in it.
umask 077
# The app's own processes (host/local.ts) are not the runner's: it outlives them.
unset VARLAB_OWN_PIDS
DIR=${q(dir)}
J="$DIR/journal"
RUN=${q(input.runId)}
TARGET=${q(input.design.target)}
N=${mark}
D=${q(delim)}
EXECUTIONS=${executions}
MEASURE_AWK=${q(MEASURE_AWK)}
PRELOAD_AWK=${q(PRELOAD_AWK)}
VS_CLIENT_AWK=${q(VS_CLIENT_AWK)}
${HELPERS}
${RUNNER_ALIVE}
${IN_SESSION}
${NOISE_SAMPLE}
SYS=${q(input.paths.sys)}
ms() { t=$(date +%s%3N 2>/dev/null); case "$t" in *N*|'') t=$(date +%s)000 ;; esac; echo "$t"; }
jr() { printf '%s\n' "$*" >> "$J"; }
# Where a restart's time goes, as an attached run journals it (RESTART_STEPS): milliseconds per step,
# summed where a step runs twice (the setup's two starts), written on the restart's D line.
st_reset() { ${STEP_NAMES.map((n) => `ST_${n}=`).join('; ')}; }
st_add() { eval "ST_$1=\$(( \${ST_$1:-0} + $2 ))"; }
st_since() { st_add "$1" $(( $(ms) - $2 )); } # NAME FROM: the time since FROM (ms)
st_line() { for n in ${STEP_NAMES.join(' ')}; do eval "v=\$ST_$n"; [ -n "$v" ] && printf ' %s=%s' "$n" "$v"; done; }
b64() { x=$(base64 | tr -d '\n'); [ -n "$x" ] || x=-; printf '%s' "$x"; }
CLIENT=$(command -v mariadb || command -v mysql)
sql() { "$CLIENT" ${conn} -N -B -n --comments --binary-mode "$@"; }
${w.kind === 'queries' ? `msql() { MYSQL_PWD="$MPW" "$CLIENT" ${measureConn} -N -B -n --comments --binary-mode "$@"; }` : '# A command workload brings its own login; the preload reads as the profile\'s account.\nmsql() { sql "$@"; }'}
errline() { grep '^ERROR' "$1" 2>/dev/null | tail -n 1; }
# The client lost its server (mysqld died or restarted underneath): the restart is done again.
lost() { grep -qE '^ERROR (2006|2013) ' "$1"; }
${lockText}

# As the attached run's detectTimer: a timer is the one whose history shows a probe statement.
detect_timer() {
  v=$(msql -e "SELECT 1 AS varlab_timer_probe; SELECT IF(COUNT(*) > 0, 'performance_schema', 'no') FROM performance_schema.events_statements_history_long WHERE THREAD_ID = (SELECT THREAD_ID FROM performance_schema.threads WHERE PROCESSLIST_ID = CONNECTION_ID()) AND SQL_TEXT = 'SELECT 1 AS varlab_timer_probe' AND TIMER_WAIT > 0" 2>/dev/null | tail -n 1)
  [ "$v" = performance_schema ] && { echo performance_schema; return; }
  v=$(msql -e 'SET profiling = 1; SELECT @@profiling' 2>/dev/null)
  [ "$v" = 1 ] && { echo profiling; return; }
  echo none
}
# What the exact timer lacks, as one word: off (performance_schema is off), the consumers it needs that
# are off (comma-separated), or - (none off: it does not time the connection's statements).
timer_off() {
  [ "$(msql -e 'SELECT @@performance_schema' 2>/dev/null)" = 1 ] || { echo off; return; }
  v=$(msql -e "SELECT GROUP_CONCAT(NAME) FROM performance_schema.setup_consumers WHERE ENABLED <> 'YES' AND NAME IN (${TIMER_CONSUMERS.map((c) => `'${c}'`).join(', ')})" 2>/dev/null)
  case "$v" in ''|NULL) echo - ;; *) echo "$v" ;; esac
}
step_preload() {
  msql -r < "$DIR/preload-list.sql" > "$DIR/preload.sql" 2> "$DIR/preload.err" || return 1
  { msql --delimiter="$D" < "$DIR/preload.sql" 2>> "$DIR/preload.err"; echo $? > "$DIR/preload.rc"; } | awk -v N="$N" "$PRELOAD_AWK" > "$DIR/preload.out"
  read -r rc < "$DIR/preload.rc"; return "$rc"
}
step_idle() { sleep "$1" 2>/dev/null || sleep "$2"; }
${workload}
${setup}

${cellText.join('\n\n')}

# A step that may take long runs in a session of its own, so that cancel stops all of it at once.
case "$1" in step) shift; s=$1; shift; "step_$s" "$@"; exit $? ;; esac

child=
cancelled=
# Its pid is kept on disk too: a runner killed mid-step leaves it running, and its end (gone) stops it.
bg() { setsid /bin/sh "$DIR/runner.sh" step "$@" & child=$!; echo "$child" > "$DIR/step.pid"; wait "$child"; rc=$?; child=; return "$rc"; }
on_term() { cancelled=1; [ -n "$child" ] && kill -TERM "-$child" 2>/dev/null; }
ck() { [ -z "$cancelled" ] || finish cancelled; }

# The end, whatever it is: say how the run ended, stop mysqld and put the host back, then go.
finish() {
  trap '' TERM INT HUP
  trap - EXIT
  jr "E $(ms) $*"
  wind_up
  exit 0
}
# Stop mysqld, put the host back from the record, journal how that went (H) and let the lock go.
wind_up() {
  ( ${'\n'}${stop}) > "$DIR/stop.out" 2>&1; s1=$?
  ( ${'\n'}${restore}) > "$DIR/restore.out" 2>&1; s2=$?
  if [ "$s1" = 0 ] && [ "$s2" = 0 ]; then H=ok; jr "H $(ms) ok"; else H=fail; jr "H $(ms) fail $({ [ "$s1" = 0 ] || { printf 'stopping mysqld: '; failure "$DIR/stop.out"; }; [ "$s2" = 0 ] || { printf "restoring the host's settings: "; failure "$DIR/restore.out"; }; } | b64)"; fi
  lock_release
}
# The processes of runner.sh that a gone runner (pid $1) left in its session.
runner_left() { for p in $(in_session "$1"); do of_run "$p" "$DIR" && echo "$p"; done; }
# What a script of the end said when it failed, with the step that failed: its @fail's words and what
# it wrote to stderr, not the host's counters.
failure() { awk '/^@fail / { sub(/^@fail [^ ]* /, ""); print; next } /^@/ { next } NF' "$1"; }

# The end of a runner that died without its own (SIGKILL, the OOM killer), made by whoever finds it
# gone (status, attach, cancel, a new run on this host; REAP in host/script.ts), as the runner's user:
# its step still running stopped, the end journaled (its pid, its last journal line's time, the last
# restart it finished), then wind_up. One at a time (mkdir), and never twice (the H line).
${GONE_MODE}
# With "held" (REAP made $DIR/gone and started this in a session of its own, its output to gone/out):
# its pid in gone/pid first, so that whoever looks while mysqld stops sees the end being made
# (winding), and does not wait for it: a slow stop held their command past its own limit.
gone() {
  # A dropped connection of whoever called it does not cut it short.
  trap '' HUP PIPE
  [ "$1" = held ] || mkdir "$DIR/gone" 2>/dev/null || return 0
  grep -q '^H ' "$J" && { rm -rf "$DIR/gone"; return 0; }
  read -r pid < "$DIR/pid"
  runner_alive "$DIR" "$pid" && { rm -rf "$DIR/gone"; return 0; }
  printf '%s %s\n' $$ "$(proc_start $$)" > "$DIR/gone/pid.new" && mv "$DIR/gone/pid.new" "$DIR/gone/pid"
  read -r sp < "$DIR/step.pid" 2>/dev/null
  of_run "$sp" "$DIR" && kill -KILL "-$sp" 2>/dev/null
  last=$(($(stat -c %Y "$J") * 1000)); k=$(grep '^D ' "$J" | tail -n 1 | cut -d' ' -f3); [ -n "$k" ] || k=0
  grep -q '^E ' "$J" || jr "E $(ms) failed gone $pid $last $k"
  # A restart the runner was making goes on without it, in a subshell of runner.sh in its session (it
  # led one: setsid and systemd start it so). It is waited for (it ends within its own stop and start
  # limits), so that it sets nothing and starts no mysqld after this end, and the mysqld it starts is
  # stopped once started: a mariadbd sent SIGTERM in the middle of its start-up may never end. The
  # runner's lock refresher, the other such subshell, is stopped first.
  read -r rf < "$DIR/refresh.pid" 2>/dev/null
  of_run "$rf" "$DIR" && kill "$rf" 2>/dev/null
  deadline $((2 * ${STOP_LIMIT_S}))
  while [ -n "$(runner_left "$pid")" ]; do
    past && { for p in $(runner_left "$pid"); do kill -KILL "$p" 2>/dev/null; done; break; }
    nap 0.1
  done
  wind_up
  say "gone $pid $last $k $H"
}

# $1 cell, $2 seq: mysqld stopped and the host set; the design's idle time, journaled (I) and spent in a
# step of its own that a cancel stops at once; then the start.
start_cell() {
  t_=$(ms)
  "down_$1" > "$DIR/reply" 2> "$DIR/reply.err"; rc=$?
  [ "$rc" = 0 ] || return 1
  eval "idl=\$idle_$1"
  if [ -n "$idl" ]; then st_since stop "$t_"; t_=$(ms); jr "I $t_ $2 $(printf '%s' "$idl" | cut -d' ' -f1)"; bg idle $idl; ck; st_since idle "$t_"; t_=$(ms); fi
  "cell_$1" >> "$DIR/reply" 2>> "$DIR/reply.err"; rc=$?
  # Without an idle, one call stopped and started: its lap says where the start began.
  lp=$(sed -n 's/^@lap stop //p' "$DIR/reply" | tail -n 1); case "$lp" in ''|*[!0-9]*) lp=0 ;; *) st_add stop "$lp" ;; esac
  st_add start $(( $(ms) - t_ - lp ))
  [ "$rc" = 0 ] && grep -q '^@pid ' "$DIR/reply"
}
# A start that fails is the restart's result (S) and the run goes on, as in an attached run
# (common/restart-policy.ts): one that will fail the same way again ends it at once, and so do
# ${RESTART_POLICY.startFailuresInARow} in a row (the count goes last on the E line).
START_FAILS=0
start_repeats() { grep -Eq ${q(`^@fail (${REPEATING_START_FAILURES.kinds.join('|')})( |$)`)} "$DIR/reply" || grep '^@log ' "$DIR/reply" | grep -Eiq ${q(REPEATING_START_FAILURES.log)}; }
start_failed() { # $1 seq
  START_FAILS=$((START_FAILS + 1))
  start_repeats && finish failed start "$1" "$rc" "$(b64 < "$DIR/reply")" "$(b64 < "$DIR/reply.err")" 1
  [ "$START_FAILS" -lt ${RESTART_POLICY.startFailuresInARow} ] || finish failed start "$1" "$rc" "$(b64 < "$DIR/reply")" "$(b64 < "$DIR/reply.err")" "$START_FAILS"
  jr "S $(ms) $1 $rc $(b64 < "$DIR/reply") $(b64 < "$DIR/reply.err")"
}
# The script says mysqld listens; the login may still wait a moment for the accept loop.
login() {
  i=0
  while ! sql -e 'SELECT 1' > /dev/null 2> "$DIR/login.err"; do
    ck
    i=$((i + 1))
    if grep -q '^ERROR 1045 ' "$DIR/login.err" || [ "$i" -gt 300 ]; then
      finish failed msg "$(printf '%s: %s' "mysqld on $TARGET refused the client's login" "$(errline "$DIR/login.err")" | b64) $(printf '%s' ${q(loginHelp)} | b64)"
    fi
    nap
  done
  [ -n "$LOGGED_IN" ] || { jr "A $(ms)"; LOGGED_IN=1; }
}

SETUP_DONE=
MPW=
LAST_TIMER=
run_restart() { # $1 seq, $2 cell
  tries=0
  while :; do
    ck
    WHY='the connection to mysqld was lost during this restart'
    jr "R $(ms) $1"
    st_reset
    start_cell "$2" "$1" || { start_failed "$1"; return; }
    START_FAILS=0
    ck
    tv=$(ms); login; st_since verify "$tv"
    eval "dk=\$data_$2"
    if ! case " $SETUP_DONE " in *" $dk "*) true ;; *) false ;; esac; then
      tv=$(ms)
      setup
      ck
      check_queries
      SETUP_DONE="$SETUP_DONE $dk"
      st_since setup "$tv"
      if [ "$AGAIN" = 1 ]; then
        # Fresh data sits in the buffer pool of this server: start a clean one for the measurements.
        start_cell "$2" "$1" || { start_failed "$1"; return; }
        tv=$(ms); login; st_since verify "$tv"
      fi
    fi
    tv=$(ms)
    q=$("vars_$2")
    v=
    r=0
    if [ -n "$q" ] && ! v=$(sql -e "$q" 2> "$DIR/vars.err"); then
      lost "$DIR/vars.err" && r=2 || finish failed msg "$(errline "$DIR/vars.err" | b64)"
    fi
    # A consumer that cannot be read (performance_schema unreadable) stays "set, not verifiable", as attached.
    q=$("cons_$2")
    if [ "$r" = 0 ] && [ -n "$q" ] && c=$(sql -e "$q" 2> /dev/null); then v="$v
$c"; fi
    st_since verify "$tv"
    [ "$r" = 0 ] && jr "F $(ms) $1 $(b64 < "$DIR/reply") $(printf '%s' "$v" | b64)$(st_line)"
    ck
    if [ "$r" = 0 ] && eval "[ -n \"\$preload_$2\" ]"; then
      t0=$(ms)
      if bg preload; then
        read -r pt pi pr < "$DIR/preload.out"
        pms=$(($(ms) - t0)); st_add preload "$pms"
        jr "P $(ms) $1 $pt $pi $pr $pms"
      else
        ck
        lost "$DIR/preload.err" && r=2 || finish failed msg "$(printf 'preload: %s' "$(errline "$DIR/preload.err")" | b64)"
      fi
    fi
    if [ "$r" = 0 ]; then
      ck
      # The host's counters just before and after the measured queries (N, after D): the restart's noise.
      MPID=$(sed -n 's/^@pid //p' "$DIR/reply" | tail -n 1)
      noise_sample from "$MPID" "$SYS" > "$DIR/noise"
      tv=$(ms); measure "$1"; r=$?; st_since measure "$tv"
      noise_sample to "$MPID" "$SYS" >> "$DIR/noise"
    fi
    if [ "$r" = 0 ]; then jr "D $(ms) $1$(st_line)"; jr "N $(ms) $1 $(b64 < "$DIR/noise")"; return; fi
    tries=$((tries + 1))
    jr "Z $(ms) $1 $(printf '%s' "$WHY" | b64)"
    [ "$tries" -lt ${RESTART_POLICY.triesPerRestart} ] || finish failed lost "$1" "$tries" "$(printf '%s' "$WHY" | b64)"
  done
}

main() {
  exec < /dev/null 2>> "$DIR/runner.log"
  echo $$ > "$DIR/pid"
  proc_start $$ > "$DIR/started"
  trap on_term TERM INT HUP
  trap 'finish failed msg "$(printf "%s" "the runner stopped on an error of its own (see $DIR/runner.log)" | b64)"' EXIT
  jr "V 1 $RUN $(ms) $$"
  [ -n "$CLIENT" ] || finish failed msg "$(printf '%s' "there is no mysql or mariadb client on $TARGET: a detached run needs one" | b64)"
  lock_take $$ || finish failed msg "$(printf '%s' "cannot take the run locks $(printf "%s " $LOCKS)" | b64)"
  while read -r seq cell <&3; do run_restart "$seq" "$cell"; done 3< "$DIR/plan"
  finish finished
}
case "$1" in gone) gone "$2"; exit 0 ;; esac
main
`;
}
