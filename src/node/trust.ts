// The consent store for teammates' files: which lists of commands the user has agreed to run on which
// target, kept in varlabHome()/consent.json. Keyed by a digest of the commands (not of the whole file),
// so rerunning a design with more restarts does not ask again, but changing a command or a host does.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../common/api.js';
import type { ExperimentDoc } from '../common/experiment/types.js';
import { commandsNeedingConsent, consentText, type ConsentItem, type TrustCheck } from '../common/trust.js';
import { registeredProfile } from './engine/profiles.js';
import { readExperimentFile, varlabHome, writeAtomic } from './files.js';

interface Grant {
  digest: string;
  target: string;
  grantedAt: number;
}

const storePath = () => join(varlabHome(), 'consent.json');

export function commandsDigest(items: ConsentItem[]): string {
  return createHash('sha256').update(consentText(items)).digest('hex');
}

async function grants(): Promise<Grant[]> {
  try {
    const data = JSON.parse(await readFile(storePath(), 'utf8'));
    return Array.isArray(data?.grants) ? data.grants.filter((g: Grant) => typeof g?.digest === 'string' && typeof g?.target === 'string') : [];
  } catch {
    return [];
  }
}

/** examples/ ships at the top of the package (as experiment.example finds it): walk up from this module. */
function examplesDir(): string {
  if (process.env.VARLAB_EXAMPLES) return process.env.VARLAB_EXAMPLES;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'examples')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'examples');
}

/** The commands of the examples shipped with varlab are part of varlab: they never need consent. */
async function builtInDigests(): Promise<Set<string>> {
  const out = new Set<string>();
  let names: string[] = [];
  try {
    names = await readdir(examplesDir());
  } catch {
    return out; // no examples folder: nothing is built in
  }
  for (const name of names.filter((n) => n.endsWith('.varlab.json'))) {
    const r = await readExperimentFile(join(examplesDir(), name));
    if (r.doc) out.add(commandsDigest(commandsNeedingConsent(r.doc)));
  }
  return out;
}

/** Keys sorted at every level, so two equal profiles give the same JSON whatever their key order. */
const canonical = (v: unknown): string => JSON.stringify(v, (_k, x) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

/**
 * A server profile that is the one the user registered for this target (`varlab sandbox create`) is
 * the user's own, not a teammate's: a run writes it into the file, and rerunning must not ask again.
 */
async function withoutOwnProfile(doc: ExperimentDoc, target: string): Promise<ExperimentDoc> {
  const p = doc.design.serverProfile;
  if (!p) return doc;
  const own = await registeredProfile(target);
  if (!own || canonical(own) !== canonical(p)) return doc;
  const { serverProfile: _own, ...design } = doc.design;
  return { ...doc, design };
}

export async function checkTrust(doc: ExperimentDoc, target = doc.design.target): Promise<TrustCheck> {
  const commands = commandsNeedingConsent(await withoutOwnProfile(doc, target.trim()));
  const digest = commandsDigest(commands);
  const t = target.trim();
  if (!commands.length || (await builtInDigests()).has(digest)) return { needsConsent: false, commands, target: t, digest };
  const granted = (await grants()).some((g) => g.digest === digest && g.target === t);
  return { needsConsent: !granted, commands, target: t, digest };
}

export async function grantTrust(doc: ExperimentDoc, target = doc.design.target): Promise<TrustCheck> {
  const check = await checkTrust(doc, target);
  if (check.needsConsent) {
    const list = (await grants()).filter((g) => !(g.digest === check.digest && g.target === check.target));
    list.push({ digest: check.digest, target: check.target, grantedAt: Date.now() });
    await writeAtomic(storePath(), JSON.stringify({ version: 1, grants: list }, null, 2) + '\n');
  }
  return { ...check, needsConsent: false };
}

async function readDoc(path: string): Promise<ExperimentDoc> {
  const r = await readExperimentFile(path);
  if (!r.doc) throw new ApiError('invalid-file', `${path}:\n${r.problems.join('\n')}`);
  return r.doc;
}

export const checkTrustOfFile = async (path: string, target?: string) => checkTrust(await readDoc(path), target);
export const grantTrustOfFile = async (path: string, target?: string) => grantTrust(await readDoc(path), target);

/** The guard before a run: throws `needs-consent` with the list when the user has not agreed yet. */
export async function requireConsent(path: string, target?: string): Promise<void> {
  return requireConsentFor(await readDoc(path), target, path);
}

/** The same guard for the experiment as it will run (its server profile resolved for the target). */
export async function requireConsentFor(doc: ExperimentDoc, target?: string, path = doc.name): Promise<void> {
  const c = await checkTrust(doc, target);
  if (!c.needsConsent) return;
  const list = c.commands.map((i) => `- ${i.summary} (${i.where}): ${i.command.length > 200 ? i.command.slice(0, 200) + '…' : i.command}`).join('\n');
  throw new ApiError('needs-consent', `${path} would run these on ${c.target}, beyond varlab's built-in tunables; confirm them before the first run there:\n${list}`);
}
