// The server profiles varlab knows, by target, in varlabHome()/profiles.json: `varlab sandbox create`
// registers one, so `varlab run --target T` finds how to start mysqld there without more options.
// Beside it, hosts.json: the Hosts view's list of targets, with their last probe and key files.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HostEntry, HostProfile, TargetAuth } from '../../common/api.js';
import type { HostFingerprint } from '../../common/host.js';
import { varlabHome, writeAtomic } from '../files.js';

export type RegisteredProfile = HostProfile;

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

interface HostRecord {
  addedAt: number;
  auth?: Pick<TargetAuth, 'identity' | 'knownHosts'>;
  lastProbe?: HostFingerprint;
}

const hostsPath = () => join(varlabHome(), 'hosts.json');

async function readHosts(): Promise<Record<string, HostRecord>> {
  try {
    const data = JSON.parse(await readFile(hostsPath(), 'utf8'));
    return data && typeof data === 'object' && !Array.isArray(data) ? data : {};
  } catch {
    return {};
  }
}

/** Every host the user added or probed, and every target with a registered profile, in the order they came. */
export async function listHosts(): Promise<HostEntry[]> {
  const [hosts, profiles] = await Promise.all([readHosts(), readProfiles()]);
  const targets = [...new Set([...Object.keys(hosts), ...Object.keys(profiles)])];
  const entry = (t: string): HostEntry => ({
    target: t,
    ...(hosts[t]?.auth ? { auth: hosts[t].auth } : {}),
    addedAt: hosts[t]?.addedAt ?? profiles[t]?.createdAt ?? 0,
    lastProbe: hosts[t]?.lastProbe ?? null,
    profile: profiles[t] ?? null,
  });
  return targets.map(entry).sort((a, b) => a.addedAt - b.addedAt);
}

export async function hostEntry(target: string): Promise<HostEntry> {
  const found = (await listHosts()).find((h) => h.target === target);
  return found ?? { target, addedAt: Date.now(), lastProbe: null, profile: null };
}

/** hosts.json's writes, one after another: the hosts of a several-host run are probed at once, and each read-modify-write must see the one before. */
let hostsWrites: Promise<unknown> = Promise.resolve();

/** Keep a host in the list (its key file paths only: nothing secret), with its latest probe. */
export function rememberHost(target: string, update: { auth?: TargetAuth; probe?: HostFingerprint }): Promise<void> {
  const next = hostsWrites.then(() => remember(target, update));
  hostsWrites = next.catch(() => {});
  return next;
}

async function remember(target: string, update: { auth?: TargetAuth; probe?: HostFingerprint }): Promise<void> {
  const all = await readHosts();
  const old = all[target];
  const auth = update.auth && (update.auth.identity || update.auth.knownHosts) ? { ...(update.auth.identity ? { identity: update.auth.identity } : {}), ...(update.auth.knownHosts ? { knownHosts: update.auth.knownHosts } : {}) } : old?.auth;
  all[target] = { addedAt: old?.addedAt ?? Date.now(), ...(auth ? { auth } : {}), ...(update.probe ?? old?.lastProbe ? { lastProbe: update.probe ?? old!.lastProbe } : {}) };
  await writeAtomic(hostsPath(), JSON.stringify(all, null, 2) + '\n');
}

export function forgetHost(target: string): Promise<void> {
  const next = hostsWrites.then(async () => {
    const all = await readHosts();
    delete all[target];
    await writeAtomic(hostsPath(), JSON.stringify(all, null, 2) + '\n');
  });
  hostsWrites = next.catch(() => {});
  return next;
}
