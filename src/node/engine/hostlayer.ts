// What the engine needs from the host layer (src/node/host). An interface, so a benchmark can
// wrap it (to time the server's own start) without touching the engine.
import type { Connection } from 'mysql2/promise';
import type { ServerProfile } from '../../common/experiment/types.js';
import { createServerControl, openTarget, preloadSchemas, type PreloadReport } from '../host/index.js';
import type { OpenTargetOptions, Prompter, ServerControl, TargetSession } from '../host/types.js';

export type { PreloadReport };

export interface HostLayer {
  openTarget(target: string, opts: OpenTargetOptions): Promise<TargetSession>;
  createServerControl(session: TargetSession, profile: ServerProfile, opts?: { prompt?: Prompter }): ServerControl | Promise<ServerControl>;
  preloadSchemas(conn: Connection, schemas: string[]): Promise<PreloadReport>;
}

export const defaultHostLayer = (): HostLayer => ({ openTarget, createServerControl, preloadSchemas });
