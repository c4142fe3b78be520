// A file's detached runs as its journals record them (no connection): one per host, which are still
// going on, and what following one needs from the local journal; and how their target is reached (the
// user's own keys unless this machine launched the run, launched.ts).
import { readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ApiError, type TargetAuth } from '../../common/api.js';

import type { ExperimentDoc } from '../../common/experiment/types.js';
import { buildPlan } from '../../common/plan.js';
import { JournalFold, type JournalState } from '../../common/records.js';
import { defaultHostLayer, type HostLayer } from '../engine/hostlayer.js';
import { hostJournalPath, journalPath, readJournal } from '../engine/journal.js';
import { readExperimentFile } from '../files.js';
import type { Prompter, TargetSession } from '../host/types.js';
import type { ImportContext } from './import.js';
import { detachedAuth } from './launched.js';
import { checkJournalRunDir } from './runner.js';



/** What the local journal says of a file's detached run (read from disk, no connection). */
export interface DetachedRun {
  /** The experiment file (absolute). */
  path: string;
  journal: string;
  runId: string;
  target: string;
  auth?: { identity?: string; knownHosts?: string };
  /** The run's directory on the target. */
  dir: string;
  supervisor: 'systemd' | 'setsid';
  /** Bytes of the target journal already in the local journal. */
  offset: number;
  /** The run's end is in the local journal. */
  ended: boolean;
  /** Its directory on the target was removed once its results were in the file (nothing there to connect for). */
  cleaned?: boolean;
  planned: number;
  /** Restarts finished (in the local journal). */
  done: number;
  lastState?: 'finished' | 'failed' | 'cancelled';
  lastMessage?: string;
  /** When it was launched (its `detached` record). */
  at: number;
  /** A host of a design detached on several hosts: the several-host run's id and every host it went to. */
  group?: { id: string; hosts: string[] };
}


/** The file's detached run on one host, from its journal; null when the file has none. */
export function detachedRun(path: string): DetachedRun | null {
  const abs = resolve(path);
  return runOfJournal(abs, journalPath(abs));
}

function runOfJournal(abs: string, journal: string, state = readJournal(journal)): DetachedRun | null {
  if (!state?.detached || !state.header) return null;
  const d = state.detached;
  checkJournalRunDir(d.dir, d.runId, journal);
  return {
    path: abs,
    journal,
    runId: d.runId,
    target: d.target,
    ...(d.auth ? { auth: d.auth } : {}),
    dir: d.dir,
    supervisor: d.supervisor,
    offset: d.offset,
    ended: d.ended,
    ...(d.cleaned ? { cleaned: true } : {}),
    planned: state.header.planned,
    done: state.restarts.length,
    at: d.at,
    ...(d.group ? { group: d.group } : {}),
    ...(d.ended && state.lastState ? { lastState: state.lastState, lastMessage: state.lastMessage } : {}),
  };
}

