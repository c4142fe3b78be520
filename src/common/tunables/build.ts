// The server build as a factor: a level names a build registered for the target (a mysqld/mariadbd
// binary or a wrapper script that execs one, each with its own data directory). It contributes which
// binary and data directory the restart starts, and is verified on the live process like any tunable:
// the resolved /proc/PID/exe and the sha256 of its content must be what the build was seen to run
// when it was registered, and @@version / @@version_comment are recorded beside them.
import type { Build } from '../experiment/types.js';
import type { Facts, LevelContext, Tunable, Verdict } from './types.js';

/** A build's name, as a level and in a folder name (`data-NAME`): letters, digits, _ . - */
export const BUILD_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/;

/** `HEX /path` as the restart script reports /proc/PID/exe (`-` when the digest could not be taken). */
export function parseExe(fact: string | null | undefined): { sha256: string | null; exe: string } | null {
  const m = /^([0-9a-f]{64}|-) (\/.*)$/.exec((fact ?? '').trim());
  return m ? { sha256: m[1] === '-' ? null : m[1], exe: m[2] } : null;
}

/** `10.11.19-MariaDB (Debian 12)`: what the live server says it is. */
export function versionText(facts: Facts): string {
  const v = facts['variable:version'];
  const c = facts['variable:version_comment'];
  return v ? `${v}${c ? ` (${c})` : ''}` : 'unknown version';
}

const findBuild = (level: string, ctx: Pick<LevelContext, 'builds'>): Build | undefined => ctx.builds?.find((b) => b.name === level);

/** The command that makes the target's sandbox anew with these builds (and `added` ones, PATH to fill in): the one way to register them again. */
export function sandboxAgainCommand(target: string, builds: readonly Build[] | undefined, added: readonly string[] = []): string {
  const args = [...(builds ?? []).map((b) => `--build ${b.name}=${b.basedir ?? b.mysqld}`), ...added.map((l) => `--build ${l}=PATH`)];
  return `varlab sandbox create ${target} --replace ${args.join(' ')}`;
}

/**
 * The command that registers builds (PATH to fill in) on the target, whether or not it has a sandbox:
 * `sandbox add-build` adds them to the one there, the builds it has left as they are, or makes one with them.
 */
export function addBuildCommand(target: string, names: readonly string[] = ['NAME']): string {
  return `varlab sandbox add-build ${target} ${names.map((n) => `--build ${n}=PATH`).join(' ')}`;
}

/**
 * The commands that register another binary under a build's name, the other builds and their data left
 * as they are: that build's data directory is made anew by the new binary.
 */
export function reRegisterBuildCommand(target: string, names: readonly string[]): string {
  // remove-build takes one build at a time.
  return `${names.map((n) => `varlab sandbox remove-build ${target} --build ${n}`).join(', ')}, then ${addBuildCommand(target, names)}`;
}

/**
 * Build levels the target does not register, said the same wherever they are found (the run's check
 * before its first restart, a restart's procedure, the dry run): what is registered, and how to add
 * them (one command, with or without a sandbox there; the Hosts view does the same).
 */
export function notRegisteredParts(levels: string[], target: string, builds: Build[] | undefined): { what: string; how: string } {
  const names = levels.map((l) => `"${l}"`);
  const which = names.length === 1 ? `no build ${names[0]} is` : `no builds ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]} are`;
  return {
    what: `${which} registered for ${target} (registered: ${builds?.map((b) => b.name).join(', ') || 'none'})`,
    how: `register ${levels.length === 1 ? 'it' : 'them'} with ${addBuildCommand(target, levels)}${builds?.length ? ' (the builds it has stay as they are)' : ''}, or in the Hosts view`,
  };
}

const notRegistered = (level: string, ctx: Pick<LevelContext, 'builds' | 'host'>) => {
  const { what, how } = notRegisteredParts([level], ctx.host.target, ctx.builds);
  return `${what}; ${how}`;
};

