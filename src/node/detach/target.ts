// A detached run on its target, through an open TargetSession: launch (compile the runner from the
// restart procedures, put it there, start it under the supervisor), read its journal from an offset,
// cancel it, and clean up once its journal is in the file.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../common/api.js';
import type { Design, ServerProfile } from '../../common/experiment/types.js';
import type { ScheduledRestart } from '../../common/plan.js';
import type { RestartProcedure } from '../../common/restart.js';
import { profileDir, runScript } from '../host/restore.js';
import { parseReply, type HostPaths } from '../host/script.js';
import { asRoot, sudoRefused, sudoWantsPassword } from '../host/shell.js';
import type { ServerControl, TargetSession } from '../host/types.js';
import { compileRunner, runDir } from './runner.js';
import { cancelScript, cleanupScript, launchInput, launchScript, parseLaunch, parseRead, readScript, type JournalRead, type SupervisorKind } from './supervisor.js';

export interface LaunchOptions {
  runId: string;
  design: Design;
  profile: ServerProfile;
  session: TargetSession;
  control: ServerControl;
  paths: HostPaths;
  /** The restarts to run, in order. */
  restarts: ScheduledRestart[];
  lock?: { path: string; owner: string };
  stopTimeoutS?: number;
  /** How long to wait for the runner's first login to the server it started. */
  waitS?: number;
}

export interface LaunchedRun {
  dir: string;
  supervisor: SupervisorKind;
  pid: number | null;
}

/** Where a run of this profile lives on the target. */
export function targetRunDir(profile: ServerProfile, paths: HostPaths, runId: string): string {
  return runDir(profileDir(profile, paths), runId);
}

export async function launchDetached(o: LaunchOptions): Promise<LaunchedRun> {
  const { profile, design, session } = o;
  const host = await o.control.host();
  // Each cell's procedure computed once, by the same control an attached run uses.
  const procedures = new Map<string, RestartProcedure>();
  for (const r of o.restarts) {
    if (!procedures.has(r.cell)) procedures.set(r.cell, await o.control.procedure(design.factors, r.levels, { schemas: [design.workload.database], workload: true }));
  }
  const recordDir = profileDir(profile, o.paths);
  const dir = runDir(recordDir, o.runId);
  const files = compileRunner({ runId: o.runId, dir, design, profile, host, paths: o.paths, recordDir, restarts: o.restarts, procedures, nonce: randomBytes(12).toString('hex'), lock: o.lock });
  const script = launchScript({ runId: o.runId, dir, recordDir, paths: o.paths, files, stopTimeoutS: o.stopTimeoutS ?? 600, sudo: profile.sudo, waitS: o.waitS });
  const r = await session.exec(asRoot(script.text, script.sudo), { input: launchInput(files), timeoutMs: ((o.waitS ?? 15) + 60) * 1000 });
  if (r.code !== 0) {
    if (script.sudo && sudoWantsPassword(r.stderr)) throw sudoRefused(session.target, 'starting the detached run');
    const reply = parseReply(r.stdout);
    const why = [reply.fail?.message, ...reply.log, r.stderr.trim()].filter(Boolean).join('\n');
    throw new ApiError('internal', `the detached run could not start on ${session.target}: ${why || `exit ${r.code}`}`);
  }
  return { dir, ...parseLaunch(r.stdout) };
}

export async function readTargetJournal(session: TargetSession, dir: string, offset: number, sudo: boolean): Promise<JournalRead> {
  return parseRead(await runScript(session, readScript(dir, offset, sudo), 'reading the detached run journal', 60_000));
}

/** SIGTERM to the runner: it journals the cancel, stops mysqld and restores the host. False when it was already gone. */
export async function signalCancel(session: TargetSession, dir: string, sudo: boolean): Promise<boolean> {
  return (await runScript(session, cancelScript(dir, sudo), 'cancelling the detached run', 30_000)).includes('@signalled');
}

export async function cleanupTargetRun(session: TargetSession, dir: string, sudo: boolean): Promise<void> {
  await runScript(session, cleanupScript(dir, sudo), 'removing the finished run directory', 30_000);
}
