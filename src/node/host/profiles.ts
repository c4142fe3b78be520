// The server profiles varlab knows, by target, in varlabHome()/profiles.json: `varlab sandbox create`
// registers one, so `varlab run --target T` finds how to start mysqld there without more options.
// Beside it, hosts.json: the Hosts view's list of targets, with their last probe and key files.
// Both are changed through updateJsonFile: one change at a time, in this process and across processes.
import { join } from 'node:path';
import type { HostEntry, HostProfile, TargetAuth } from '../../common/api.js';
import type { HostFingerprint } from '../../common/host.js';
import { varlabHome } from '../files.js';
import { entries, readJsonFile, updateJsonFile } from '../json-file.js';

export type RegisteredProfile = HostProfile;

export const profilesPath = () => join(varlabHome(), 'profiles.json');

export function readProfiles(): Promise<Record<string, RegisteredProfile>> {
  return readJsonFile(profilesPath(), entries<RegisteredProfile>);
}

/** The profile registered for a target (what `varlab run --target T` uses when the file names none). */
export async function sandboxProfile(target: string): Promise<RegisteredProfile | null> {
  return (await readProfiles())[target] ?? null;
}

export function registerProfile(target: string, profile: RegisteredProfile): Promise<void> {
  return updateJsonFile(profilesPath(), entries<RegisteredProfile>, (all) => ({ ...all, [target]: profile }));
}

export async function unregisterProfile(target: string): Promise<boolean> {
  let found = false;
  await updateJsonFile(profilesPath(), entries<RegisteredProfile>, (all) => {
    found = target in all;
    if (!found) return undefined;
    delete all[target];
    return all;
  });
  return found;
}

interface HostRecord {
  addedAt: number;
  auth?: Pick<TargetAuth, 'identity' | 'knownHosts'>;
  lastProbe?: HostFingerprint;
}

const hostsPath = () => join(varlabHome(), 'hosts.json');

const readHosts = () => readJsonFile(hostsPath(), entries<HostRecord>);

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

/** Keep a host in the list (its key file paths only: nothing secret), with its latest probe. */
export function rememberHost(target: string, update: { auth?: TargetAuth; probe?: HostFingerprint }): Promise<void> {
  return updateJsonFile(hostsPath(), entries<HostRecord>, (all) => {
    const old = all[target];
    const auth = update.auth && (update.auth.identity || update.auth.knownHosts) ? { ...(update.auth.identity ? { identity: update.auth.identity } : {}), ...(update.auth.knownHosts ? { knownHosts: update.auth.knownHosts } : {}) } : old?.auth;
    all[target] = { addedAt: old?.addedAt ?? Date.now(), ...(auth ? { auth } : {}), ...(update.probe ?? old?.lastProbe ? { lastProbe: update.probe ?? old!.lastProbe } : {}) };
    return all;
  });
}

export function forgetHost(target: string): Promise<void> {
  return updateJsonFile(hostsPath(), entries<HostRecord>, (all) => {
    delete all[target];
    return all;
  });
}
