// The server profile `varlab sandbox create TARGET` registered for a target, looked up through the
// host layer (which owns the registry). Loaded by name so the engine does not break while that layer grows.
import type { ServerProfile } from '../../common/experiment/types.js';

type Lookup = (target: string) => ServerProfile | undefined | null | Promise<ServerProfile | undefined | null>;

export async function registeredProfile(target: string): Promise<ServerProfile | undefined> {
  const mod = (await import('../host/index.js')) as unknown as Record<string, unknown>;
  const lookup = (mod.findProfile ?? mod.lookupProfile ?? mod.profileForTarget ?? mod.registeredProfile) as Lookup | undefined;
  if (typeof lookup !== 'function') return undefined;
  return (await lookup(target)) ?? undefined;
}
