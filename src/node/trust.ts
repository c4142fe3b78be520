// The consent store for teammates' files: which lists of commands the user has agreed to run on which
// target, kept in varlabHome()/consent.json. Keyed by a digest of the commands (not of the whole file),
// so rerunning a design with more restarts does not ask again, but changing a command or a host does.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiError } from '../common/api.js';
import type { ExperimentDoc } from '../common/experiment/types.js';
import { visible } from '../common/printable.js';
import { commandsNeedingConsent, consentList, consentText, type ConsentItem, type TrustCheck } from '../common/trust.js';
import { registeredProfile } from './engine/profiles.js';
import { readExperimentFile, varlabHome } from './files.js';
import { readJsonFile, updateJsonFile } from './json-file.js';

interface Grant {
  digest: string;
  target: string;
  grantedAt: number;
}

const storePath = () => join(varlabHome(), 'consent.json');

export function commandsDigest(items: ConsentItem[]): string {
  return createHash('sha256').update(consentText(items)).digest('hex');
}

function grantsIn(data: unknown): Grant[] {
  const list = (data as { grants?: unknown } | undefined)?.grants;
  return Array.isArray(list) ? list.filter((g: Grant) => typeof g?.digest === 'string' && typeof g?.target === 'string') : [];
}

const grants = () => readJsonFile(storePath(), grantsIn);

/** examples/ ships at the top of the package (as experiment.example finds it): walk up from this module. */
function examplesDir(): string {
  if (process.env.VARLAB_EXAMPLES) return process.env.VARLAB_EXAMPLES;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'examples')) && dirname(dir) !== dir) dir = dirname(dir);
  return join(dir, 'examples');
}

/**
 * What the examples shipped with varlab run (their setup scripts, queries, commands) is part of
 * varlab: an item equal to one of theirs never needs consent, so a copy of the quickstart with fewer
 * queries or cells asks nothing, while any SQL or command of a file's own is asked about.
 */
async function builtInItems(): Promise<Set<string>> {
  const out = new Set<string>();
  let names: string[] = [];
  try {
    names = await readdir(examplesDir());
  } catch {
    return out; // no examples folder: nothing is built in
  }
  for (const name of names.filter((n) => n.endsWith('.varlab.json'))) {
    const r = await readExperimentFile(join(examplesDir(), name));
    if (r.doc) for (const item of commandsNeedingConsent(r.doc)) out.add(consentText([item]));
  }
  return out;
}

/**
 * The experiment as consent sees it: with the server profile the run would use on this target only
 * when it is one carried in the file (or a journal). A registered profile is the user's own and is
 * preferred whenever there is one, so a file's profile is then never used, and not listed; nor is a
 * profile made for another target, which is never used there.
 */
async function asRun(doc: ExperimentDoc, target: string): Promise<ExperimentDoc> {
  const p = doc.design.serverProfile;
  if (!p) return doc;
  if (p.target === target && !(await registeredProfile(target))) return doc;
  const { serverProfile: _unused, ...design } = doc.design;
  return { ...doc, design };
}

export async function checkTrust(doc: ExperimentDoc, target = doc.design.target): Promise<TrustCheck> {
  const t = target.trim();
  const builtIn = await builtInItems();
  const commands = commandsNeedingConsent(await asRun(doc, t)).filter((i) => !builtIn.has(consentText([i])));
  const digest = commandsDigest(commands);
  if (!commands.length) return { needsConsent: false, commands, target: t, digest };
  const granted = (await grants()).some((g) => g.digest === digest && g.target === t);
  return { needsConsent: !granted, commands, target: t, digest };
}

/**
 * Record the user's consent to what `doc` would run on `target`. shown: the digest of the list the
 * user read (the app's Allow); when the file changed since (a sync, a git pull), the list now is not
 * what they agreed to: refused with the new list to show (issue 24, item 6). The CLI grants the
 * document it showed, so it passes none.
 */
export async function grantTrust(doc: ExperimentDoc, target = doc.design.target, shown?: string): Promise<TrustCheck> {
  const check = await checkTrust(doc, target);
  if (shown !== undefined && check.needsConsent && shown !== check.digest) {
    throw new ApiError('needs-consent', `what this experiment would run on ${check.target} changed since it was shown; nothing was allowed. Read the list again:\n${consentList(check.commands)}`, { consent: check });
  }
  if (check.needsConsent) {
    await updateJsonFile(storePath(), grantsIn, (now) => {
      const list = now.filter((g) => !(g.digest === check.digest && g.target === check.target));
      list.push({ digest: check.digest, target: check.target, grantedAt: Date.now() });
      return { version: 1, grants: list };
    });
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
export async function requireConsentFor(doc: ExperimentDoc, target?: string, path = doc.name, note?: string): Promise<void> {
  const c = await checkTrust(doc, target);
  if (!c.needsConsent) return;
  throw new ApiError('needs-consent', `${visible(path)} would run these on ${c.target}, beyond varlab's built-in tunables${note ? ` (${visible(note)})` : ''}; confirm them before the first run there:\n${consentList(c.commands)}`, { consent: c });
}
