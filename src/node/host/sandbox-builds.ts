// One build added to (or removed from) the target's sandbox, the others and their data left as they
// are (`varlab sandbox add-build` / `remove-build`, the Hosts view's "Server builds"). Before, adding a
// build took `sandbox create --replace` with every build listed again, which made every data directory
// anew. A build is added as `sandbox create --build` adds it (builds.ts: planBuild, buildInitLines,
// learnBuilds): its own data directory `data-NAME` in the sandbox, made by that build, then started once
// to register what its live process runs. A target without a sandbox gets one made with the builds
// (createSandbox), so the same command serves whether or not a sandbox exists. Both hold the target's
// run lock: a run on the sandbox is never stopped under it by a build's first start.
import { ApiError } from '../../common/api.js';
import type { Build } from '../../common/experiment/types.js';
import { checkProfile } from '../../common/profile.js';
import { sandboxAgainCommand } from '../../common/tunables/build.js';
import { buildDatadir, buildInitLines, learnBuilds, planBuilds, unlearned } from './builds.js';
import { registerProfile, sandboxProfile, type RegisteredProfile } from './profiles.js';
import { createSandbox, holdingRunLock, stillThere, systemInstallDb, type SandboxOptions } from './sandbox.js';
import type { HostPaths } from './script.js';
import { createServerControl } from './server.js';
import { shellQuote } from './shell.js';
import type { TargetSession } from './types.js';

const q = shellQuote;

export interface BuildsChanged {
  profile: RegisteredProfile;
  /** The target had no sandbox: one was made with the builds (its folder, port and options from `opts`). */
  made: boolean;
  /** The builds added (or, for remove, the one removed). */
  builds: Build[];
}

/** The command line's names of the options that make a sandbox. */
const SANDBOX_OPTION = { parent: '--dir', port: '--port', mysqld: '--mysqld', bufferPool: '--buffer-pool', options: '--set-option' } as const;

/** The target's sandbox as it is registered and still there; a registered server (not a sandbox) is refused, saying how. */
async function theSandbox(session: TargetSession, names: string[]): Promise<RegisteredProfile | null> {
  const t = session.target;
  const p = await sandboxProfile(t);
  if (!p || !(await stillThere(session, p))) return null;
  if (!p.sandboxDir) {
    throw new ApiError(
      'unsupported',
      `${t} has a registered server (datadir ${p.datadir}), not a sandbox: builds live in a sandbox, each with its own data directory made by that build. Make one with the builds (its data is left alone): ${sandboxAgainCommand(t, [], names)}, or in the Hosts view`,
    );
  }
  return p;
}

/**
 * Add builds (`NAME=PATH`, as `--build` takes them) to the target's sandbox: each path checked, its
 * data directory made by it, then each started once; a name already registered is refused (remove it
 * first). A failure leaves the sandbox as it was: the new data directories are removed, nothing is
 * registered. Without a sandbox on the target, one is made with these builds (`opts`: its folder, port, options).
 */
