// `varlab sandbox create`: a throwaway data directory and server profile on the target, so a first
// experiment needs no existing server. Everything lives in one directory; removing it removes all.
// A target has at most one: an existing sandbox is reused or refused by name (never abandoned), and
// a create that fails removes what it made.
import { randomBytes, randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ApiError } from '../../common/api.js';
import { assertProfilePath, assertSandboxParent, checkProfile, optionFromSetting, profileOptions, SIZE_OPTION } from '../../common/profile.js';
import { buildDatadir, buildInitLines, learnBuilds, planBuilds, unlearned, type BuildPlan } from './builds.js';
import { registerProfile, sandboxProfile, unregisterProfile, type RegisteredProfile } from './profiles.js';
import { acquireRunLock } from './lock.js';
import { hostDir, profileDir, runScript } from './restore.js';
import { hostPaths, stopScript, type HostPaths } from './script.js';
import { asRoot, shellQuote } from './shell.js';
import { EXACT_TIMER_OPTIONS } from '../../common/timer-note.js';
import type { TargetSession } from './types.js';

export interface SandboxOptions {
  /** Parent directory on the target; a fresh `varlab-sandbox-XXXX` is made inside. */
  parent?: string;
  port?: number;
  /** mysqld/mariadbd binary; found on the target when not given. */
  mysqld?: string;
  /** innodb_buffer_pool_size: `512M`, `2G`. Default 128M. */
  bufferPool?: string;
  /** Server options as NAME=VALUE (`innodb_flush_method=O_DIRECT`), set at every start. */
  options?: string[];
  /** Remove the target's existing sandbox (or forget its registered server) first. */
  replace?: boolean;
  /** Server builds, NAME=PATH (a binary, a wrapper script or an installation directory): each gets its own data directory. */
  builds?: string[];
  /**
   * How the caller's user picks another sandbox folder, said when the folder cannot be used: the
   * command line's `choose another with --dir` unless told (the Hosts view names its field).
   */
  chooseFolder?: string;
}

export interface SandboxPlan {
  profile: RegisteredProfile;
  /** The one script that makes it; on failure it removes the directory it made. */
  script: string;
}

export interface SandboxResult {
  profile: RegisteredProfile;
  /** The target's sandbox already existed and fits: nothing was made. */
  reused: boolean;
  /**
   * A reused sandbox made before the exact timer was on by default: the options added to its profile
   * (EXACT_TIMER_OPTIONS it lacked), in effect from its next start, as every run restarts it.
   */
  added?: string[];
  /** What --replace removed (a sandbox) or forgot (a registered server). */
  replaced: RegisteredProfile | null;
}

interface TargetFacts {
  uid: number;
  mysqldBinary: string;
  flavor: 'mariadb' | 'mysql';
  installDb: string | null;
  hasMysqlUser: boolean;
  portInUse: boolean;
  /** The sandbox folder: what it is there, and who this login is. */
  parent: { exists: boolean; folder: boolean; writable: boolean; user: string };
}

const DEFAULT_BUFFER_POOL = '128M';

/** The exact timer's options (queries.ts), left out when an existing sandbox is compared with what is asked for. */
const EXACT_TIMER_VARIABLES = new Set(profileOptions({ extraArgs: EXACT_TIMER_OPTIONS }).map((o) => o.variable));
const SANDBOX_DIR = /\/varlab-sandbox-[0-9a-f]{8}$/;

/** Where the target's mariadb-install-db (or mysql_install_db) is, said as `installdb=PATH`. */
const INSTALL_DB_LINE = 'for i in $(command -v mariadb-install-db mysql_install_db 2>/dev/null); do echo "installdb=$i"; break; done';

/** The target's own mariadb-install-db, for a build that has none in its folder (builds.ts planBuild); null without one. */
export async function systemInstallDb(session: TargetSession): Promise<string | null> {
  return /^installdb=(.*)$/m.exec((await session.exec(INSTALL_DB_LINE)).stdout)?.[1]?.trim() || null;
}

