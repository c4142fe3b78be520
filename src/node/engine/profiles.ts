// The server profile `varlab sandbox create TARGET` registered for a target (the registry is the
// host layer's), reduced to the fields an experiment file holds.
import type { ServerProfile } from '../../common/experiment/types.js';
import { sandboxProfile } from '../host/index.js';

const FIELDS = ['kind', 'mysqld', 'defaultsFile', 'datadir', 'socket', 'port', 'osUser', 'user', 'errorLog', 'pidFile', 'extraArgs', 'service', 'sudo'] as const;

export async function registeredProfile(target: string): Promise<ServerProfile | undefined> {
  const p = await sandboxProfile(target);
  if (!p) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of FIELDS) if (p[k] !== undefined) out[k] = p[k];
  return out as unknown as ServerProfile;
}
