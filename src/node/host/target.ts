// openTarget: one entry point for `local` and SSH targets.
import { parseTarget } from '../ssh/target.js';
import { openSshSession } from '../ssh/session.js';
import { openLocalSession } from './local.js';
import { keychainPrompter } from './keychain.js';
import { secretStore } from '../secrets.js';
import { offerRestore } from './restore.js';
import { hostPaths } from './script.js';
import type { OpenTargetOptions, TargetSession } from './types.js';

export async function openTarget(target: string, opts: OpenTargetOptions): Promise<TargetSession> {
  const spec = parseTarget(target);
  // Passwords and passphrases the user asked to keep come from the keychain (desktop app only).
  const kc = keychainPrompter(target, opts.prompt, secretStore());
  const session = spec.kind === 'local' ? openLocalSession() : await kc.guard(() => openSshSession(target, spec.endpoint, { ...opts, prompt: kc.prompt }));
  // A restore record left by a crashed run: offer to put the host back before anything else.
  try {
    await offerRestore(session, opts.prompt, hostPaths(opts.paths));
  } catch {
    // Restoring failed (e.g. sudo wants a password): the record stays, and the next restore() says why.
  }
  return session;
}