async function facts(session: TargetSession, mysqld: string | undefined, port: number, parent: string): Promise<TargetFacts> {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const p = shellQuote(parent);
  const script = [
    'echo "uid=$(id -u)"',
    'echo "user=$(id -un 2>/dev/null)"',
    `[ -e ${p} ] && echo parentexists=yes`,
    `[ -d ${p} ] && echo parentfolder=yes`,
    `[ -d ${p} ] && [ -w ${p} ] && [ -x ${p} ] && echo parentwritable=yes`,
    mysqld ? `[ -x ${shellQuote(mysqld)} ] && echo bin=${shellQuote(mysqld)}` : 'for b in $(command -v mariadbd mysqld 2>/dev/null) /usr/sbin/mariadbd /usr/sbin/mysqld /usr/local/mysql/bin/mysqld; do if [ -x "$b" ]; then echo "bin=$b"; break; fi; done',
    INSTALL_DB_LINE,
    'id mysql >/dev/null 2>&1 && echo "mysqluser=yes"',
    `awk '$4 == "0A" && substr($2, length($2) - 4) == ":${hex}" { f = 1 } END { exit !f }' /proc/net/tcp /proc/net/tcp6 2>/dev/null && echo "portinuse=yes"`,
  ].join('\n');
  const out = (await session.exec(script)).stdout;
  const get = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(out)?.[1]?.trim();
  const bin = get('bin');
  if (!bin) throw new ApiError('not-found', mysqld ? `${mysqld} does not exist or is not executable on ${session.target}` : `no mysqld or mariadbd found on ${session.target} (install mariadb-server or mysql-server, or pass --mysqld PATH)`);
  const version = (await session.exec(`${shellQuote(bin)} --version`)).stdout;
  return {
    uid: Number(get('uid') ?? -1),
    mysqldBinary: bin,
    flavor: /mariadb/i.test(version) ? 'mariadb' : 'mysql',
    installDb: get('installdb') ?? null,
    hasMysqlUser: get('mysqluser') === 'yes',
    portInUse: get('portinuse') === 'yes',
    parent: { exists: get('parentexists') === 'yes', folder: get('parentfolder') === 'yes', writable: get('parentwritable') === 'yes', user: get('user') || `uid ${get('uid') ?? '?'}` },
  };
}

/** The sandbox folder must be a folder this login can make a folder in: said in words before anything is made. */
function assertParentUsable(target: string, parent: string, f: TargetFacts['parent'], chooseFolder = 'choose another with --dir'): void {
  const choose = `or ${chooseFolder}`;
  // A folder that is missing is the argument's mistake, as one that is not a folder is (the CLI's exit 2).
  if (!f.exists) throw new ApiError('invalid-argument', `the sandbox folder ${parent} does not exist on ${target}: make it first (mkdir -p ${parent}), ${choose}`);
  if (!f.folder) throw new ApiError('invalid-argument', `the sandbox folder ${parent} on ${target} is not a folder: make one there, ${choose}`);
  if (!f.writable) throw new ApiError('path-refused', `the sandbox folder ${parent} on ${target} is not writable by ${f.user}: make it writable for ${f.user}, ${choose}`);
}

/** The server options of a sandbox: ours, then the user's; a later one replaces an earlier one of the same variable. */
function sandboxArgs(dir: string, opts: SandboxOptions): string[] {
  const pool = opts.bufferPool ?? DEFAULT_BUFFER_POOL;
  if (!SIZE_OPTION.test(pool)) throw new ApiError('invalid-argument', `--buffer-pool ${JSON.stringify(pool)}: expected a size such as 512M or 2G`);
  // A temporary folder of its own: servers sharing /tmp have been seen to lose each other's
  // temporary tables during mariadb-install-db's bootstrap ("Could not remove temporary table").
  const all = ['--bind-address=127.0.0.1', `--innodb-buffer-pool-size=${pool}`, '--innodb-log-file-size=48M', `--tmpdir=${dir}/tmp`, ...EXACT_TIMER_OPTIONS, ...(opts.options ?? []).map(optionFromSetting)];
  const variableOf = (a: string) => profileOptions({ extraArgs: [a] })[0]?.variable;
  return all.filter((a, i) => !variableOf(a) || !all.slice(i + 1).some((b) => variableOf(b) === variableOf(a)));
}

