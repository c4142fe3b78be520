// Server profiles: what makes one safe to turn into commands, and the server options it starts
// mysqld with, read back on the live server like the factors are.
import { ApiError } from './api.js';
import type { Build, ServerProfile } from './experiment/types.js';
import { BUILD_NAME } from './tunables/build.js';

// A profile follows the experiment file's own rules (experiment.schema.json, serverProfile), wherever
// it comes from: a registered one is written into the design a run saves, so a path the file could not
// hold would make the run fail after the sandbox was made. One rule each; a unit test compares them
// with the schema.
const OS_USER = /^[a-z_][a-z0-9_-]{0,31}$/;
/** A profile path: absolute, letters, digits and _ . / + - only. */
export const PROFILE_PATH = /^\/[A-Za-z0-9_./+-]{0,1000}$/;
/** A mysqld option: `--name` or `--name=value`, the value of letters, digits and _ . , : / + -. */
export const OPTION = /^--[a-z0-9_-]+(=[A-Za-z0-9_.,:/+-]*)?$/;
/** The account the client logs in as. */
export const LOGIN_USER = /^[A-Za-z0-9_.@-]{1,80}$/;
const UNIT = /^[A-Za-z0-9_.@-]{1,100}$/;

/**
 * An absolute path without control characters or `..`: what a probed path or a host path may be on
 * the target. A `..` would let a path that reads as a folder of its own (`/var/tmp/x/../../lib/mysql`)
 * land on another server's data directory or an unrelated file.
 */
export function assertPath(what: string, path: string): void {
  const problem = pathProblem(path);
  if (problem) throw new ApiError('invalid-argument', `${what}: ${problem}`);
}

/** Why a path may not be a path on the target (see assertPath), or null. */
export function pathProblem(path: string): string | null {
  const bad = !path.startsWith('/') || /[\0-\x1f\x7f]/.test(path) || path.length > 4096 || path.split('/').includes('..');
  return bad ? `expected an absolute path without control characters or .., got ${JSON.stringify(path)}` : null;
}

/** The paths a server profile names: each checked by assertProfilePath, in a file and wherever a profile comes from. */
export const PROFILE_PATH_FIELDS = ['mysqld', 'datadir', 'socket', 'defaultsFile', 'errorLog', 'pidFile'] as const;

/** A path a server profile names (or a sandbox is made in): the experiment file's rule. */
export function assertProfilePath(what: string, path: string): void {
  assertPath(what, path);
  if (!PROFILE_PATH.test(path)) throw new ApiError('invalid-argument', `${what}: expected an absolute path of letters, digits and _ . / + - (as experiment files hold it), got ${JSON.stringify(path)}`);
}

/**
 * The folder a sandbox is made in. A path whose only fault is a space gets a refusal of its own,
 * naming the path (any other fault gets the profile path's): mariadb-install-db does not quote the
 * paths it is given (its `chown` of the data directory splits them at the space), and a server
 * profile could not hold the data directory anyway.
 */
export function assertSandboxParent(what: string, path: string): void {
  if (path.includes(' ') && PROFILE_PATH.test(path.replace(/ /g, '_'))) throw new ApiError('invalid-argument', `${what} ${JSON.stringify(path)} has a space in it: a sandbox cannot be made there (mariadb-install-db cannot use a data directory whose path holds a space, and a server profile cannot hold one). Choose a folder whose path has no spaces, such as /var/tmp.`);
  assertProfilePath(what, path);
}

/** Refuse a profile whose values could not safely become a command line. */
export function checkProfile(p: ServerProfile): void {
  assertProfilePath('server profile mysqld', p.mysqld);
  assertProfilePath('server profile datadir', p.datadir);
  for (const field of PROFILE_PATH_FIELDS.slice(2)) {
    const path = p[field];
    if (path) assertProfilePath(`server profile ${field}`, path);
  }
  if (typeof p.user !== 'string' || !LOGIN_USER.test(p.user)) throw new ApiError('invalid-argument', `server profile user ${JSON.stringify(p.user)} is not a valid account name`);
  if (!Number.isInteger(p.port) || p.port < 1 || p.port > 65535) throw new ApiError('invalid-argument', `server profile port: expected 1 to 65535, got ${p.port}`);
  if (p.osUser !== undefined && !OS_USER.test(p.osUser)) throw new ApiError('invalid-argument', `server profile osUser ${JSON.stringify(p.osUser)} is not a valid user name`);
  for (const a of p.extraArgs) if (!OPTION.test(a)) throw new ApiError('invalid-argument', `server profile extraArgs: ${JSON.stringify(a)} is not a --option or --option=value`);
  if (p.kind === 'systemd' && !(p.service && UNIT.test(p.service))) throw new ApiError('invalid-argument', `server profile service: expected a systemd unit name, got ${JSON.stringify(p.service ?? '')}`);
  if (p.builds !== undefined) checkBuilds(p.builds, p.datadir);
}

