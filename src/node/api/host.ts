// API handlers for targets: the Hosts view's list, probe, sandboxes and registered servers, the dry
// run, and prompts. (Owned by the host layer.)
import { hostCheck } from '../../common/host-check.js';
import { readNoiseFacts } from '../host/check.js';
import { ApiError, type CallOrigin, type TargetAuth } from '../../common/api.js';
import type { ServerProfile } from '../../common/experiment/types.js';
import { checkProfile } from '../../common/profile.js';
import type { BackendContext, Handlers } from '../backend.js';
import { addBuilds, createSandbox, createServerControl, openTarget, removeBuild, probeHost, removeSandbox, sandboxProfile, shellQuote, type TargetSession } from '../host/index.js';
import { forgetHost, hostEntry, listHosts, registerProfile, rememberHost, unregisterProfile } from '../host/profiles.js';
import { dryRun } from '../runs/dryrun.js';
import { secretStore } from '../secrets.js';

const FIELDS = ['kind', 'mysqld', 'defaultsFile', 'datadir', 'socket', 'port', 'osUser', 'user', 'errorLog', 'pidFile', 'extraArgs', 'service', 'sudo'] as const;

function targetArg(method: string, target: unknown): string {
  if (typeof target !== 'string' || !target.trim()) throw new ApiError('invalid-argument', `${method}: target must be local, ssh://[user@]host[:port] or an ssh config alias`);
  return target.trim();
}

/** Only the fields of a server profile, each checked: what reaches a command line. */
function profileArg(p: unknown): ServerProfile {
  if (!p || typeof p !== 'object') throw new ApiError('invalid-argument', 'profile.register: profile must be a server profile');
  const src = p as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of FIELDS) if (src[k] !== undefined && src[k] !== '') out[k] = src[k];
  out.extraArgs ??= [];
  out.sudo = out.sudo === true;
  out.user ??= 'root';
  out.socket ??= '';
  if (out.kind !== 'direct' && out.kind !== 'systemd') throw new ApiError('invalid-argument', 'profile.register: kind must be "direct" (varlab starts mysqld) or "systemd" (a unit)');
  if (!Array.isArray(out.extraArgs) || out.extraArgs.some((a) => typeof a !== 'string')) throw new ApiError('invalid-argument', 'profile.register: extraArgs must be a list of --options');
  const profile = out as unknown as ServerProfile;
  checkProfile(profile);
  return profile;
}

/** What the registered server names must exist on the target: one read-only call. */
async function profileProblems(session: TargetSession, p: ServerProfile): Promise<string[]> {
  const q = shellQuote;
  const checks = [
    p.kind === 'direct' ? `[ -x ${q(p.mysqld)} ] || echo "mysqld: ${p.mysqld.replace(/["$`\\]/g, '')} is not an executable file there"` : `systemctl cat ${q(p.service!)} >/dev/null 2>&1 || echo "service: no systemd unit ${p.service} there"`,
    `[ -d ${q(p.datadir)} ] || echo "datadir: ${p.datadir.replace(/["$`\\]/g, '')} is not a directory there"`,
    ...(p.socket ? [`[ -d ${q(p.socket.replace(/\/[^/]*$/, '') || '/')} ] || echo "socket: the folder of ${p.socket.replace(/["$`\\]/g, '')} does not exist there"`] : []),
  ];
  const r = await session.exec(checks.join('\n'));
  return r.stdout.split('\n').filter(Boolean);
}

