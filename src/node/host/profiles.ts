// The server profiles varlab knows, by target, in varlabHome()/profiles.json: `varlab sandbox create`
// registers one, so `varlab run --target T` finds how to start mysqld there without more options.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServerProfile } from '../../common/experiment/types.js';
import { varlabHome, writeAtomic } from '../files.js';

export interface RegisteredProfile extends ServerProfile {
  /** Set for profiles `varlab sandbox create` made: the throwaway directory holding everything. */
  sandboxDir?: string;
  createdAt?: number;
}

export const profilesPath = () => join(varlabHome(), 'profiles.json');

export async function readProfiles(): Promise<Record<string, RegisteredProfile>> {
  try {
    const data = JSON.parse(await readFile(profilesPath(), 'utf8'));
    return data && typeof data === 'object' && !Array.isArray(data) ? data : {};
  } catch {
    return {};
  }
}

/** The profile registered for a target (what `varlab run --target T` uses when the file names none). */
export async function sandboxProfile(target: string): Promise<RegisteredProfile | null> {
  return (await readProfiles())[target] ?? null;
}

export async function registerProfile(target: string, profile: RegisteredProfile): Promise<void> {
  const all = await readProfiles();
  all[target] = profile;
  await writeAtomic(profilesPath(), JSON.stringify(all, null, 2) + '\n');
}

export async function unregisterProfile(target: string): Promise<boolean> {
  const all = await readProfiles();
  if (!(target in all)) return false;
  delete all[target];
  await writeAtomic(profilesPath(), JSON.stringify(all, null, 2) + '\n');
  return true;
}