/** Builds as a profile holds them: valid names and paths, each name and each data directory once. */
export function checkBuilds(builds: Build[], profileDatadir?: string): void {
  if (!Array.isArray(builds) || builds.length > 32) throw new ApiError('invalid-argument', 'server profile builds: expected a list of at most 32 builds');
  const names = new Set<string>();
  const dirs = new Set<string>(profileDatadir ? [profileDatadir] : []);
  for (const b of builds) {
    if (typeof b?.name !== 'string' || !BUILD_NAME.test(b.name)) throw new ApiError('invalid-argument', `server profile build name ${JSON.stringify(b?.name)}: expected letters, digits, _ . - (at most 32)`);
    for (const k of ['mysqld', 'datadir', 'exe'] as const) assertProfilePath(`build ${b.name} ${k}`, b[k]);
    if (b.basedir !== undefined) assertProfilePath(`build ${b.name} basedir`, b.basedir);
    if (!/^[0-9a-f]{64}$/.test(b.sha256)) throw new ApiError('invalid-argument', `build ${b.name} sha256: expected 64 hex digits`);
    if (names.has(b.name)) throw new ApiError('invalid-argument', `build ${b.name} is named twice`);
    // An older server cannot open a newer one's files: two builds never share a data directory.
    if (dirs.has(b.datadir)) throw new ApiError('invalid-argument', `build ${b.name}: the data directory ${b.datadir} is already another build's (or the profile's)`);
    names.add(b.name);
    dirs.add(b.datadir);
  }
}

/** `NAME=PATH` of `--build`: the name and the binary or basedir, refused with what is wrong. */
export function buildFromSetting(setting: string): { name: string; path: string } {
  const i = setting.indexOf('=');
  const name = i > 0 ? setting.slice(0, i) : '';
  const path = i > 0 ? setting.slice(i + 1).replace(/(.)\/+$/, '$1') : '';
  if (!BUILD_NAME.test(name)) throw new ApiError('invalid-argument', `--build ${JSON.stringify(setting)}: expected NAME=PATH, NAME of letters, digits, _ . - (at most 32)`);
  assertProfilePath(`--build ${name}`, path);
  return { name, path };
}

export const pidFileOf = (p: ServerProfile) => p.pidFile ?? `${p.datadir.replace(/\/$/, '')}/mysqld.pid`;

/** A server option the profile sets, as the server variable it should show up as. */
export interface ProfileOption {
  /** As given: `--innodb-buffer-pool-size=512M`. */
  option: string;
  /** The server variable: `innodb_buffer_pool_size`. */
  variable: string;
  value: string;
}

/**
 * The profile's `--name=value` options that a live server reports as variables (`--loose-` dropped,
 * dashes as underscores). Options without a value (`--skip-log-bin`) have nothing to compare.
 */
export function profileOptions(p: Pick<ServerProfile, 'extraArgs'>): ProfileOption[] {
  const out: ProfileOption[] = [];
  for (const option of p.extraArgs) {
    const m = /^--(?:loose[-_])?([A-Za-z0-9][A-Za-z0-9_-]*)=(.*)$/.exec(option);
    if (!m) continue;
    const variable = m[1].replace(/-/g, '_').toLowerCase();
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(variable)) continue;
    out.push({ option, variable, value: m[2] });
  }
  return out;
}

/** `512M`, `2G`, `134217728`: a buffer pool size as the CLI and the Hosts view accept it. */
export const SIZE_OPTION = /^[1-9][0-9]{0,12}[KMGT]?$/i;

/** `--set-option NAME=VALUE` → `--name=value`, refusing what could not be a mysqld option. */
export function optionFromSetting(setting: string): string {
  const i = setting.indexOf('=');
  const name = i > 0 ? setting.slice(0, i) : '';
  const value = i > 0 ? setting.slice(i + 1) : '';
  if (!/^[a-z][a-z0-9_-]{1,63}$/.test(name)) throw new ApiError('invalid-argument', `server option ${JSON.stringify(setting)}: expected NAME=VALUE with NAME a server variable such as innodb_flush_method`);
  if (!/^[A-Za-z0-9_.,:/+-]{1,256}$/.test(value)) throw new ApiError('invalid-argument', `server option ${name}: value ${JSON.stringify(value)} may hold only letters, digits and _ . , : / + -`);
  return `--${name.replace(/_/g, '-')}=${value}`;
}
