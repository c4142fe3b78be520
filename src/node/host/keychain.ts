// The host layer's prompter with a keychain in front (issue 3, point 1): a password or passphrase the
// user asked to remember is taken from the SecretStore instead of asking again. What the user asks to
// remember is kept only once the connection succeeded (a mistyped password is never kept), and a kept
// secret the server refused is removed, so the next attempt asks the person again.
import { ApiError } from '../../common/api.js';
import type { SecretStore } from '../secrets.js';
import type { Prompter } from './types.js';

/**
 * The key a secret is kept under, from the question the SSH layer asks: `ssh:user@host` for a login
 * password (a bastion and the target differ), `key:FILE` for a key file's passphrase.
 */
export function secretKeyFor(target: string, p: { kind: string; title: string }): string {
  if (p.kind === 'password') return `ssh:${/^Password for (\S+)$/.exec(p.title)?.[1] ?? target}`;
  return `key:${/^Passphrase for (.+)$/.exec(p.title)?.[1] ?? target}`;
}

export interface KeychainPrompter {
  prompt: Prompter;
  /** Run the connection: keep what the user asked to remember when it succeeds, forget a refused kept secret when it fails. */
  guard<T>(connect: () => Promise<T>): Promise<T>;
}

export function keychainPrompter(target: string, ask: Prompter, store: SecretStore | null): KeychainPrompter {
  const usedKept = new Set<string>();
  const toKeep = new Map<string, string>();
  const prompt: Prompter = async (p) => {
    if (!store || (p.kind !== 'password' && p.kind !== 'passphrase')) return ask(p);
    const key = secretKeyFor(target, p);
    // A kept secret answers once per connection; asked again (a keyboard-interactive second question), a person answers.
    if (!usedKept.has(key)) {
      const kept = await store.get(key);
      if (kept !== null) {
        usedKept.add(key);
        return { accept: true, secret: kept };
      }
    }
    const a = await ask(p);
    if (a.accept && a.remember && a.secret) toKeep.set(key, a.secret);
    return a;
  };
  return {
    prompt,
    async guard(connect) {
      try {
        const r = await connect();
        for (const [key, secret] of toKeep) await store?.set(key, secret);
        return r;
      } catch (e) {
        if (store && usedKept.size && e instanceof ApiError && e.code === 'auth') {
          for (const key of usedKept) await store.delete(key);
          throw new ApiError('auth', `${e.message} (the ${[...usedKept].join(', ')} secret kept in the keychain was refused and has been removed: you will be asked again)`);
        }
        throw e;
      } finally {
        toKeep.clear();
      }
    },
  };
}
