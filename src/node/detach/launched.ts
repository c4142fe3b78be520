// This machine's own record of the detached runs it launched (issue 24, items 2 and 3), one file per
// run in VARLAB_HOME/launched/RUN_ID.json: the run id, its target, the experiment file and the key
// and known_hosts paths it connected with. A journal travels with its file to other machines; this
// record does not. So a journal never chooses trust:
//
//   - the key and known_hosts paths a journal names are used only when this record names the same
//     run, target and paths (a shipped journal's `auth` is otherwise ignored, and that is said);
//   - the app follows a detached run by itself only when this record says this machine launched it.
//
// Otherwise a detached run is reached as any target is: the command line's --identity and
// --known-hosts, then the Hosts list's entry for the target, then ~/.ssh/config and the default keys;
// host keys are always checked against the user's known_hosts and varlab's own (ssh/connect.ts).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, type TargetAuth } from '../../common/api.js';
import { varlabHome, writeAtomic } from '../files.js';
import { hostAuths } from '../runs/auth.js';
import { checkRunId } from './runner.js';

type Paths = Pick<TargetAuth, 'identity' | 'knownHosts'>;

export interface LaunchRecord {
  runId: string;
  target: string;
  /** The experiment file (absolute) it was launched from. */
  file: string;
  /** The key and known_hosts paths it connected with (absolute; never a secret). */
  auth?: Paths;
  at: number;
}

const launchPath = (runId: string) => join(varlabHome(), 'launched', `${checkRunId(runId)}.json`);

/** Written by launch once the runner is started (0600: it names the user's key files). */
export async function rememberLaunch(r: LaunchRecord): Promise<void> {
  await writeAtomic(launchPath(r.runId), JSON.stringify(r, null, 2) + '\n', { mode: 0o600, dirMode: 0o700 });
}

/** The record goes once the run's end is in its file and its directory is removed from the target: nothing is left to reach. */
export function forgetLaunch(runId: string): void {
  rmSync(launchPath(runId), { force: true });
}

/** This machine's record of launching run `runId` on `target`, or null (none, another target, unreadable). */
export function launchedHere(d: { runId: string; target: string }): LaunchRecord | null {
  try {
    const r = JSON.parse(readFileSync(launchPath(d.runId), 'utf8')) as LaunchRecord;
    return r && r.runId === d.runId && r.target === d.target ? r : null;
  } catch {
    return null;
  }
}

const paths = (a: Paths | undefined): Paths => ({ ...(a?.identity ? { identity: a.identity } : {}), ...(a?.knownHosts ? { knownHosts: a.knownHosts } : {}) });
const samePaths = (a: Paths | undefined, b: Paths | undefined) => paths(a).identity === paths(b).identity && paths(a).knownHosts === paths(b).knownHosts;
const named = (a: Paths) =>
  [a.identity ? `the key ${a.identity}` : '', a.knownHosts ? `the known_hosts file ${a.knownHosts}` : ''].filter(Boolean).join(' and ');

/** What a detached run's journal says of it, as far as choosing its connection goes. */
export interface RecordedRun {
  runId: string;
  target: string;
  journal: string;
  auth?: Paths;
}

/**
 * How to connect to a detached run's target, and, when the journal's own paths are not used, a
 * sentence saying so and what is used instead. `given`: the command line's (or the UI's) own choice.
 */
export async function detachedAuth(d: RecordedRun, given?: TargetAuth): Promise<{ auth?: TargetAuth; said?: string }> {
  const own = launchedHere(d);
  const journal = paths(d.auth);
  const flags = paths(given);
  const accept = given?.acceptNewHostKey ? { acceptNewHostKey: true } : {};
  if (Object.keys(flags).length) return { auth: { ...flags, ...accept } };
  if (own) {
    const mine = paths(own.auth);
    const said = samePaths(mine, journal) ? undefined : `the journal ${d.journal} names ${named(journal) || 'no key file'}, not what this computer launched run ${d.runId} with; using this computer's record (${named(mine) || '~/.ssh/config and the default keys'})`;
    return { auth: Object.keys(mine).length || given?.acceptNewHostKey ? { ...mine, ...accept } : undefined, ...(said ? { said } : {}) };
  }
  const listed = paths((await hostAuths([d.target])).get(d.target));
  const auth = Object.keys(listed).length || given?.acceptNewHostKey ? { ...listed, ...accept } : undefined;
  if (!Object.keys(journal).length) return { auth };
  const instead = Object.keys(listed).length ? `the Hosts list's ${named(listed)}` : '~/.ssh/config and your default keys';
  return {
    auth,
    said: `this computer did not launch run ${d.runId} (no record of it in ${join(varlabHome(), 'launched')}): ${named(journal)} named by the journal ${d.journal} ${Object.keys(journal).length > 1 ? 'are' : 'is'} not used; connecting to ${d.target} with ${instead} (give --identity and --known-hosts to choose), host keys checked against your known_hosts and varlab's own`,
  };
}

/** The runs (of one file) this machine did not launch: following them connects to a target no one here chose. */
export function notLaunchedHere<T extends { runId: string; target: string }>(runs: T[]): T[] {
  return runs.filter((d) => !launchedHere(d));
}

/**
 * Opening a file does nothing on the network (issue 24, item 2): before the app connects for a
 * detached run this machine did not launch, the user agrees, shown the target; the request then names
 * that target (`agreed`). Refused otherwise, with the target and the journals in the details, so the
 * Run view can say where the run is recorded and offer to follow it.
 */
export function requireFollowConsent(path: string, runs: RecordedRun[], agreed: string | undefined): void {
  const away = notLaunchedHere(runs);
  if (!away.length) return;
  const target = runs.map((d) => d.target).join(', ');
  if (agreed === target) return;
  const journals = runs.map((d) => d.journal);
  throw new ApiError(
    'needs-consent',
    `${path}: a detached run is recorded beside it (${journals.join(', ')}), on ${target}, and this computer did not launch it. Following it connects to ${target} over SSH with your own key and known_hosts files (never the journal's): agree to that first`,
    { follow: { target, journals } },
  );
}
