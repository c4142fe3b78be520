// Server builds of a sandbox (`varlab sandbox create T --build NAME=PATH`, or the Hosts view): each
// is a mysqld/mariadbd binary, a wrapper script that execs one, or an installation directory, and
// gets a data directory of its own, made by that build (an older server cannot open a newer one's
// files). Once made, each build is started once as a restart would start it, and what its live
// process runs (/proc/PID/exe, the sha256 of it, @@version) is registered: every later restart of
// the build is held to it.
import { ApiError } from '../../common/api.js';
import type { Build, Factor, ServerProfile } from '../../common/experiment/types.js';
import { factorKey, type ScheduledRestart } from '../../common/plan.js';
import { assertProfilePath, buildFromSetting } from '../../common/profile.js';
import { restartProcedure } from '../../common/restart.js';
import { buildNotes, notRegisteredParts, parseExe, reRegisterBuildCommand, versionText } from '../../common/tunables/build.js';
import { runScript } from './restore.js';
import { buildsThereScript, type Script } from './script.js';
import { createServerControl } from './server.js';
import { shellQuote } from './shell.js';
import type { TargetSession } from './types.js';

const q = shellQuote;

/** What a `--build` path is on the target: the binary to start, its basedir, and how its data directory is made. */
export interface BuildPlan {
  name: string;
  mysqld: string;
  basedir?: string;
  flavor: 'mariadb' | 'mysql';
  /** mariadb-install-db to run with MYSQLD_BOOTSTRAP set to the build (MariaDB); null for mysqld --initialize. */
  installDb: string | null;
}

/** Where an installation directory keeps its server and its install-db, in the order looked for. */
const SERVER_IN_BASEDIR = ['bin/mariadbd', 'sbin/mariadbd', 'bin/mysqld', 'sbin/mysqld', 'libexec/mysqld'];
const INSTALL_DB_IN_BASEDIR = ['scripts/mariadb-install-db', 'bin/mariadb-install-db', 'scripts/mysql_install_db'];

/** Read-only questions about one `--build NAME=PATH` on the target. */
export async function planBuild(session: TargetSession, setting: string, systemInstallDb: string | null): Promise<BuildPlan> {
  const { name, path } = buildFromSetting(setting);
  const script = [
    `p=${q(path)}`,
    `if [ -d "$p" ]; then echo dir=yes; for b in ${SERVER_IN_BASEDIR.join(' ')}; do if [ -x "$p/$b" ]; then echo "bin=$p/$b"; break; fi; done; for i in ${INSTALL_DB_IN_BASEDIR.join(' ')}; do if [ -x "$p/$i" ]; then echo "installdb=$p/$i"; break; fi; done`,
    `elif [ -f "$p" ] && [ -x "$p" ]; then echo "bin=$p"`,
    `fi`,
  ].join('\n');
  const out = (await session.exec(script)).stdout;
  const get = (k: string) => new RegExp(`^${k}=(.*)$`, 'm').exec(out)?.[1]?.trim();
  const bin = get('bin');
  const isDir = get('dir') === 'yes';
  if (!bin) {
    throw new ApiError('not-found', isDir ? `--build ${name}: ${path} on ${session.target} is a folder without ${SERVER_IN_BASEDIR.join(', ')}` : `--build ${name}: ${path} does not exist or is not executable on ${session.target}`);
  }
  assertProfilePath(`--build ${name}`, bin);
  const version = (await session.exec(`${q(bin)} --version`)).stdout;
  if (!/Ver /.test(version)) throw new ApiError('invalid-argument', `--build ${name}: ${bin} --version did not answer as mysqld or mariadbd does (${JSON.stringify(version.trim().slice(0, 200))})`);
  const flavor = /mariadb/i.test(version) ? 'mariadb' : 'mysql';
  const own = get('installdb');
  if (own) assertProfilePath(`--build ${name} install-db`, own);
  return { name, mysqld: bin, ...(isDir ? { basedir: path } : {}), flavor, installDb: flavor === 'mariadb' ? (own ?? systemInstallDb) : null };
}

/** A build's data directory in its sandbox, `data-NAME`: made by `sandbox create --build` and `sandbox add-build` alike. */
export const buildDatadir = (sandboxDir: string, name: string) => `${sandboxDir}/data-${name}`;

/** Every `--build NAME=PATH` of one command, planned in turn (planBuild); a name given twice is refused. */
export async function planBuilds(session: TargetSession, settings: readonly string[], systemInstallDb: string | null): Promise<BuildPlan[]> {
  const plans: BuildPlan[] = [];
  for (const setting of settings) {
    const b = await planBuild(session, setting, systemInstallDb);
    if (plans.some((x) => x.name === b.name)) throw new ApiError('invalid-argument', `--build ${b.name} is given twice`);
    plans.push(b);
  }
  return plans;
}

