// openTarget: one entry point for `local` and SSH targets.
import { parseTarget } from '../ssh/target.js';
import { openSshSession } from '../ssh/session.js';
import { openLocalSession } from './local.js';
import type { OpenTargetOptions, TargetSession } from './types.js';

export async function openTarget(target: string, opts: OpenTargetOptions): Promise<TargetSession> {
  const spec = parseTarget(target);
  if (spec.kind === 'local') return openLocalSession();
  return openSshSession(target, spec.endpoint, opts);
}