/** `A`, `A and B`, `A, B and C`. */
const namesText = (names: readonly string[]) => (names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

/**
 * What a person registering builds should know about them together, one note a line (empty when there
 * is nothing to say); the command line prints them under the builds, the Hosts view under its list:
 * - builds that run the same executable (a wrapper of another build's binary, e.g. with a handicap): a
 *   restart is verified by its executable, so such builds pass each other's check;
 * - builds at different paths whose executables are the same binary byte for byte (one sha256): right
 *   for an A/A check, but a user comparing a patch against its baseline is told, since a rebuild that did
 *   not update the binary (or the wrong path) would measure the baseline twice. A note, not a refusal.
 * A build not started yet (its digest unknown, all zeros) is left out.
 */
export function buildNotes(builds: readonly Build[]): string[] {
  const notes: string[] = [];
  const group = (key: (b: Build) => string) => {
    const m = new Map<string, Build[]>();
    for (const b of builds) if (!/^0+$/.test(b.sha256)) m.set(key(b), [...(m.get(key(b)) ?? []), b]);
    return [...m.entries()].filter(([, bs]) => bs.length > 1);
  };
  for (const [exe, bs] of group((b) => b.exe)) {
    notes.push(`note: builds ${namesText(bs.map((b) => b.name))} run the same executable, ${exe}: the check of each restart cannot tell one from the other (only what the wrapper adds does)`);
  }
  for (const [sha, bs] of group((b) => b.sha256)) {
    const exes = [...new Set(bs.map((b) => b.exe))];
    if (exes.length < 2) continue;
    notes.push(`note: builds ${namesText(bs.map((b) => b.name))} are the same binary byte for byte (sha256 ${sha.slice(0, 12)}…, at ${namesText(exes)}): right for an A/A check; if one of them should be a patch, it was not rebuilt or its path is not the new binary's`);
  }
  return notes;
}

/** Judge the live process against the registered build. Pure: the detached runner's facts are judged the same way. */
export function verifyBuild(build: Build | undefined, facts: Facts): Verdict {
  const live = parseExe(facts.exe);
  const version = versionText(facts);
  if (!live) return { ok: false, observed: `cannot read /proc/PID/exe of mysqld (${JSON.stringify(facts.exe ?? null)}); ${version}` };
  const observed = `exe ${live.exe} sha256 ${live.sha256 ?? 'unreadable'}; ${version}`;
  if (!build) return { ok: false, observed };
  const why = live.exe !== build.exe ? `, expected ${build.exe}` : live.sha256 !== build.sha256 ? `, expected sha256 ${build.sha256} (the binary changed since the build was registered)` : '';
  return { ok: why === '', observed: observed + why };
}

export const build: Tunable = {
  kind: 'tunable',
  id: 'build',
  label: 'Server build',
  help: 'Which mysqld/mariadbd build runs, each on its own data directory (builds are registered per host). Verified on the live process: /proc/PID/exe, the sha256 of its content, @@version.',
  // The levels are the builds registered for the chosen host: the designer offers those.
  levels: [],
  defaultLevels: [],
  scope: 'mysqld',
  syntax: 'the name of a build registered for the host (letters, digits, _ . -)',
  valid: (l) => BUILD_NAME.test(l),
  unavailable: (level, host, ctx) => (findBuild(level, ctx ?? {}) ? null : notRegistered(level, { host, builds: ctx?.builds })),
  contribute(level, ctx) {
    const b = findBuild(level, ctx);
    if (!b) throw new Error(notRegistered(level, ctx));
    return { server: { name: b.name, mysqld: b.mysqld, datadir: b.datadir, ...(b.basedir ? { basedir: b.basedir } : {}) } };
  },
  facts: () => [{ kind: 'exe' }, { kind: 'variable', name: 'version' }, { kind: 'variable', name: 'version_comment' }],
  verify: (level, facts, ctx) => verifyBuild(findBuild(level, ctx), facts),
};
