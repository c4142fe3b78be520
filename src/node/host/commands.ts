// The command lines a restart runs, built once from the profile and the cell's levels: the same
// strings are executed by ServerControl and listed by `--dry-run` (planCommands).
import { ApiError } from '../../common/api.js';
import { levelProblem } from '../../common/catalog.js';
import type { Factor, ServerProfile } from '../../common/experiment/types.js';
import { factorKey } from '../../common/plan.js';
import { applyChangeScript, DEFAULT_RESTORE_RECORD, restoreScript } from './restore.js';
import { asRoot, assertPath, shellQuote } from './shell.js';
import { emptyRecipe, TUNABLE_MODULES, turboModule, type StartRecipe, type Tunable } from './tunables/index.js';

const OS_USER = /^[a-z_][a-z0-9_-]{0,31}$/;
const OPTION = /^--[A-Za-z0-9][A-Za-z0-9_-]*(=[^\0-\x1f\x7f]*)?$/;
const UNIT = /^[A-Za-z0-9@._-]{1,128}$/;

export interface PlanOptions {
  restoreRecord?: string;
  /** The host uses intel_pstate (no_turbo) rather than cpufreq/boost. */
  intelPstate?: boolean;
}

/** Refuse a profile whose values could not safely become a command line. */
export function checkProfile(p: ServerProfile): void {
  assertPath('server profile mysqld', p.mysqld);
  assertPath('server profile datadir', p.datadir);
  if (p.socket) assertPath('server profile socket', p.socket);
  if (p.defaultsFile) assertPath('server profile defaultsFile', p.defaultsFile);
  if (p.errorLog) assertPath('server profile errorLog', p.errorLog);
  if (p.pidFile) assertPath('server profile pidFile', p.pidFile);
  if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) throw new ApiError('invalid-argument', `server profile port: expected 1 to 65535, got ${p.port}`);
  if (p.osUser !== undefined && !OS_USER.test(p.osUser)) throw new ApiError('invalid-argument', `server profile osUser ${JSON.stringify(p.osUser)} is not a valid user name`);
  for (const a of p.extraArgs) if (!OPTION.test(a)) throw new ApiError('invalid-argument', `server profile extraArgs: ${JSON.stringify(a)} is not a --option or --option=value`);
  if (p.kind === 'systemd' && !(p.service && UNIT.test(p.service))) throw new ApiError('invalid-argument', `server profile service: expected a systemd unit name, got ${JSON.stringify(p.service ?? '')}`);
}

export interface CellTunable {
  factor: Factor;
  key: string;
  level: string;
  module: Tunable;
}

/** Match each factor with its level and module, validating every level again before it can reach a shell. */
export function cellTunables(factors: Factor[], levels: Record<string, string>, opts: PlanOptions = {}): CellTunable[] {
  return factors.map((factor) => {
    const key = factorKey(factor);
    const level = levels[key];
    if (level === undefined) throw new ApiError('invalid-argument', `no level given for factor ${key}`);
    const problem = levelProblem(factor.tunable, level);
    if (problem) throw new ApiError('invalid-argument', `factor ${key}: ${problem}`);
    const module = factor.tunable === 'turbo' ? turboModule(opts.intelPstate ?? true) : TUNABLE_MODULES[factor.tunable];
    if (!module) throw new ApiError('unsupported', `tunable ${factor.tunable} has no implementation on the host`);
    return { factor, key, level, module };
  });
}

export function recipeFor(cell: CellTunable[]): StartRecipe {
  const r = emptyRecipe();
  for (const t of cell) t.module.plan(t.level, r, t.factor.name);
  return r;
}

export const pidFileOf = (p: ServerProfile) => p.pidFile ?? `${p.datadir.replace(/\/$/, '')}/mysqld.pid`;

/** The shell test that a pid is a live (not zombie) process; works for processes of any user. */
export const aliveTest = (pid: string) => `{ s=$(sed -n 's/^State:[[:space:]]*\\([A-Z]\\).*/\\1/p' /proc/${pid}/status 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ]; }`;

