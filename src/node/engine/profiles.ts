// Which server profile a run uses on its target, in this order:
//   1. the target is the command's choice (`--target`) or the UI's, else the file's;
//   2. the profile `varlab sandbox create TARGET` registered for that target (the registry is the
//      host layer's), reduced to the fields an experiment file holds;
//   3. else the profile saved in the file, only if it names that target (a profile is never used on
//      a target it was not made for).
import type { ServerProfile } from '../../common/experiment/types.js';
import { sandboxProfile } from '../host/index.js';

const FIELDS = ['kind', 'mysqld', 'defaultsFile', 'datadir', 'socket', 'port', 'osUser', 'user', 'errorLog', 'pidFile', 'extraArgs', 'service', 'sudo', 'builds'] as const;

export async function registeredProfile(target: string): Promise<ServerProfile | undefined> {
  const p = await sandboxProfile(target);
  if (!p) return undefined;
  const out: Record<string, unknown> = { target };
  for (const k of FIELDS) if (p[k] !== undefined) out[k] = p[k];
  return out as unknown as ServerProfile;
}

export interface ResolvedProfile {
  profile: ServerProfile;
  from: 'registered' | 'file';
}

/** The profile for `target`: registered first, then one of `saved` (the file's, a journal's) that names this target. */
export async function resolveProfile(target: string, ...saved: (ServerProfile | undefined)[]): Promise<ResolvedProfile | null> {
  const registered = await registeredProfile(target);
  if (registered) return { profile: registered, from: 'registered' };
  const own = saved.find((p) => p?.target === target);
  return own ? { profile: own, from: 'file' } : null;
}

/** Why there is no profile for `target`, and what to do. */
export function noProfileMessage(target: string, fileProfile?: ServerProfile): string {
  const other = fileProfile?.target && fileProfile.target !== target ? `; the file's server profile is for ${fileProfile.target}, and is not used on another target` : '';
  return `no server profile for ${target}: none is registered for that target${other}. Make a sandbox or register a server in the Hosts view, or run: varlab sandbox create ${target}`;
}