/**
 * A port for a new sandbox: random, so that sandboxes of several users and tests rarely meet, and below
 * Linux's ephemeral range (32768–60999 by default). A port in that range can be held at any moment by
 * an outbound connection's local end, and mysqld then fails with "Bind on TCP/IP port … in use".
 */
export function randomSandboxPort(random: () => number = Math.random): number {
  return 20000 + Math.floor(random() * 12000);
}

/** What a sandbox would be and the script that makes it; nothing runs on the target but read-only questions. */
export async function planSandbox(session: TargetSession, opts: SandboxOptions = {}): Promise<SandboxPlan> {
  const port = opts.port ?? randomSandboxPort();
  if (!Number.isInteger(port) || port < 1024 || port > 65535) throw new ApiError('invalid-argument', `--port ${port}: expected 1024 to 65535`);
  // Paths are checked before anything runs on the target (they are quoted there as well).
  const parent = (opts.parent ?? '/var/tmp').replace(/\/$/, '');
  assertSandboxParent('the sandbox folder', parent);
  if (opts.mysqld !== undefined) assertProfilePath('--mysqld', opts.mysqld);
  const f = await facts(session, opts.mysqld, port, parent);
  assertParentUsable(session.target, parent, f.parent, opts.chooseFolder);
  if (f.portInUse) throw new ApiError('busy', `port ${port} is already in use on ${session.target}: choose another with --port`);
  const dir = `${parent}/varlab-sandbox-${randomBytes(4).toString('hex')}`;
  // As root, mysqld refuses to run as root: it runs as `mysql`, which must own the directory.
  const osUser = f.uid === 0 ? (f.hasMysqlUser ? 'mysql' : undefined) : undefined;
  if (f.uid === 0 && !osUser) throw new ApiError('unsupported', `${session.target}: logged in as root and there is no \`mysql\` user to run mysqld as`);
  const builds = await planBuilds(session, opts.builds ?? [], f.installDb);
  const dataOf = (b: BuildPlan) => buildDatadir(dir, b.name);
  const profile: RegisteredProfile = {
    kind: 'direct',
    mysqld: f.mysqldBinary,
    datadir: `${dir}/data`,
    socket: `${dir}/mysqld.sock`,
    port,
    osUser,
    user: 'root',
    errorLog: `${dir}/error.log`,
    pidFile: `${dir}/mysqld.pid`,
    extraArgs: sandboxArgs(dir, opts),
    sudo: false,
    sandboxDir: dir,
    createdAt: Date.now(),
    ...(builds.length ? { builds: builds.map((b) => unlearned(b, dataOf(b))) } : {}),
  };
  checkProfile(profile);
  const q = shellQuote;
  const userArg = osUser ? [`--user=${osUser}`] : [];
  const init =
    f.flavor === 'mariadb' && f.installDb
      ? [f.installDb, '--no-defaults', `--datadir=${profile.datadir}`, `--tmpdir=${dir}/tmp`, ...userArg, '--auth-root-authentication-method=normal', '--skip-test-db'].map(q)
      : [f.mysqldBinary, '--no-defaults', '--initialize-insecure', `--datadir=${profile.datadir}`, `--tmpdir=${dir}/tmp`, ...userArg].map(q);
  const script = [
    // `mkdir` without -p: the directory must be new, so removing it on failure removes only what this made.
    `mkdir ${q(dir)} || exit 3`,
    `made() {`,
    `  mkdir ${q(`${dir}/tmp`)} || return 1`,
    ...(osUser ? [`  chown ${q(osUser)} ${q(dir)} ${q(`${dir}/tmp`)} || return 1`] : []),
    // On failure mariadb-install-db ends with pages of generic help: its [ERROR] lines come first.
    `  ${init.join(' ')} > ${q(`${dir}/init.log`)} 2>&1 || { { grep -E '\\[ERROR\\]|ERROR:' ${q(`${dir}/init.log`)} | head -n 10; tail -n 20 ${q(`${dir}/init.log`)}; } >&2; return 1; }`,
    ...builds.flatMap((b) => buildInitLines(b, dataOf(b), `${dir}/tmp`, userArg)),
    ...(osUser ? [`  chown -R ${q(osUser)} ${q(dir)} || return 1`] : []),
    `}`,
    `made || { rm -rf ${q(dir)}; exit 3; }`,
  ].join('\n');
  return { profile, script };
}

