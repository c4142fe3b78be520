// Host key checking against known_hosts files, as OpenSSH does it: plain names, `[host]:port`
// for non-standard ports, hashed `|1|salt|hash` entries, simple `*`/`?` patterns and `!` negation.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { NotASmallFile, readSmallFileIfAny } from '../small-file.js';

/** A key known_hosts records for a host: what an impostor's key is compared with. */
export interface RecordedKey {
  type: string;
  fingerprint: string;
  file: string;
  line: number;
}

export type HostKeyStatus =
  | { status: 'known'; file: string }
  | { status: 'unknown' }
  /** The host is known, but not with this key (whatever its type): `recorded` lists the keys it is known by. */
  | { status: 'changed'; file: string; line: number; recorded: RecordedKey[] }
  | { status: 'revoked'; file: string; line: number };

/** OpenSSH's SHA256 fingerprint of a key blob: `SHA256:` + unpadded base64. */
export function fingerprint(keyBlob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '');
}

/** The key type written at the start of an SSH public key blob (e.g. `ssh-ed25519`). */
export function keyType(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return '';
  const len = keyBlob.readUInt32BE(0);
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}

/** How known_hosts names a host: plain on port 22, `[host]:port` otherwise. */
export function hostToken(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

function globToRegExp(pattern: string): RegExp {
  // Only * and ? are special in known_hosts patterns; brackets and dots are literal.
  const re = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${re}$`, 'i');
}

/** Whether a known_hosts host field (comma list, maybe hashed) names this host. */
export function hostFieldMatches(field: string, host: string, port: number): boolean {
  const token = hostToken(host, port);
  if (field.startsWith('|1|')) {
    const [, , salt, hash] = field.split('|');
    if (!salt || !hash) return false;
    const h = createHmac('sha1', Buffer.from(salt, 'base64')).update(token).digest('base64');
    return h === hash;
  }
  let matched = false;
  for (const raw of field.split(',')) {
    const negated = raw.startsWith('!');
    const pattern = negated ? raw.slice(1) : raw;
    if (globToRegExp(pattern).test(token)) {
      if (negated) return false;
      matched = true;
    }
  }
  return matched;
}

interface Entry {
  marker: '' | '@revoked' | '@cert-authority';
  hosts: string;
  type: string;
  blob: Buffer;
  line: number;
}

export function parseKnownHosts(text: string): Entry[] {
  const out: Entry[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const parts = line.split(/\s+/);
    let marker: Entry['marker'] = '';
    if (parts[0] === '@revoked' || parts[0] === '@cert-authority') marker = parts.shift() as Entry['marker'];
    if (parts.length < 3) return;
    out.push({ marker, hosts: parts[0], type: parts[1], blob: Buffer.from(parts[2], 'base64'), line: i + 1 });
  });
  return out;
}

/**
 * A known_hosts file's text; '' when there is none yet (or it cannot be read, as ssh does). One that
 * is not a regular file of at most 1 MB is refused by name: it would stall varlab, not check a key.
 */
async function readText(file: string): Promise<string> {
  try {
    return (await readSmallFileIfAny(file, 'the known_hosts file', 'invalid-argument'))?.toString('utf8') ?? '';
  } catch (e) {
    if (e instanceof NotASmallFile) throw e;
    return '';
  }
}

/** The keys recorded for a host in every file (not @revoked or @cert-authority lines), in file order. */
export async function recordedKeys(files: string[], host: string, port: number): Promise<(RecordedKey & { blob: Buffer })[]> {
  const out: (RecordedKey & { blob: Buffer })[] = [];
  for (const file of files) {
    for (const e of parseKnownHosts(await readText(file))) {
      if (e.marker === '' && hostFieldMatches(e.hosts, host, port)) out.push({ type: e.type, fingerprint: fingerprint(e.blob), file, line: e.line, blob: e.blob });
    }
  }
  return out;
}

/**
 * Check a host key against every file, as OpenSSH does: a key marked @revoked is refused; a recorded
 * key equal to it anywhere makes it known; a host recorded with any other key, of the same type or
 * not, has changed (an impostor would otherwise only need a key of a type the file does not hold).
 * Only a host with no key at all is unknown.
 */
export async function checkHostKey(files: string[], host: string, port: number, keyBlob: Buffer): Promise<HostKeyStatus> {
  for (const file of files) {
    for (const e of parseKnownHosts(await readText(file))) {
      if (e.marker === '@revoked' && e.blob.equals(keyBlob) && hostFieldMatches(e.hosts, host, port)) return { status: 'revoked', file, line: e.line };
    }
  }
  const recorded = await recordedKeys(files, host, port);
  const same = recorded.find((r) => r.blob.equals(keyBlob));
  if (same) return { status: 'known', file: same.file };
  if (recorded.length) return { status: 'changed', file: recorded[0].file, line: recorded[0].line, recorded: recorded.map(({ blob: _blob, ...r }) => r) };
  return { status: 'unknown' };
}

/** ssh2's host key algorithms for a known_hosts key type (an RSA key is signed with SHA-2 first). */
const ALGORITHMS_FOR_TYPE: Record<string, string[]> = {
  'ssh-ed25519': ['ssh-ed25519'],
  'ecdsa-sha2-nistp256': ['ecdsa-sha2-nistp256'],
  'ecdsa-sha2-nistp384': ['ecdsa-sha2-nistp384'],
  'ecdsa-sha2-nistp521': ['ecdsa-sha2-nistp521'],
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};
const DEFAULT_ORDER = Object.values(ALGORITHMS_FOR_TYPE).flat();

/**
 * The host key algorithms to offer, those of the recorded keys first (as OpenSSH orders them): a
 * server holding several keys then presents the one known_hosts knows, so a key of another type
 * really is an impostor's and can be refused as changed.
 */
export function hostKeyAlgorithms(recordedTypes: string[]): string[] {
  const first = recordedTypes.flatMap((t) => ALGORITHMS_FOR_TYPE[t] ?? []);
  return [...new Set([...first, ...DEFAULT_ORDER])];
}

/** Remember an accepted key (hashed, like `HashKnownHosts yes`), so the name is not readable in the file. */
export async function addKnownHost(file: string, host: string, port: number, keyBlob: Buffer): Promise<void> {
  const salt = randomBytes(20);
  const hash = createHmac('sha1', salt).update(hostToken(host, port)).digest('base64');
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `|1|${salt.toString('base64')}|${hash} ${keyType(keyBlob)} ${keyBlob.toString('base64')}\n`, { mode: 0o600 });
}
