import { tunable, VARIABLE_NAME } from '../../common/catalog.js';
import type { Factor } from '../../common/experiment/types.js';
import { BUILD_NAME } from '../../common/tunables/build.js';
import { assertProfilePath, assertSandboxParent, buildFromSetting, optionFromSetting, SIZE_OPTION } from '../../common/profile.js';
import { cellFactors } from '../../common/restart.js';
import { describeBuilds } from '../../node/host/builds.js';
import { addBuilds, createServerControl, createSandbox, holdingRunLock, openTarget, removeBuild, planSandbox, procedureText, removeSandbox, sandboxProfile, type SandboxOptions, type TargetSession } from '../../node/host/index.js';
import { numberOption, parse, UsageError, type CliIO, type Command } from '../io.js';
import { terminalPrompter } from '../prompter.js';
import { hostFailure, TARGET_OPTIONS, targetAuth } from './probe.js';

const USAGE =
  'varlab sandbox create TARGET [--dir DIR] [--port N] [--mysqld PATH] [--buffer-pool SIZE] [--set-option NAME=VALUE ...] [--build NAME=PATH ...] [--replace] [--dry-run] [--json]\n' +
  'varlab sandbox add-build    TARGET --build NAME=PATH [--build NAME=PATH ...] [--dir DIR] [--port N] [--mysqld PATH] [--buffer-pool SIZE] [--set-option NAME=VALUE ...]\n' +
  'varlab sandbox remove-build TARGET --build NAME\n' +
  'varlab sandbox start  TARGET [--set FACTOR=LEVEL ...] [--dry-run] [--json]\n' +
  'varlab sandbox stop   TARGET\n' +
  'varlab sandbox remove TARGET\n\n' +
  'create   makes a throwaway data directory on TARGET (mariadb-install-db or mysqld --initialize-insecure)\n' +
  '         and registers its server profile, so `varlab run --target TARGET` needs nothing more. A target\n' +
  '         has one sandbox: the same is reused, a different one is refused by name (--replace removes it).\n' +
  '         A create that fails removes what it made.\n' +
  'add-build    adds server builds to the target\'s sandbox, the others and their data left as they are: each\n' +
  '         gets its own data directory, made by that build, and is started once to register what it runs.\n' +
  '         A target without a sandbox gets one, made with these builds (--dir, --port, --buffer-pool and\n' +
  '         --set-option are for that sandbox). A name already registered is refused: remove it first.\n' +
  'remove-build removes one build: its data directory is deleted and its registration forgotten.\n' +
  'start    (re)starts the sandbox mysqld with tunables applied and prints what was verified on the live\n' +
  '         process, and the sandbox\'s own server options as the server reports them; FACTOR is a tunable\n' +
  '         id (aslr, ahi, numa, cpubind, thp, ...) or a server variable name. Exit 3 when a verification failed.\n' +
  'stop     stops it (SIGTERM, waiting until it has exited) and puts host-wide settings back.\n' +
  'remove   stops it and deletes its directory and profile.\n\n' +
  '--dir DIR               parent directory on the target (default /var/tmp)\n' +
  '--port N                TCP port (default: a random free one from 20000 to 31999)\n' +
  '--buffer-pool SIZE      innodb_buffer_pool_size, e.g. 512M or 2G (default 128M)\n' +
  '--set-option NAME=VALUE a server option set at every start, e.g. innodb_flush_method=O_DIRECT (repeatable)\n' +
  '--build NAME=PATH       a server build: a mysqld/mariadbd binary, a script that execs one, or an installation\n' +
  '                        directory (repeatable). Each gets its own data directory, made by that build, and is\n' +
  '                        started once to register what it runs; the levels of the factor `build` are the NAMEs\n' +
  '--replace               remove the target\'s sandbox (or forget its registered server) first\n' +
  '--dry-run               print what would run on the target, run nothing\n' +
  '--identity KEY, --known-hosts FILE, --accept-new   as for `varlab probe`';

/** `--set aslr=off --set innodb_io_capacity=400` → factors and levels. */
export function factorsFromSets(sets: string[]): { factors: Factor[]; levels: Record<string, string> } {
  const factors: Factor[] = [];
  const levels: Record<string, string> = {};
  for (const s of sets) {
    const i = s.indexOf('=');
    if (i <= 0) throw new UsageError(`--set ${JSON.stringify(s)}: expected FACTOR=LEVEL`);
    const key = s.slice(0, i);
    const level = s.slice(i + 1);
    if (tunable(key) && key !== 'variable') factors.push({ tunable: key, levels: [level] });
    else if (VARIABLE_NAME.test(key)) factors.push({ tunable: 'variable', name: key, levels: [level] });
    else throw new UsageError(`--set ${JSON.stringify(s)}: ${JSON.stringify(key)} is neither a tunable nor a server variable name`);
    levels[key] = level;
  }
  return { factors, levels };
}