/** Does the registered profile's data directory still exist on the target? */
export async function stillThere(session: TargetSession, p: RegisteredProfile): Promise<boolean> {
  return (await session.exec(`[ -d ${shellQuote(p.datadir)} ] && echo yes`)).stdout.includes('yes');
}

const describe = (p: RegisteredProfile) =>
  p.sandboxDir
    ? `a sandbox at ${p.sandboxDir} (port ${p.port}, buffer pool ${profileOptions(p).find((o) => o.variable === 'innodb_buffer_pool_size')?.value ?? 'default'})`
    : `a registered server (${p.kind === 'systemd' ? `unit ${p.service}` : `datadir ${p.datadir}`}, port ${p.port})`;

/** Would a sandbox made with these options be the existing one? Only when nothing different was asked for. */
function fits(existing: RegisteredProfile, opts: SandboxOptions): boolean {
  if (!existing.sandboxDir) return false;
  if (opts.port !== undefined && opts.port !== existing.port) return false;
  if (opts.mysqld !== undefined && opts.mysqld !== existing.mysqld) return false;
  // The same builds by name and path (a build given as a folder is kept as its basedir).
  const askedBuilds = (opts.builds ?? []).map((x) => x.replace(/\/+$/, '')).sort().join(' ');
  const haveBuilds = (existing.builds ?? []).map((b) => `${b.name}=${b.basedir ?? b.mysqld}`).sort().join(' ');
  if (askedBuilds !== haveBuilds) return false;
  if (opts.parent !== undefined && !existing.sandboxDir.startsWith(`${opts.parent.replace(/\/$/, '')}/`)) return false;
  // A sandbox made before the exact timer was on by default still fits (its runs say which timer they use).
  const want = profileOptions({ extraArgs: sandboxArgs(existing.sandboxDir, opts) }).filter((o) => o.variable !== 'tmpdir' && !EXACT_TIMER_VARIABLES.has(o.variable));
  const have = new Map(profileOptions(existing).map((o) => [o.variable, o.value]));
  return want.every((o) => have.get(o.variable) === o.value);
}

/**
 * A reused sandbox gets the exact timer's options it lacks (one made before they were the default), so
 * that `sandbox create` always leaves a sandbox whose runs take performance_schema's TIMER_WAIT. An option
 * of the same variable that the sandbox has (the user's own `--performance-schema=OFF`) is left alone.
 */
async function withExactTimer(target: string, existing: RegisteredProfile): Promise<SandboxResult> {
  const have = new Set(profileOptions(existing).map((o) => o.variable));
  const added = EXACT_TIMER_OPTIONS.filter((a) => !have.has(profileOptions({ extraArgs: [a] })[0].variable));
  if (!added.length) return { profile: existing, reused: true, replaced: null };
  const profile: RegisteredProfile = { ...existing, extraArgs: [...existing.extraArgs, ...added] };
  checkProfile(profile);
  await registerProfile(target, profile);
  return { profile, reused: true, replaced: null, added };
}

/**
 * Do `f` holding the target's run lock for this profile, as a run holds it: refused, naming the file
 * that runs, while a run measures there. What changes a sandbox (removes or replaces it, adds or
 * removes a build, stops or starts its mysqld by hand) so never stops its mysqld or puts the host's
 * settings back under a run, whose numbers would then be of another server or other settings.
 */