/** Signal mysqld (pid from the argument or the pid file) with SIGTERM and poll until it is gone. */
export function stopScript(p: ServerProfile, pid: number | null, timeoutS = 600): string {
  const pidExpr = pid ? String(pid) : `$(cat ${shellQuote(pidFileOf(p))} 2>/dev/null)`;
  return [
    `pid=${pidExpr}`,
    `case "$pid" in ''|*[!0-9]*) exit 0 ;; esac`,
    `${aliveTest('$pid')} || exit 0`,
    `case "$(cat /proc/$pid/comm 2>/dev/null)" in mysqld|mariadbd|mysqld-debug|mariadbd-debug) ;; *) exit 0 ;; esac`,
    `kill -TERM "$pid" || exit 4`,
    `i=0; while ${aliveTest('$pid')}; do i=$((i+1)); if [ $i -gt ${timeoutS * 20} ]; then echo "varlab: mysqld (pid $pid) still running ${timeoutS} s after SIGTERM" >&2; exit 5; fi; sleep 0.05; done`,
  ].join('\n');
}

/** mysqld's own options: the profile's, then each tunable's. */
export function mysqldArgs(p: ServerProfile, r: StartRecipe, asRootUser: boolean): string[] {
  const args = [p.defaultsFile ? `--defaults-file=${p.defaultsFile}` : '--no-defaults', `--datadir=${p.datadir}`, `--port=${p.port}`, `--pid-file=${pidFileOf(p)}`];
  if (p.socket) args.push(`--socket=${p.socket}`);
  if (p.errorLog) args.push(`--log-error=${p.errorLog}`);
  if (p.osUser && asRootUser) args.push(`--user=${p.osUser}`);
  return [...args, ...p.extraArgs, ...r.args];
}

/** The wrapper the tunables compose, outermost first: env LD_PRELOAD, numactl, taskset, setarch. */
export function wrapperWords(r: StartRecipe): string[] {
  const w: string[] = [];
  if (r.env.LD_PRELOAD) w.push('env', 'LD_PRELOAD="$lib"');
  if (r.numactl.length) w.push('numactl', ...r.numactl.map(shellQuote));
  if (r.taskset) w.push('taskset', '-c', shellQuote(r.taskset));
  if (r.noRandomize) w.push('setarch', '"$(uname -m)"', '-R');
  return w;
}

/** Start mysqld in the background through the wrapper; print its pid. Root when the profile runs it as another OS user. */
export function startScript(p: ServerProfile, r: StartRecipe): string {
  const log = p.errorLog ?? '/dev/null';
  const lines: string[] = [];
  if (r.env.LD_PRELOAD) {
    const candidates = r.env.LD_PRELOAD.split(' ');
    lines.push(
      `lib=; for c in ${candidates.map(shellQuote).join(' ')}; do if [ -e "$c" ]; then lib=$c; break; fi; done`,
      `[ -n "$lib" ] || { echo "varlab: the allocator library is not installed (looked for ${candidates.join(', ')})" >&2; exit 3; }`,
    );
  }
  // A log created by root would be unwritable for mysqld once it switches to its own user.
  if (p.errorLog && p.osUser) lines.push(`[ -e ${shellQuote(p.errorLog)} ] || { : > ${shellQuote(p.errorLog)} && chown ${shellQuote(p.osUser)} ${shellQuote(p.errorLog)}; }`);
  const cmd = [...wrapperWords(r), shellQuote(p.mysqld), ...mysqldArgs(p, r, true).map(shellQuote)].join(' ');
  // A simple command, so that the background job is mysqld itself (nohup and the wrapper exec), not a
  // subshell that would wait for it holding the channel open.
  lines.push('cd /', `nohup ${cmd} </dev/null >>${shellQuote(log)} 2>&1 &`, 'echo "pid=$!"');
  return lines.join('\n');
}

