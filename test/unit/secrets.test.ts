// The node side of keeping secrets in the keychain (issue 3, point 1): the blob store writes only
// ciphertext, the host layer's prompter takes a kept secret first, keeps one only after the
// connection succeeded and forgets one the server refused; without a keychain nothing is kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/common/api.js';
import { createBackend } from '../../src/node/backend.js';
import { keychainPrompter, secretKeyFor } from '../../src/node/host/keychain.js';
import type { Prompter } from '../../src/node/host/types.js';
import { createBlobSecretStore, createMemorySecretStore, keychainState, useSecretStore, type Cipher } from '../../src/node/secrets.js';

/** A real cipher standing in for safeStorage (AES-256-GCM, a key held in memory only). */
function testCipher(): Cipher {
  const key = randomBytes(32);
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]);
    },
    decrypt(blob) {
      const d = createDecipheriv('aes-256-gcm', key, blob.subarray(0, 12));
      d.setAuthTag(blob.subarray(12, 28));
      return Buffer.concat([d.update(blob.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

const SECRET = 'correct horse battery staple';

test('the blob store keeps only ciphertext, in a file only its owner can read', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-secrets-'));
  try {
    const path = join(dir, 'secrets.json');
    const store = createBlobSecretStore({ path, kind: 'encrypted', cipher: testCipher() });
    await store.set('ssh:root@db1', SECRET);
    assert.equal(await store.get('ssh:root@db1'), SECRET);
    const text = readFileSync(path, 'utf8');
    assert.ok(!text.includes(SECRET) && !text.includes(Buffer.from(SECRET).toString('base64')), 'no plain or base64 secret in the file');
    assert.ok(text.includes('ssh:root@db1'), 'keys name what a secret is for');
    assert.equal(statSync(path).mode & 0o077, 0, 'not readable by group or others');
    await store.delete('ssh:root@db1');
    assert.equal(await store.get('ssh:root@db1'), null);
    // A blob the keychain cannot open any more is as good as none: the person is asked again.
    const other = createBlobSecretStore({ path, kind: 'encrypted', cipher: testCipher() });
    await store.set('k', SECRET);
    assert.equal(await other.get('k'), null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('secret keys: a login by user@host (a bastion and the target differ), a passphrase by key file', () => {
  assert.equal(secretKeyFor('db1', { kind: 'password', title: 'Password for root@10.0.0.5' }), 'ssh:root@10.0.0.5');
  assert.equal(secretKeyFor('db1', { kind: 'passphrase', title: 'Passphrase for /home/me/.ssh/id_ed25519' }), 'key:/home/me/.ssh/id_ed25519');
});

/** A person who answers with `answer` and counts the questions. */
function person(answer: Awaited<ReturnType<Prompter>>) {
  const asked: string[] = [];
  const prompt: Prompter = async (p) => {
    asked.push(p.kind);
    return answer;
  };
  return { asked, prompt };
}

const PASSWORD = { kind: 'password' as const, title: 'Password for root@db1', message: 'Password for root@db1:22' };

test('remember: kept only after the connection succeeded, then used without asking', async () => {
  const store = createMemorySecretStore();
  const p1 = person({ accept: true, secret: SECRET, remember: true });
  const kc1 = keychainPrompter('db1', p1.prompt, store);
  // A failed connection keeps nothing (the password may have been mistyped).
  await assert.rejects(kc1.guard(async () => {
    await kc1.prompt(PASSWORD);
    throw new ApiError('auth', 'authentication failed');
  }));
  assert.deepEqual(store.keys(), []);
  await kc1.guard(async () => kc1.prompt(PASSWORD));
  assert.equal(await store.get('ssh:root@db1'), SECRET);

  const p2 = person({ accept: false });
  const kc2 = keychainPrompter('db1', p2.prompt, store);
  const a = await kc2.guard(async () => kc2.prompt(PASSWORD));
  assert.deepEqual(a, { accept: true, secret: SECRET });
  assert.deepEqual(p2.asked, [], 'the kept password answered, nobody was asked');
});

test('a kept secret the server refuses is removed and the message says so; without remember nothing is kept', async () => {
  const store = createMemorySecretStore();
  await store.set('ssh:root@db1', 'old password');
  const p = person({ accept: true, secret: SECRET });
  const kc = keychainPrompter('db1', p.prompt, store);
  await assert.rejects(
    kc.guard(async () => {
      await kc.prompt(PASSWORD);
      throw new ApiError('auth', 'authentication failed');
    }),
    (e: ApiError) => e.code === 'auth' && /kept in the keychain was refused and has been removed/.test(e.message) && !e.message.includes('old password'),
  );
  assert.equal(await store.get('ssh:root@db1'), null);
  // Asked now, answered without remember: nothing kept.
  const kc2 = keychainPrompter('db1', p.prompt, store);
  await kc2.guard(async () => kc2.prompt(PASSWORD));
  assert.deepEqual(p.asked, ['password']);
  assert.deepEqual(store.keys(), []);
});

test('no keychain (browser mode, CLI): app.info says none and prompt.answer refuses remember with a clear message', async () => {
  useSecretStore(null);
  const backend = createBackend({ transport: 'websocket' });
  try {
    const info = await backend.call('app.info', {});
    assert.ok(info.ok && info.value.keychain === 'none');
    const r = await backend.call('prompt.answer', { id: 'x', accept: true, secret: SECRET, remember: true });
    assert.ok(!r.ok && r.code === 'unsupported');
    assert.match(r.message, /only the desktop app keeps secrets/);
    assert.ok(!r.message.includes(SECRET));
    useSecretStore(createMemorySecretStore('plain-text'));
    assert.equal(keychainState(), 'plain-text');
    const info2 = await backend.call('app.info', {});
    assert.ok(info2.ok && info2.value.keychain === 'plain-text', 'the UI is told to warn');
  } finally {
    useSecretStore(null);
    await backend.dispose();
  }
});