export async function holdingRunLock<T>(session: TargetSession, profile: RegisteredProfile, what: string, f: () => Promise<T>, paths?: Partial<HostPaths>): Promise<T> {
  const p = hostPaths(paths);
  const owner = { runId: randomUUID(), file: `varlab sandbox ${what}`, host: hostname(), pid: process.pid, startedAt: Date.now() };
  const lock = await acquireRunLock(session, { profile: profileDir(profile, p), host: hostDir(p), records: p.records }, owner, { sudo: profile.sudo, hostWide: [] });
  try {
    return await f();
  } finally {
    await lock.release().catch(() => {});
  }
}

/**
 * Make the sandbox on the target and register its profile for the target. A target that has one:
 * the same is reused; a different one is refused by name unless `replace` removes it first.
 */
export async function createSandbox(session: TargetSession, opts: SandboxOptions = {}): Promise<SandboxResult> {
  const existing = await sandboxProfile(session.target);
  let replaced: RegisteredProfile | null = null;
  if (existing && (await stillThere(session, existing))) {
    if (!opts.replace) {
      if (fits(existing, opts)) return await withExactTimer(session.target, existing);
      throw new ApiError('busy', `${session.target} already has ${describe(existing)}. Use it as it is, or replace it (--replace, or "Replace" in the Hosts view) to ${existing.sandboxDir ? 'remove it and make a new one' : 'forget it (its data is left alone) and make a sandbox'}`);
    }
    if (existing.sandboxDir) await removeSandbox(session, existing);
    replaced = existing;
  }
  const { profile, script } = await planSandbox(session, opts);
  const r = await session.exec(script, { timeoutMs: 180000 * (1 + (profile.builds?.length ?? 0)) });
  if (r.code !== 0) throw new ApiError('internal', `creating the sandbox on ${session.target} failed (nothing was left behind): ${r.stderr.trim() || r.stdout.trim() || `exit ${r.code}`}`);
  if (profile.builds?.length) {
    // Each build started once, so that its live executable is known before any run holds restarts to it.
    try {
      profile.builds = await learnBuilds(session, profile);
    } catch (e) {
      await removeSandbox(session, profile).catch(() => {});
      throw new ApiError('start-failed', `creating the sandbox on ${session.target} failed (nothing was left behind): ${(e as Error).message}`);
    }
  }
  await registerProfile(session.target, profile);
  return { profile, reused: false, replaced };
}

/**
 * Stop the sandbox's mysqld (if running) and delete its directory, holding the target's run lock
 * (refused, naming the file, while a run measures there); `first`, under the same lock, is the
 * caller's own stop and restore of the host's settings.
 */
export async function removeSandbox(session: TargetSession, profile: RegisteredProfile, paths?: Partial<HostPaths>, first?: () => Promise<void>): Promise<void> {
  if (!profile.sandboxDir || !SANDBOX_DIR.test(profile.sandboxDir)) {
    throw new ApiError('invalid-argument', `the profile for ${session.target} is not a varlab sandbox; refusing to delete ${profile.datadir}`);
  }
  const dir = profile.sandboxDir;
  await holdingRunLock(
    session,
    profile,
    'remove',
    async () => {
      await first?.();
      await runScript(session, stopScript(profile, 120), 'stopping the sandbox mysqld', 180_000);
      await session.exec(`rm -rf ${shellQuote(dir)}`);
    },
    paths,
  );
  // The profile's own root directory (its restore record, its run lock, released above) once nothing
  // is left in it: a record still to be put back, or anything else, stays (rmdir removes only an empty directory).
  await session.exec(asRoot(`rmdir ${shellQuote(profileDir(profile, hostPaths(paths)))} 2>/dev/null; true`, profile.sudo));
  const registered = await sandboxProfile(session.target);
  if (registered?.sandboxDir === profile.sandboxDir) await unregisterProfile(session.target);
}