export async function addBuilds(session: TargetSession, settings: string[], opts: Omit<SandboxOptions, 'builds' | 'replace'> = {}, paths?: Partial<HostPaths>): Promise<BuildsChanged> {
  const t = session.target;
  if (!settings.length) throw new ApiError('invalid-argument', 'no build to add: give one or more NAME=PATH');
  const names = settings.map((s) => s.slice(0, s.indexOf('=')));
  const existing = await theSandbox(session, names);
  if (!existing) {
    const r = await createSandbox(session, { ...opts, builds: settings });
    return { profile: r.profile, made: true, builds: r.profile.builds ?? [] };
  }
  const dir = existing.sandboxDir!;
  // What would make a new sandbox does not change the one there (`sandbox create --replace` does).
  const given = (['parent', 'port', 'mysqld', 'bufferPool', 'options'] as const).filter((k) => opts[k] !== undefined && !(Array.isArray(opts[k]) && !opts[k].length));
  if (given.length) throw new ApiError('invalid-argument', `the sandbox at ${dir} is kept as it is: ${given.map((k) => SANDBOX_OPTION[k]).join(', ')} ${given.length > 1 ? 'apply' : 'applies'} only where there is no sandbox yet (to change it: varlab sandbox create ${t} --replace)`);
  const have = existing.builds ?? [];
  const taken = names.filter((n) => have.some((b) => b.name === n));
  if (taken.length) {
    const b = have.find((x) => x.name === taken[0])!;
    throw new ApiError('busy', `build ${b.name} is registered for ${t} already (${b.basedir ?? b.mysqld}): remove it first (varlab sandbox remove-build ${t} --build ${b.name}, or in the Hosts view) to register another binary under its name`);
  }
  return holdingRunLock(
    session,
    existing,
    'add-build',
    async () => {
      const plans = await planBuilds(session, settings, await systemInstallDb(session));
      const added = plans.map((b) => unlearned(b, buildDatadir(dir, b.name)));
      const profile: RegisteredProfile = { ...existing, builds: [...have, ...added] };
      checkProfile(profile);
      const userArg = existing.osUser ? [`--user=${existing.osUser}`] : [];
      const made = added.map((b) => q(b.datadir)).join(' ');
      const logs = added.map((b) => q(`${b.datadir}.init.log`)).join(' ');
      const script = [
        // A data directory there already (left by hand) is not this build's to take or to delete.
        ...added.map((b) => `[ ! -e ${q(b.datadir)} ] || { echo ${q(`the data directory of build ${b.name}, ${b.datadir}, exists already: remove it, or give the build another name`)} >&2; exit 4; }`),
        `made() {`,
        ...plans.flatMap((b) => buildInitLines(b, buildDatadir(dir, b.name), `${dir}/tmp`, userArg)),
        ...(existing.osUser ? [`  chown -R ${q(existing.osUser)} ${made} || return 1`] : []),
        `}`,
        `made || { rm -rf ${made} ${logs}; exit 3; }`,
      ].join('\n');
      const r = await session.exec(script, { timeoutMs: 180000 * plans.length });
      if (r.code !== 0) throw new ApiError(r.code === 4 ? 'busy' : 'internal', `adding ${names.join(', ')} to the sandbox on ${t} failed (nothing was left behind): ${r.stderr.trim() || r.stdout.trim() || `exit ${r.code}`}`);
      try {
        profile.builds = await learnBuilds(session, profile, names);
      } catch (e) {
        await session.exec(`rm -rf ${made} ${logs}`).catch(() => {});
        throw new ApiError('start-failed', `adding ${names.join(', ')} to the sandbox on ${t} failed (nothing was left behind): ${(e as Error).message}`);
      }
      await registerProfile(t, profile);
      return { profile, made: false, builds: profile.builds!.filter((b) => names.includes(b.name)) };
    },
    paths,
  );
}

/** Remove one build from the target's sandbox: mysqld stopped if it runs, its data directory deleted, its registration gone. */
export async function removeBuild(session: TargetSession, name: string, paths?: Partial<HostPaths>): Promise<BuildsChanged> {
  const t = session.target;
  const existing = await theSandbox(session, [name]);
  if (!existing) throw new ApiError('not-found', `${t} has no sandbox: nothing to remove a build from`);
  const b = existing.builds?.find((x) => x.name === name);
  if (!b) throw new ApiError('not-found', `no build "${name}" is registered for ${t} (registered: ${existing.builds?.map((x) => x.name).join(', ') || 'none'})`);
  // Only a directory this sandbox made for the build is deleted.
  if (b.datadir !== buildDatadir(existing.sandboxDir!, name)) throw new ApiError('invalid-argument', `build ${name}'s data directory ${b.datadir} is not the sandbox's ${buildDatadir(existing.sandboxDir!, name)}: refusing to delete it`);
  return holdingRunLock(
    session,
    existing,
    'remove-build',
    async () => {
      // Its mysqld may be running (a `sandbox start --set build=NAME`): stopped, as the stop step knows every build's executable.
      await createServerControl(session, existing).stop();
      const r = await session.exec(`rm -rf ${q(b.datadir)} ${q(`${b.datadir}.init.log`)}`);
      if (r.code !== 0) throw new ApiError('internal', `removing build ${name}'s data directory ${b.datadir} on ${t} failed: ${r.stderr.trim() || `exit ${r.code}`}`);
      const rest = existing.builds!.filter((x) => x.name !== name);
      const { builds: _gone, ...base } = existing;
      const profile: RegisteredProfile = rest.length ? { ...base, builds: rest } : base;
      await registerProfile(t, profile);
      return { profile, made: false, builds: [b] };
    },
    paths,
  );
}
