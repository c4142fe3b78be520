import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addKnownHost, checkHostKey, fingerprint, hostFieldMatches, hostKeyAlgorithms, keyType } from '../../src/node/ssh/knownhosts.js';
import { parseTarget } from '../../src/node/ssh/target.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-ssh-unit-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A public key blob (string type, string key) of the given type: ssh-ed25519 unless told. */
function blob(seed: number, typeName = 'ssh-ed25519'): Buffer {
  const type = Buffer.from(typeName);
  const key = Buffer.alloc(32, seed);
  const b = Buffer.alloc(4 + type.length + 4 + 32);
  b.writeUInt32BE(type.length, 0);
  type.copy(b, 4);
  b.writeUInt32BE(32, 4 + type.length);
  key.copy(b, 8 + type.length);
  return b;
}

test('targets: ssh:// URLs, bare hosts and local', () => {
  assert.deepEqual(parseTarget('local'), { kind: 'local' });
  const t = parseTarget('ssh://bob@db1.example.com:2222', '/nonexistent');
  assert.equal(t.kind, 'ssh');
  if (t.kind !== 'ssh') return;
  assert.equal(t.endpoint.host, 'db1.example.com');
  assert.equal(t.endpoint.port, 2222);
  assert.equal(t.endpoint.user, 'bob');
});

test('targets: a bad one is refused with what is wrong', () => {
  assert.throws(() => parseTarget('ssh://a b', '/nonexistent'), /host name "a b" is not valid|expected \[user@\]host/);
  assert.throws(() => parseTarget('ssh://x:99999', '/nonexistent'), /port 99999 is out of range/);
  assert.throws(() => parseTarget('http://x', '/nonexistent'), /only ssh:\/\/ targets/);
});

test('targets: ~/.ssh/config aliases with HostName, User, Port, IdentityFile and a ProxyJump chain', () => {
  const cfg = join(dir, 'config');
  writeFileSync(
    cfg,
    ['Host db', '  HostName 10.0.0.5', '  User bench', '  Port 2200', '  IdentityFile /keys/db', '  ProxyJump jump2', 'Host jump2', '  HostName j2.example.com', '  ProxyJump ops@jump1:2022', 'Host jump1', '  HostName j1.example.com', ''].join('\n'),
  );
  const t = parseTarget('db', cfg);
  assert.equal(t.kind, 'ssh');
  if (t.kind !== 'ssh') return;
  assert.equal(t.endpoint.host, '10.0.0.5');
  assert.equal(t.endpoint.port, 2200);
  assert.equal(t.endpoint.user, 'bench');
  assert.deepEqual(t.endpoint.identityFiles, ['/keys/db']);
  assert.deepEqual(
    t.endpoint.jumps.map((j) => `${j.user}@${j.host}:${j.port}`),
    [`ops@j1.example.com:2022`, `${t.endpoint.jumps[1].user}@j2.example.com:22`],
  );
  // The user on the command line wins over the config.
  const u = parseTarget('ssh://root@db', cfg);
  assert.equal(u.kind === 'ssh' && u.endpoint.user, 'root');
});

test('known_hosts: plain, [host]:port, patterns and hashed entries', () => {
  assert.ok(hostFieldMatches('db1,10.0.0.5', '10.0.0.5', 22));
  assert.ok(hostFieldMatches('[127.0.0.1]:2222', '127.0.0.1', 2222));
  assert.ok(!hostFieldMatches('127.0.0.1', '127.0.0.1', 2222), 'a plain name is for port 22 only');
  assert.ok(hostFieldMatches('*.example.com', 'db.example.com', 22));
  assert.ok(!hostFieldMatches('*.example.com,!db.example.com', 'db.example.com', 22));
  const salt = Buffer.alloc(20, 7);
  const hash = createHmac('sha1', salt).update('[10.1.1.1]:2200').digest('base64');
  assert.ok(hostFieldMatches(`|1|${salt.toString('base64')}|${hash}`, '10.1.1.1', 2200));
  assert.ok(!hostFieldMatches(`|1|${salt.toString('base64')}|${hash}`, '10.1.1.2', 2200));
});

test('known_hosts: known, unknown, changed (same type, other key) and revoked', async () => {
  const file = join(dir, 'known_hosts');
  const k1 = blob(1);
  const k2 = blob(2);
  writeFileSync(file, `# comment\n[db]:2222 ssh-ed25519 ${k1.toString('base64')}\n@revoked bad ssh-ed25519 ${k2.toString('base64')}\n`);
  assert.equal((await checkHostKey([file], 'db', 2222, k1)).status, 'known');
  assert.equal((await checkHostKey([file], 'other', 22, k1)).status, 'unknown');
  const changed = await checkHostKey([file], 'db', 2222, k2);
  assert.equal(changed.status, 'changed');
  assert.equal(changed.status === 'changed' && changed.line, 2);
  assert.equal((await checkHostKey([file], 'bad', 22, k2)).status, 'revoked');
  // A missing file is simply empty.
  assert.equal((await checkHostKey([join(dir, 'none')], 'db', 2222, k1)).status, 'unknown');
});

test('an accepted key is remembered hashed, and then known', async () => {
  const file = join(dir, 'varlab_known_hosts');
  const k = blob(3);
  await addKnownHost(file, 'newhost', 2022, k);
  const text = readFileSync(file, 'utf8');
  assert.ok(text.startsWith('|1|'), 'hashed');
  assert.ok(!text.includes('newhost'), 'the name is not readable');
  assert.equal((await checkHostKey([file], 'newhost', 2022, k)).status, 'known');
  assert.equal(keyType(k), 'ssh-ed25519');
  assert.match(fingerprint(k), /^SHA256:[A-Za-z0-9+/]{43}$/);
});

test('known_hosts: a key of another type for a known host is changed, not new, and names the recorded keys', async () => {
  const file = join(dir, 'known_hosts_types');
  const ed = blob(4);
  const rsa = blob(5, 'ssh-rsa');
  writeFileSync(file, `[db]:2222 ssh-ed25519 ${ed.toString('base64')}\n`);
  const r = await checkHostKey([join(dir, 'none'), file], 'db', 2222, rsa);
  assert.equal(r.status, 'changed');
  assert.deepEqual(r.status === 'changed' && r.recorded, [{ type: 'ssh-ed25519', fingerprint: fingerprint(ed), file, line: 1 }]);
  // Known by one of its keys: known, whatever other types are recorded.
  writeFileSync(file, `[db]:2222 ssh-ed25519 ${ed.toString('base64')}\n[db]:2222 ssh-rsa ${rsa.toString('base64')}\n`);
  assert.equal((await checkHostKey([file], 'db', 2222, rsa)).status, 'known');
  // A key marked @revoked is refused even where another line knows it.
  writeFileSync(file, `[db]:2222 ssh-rsa ${rsa.toString('base64')}\n@revoked * ssh-rsa ${rsa.toString('base64')}\n`);
  assert.equal((await checkHostKey([file], 'db', 2222, rsa)).status, 'revoked');
});

test('host key algorithms: the recorded types first (as OpenSSH orders them), then the rest once each', () => {
  assert.deepEqual(hostKeyAlgorithms(['ssh-rsa']).slice(0, 4), ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519']);
  assert.equal(hostKeyAlgorithms([])[0], 'ssh-ed25519');
  assert.equal(new Set(hostKeyAlgorithms(['ssh-ed25519', 'ssh-rsa', 'unknown-type'])).size, hostKeyAlgorithms([]).length);
});