/** The journals beside the file that may be a host's of a several-host run: `BASE.journal.<host>-<8 hex>.jsonl`. */
function hostJournalFiles(abs: string): string[] {
  const dir = dirname(abs);
  const base = `${basename(abs).replace(/\.json$/i, '')}.journal.`;
  try {
    return readdirSync(dir)
      .filter((n) => n.startsWith(base) && /-[0-9a-f]{8}\.jsonl$/.test(n))
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/**
 * The file's detached run, one entry per host: the one journal beside it (one host), or each host's
 * journal of the latest design detached on several hosts, in the order of its hosts. A host journal
 * counts only under the name its own target gives it (one copied over another's is not followed).
 * Empty when the file has no detached run.
 */
export function detachedRuns(path: string): DetachedRun[] {
  const abs = resolve(path);
  const one = detachedRun(abs);
  const several: DetachedRun[] = [];
  for (const journal of hostJournalFiles(abs)) {
    const d = runOfJournal(abs, journal);
    if (d?.group && hostJournalPath(abs, d.target) === journal) several.push(d);
  }
  if (!several.length) return one ? [one] : [];
  const latest = several.reduce((a, b) => (b.at > a.at ? b : a));
  if (one && one.at > latest.at) return [one];
  const hosts = latest.group!.hosts;
  return several.filter((d) => d.group!.id === latest.group!.id).sort((a, b) => hosts.indexOf(a.target) - hosts.indexOf(b.target));
}

/** Refuse to start another run of a file whose detached run goes on (or whose end is not in yet), on any of its hosts. */
export function refuseWhileDetached(path: string): void {
  const runs = detachedRuns(path).filter((d) => !d.ended);
  if (runs.length) {
    const where = runs.map((d) => `${d.target} (run ${d.runId})`).join(', ');
    throw new ApiError('busy', `${path}: a detached run of it goes on on ${where}. Follow it with \`varlab attach ${path}\`, see it with \`varlab status ${path}\`, or stop it with \`varlab cancel ${path}\`.`);
  }
}

export function requireDetachedRuns(path: string): DetachedRun[] {
  const runs = detachedRuns(path);
  if (!runs.length) throw new ApiError('not-found', `${path}: no detached run (start one with \`varlab run ${path} --detach\`)`);
  return runs;
}

/** The local journal read into a fold, and what importing needs from it. */
export function localRun(d: DetachedRun): { fold: JournalFold; state: JournalState; context: (s: JournalState) => ImportContext } {
  const fold = new JournalFold();
  const state = readJournal(d.journal, fold)!;
  const design = state.header!.design;
  const profile = design.serverProfile;
  if (!profile) throw new ApiError('invalid-file', `${d.journal}: the run's design names no server profile`);
  if (!state.host) throw new ApiError('invalid-file', `${d.journal}: the detached run's host record is missing`);
  const plan = buildPlan(design);
  const host = state.host;
  const context = (s: JournalState): ImportContext => ({ design, plan, profile, host, target: d.target, open: s.interrupted.map((i) => i.seq), timer: s.timer?.source });
  return { fold, state, context };
}

/** How a run's target is reached: who answers the connection's questions, the user's own key and known_hosts, and who is told which were used. */
export interface ConnectVia {
  /** Who answers the questions of the connection (a host key, a key's passphrase). */
  prompt: Prompter;
  /** The user's own key and known_hosts for the target (the command line's): before anything else (launched.ts). */
  auth?: TargetAuth;
  /** Told how the target is reached when the journal's own key and known_hosts are not used, and why. */
  say?: (message: string) => void;
  host?: HostLayer;
}

/** A session on the run's target, with the user's own keys unless this machine launched the run with the journal's (launched.ts). */
export async function connect(d: DetachedRun, o: ConnectVia): Promise<TargetSession> {
  const host = o.host ?? defaultHostLayer();
  const how = await detachedAuth(d, o.auth);
  if (how.said) o.say?.(how.said);
  return host.openTarget(d.target, { auth: how.auth, prompt: o.prompt });
}

export const sudoOf = (state: JournalState) => state.header!.design.serverProfile?.sudo === true;

/** The file as the run saves it: the design as run, with the file's own server profile and labels. */
export async function savedDoc(d: DetachedRun, state: JournalState): Promise<ExperimentDoc> {
  const file = await readExperimentFile(d.path);
  if (!file.doc) throw new ApiError('invalid-file', `${d.path}: ${file.problems.join('; ')} (the results are safe in ${d.journal})`);
  const design = { ...state.header!.design };
  if (file.doc.design.serverProfile) design.serverProfile = file.doc.design.serverProfile;
  else delete design.serverProfile;
  const { results: _results, ...doc } = file.doc;
  return { ...doc, design };
}

/** The file as a several-host run saves it: its own design (every host), without results. */
export async function fileDoc(d: DetachedRun): Promise<ExperimentDoc> {
  const file = await readExperimentFile(d.path);
  if (!file.doc) throw new ApiError('invalid-file', `${d.path}: ${file.problems.join('; ')} (the results are safe in ${d.journal})`);
  const { results: _results, ...doc } = file.doc;
  return doc;
}
