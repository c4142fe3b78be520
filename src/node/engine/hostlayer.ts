// What the engine needs from the host layer (src/node/host). An interface, so a benchmark can
// wrap it (to time the server's own start) without touching the engine.
import type { Connection } from 'mysql2/promise';
import type { HostNoise, ServerProfile } from '../../common/experiment/types.js';
import type { NoiseFacts } from '../../common/host-check.js';
import { readNoiseFacts } from '../host/check.js';
import { createServerControl, openTarget, preloadSchemas, type PreloadReport } from '../host/index.js';
import { acquireRunLock, type LockOwner, type TargetLock } from '../host/lock.js';
import { hostDir, profileDir } from '../host/restore.js';
import { hostPaths, type HostPaths } from '../host/script.js';
import type { OpenTargetOptions, Prompter, ServerControl, TargetSession } from '../host/types.js';

export type { PreloadReport };

export interface HostLayer {
  openTarget(target: string, opts: OpenTargetOptions): Promise<TargetSession>;
  createServerControl(session: TargetSession, profile: ServerProfile, opts?: { prompt?: Prompter; onWindow?: (noise: HostNoise) => void }): ServerControl | Promise<ServerControl>;
  preloadSchemas(conn: Connection, schemas: string[]): Promise<PreloadReport>;
  /**
   * The run's locks on the target: its profile's, and the host's when it changes host-wide settings
   * (`hostWide`: those factors' labels); refused with `busy`, naming the running file (host/lock.ts).
   */
  lockTarget(session: TargetSession, profile: ServerProfile, owner: LockOwner, hostWide: string[]): Promise<TargetLock>;
  /** What makes the host noisy now (probe --check's facts, a one-second sample), said before a run begins; absent: not said. */
  noiseFacts?(session: TargetSession): Promise<NoiseFacts>;
  /** Where host files and restore records are on the target (a detached run's runner is compiled with them); default: the real ones. */
  paths?: HostPaths;
}

/** The host layer; with `paths`, every part of it uses that tree instead of /sys, /proc/sys and /var/lib/varlab (tests). */
export const defaultHostLayer = (p?: Partial<HostPaths>): HostLayer => {
  const paths = hostPaths(p);
  return {
    openTarget: (target, o) => openTarget(target, { ...o, paths }),
    createServerControl: (session, profile, o) => createServerControl(session, profile, { ...o, paths }),
    preloadSchemas,
    noiseFacts: (session) => readNoiseFacts(session, paths),
    lockTarget: (session, profile, owner, hostWide) => acquireRunLock(session, { profile: profileDir(profile, paths), host: hostDir(paths), records: paths.records }, owner, { sudo: profile.sudo, hostWide }),
    paths,
  };
};
