// varlab never writes a password, passphrase or private key into an experiment file:
// files are shared with teammates and pasted into bug reports.
import { jsonPath } from './paths.js';

const SECRET_KEY = /^(password|passwd|pass|passphrase|secret|privatekey|private_key|apikey|api_key|token)$/i;
const PRIVATE_KEY_TEXT = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Where a document holds a secret, as JSON paths; empty when it holds none. */
export function findSecrets(value: unknown, path: (string | number)[] = []): string[] {
  if (typeof value === 'string') return PRIVATE_KEY_TEXT.test(value) ? [jsonPath(path)] : [];
  if (Array.isArray(value)) return value.flatMap((v, i) => findSecrets(v, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      SECRET_KEY.test(k) && v !== undefined && v !== null && v !== '' ? [jsonPath([...path, k])] : findSecrets(v, [...path, k]),
    );
  }
  return [];
}

export function secretsMessage(paths: string[]): string {
  return `refused to save: ${paths.join(', ')} would write a secret into the file. varlab asks for passwords and passphrases when it connects and never stores them in an experiment file; remove the field and save again.`;
}
