// What the engine needs from the host layer (src/node/host), loaded by name so the engine can be
// given another implementation in a benchmark, and so a missing piece is reported by name.
import type { Connection } from 'mysql2/promise';
import { ApiError } from '../../common/api.js';
import type { ServerProfile } from '../../common/experiment/types.js';
import type { HostFingerprint } from '../../common/host.js';
import type { OpenTargetOptions, ServerControl, TargetSession } from '../host/types.js';

export interface PreloadReport {
  tables: number;
  indexes: number;
  rows: number;
  ms: number;
}

export interface HostLayer {
  openTarget(target: string, opts: OpenTargetOptions): Promise<TargetSession>;
  createServerControl(session: TargetSession, profile: ServerProfile): ServerControl | Promise<ServerControl>;
  probeHost(session: TargetSession): Promise<HostFingerprint>;
  preloadSchemas(conn: Connection, schemas: string[]): Promise<PreloadReport>;
}

const NAMES = ['openTarget', 'createServerControl', 'probeHost', 'preloadSchemas'] as const;

export async function loadHostLayer(): Promise<HostLayer> {
  const mod = (await import('../host/index.js')) as unknown as Partial<HostLayer>;
  const missing = NAMES.filter((n) => typeof mod[n] !== 'function');
  if (missing.includes('openTarget') || missing.includes('createServerControl')) {
    throw new ApiError('unsupported', `the host layer does not provide ${missing.join(', ')} yet`);
  }
  return {
    openTarget: mod.openTarget!,
    createServerControl: mod.createServerControl!,
    // Without a probe the results still say which target they came from.
    probeHost: mod.probeHost ?? (async (s) => ({ target: s.target }) as unknown as HostFingerprint),
    preloadSchemas:
      mod.preloadSchemas ??
      (async () => {
        throw new ApiError('unsupported', 'the host layer has no preloadSchemas: cannot preload');
      }),
  };
}