/** The script lines that make a build's data directory with that build (inside sandbox.ts's `made`). */
export function buildInitLines(b: BuildPlan, datadir: string, tmpdir: string, userArg: string[]): string[] {
  const log = q(`${datadir}.init.log`);
  const cmd =
    b.flavor === 'mariadb' && b.installDb
      ? // mariadb-install-db bootstraps with $MYSQLD_BOOTSTRAP when set: the build itself makes the system tables.
        `MYSQLD_BOOTSTRAP=${q(b.mysqld)} ${[b.installDb, '--no-defaults', ...(b.basedir ? [`--basedir=${b.basedir}`] : []), `--datadir=${datadir}`, `--tmpdir=${tmpdir}`, ...userArg, '--auth-root-authentication-method=normal', '--skip-test-db'].map(q).join(' ')}`
      : [b.mysqld, '--no-defaults', ...(b.basedir ? [`--basedir=${b.basedir}`] : []), '--initialize-insecure', `--datadir=${datadir}`, `--tmpdir=${tmpdir}`, ...userArg].map(q).join(' ');
  return [`  ${cmd} > ${log} 2>&1 || { echo ${q(`making the data directory of build ${b.name} failed:`)} >&2; { grep -E '\\[ERROR\\]|ERROR:' ${log} | head -n 10; tail -n 20 ${log}; } >&2; return 1; }`];
}

/** A build before its first start: its exe and digest are not known yet. */
export function unlearned(b: BuildPlan, datadir: string): Build {
  return { name: b.name, mysqld: b.mysqld, ...(b.basedir ? { basedir: b.basedir } : {}), datadir, exe: b.mysqld, sha256: '0'.repeat(64) };
}

/**
 * Start each build once on its data directory, as a restart starts it, and keep what its live process
 * runs. A wrapper script is known by the binary it execs. The server is stopped afterwards. `only`: the
 * builds to learn (those just added to a sandbox, sandbox-builds.ts), the others kept as registered.
 */
export async function learnBuilds(session: TargetSession, profile: ServerProfile, only?: readonly string[]): Promise<Build[]> {
  // Each build learned goes into the profile at once: the next start's stop step knows its executable.
  const builds = [...(profile.builds ?? [])];
  const p: ServerProfile = { ...profile, builds };
  const control = createServerControl(session, p);
  const host = await control.host();
  try {
    for (const [i, b] of builds.entries()) {
      if (only && !only.includes(b.name)) continue;
      const proc = restartProcedure({ profile: p, factors: [{ tunable: 'build', levels: [b.name] }], levels: { build: b.name }, host });
      const started = await control.run(proc);
      const live = parseExe(started.facts.exe);
      if (!live?.sha256) throw new ApiError('internal', `build ${b.name} started (pid ${started.pid}) but its executable could not be read on ${session.target}: ${JSON.stringify(started.facts.exe ?? null)}`);
      assertProfilePath(`the executable of build ${b.name}`, live.exe);
      builds[i] = { ...b, exe: live.exe, sha256: live.sha256, version: versionText(started.facts) };
    }
  } finally {
    await control.stop();
  }
  return builds;
}

/** The build factor's levels that these restarts start, in plan order. */
function buildsStarted(factors: Factor[], restarts: ScheduledRestart[]): string[] {
  const keys = factors.filter((f) => f.tunable === 'build').map(factorKey);
  return [...new Set(restarts.flatMap((r) => keys.map((k) => r.levels[k]).filter((l): l is string => l !== undefined)))];
}

/**
 * The one remote call of the run's build check (`buildsThereScript`, for the registered builds these
 * restarts start), or null when they start none. The dry run shows it; checkRunBuilds runs it.
 */
export function buildsCheckScript(profile: ServerProfile, factors: Factor[], restarts: ScheduledRestart[]): Script | null {
  const started = new Set(buildsStarted(factors, restarts));
  const builds = (profile.builds ?? []).filter((b) => started.has(b.name));
  return builds.length ? buildsThereScript(profile, builds) : null;
}

/**
 * Before a run's first restart (attached: before the target's lock; detached: before the launch), the
 * builds the remaining restarts start, in one pass: a level the target's profile does not register is
 * refused (no call made), then each registered one's binary must be there to start (one read-only call).
 * Before, an unregistered level was found at its cell's first restart (restart.ts cellFactors), and a
 * binary removed or made unexecutable since `sandbox create` at its first start: after other cells had
 * measured. Refused naming each build, the host, and what to do; nothing on the host changes.
 */
export async function checkRunBuilds(session: TargetSession, profile: ServerProfile, factors: Factor[], restarts: ScheduledRestart[]): Promise<void> {
  const t = session.target;
  const unknown = buildsStarted(factors, restarts).filter((l) => !profile.builds?.some((b) => b.name === l));
  if (unknown.length) {
    const { what, how } = notRegisteredParts(unknown, t, profile.builds);
    throw new ApiError('not-found', `${what}, so the run did not start there (nothing was measured or changed); ${how}`);
  }
  const script = buildsCheckScript(profile, factors, restarts);
  if (!script) return;
  const out = await runScript(session, script, 'checking the builds this run starts');
  const missing = (profile.builds ?? []).filter((b) => out.split('\n').includes(`@missing ${b.name}`));
  if (!missing.length) return;
  throw new ApiError(
    'not-found',
    `${missing.map((b) => `build ${b.name}: ${b.mysqld} does not exist or is not executable on ${t}`).join('; ')}, so the run did not start there (nothing was measured or changed). ` +
      `Put the binary back (or make it executable), or register another under its name: ${reRegisterBuildCommand(t, missing.map((b) => b.name))} (or in the Hosts view)`,
  );
}

/** One line per build for people (name, what runs, version, digest, data directory), then their notes (buildNotes). */
export function describeBuilds(builds: Build[]): string[] {
  return [...builds.map((b) => `build ${b.name}: ${b.mysqld}${b.exe !== b.mysqld ? ` (runs ${b.exe})` : ''}, ${b.version ?? 'version unknown'}, sha256 ${b.sha256}, data directory ${b.datadir}`), ...buildNotes(builds)];
}