/** The systemd drop-in that wraps ExecStart with the tunables' wrapper and options. */
export function systemdDropIn(p: ServerProfile, r: StartRecipe, arch = 'x86_64'): string {
  // systemd does not run ExecStart through a shell: words are literal, the arch is the probed one.
  const sysQuote = (w: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `"${w.replace(/(["\\])/g, '\\$1')}"`);
  const wrapper: string[] = [];
  if (r.numactl.length) wrapper.push('/usr/bin/numactl', ...r.numactl);
  if (r.taskset) wrapper.push('/usr/bin/taskset', '-c', r.taskset);
  if (r.noRandomize) wrapper.push('/usr/bin/setarch', arch, '-R');
  const lines = ['# Written by varlab for one restart; removed when the experiment ends.', '[Service]'];
  if (r.env.LD_PRELOAD) lines.push(`Environment=LD_PRELOAD=${r.env.LD_PRELOAD.split(' ')[0]}`);
  lines.push('ExecStart=', `ExecStart=${[...wrapper, p.mysqld].map(sysQuote).join(' ')} $MYSQLD_OPTS ${[...p.extraArgs, ...r.args].map(sysQuote).join(' ')}`.trimEnd());
  return lines.join('\n') + '\n';
}

export const dropInPath = (p: ServerProfile) => `/etc/systemd/system/${p.service}.d/varlab.conf`;

export function systemdRestartScript(p: ServerProfile, r: StartRecipe, arch?: string): string {
  const dir = `/etc/systemd/system/${p.service}.d`;
  return [
    `mkdir -p ${shellQuote(dir)}`,
    `printf '%s' ${shellQuote(systemdDropIn(p, r, arch))} > ${shellQuote(dropInPath(p))}`,
    `systemctl daemon-reload`,
    `systemctl restart ${shellQuote(p.service!)}`,
    `echo "pid=$(systemctl show -p MainPID --value ${shellQuote(p.service!)})"`,
  ].join('\n');
}

export interface RestartSteps {
  cell: CellTunable[];
  recipe: StartRecipe;
  /** Each step: what it does, and the command line as it runs on the target. */
  steps: { what: string; command: string; root: boolean }[];
}

/** Everything a restart runs, in order. */
export function restartSteps(p: ServerProfile, factors: Factor[], levels: Record<string, string>, opts: PlanOptions = {}): RestartSteps {
  checkProfile(p);
  const record = opts.restoreRecord ?? DEFAULT_RESTORE_RECORD;
  const cell = cellTunables(factors, levels, opts);
  const recipe = recipeFor(cell);
  const steps: RestartSteps['steps'] = [];
  const root = (what: string, command: string) => steps.push({ what, command: asRoot(command, p.sudo), root: true });
  if (p.kind === 'direct') root('stop mysqld (SIGTERM, wait until the process is gone)', stopScript(p, null));
  // A host-wide tunable at its neutral level puts back what an earlier cell changed.
  for (const t of cell) {
    const r = emptyRecipe();
    t.module.plan(t.level, r, t.factor.name);
    const glob = r.host.length ? null : (t.module.hostFiles ?? null);
    if (glob) root(`put ${t.key} back to the host's own setting (from ${record})`, restoreScript(record, glob));
  }
  for (const c of recipe.host) root(`set ${c.tunable} to ${c.value} (original saved in ${record})`, applyChangeScript(c, record));
  for (const b of recipe.beforeStart) root('drop the page cache', b);
  if (p.kind === 'systemd') root('write the systemd drop-in and restart the service', systemdRestartScript(p, recipe));
  else {
    const start = startScript(p, recipe);
    const needsRoot = p.sudo && Boolean(p.osUser);
    steps.push({ what: 'start mysqld through the wrapper', command: needsRoot ? asRoot(start, true) : start, root: needsRoot });
  }
  return { cell, recipe, steps };
}

/** `--dry-run`: every command a restart of this cell would run on the target, without running any. */
export function planCommands(profile: ServerProfile, factors: Factor[], levels: Record<string, string>, opts: PlanOptions = {}): string[] {
  return restartSteps(profile, factors, levels, opts).steps.map((s) => `# ${s.what}\n${s.command}`);
}
