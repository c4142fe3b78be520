// Host key checking against known_hosts files, as OpenSSH does it: plain names, `[host]:port`
// for non-standard ports, hashed `|1|salt|hash` entries, simple `*`/`?` patterns and `!` negation.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export type HostKeyStatus =
  | { status: 'known'; file: string }
  | { status: 'unknown' }
  | { status: 'changed'; file: string; line: number }
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

async function readText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Check a host key against every file. A matching key anywhere makes it known; a recorded key of
 * the same type that differs (and no match) makes it changed: refuse, as OpenSSH does.
 */
export async function checkHostKey(files: string[], host: string, port: number, keyBlob: Buffer): Promise<HostKeyStatus> {
  const type = keyType(keyBlob);
  let changed: HostKeyStatus | null = null;
  for (const file of files) {
    for (const e of parseKnownHosts(await readText(file))) {
      if (e.marker === '@cert-authority' || !hostFieldMatches(e.hosts, host, port)) continue;
      const same = e.blob.equals(keyBlob);
      if (e.marker === '@revoked') {
        if (same) return { status: 'revoked', file, line: e.line };
        continue;
      }
      if (same) return { status: 'known', file };
      if (e.type === type && !changed) changed = { status: 'changed', file, line: e.line };
    }
  }
  return changed ?? { status: 'unknown' };
}

/** Remember an accepted key (hashed, like `HashKnownHosts yes`), so the name is not readable in the file. */
export async function addKnownHost(file: string, host: string, port: number, keyBlob: Buffer): Promise<void> {
  const salt = randomBytes(20);
  const hash = createHmac('sha1', salt).update(hostToken(host, port)).digest('base64');
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `|1|${salt.toString('base64')}|${hash} ${keyType(keyBlob)} ${keyBlob.toString('base64')}\n`, { mode: 0o600 });
}