async function withTarget<T>(target: string, values: Parameters<typeof targetAuth>[0], fn: (s: TargetSession) => Promise<T>): Promise<T> {
  const session = await openTarget(target, { auth: targetAuth(values), prompt: terminalPrompter() });
  try {
    return await fn(session);
  } finally {
    await session.close();
  }
}

async function registered(target: string) {
  const p = await sandboxProfile(target);
  if (!p) throw new Error(`no sandbox registered for ${target}: run \`varlab sandbox create ${target}\` first`);
  return p;
}

/** The sandbox options of `create` (and of `add-build`, for a target without a sandbox), refused before anything connects when malformed. */
function sandboxOptions(values: { dir?: string; port?: string; mysqld?: string; 'buffer-pool'?: string; 'set-option'?: string[] }): Omit<SandboxOptions, 'builds' | 'replace'> {
  const opts = {
    parent: values.dir,
    port: numberOption('port', values.port, { min: 1024, max: 65535, integer: true }),
    mysqld: values.mysqld,
    bufferPool: values['buffer-pool'],
    options: values['set-option'],
  };
  try {
    for (const o of opts.options ?? []) optionFromSetting(o);
    if (opts.parent !== undefined) assertSandboxParent('--dir', opts.parent);
    if (opts.mysqld !== undefined) assertProfilePath('--mysqld', opts.mysqld);
    if (opts.bufferPool !== undefined && !SIZE_OPTION.test(opts.bufferPool)) throw new Error(`--buffer-pool ${JSON.stringify(opts.bufferPool)}: expected a size such as 512M or 2G`);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  return opts;
}

/** `add-build` (NAME=PATH, one or more) and `remove-build` (NAME, one): the builds of the target's sandbox, one at a time. */
async function changeBuilds(action: 'add-build' | 'remove-build', target: string, values: Parameters<typeof targetAuth>[0] & Parameters<typeof sandboxOptions>[0] & { build?: string[]; json?: boolean; replace?: boolean; set?: string[]; 'dry-run'?: boolean }, io: CliIO): Promise<number> {
  // An option of another action is refused, not passed over: a --dry-run that added the build anyway would surprise.
  const foreign = [values['dry-run'] && '--dry-run', values.replace && '--replace', values.set?.length && '--set', ...(action === 'remove-build' ? [values.dir !== undefined && '--dir', values.port !== undefined && '--port', values.mysqld !== undefined && '--mysqld', values['buffer-pool'] !== undefined && '--buffer-pool', values['set-option']?.length && '--set-option'] : [])].filter((x): x is string => typeof x === 'string');
  if (foreign.length) throw new UsageError(`${action} takes no ${foreign.join(', ')}`);
  const builds = values.build ?? [];
  if (action === 'remove-build') {
    if (builds.length !== 1 || !BUILD_NAME.test(builds[0])) throw new UsageError('sandbox remove-build: expected one --build NAME (the name it was registered with)');
    return await withTarget(target, values, async (s) => {
      const { profile, builds: [gone] } = await removeBuild(s, builds[0]);
      if (values.json) io.out(JSON.stringify(profile, null, 2));
      else io.out(`removed build ${gone.name} from the sandbox on ${target}: its data directory ${gone.datadir} is deleted; builds registered now: ${profile.builds?.map((b) => b.name).join(', ') || 'none'}`);
      return 0;
    });
  }
  if (!builds.length) throw new UsageError('sandbox add-build: expected one or more --build NAME=PATH');
  try {
    for (const b of builds) buildFromSetting(b);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const opts = sandboxOptions(values);
  return await withTarget(target, values, async (s) => {
    const { profile, made, builds: added } = await addBuilds(s, builds, opts);
    if (values.json) io.out(JSON.stringify(profile, null, 2));
    else {
      io.out(
        made
          ? `${target} had no sandbox: made one with the builds at ${profile.sandboxDir} (${profile.mysqld}, port ${profile.port}, socket ${profile.socket})`
          : `added ${added.map((b) => `build ${b.name}`).join(' and ')} to the sandbox on ${target}: ${profile.sandboxDir} (each its own data directory, made by that build)`,
      );
      // Every build, with the notes on them together (buildNotes): an added build that is another's binary is said.
      for (const line of describeBuilds(profile.builds ?? [])) io.out(line);
      io.out(`registered as the server profile for ${target}`);
    }
    return 0;
  });
}

export const sandbox: Command = {
  name: 'sandbox',
  usage: USAGE,
  async run(argv, io: CliIO) {
    const { values, positionals } = parse(argv, {
      ...TARGET_OPTIONS,
      dir: { type: 'string' },
      port: { type: 'string' },
      mysqld: { type: 'string' },
      'buffer-pool': { type: 'string' },
      'set-option': { type: 'string', multiple: true },
      build: { type: 'string', multiple: true },
      replace: { type: 'boolean' },
      set: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const [action, target, ...extra] = positionals;
    if (!action || !['create', 'add-build', 'remove-build', 'start', 'stop', 'remove'].includes(action)) throw new UsageError('expected an action: create, add-build, remove-build, start, stop or remove');
    if (!target || extra.length) throw new UsageError(`sandbox ${action}: expected exactly one TARGET`);
    const dry = Boolean(values['dry-run']);
    try {
      if (action === 'create') {
        // Bad sizes, options and builds are refused before anything connects.
        const opts: SandboxOptions = { ...sandboxOptions(values), replace: values.replace === true, builds: values.build };
        try {
          for (const b of opts.builds ?? []) buildFromSetting(b);
        } catch (e) {
          throw new UsageError((e as Error).message);
        }
        return await withTarget(target, values, async (s) => {
          if (dry) {
            const plan = await planSandbox(s, opts);
            io.out(plan.script);
            return 0;
          }
          const { profile, reused, replaced, added } = await createSandbox(s, opts);
          if (values.json) io.out(JSON.stringify(profile, null, 2));
          else {
            if (replaced) io.out(replaced.sandboxDir ? `removed the old sandbox ${replaced.sandboxDir}` : `forgot the registered server (datadir ${replaced.datadir}; its data is left alone)`);
            io.out(`${reused ? 'reusing the sandbox' : 'sandbox'} on ${target}: ${profile.sandboxDir} (${profile.mysqld}, port ${profile.port}, socket ${profile.socket})`);
            io.out(`server options: ${profile.extraArgs.join(' ')}`);
            if (added?.length) io.out(`added for performance_schema's exact statement timer (the sandbox was made without it), in effect from its next start: ${added.join(' ')}`);
            for (const line of describeBuilds(profile.builds ?? [])) io.out(line);
            io.out(`${reused ? 'already registered' : 'registered'} as the server profile for ${target}`);
          }
          return 0;
        });
      }
      if (action === 'add-build' || action === 'remove-build') return await changeBuilds(action, target, values, io);
      if (action === 'start') {
        // Levels are validated before anything connects or runs.
        const { factors, levels } = factorsFromSets(values.set ?? []);
        cellFactors(factors, levels);
        const profile = await registered(target);
        return await withTarget(target, values, async (s) => {
          const control = createServerControl(s, profile, { prompt: terminalPrompter() });
          const proc = await control.procedure(factors, levels);
          if (dry) {
            for (const c of procedureText(proc, await control.script(proc))) io.out(c);
            return 0;
          }
          // On any failure, put back host-wide settings already changed for this start. Under the run
          // lock: a start by hand never stops a run's mysqld.
          const started = await holdingRunLock(s, profile, 'start', () =>
            control.run(proc).catch(async (e) => {
              await control.restore().catch(() => {});
              throw e;
            }),
          );
          if (values.json) io.out(JSON.stringify(started, null, 2));
          else {
            io.out(`mysqld pid ${started.pid}, accepting connections after ${started.readyMs} ms`);
            for (const c of started.checks) io.out(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.tunable}=${c.level}  ${c.observed}`);
            if (started.options.length) io.out('server options of the profile:');
            for (const c of started.options) io.out(`${!c.ok ? 'FAIL' : c.verifiable === false ? 'set ' : 'ok  '}  ${c.tunable}=${c.level}  ${c.observed}`);
          }
          return [...started.checks, ...started.options].every((c) => c.ok) ? 0 : 3;
        });
      }
      const profile = await registered(target);
      return await withTarget(target, values, async (s) => {
        const control = createServerControl(s, profile);
        // Under the run lock, as the removal: refused while a run measures on this sandbox.
        const stopAndRestore = async () => {
          await control.stop();
          await control.restore();
        };
        if (action === 'remove') {
          await removeSandbox(s, profile, undefined, stopAndRestore);
          io.out(`removed ${profile.sandboxDir} and its profile`);
        } else {
          await holdingRunLock(s, profile, 'stop', stopAndRestore);
          io.out(`stopped mysqld on ${target}; host settings restored`);
        }
        return 0;
      });
    } catch (e) {
      hostFailure(e);
    }
  },
};
