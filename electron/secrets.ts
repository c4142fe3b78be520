// The OS keychain for the desktop app (issue 3, point 1): Electron's safeStorage encrypts with the
// platform's keychain (macOS Keychain, Windows DPAPI, libsecret or KWallet on Linux); only the
// encrypted blobs are written, into varlab's home. Without a secret service Linux falls back to
// 'basic_text' (a fixed key, i.e. plain text in effect): the store says so and the UI warns.
// Usable only once the app is ready.
import { safeStorage } from 'electron';
import { join } from 'node:path';
import { varlabHome } from '../src/node/files.js';
import { createBlobSecretStore, type SecretStore } from '../src/node/secrets.js';

export function keychainSecretStore(): SecretStore | null {
  if (!safeStorage.isEncryptionAvailable()) return null;
  const plain = process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text';
  return createBlobSecretStore({
    path: join(varlabHome(), 'secrets.json'),
    kind: plain ? 'plain-text' : 'encrypted',
    cipher: { encrypt: (s) => safeStorage.encryptString(s), decrypt: (b) => safeStorage.decryptString(b) },
  });
}