export function hostHandlers(ctx: BackendContext): Handlers {
  /** Open a target (its questions go to the asking client as `prompt` events), run fn, close it. */
  async function withTarget<T>(origin: CallOrigin, target: string, auth: TargetAuth | undefined, fn: (s: TargetSession) => Promise<T>): Promise<T> {
    const known = (await listHosts()).find((h) => h.target === target)?.auth;
    const session = await openTarget(target, { auth: { ...known, ...auth }, prompt: ctx.hub.promptFor(origin.clientId) });
    try {
      return await fn(session);
    } finally {
      await session.close();
    }
  }

  return {
    'host.probe': async ({ target, auth }, origin) => {
      const f = await withTarget(origin, target, auth, (s) => probeHost(s));
      // A host probed once is in the list with what it showed.
      await rememberHost(target, { auth, probe: f });
      return f;
    },
    'host.check': async ({ target, auth }, origin) => {
      const t = targetArg('host.check', target);
      const { f, facts } = await withTarget(origin, t, auth, async (s) => ({ f: await probeHost(s), facts: await readNoiseFacts(s) }));
      await rememberHost(t, { auth, probe: f });
      return { host: f, check: hostCheck(f, facts) };
    },
    'host.list': async () => listHosts(),
    'host.add': async ({ target, auth }, origin) => {
      const t = targetArg('host.add', target);
      const f = await withTarget(origin, t, auth, (s) => probeHost(s));
      await rememberHost(t, { auth, probe: f });
      return hostEntry(t);
    },
    'host.forget': async ({ target }) => {
      const t = targetArg('host.forget', target);
      const p = await sandboxProfile(t);
      if (p) throw new ApiError('busy', `${t} still has ${p.sandboxDir ? `a sandbox (${p.sandboxDir})` : 'a registered server'}: remove it first`);
      await forgetHost(t);
      return null;
    },
    'sandbox.create': async (req, origin) => {
      const t = targetArg('sandbox.create', req.target);
      const r = await withTarget(origin, t, req.auth, (s) => createSandbox(s, { parent: req.parent, port: req.port, bufferPool: req.bufferPool, options: req.options, replace: req.replace === true, builds: req.builds, chooseFolder: 'choose another in "Folder on the target"' }));
      await rememberHost(t, { auth: req.auth });
      return { entry: await hostEntry(t), reused: r.reused, replaced: r.replaced };
    },
    'sandbox.addBuilds': async ({ target, auth, builds }, origin) => {
      const t = targetArg('sandbox.addBuilds', target);
      // The Hosts view's folder field is for a new sandbox; a target without one gets it in /var/tmp, as `add-build` does.
      const r = await withTarget(origin, t, auth, (s) => addBuilds(s, builds, { chooseFolder: 'choose another in "Folder on the target"' }));
      await rememberHost(t, { auth });
      return { entry: await hostEntry(t), made: r.made };
    },
    'sandbox.removeBuild': async ({ target, auth, name }, origin) => {
      const t = targetArg('sandbox.removeBuild', target);
      await withTarget(origin, t, auth, (s) => removeBuild(s, name));
      return hostEntry(t);
    },
    'sandbox.remove': async ({ target, auth }, origin) => {
      const t = targetArg('sandbox.remove', target);
      const p = await sandboxProfile(t);
      if (!p?.sandboxDir) throw new ApiError('not-found', `${t} has no sandbox${p ? ' (it has a registered server: forget it instead)' : ''}`);
      // The restore too under the run lock (removeSandbox's): never under a run measuring there.
      await withTarget(origin, t, auth, (s) => removeSandbox(s, p, undefined, () => createServerControl(s, p).restore()));
      return hostEntry(t);
    },
    'profile.register': async ({ target, profile, replace, auth }, origin) => {
      const t = targetArg('profile.register', target);
      const p = profileArg(profile);
      const existing = await sandboxProfile(t);
      if (existing && !replace) {
        throw new ApiError('busy', `${t} already has ${existing.sandboxDir ? `a sandbox at ${existing.sandboxDir}` : `a registered server (datadir ${existing.datadir})`}; replace it to register this one`);
      }
      await withTarget(origin, t, auth, async (s) => {
        const problems = await profileProblems(s, p);
        if (problems.length) throw new ApiError('invalid-argument', `not registered: on ${t}, ${problems.join('; ')}`);
        if (existing?.sandboxDir) await removeSandbox(s, existing);
      });
      await registerProfile(t, { ...p, createdAt: Date.now() });
      await rememberHost(t, { auth });
      return hostEntry(t);
    },
    'profile.unregister': async ({ target }) => {
      const t = targetArg('profile.unregister', target);
      const p = await sandboxProfile(t);
      if (p?.sandboxDir) throw new ApiError('invalid-argument', `${t} has a sandbox (${p.sandboxDir}): remove the sandbox, which deletes its directory too`);
      await unregisterProfile(t);
      return hostEntry(t);
    },
    'server.check': async ({ target, auth }, origin) => {
      const t = targetArg('server.check', target);
      const p = await sandboxProfile(t);
      if (!p) throw new ApiError('not-found', `${t} has no sandbox or registered server to check`);
      return withTarget(origin, t, auth, async (s) => {
        const control = createServerControl(s, p, { prompt: ctx.hub.promptFor(origin.clientId) });
        try {
          const started = await control.restart([], {});
          return { pid: started.pid, readyMs: started.readyMs, options: started.options };
        } finally {
          await control.stop().catch(() => {});
        }
      });
    },
    'host.dryRun': async ({ design, target, auth }, origin) => {
      if (!design || !Array.isArray(design.factors)) throw new ApiError('invalid-argument', 'host.dryRun: design must be an experiment design');
      // The same dry run as `varlab run --dry-run`: the profile by the same precedence as a run, the target probed.
      const { profile, problem, cells } = await dryRun(design, target ?? design.target, (fn) => withTarget(origin, target ?? design.target, auth, fn));
      return { profile, cells, ...(problem ? { problem } : {}) };
    },
    'prompt.answer': async (a, origin) => {
      // Only the desktop app has a keychain to keep a password or passphrase in; the question stays open.
      if (a.remember && a.secret !== undefined && !secretStore()) {
        throw new ApiError('unsupported', 'cannot remember a password or passphrase here: only the desktop app keeps secrets (in the OS keychain); answer again without "remember"');
      }
      // A question is answered only by the client it was asked of.
      if (!ctx.hub.answer(a, origin.clientId)) throw new ApiError('not-found', `no open question with id ${a.id} for this window`);
      return null;
    },
  };
}
