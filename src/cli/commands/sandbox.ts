import { tunable } from '../../common/catalog.js';
import { VARIABLE_NAME } from '../../common/catalog.js';
import type { Factor } from '../../common/experiment/types.js';
import { createServerControl, createSandbox, openTarget, planCommands, planSandbox, removeSandbox, sandboxProfile, unregisterProfile, type TargetSession } from '../../node/host/index.js';
import { numberOption, parse, UsageError, type CliIO, type Command } from '../io.js';
import { terminalPrompter } from '../prompter.js';
import { hostFailure, TARGET_OPTIONS, targetAuth } from './probe.js';

const USAGE =
  'varlab sandbox create TARGET [--dir DIR] [--port N] [--mysqld PATH] [--dry-run] [--json]\n' +
  'varlab sandbox start  TARGET [--set FACTOR=LEVEL ...] [--dry-run] [--json]\n' +
  'varlab sandbox stop   TARGET\n' +
  'varlab sandbox remove TARGET\n\n' +
  'create   makes a throwaway data directory on TARGET (mariadb-install-db or mysqld --initialize-insecure)\n' +
  '         and registers its server profile, so `varlab run --target TARGET` needs nothing more.\n' +
  'start    (re)starts the sandbox mysqld with tunables applied and prints what was verified on the live\n' +
  '         process; FACTOR is a tunable id (aslr, ahi, numa, cpubind, thp, ...) or a server variable name.\n' +
  '         Exit 3 when a verification failed.\n' +
  'stop     stops it (SIGTERM, waiting until it has exited) and puts host-wide settings back.\n' +
  'remove   stops it and deletes its directory and profile.\n\n' +
  '--dir DIR          parent directory on the target (default /var/tmp)\n' +
  '--port N           TCP port (default: a random one from 20000)\n' +
  '--dry-run          print the commands that would run on the target, run none\n' +
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

export const sandbox: Command = {
  name: 'sandbox',
  usage: USAGE,
  async run(argv, io: CliIO) {
    const { values, positionals } = parse(argv, {
      ...TARGET_OPTIONS,
      dir: { type: 'string' },
      port: { type: 'string' },
      mysqld: { type: 'string' },
      set: { type: 'string', multiple: true },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
    });
    const [action, target, ...extra] = positionals;
    if (!action || !['create', 'start', 'stop', 'remove'].includes(action)) throw new UsageError('expected an action: create, start, stop or remove');
    if (!target || extra.length) throw new UsageError(`sandbox ${action}: expected exactly one TARGET`);
    const dry = Boolean(values['dry-run']);
    try {
      if (action === 'create') {
        const opts = { parent: values.dir, port: numberOption('port', values.port, { min: 1, max: 65535, integer: true }), mysqld: values.mysqld };
        return await withTarget(target, values, async (s) => {
          if (dry) {
            const plan = await planSandbox(s, opts);
            for (const c of plan.commands) io.out(c);
            return 0;
          }
          const profile = await createSandbox(s, opts);
          if (values.json) io.out(JSON.stringify(profile, null, 2));
          else io.out(`sandbox on ${target}: ${profile.sandboxDir} (${profile.mysqld}, port ${profile.port}, socket ${profile.socket})\nregistered as the server profile for ${target}`);
          return 0;
        });
      }
      if (action === 'start') {
        // Levels are validated before anything connects or runs.
        const { factors, levels } = factorsFromSets(values.set ?? []);
        const profile = await registered(target);
        const commands = planCommands(profile, factors, levels);
        if (dry) {
          for (const c of commands) io.out(c);
          return 0;
        }
        return await withTarget(target, values, async (s) => {
          const control = createServerControl(s, profile, { prompt: terminalPrompter() });
          // On any failure, put back host-wide settings already changed for this start.
          const started = await control.restart(factors, levels).catch(async (e) => {
            await control.restore().catch(() => {});
            throw e;
          });
          if (values.json) io.out(JSON.stringify(started, null, 2));
          else {
            io.out(`mysqld pid ${started.pid}, accepting connections after ${started.readyMs} ms`);
            for (const c of started.checks) io.out(`${c.ok ? 'ok  ' : 'FAIL'}  ${c.tunable}=${c.level}  ${c.observed}`);
          }
          return started.checks.every((c) => c.ok) ? 0 : 3;
        });
      }
      const profile = await registered(target);
      return await withTarget(target, values, async (s) => {
        const control = createServerControl(s, profile);
        await control.stop();
        await control.restore();
        if (action === 'remove') {
          await removeSandbox(s, profile);
          await unregisterProfile(target);
          io.out(`removed ${profile.sandboxDir} and its profile`);
        } else io.out(`stopped mysqld on ${target}; host settings restored`);
        return 0;
      });
    } catch (e) {
      hostFailure(e);
    }
  },
};
