// A detached run on its target, through an open TargetSession: launch (compile the runner from the
// restart procedures, put it there, start it under the supervisor), read its journal from an offset,
// cancel it, and clean up once its journal is in the file.
import { randomBytes } from 'node:crypto';
import { ApiError } from '../../common/api.js';
import type { Design, ServerProfile } from '../../common/experiment/types.js';
import type { ScheduledRestart } from '../../common/plan.js';
import type { RestartProcedure } from '../../common/restart.js';
import { hostDir, profileDir, runScript } from '../host/restore.js';
import { parseReply, type HostPaths } from '../host/script.js';
import { asRoot, sudoRefused, sudoWantsPassword } from '../host/shell.js';
import type { ServerControl, TargetSession } from '../host/types.js';
import { compileRunner, runDir } from './runner.js';
import { importLines, type ImportContext, type Imported } from './import.js';
import { cancelScript, cleanupScript, launchInput, launchScript, parseLaunch, parseRead, READ_CHUNK, readScript, type JournalRead, type SupervisorKind } from './supervisor.js';

export interface LaunchOptions {
  runId: string;
  design: Design;
  profile: ServerProfile;
  session: TargetSession;
  control: ServerControl;
  paths: HostPaths;
  /** The restarts to run, in order. */
  restarts: ScheduledRestart[];
  lock?: { paths: string[]; owner: string };
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
    if (!procedures.has(r.cell)) procedures.set(r.cell, await o.control.procedure(design.factors, r.levels, { schemas: [design.workload.database], workload: true, idleSeconds: design.idleSeconds }));
  }
  // The run's directory is its profile's; the restore record it writes is the host's.
  const runsIn = profileDir(profile, o.paths);
  const dir = runDir(runsIn, o.runId);
  const files = compileRunner({ runId: o.runId, dir, design, profile, host, paths: o.paths, recordDir: hostDir(o.paths), restarts: o.restarts, procedures, nonce: randomBytes(12).toString('hex'), lock: o.lock });
  const script = launchScript({ runId: o.runId, dir, recordDir: runsIn, paths: o.paths, files, stopTimeoutS: o.stopTimeoutS ?? 600, sudo: profile.sudo, waitS: o.waitS });
  const r = await session.exec(asRoot(script.text, script.sudo), { input: launchInput(files), timeoutMs: ((o.waitS ?? 15) + 60) * 1000 });
  if (r.code !== 0) {
    if (script.sudo && sudoWantsPassword(r.stderr)) throw sudoRefused(session.target, 'starting the detached run');
    const reply = parseReply(r.stdout);
    const why = [reply.fail?.message, ...reply.log, r.stderr.trim()].filter(Boolean).join('\n');
    throw new ApiError('internal', `the detached run could not start on ${session.target}: ${why || `exit ${r.code}`}`);
  }
  return { dir, ...parseLaunch(r.stdout) };
}

export async function readTargetJournal(session: TargetSession, dir: string, offset: number, sudo: boolean, max = READ_CHUNK): Promise<JournalRead> {
  return parseRead(await runScript(session, readScript(dir, offset, sudo, max), 'reading the detached run journal', 120_000));
}

export interface Pulled extends Imported {
  /** The offset the target journal is imported up to, after these records. */
  offset: number;
  state: JournalRead['state'];
}

/**
 * Read the target journal from the offset held and turn what is new into journal records. Only whole
 * lines are taken (the offset stays at a line's start), and a line longer than one read gets a
 * longer read.
 */
export async function pullTargetJournal(session: TargetSession, dir: string, sudo: boolean, offset: number, ctx: ImportContext, chunk = READ_CHUNK): Promise<Pulled> {
  for (let max = chunk; ; max *= 4) {
    const read = await readTargetJournal(session, dir, offset, sudo, max);
    if (read.state === 'missing') throw new ApiError('not-found', `the detached run's directory ${dir} is not on ${session.target} (removed, or another host answers there)`);
    // The runner is gone only for a read that reached the journal's end: a read cut between the run's
    // end (E) and the host put back (H) would otherwise call a finished run failed. A runner found gone
    // whose end is being made (ending) writes its H as a runner does.
    const whole = offset + Buffer.byteLength(read.data, 'utf8') >= read.size;
    const got = importLines(read.data, ctx, { runnerGone: read.state === 'ended' && whole });
    if (got.consumed === 0 && read.data.length >= max && max < 256 << 20) continue;
    return { ...got, offset: offset + Buffer.byteLength(read.data.slice(0, got.consumed), 'utf8'), state: read.state };
  }
}

/** SIGTERM to the runner: it journals the cancel, stops mysqld and restores the host. False when it was already gone. */
export async function signalCancel(session: TargetSession, dir: string, sudo: boolean): Promise<boolean> {
  return (await runScript(session, cancelScript(dir, sudo), 'cancelling the detached run', 30_000)).includes('@signalled');
}

export async function cleanupTargetRun(session: TargetSession, dir: string, sudo: boolean): Promise<void> {
  await runScript(session, cleanupScript(dir, sudo), 'removing the finished run directory', 30_000);
}
