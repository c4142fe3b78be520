// Secrets kept for the user, only when they ask (issue 3, point 1): a password or a key's passphrase
// in the OS keychain, so the next connection need not ask. The desktop app supplies a SecretStore
// backed by Electron's safeStorage; browser mode and the command line have none, and then nothing is
// ever kept. A secret is never written to a file unencrypted and never logged: stores hold only
// blobs the keychain encrypted, and error messages name keys, never values.
import { entries, readJsonFile, updateJsonFile } from './json-file.js';

/** How well the keychain protects what it holds: 'plain-text' is Linux without a secret service. */
export type KeychainKind = 'encrypted' | 'plain-text';

export interface SecretStore {
  readonly kind: KeychainKind;
  /** Keys name what a secret is for (`ssh:user@host`, `key:/home/me/.ssh/id_ed25519`), never the secret. */
  get(key: string): Promise<string | null>;
  set(key: string, secret: string): Promise<void>;
  delete(key: string): Promise<void>;
}

let current: SecretStore | null = null;

/** The store of this process (set once by the desktop shell); null in browser mode and the CLI. */
export function secretStore(): SecretStore | null {
  return current;
}
export function useSecretStore(store: SecretStore | null): void {
  current = store;
}
/** What app.info reports, so the UI offers "remember" only where something can remember. */
export function keychainState(): KeychainKind | 'none' {
  return current?.kind ?? 'none';
}

export interface Cipher {
  encrypt(plain: string): Buffer;
  decrypt(blob: Buffer): string;
}

/**
 * A SecretStore of blobs encrypted by `cipher` (the keychain), kept as base64 in one JSON file
 * readable by the user only. Only ciphertext ever reaches the disk.
 */
export function createBlobSecretStore(opts: { path: string; kind: KeychainKind; cipher: Cipher }): SecretStore {
  const { path, cipher } = opts;
  const readAll = () => readJsonFile(path, entries<string>);
  // Only ciphertext is written, readable by this user alone.
  const change = (fn: (all: Record<string, string>) => Record<string, string> | undefined) => updateJsonFile(path, entries<string>, fn, { mode: 0o600, dirMode: 0o700 });
  return {
    kind: opts.kind,
    async get(key) {
      const blob = (await readAll())[key];
      if (typeof blob !== 'string') return null;
      try {
        return cipher.decrypt(Buffer.from(blob, 'base64'));
      } catch {
        return null; // the keychain cannot open it any more (another user, a reset keyring): ask again
      }
    },
    async set(key, secret) {
      const blob = cipher.encrypt(secret).toString('base64');
      await change((all) => ({ ...all, [key]: blob }));
    },
    async delete(key) {
      await change((all) => {
        if (!(key in all)) return undefined;
        delete all[key];
        return all;
      });
    },
  };
}

/** A store in memory only: a stand-in for the keychain where Electron cannot run (tests). */
export function createMemorySecretStore(kind: KeychainKind = 'encrypted'): SecretStore & { keys(): string[] } {
  const m = new Map<string, string>();
  return {
    kind,
    get: async (k) => m.get(k) ?? null,
    set: async (k, s) => void m.set(k, s),
    delete: async (k) => void m.delete(k),
    keys: () => [...m.keys()],
  };
}
