// A passphrase kept in the keychain when the user asks (issue 3, point 1), through the API's prompt
// flow against a real sshd: asked once with "remember", not asked on the next probe, and nothing
// secret in any file under VARLAB_HOME. The keychain is an in-memory SecretStore here, a stand-in
// for Electron's safeStorage, which cannot run on this machine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import type { Prompt } from '../../src/common/api.js';
import { createBackend } from '../../src/node/backend.js';
import { createMemorySecretStore, useSecretStore } from '../../src/node/secrets.js';
import { connectSsh } from '../../src/node/ssh/connect.js';
import { parseTarget } from '../../src/node/ssh/target.js';

const PASSPHRASE = 'tr0ub4dor &3 passphrase';
let sshd: Sshd;
let dir: string;
let key: string;

before(async () => {
  delete process.env.SSH_AUTH_SOCK; // the key file, not an agent, must log in
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), 'varlab-keychain-'));
  process.env.VARLAB_HOME = join(dir, 'varlab');
  key = join(dir, 'encrypted_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', PASSPHRASE, '-f', key]);
  appendFileSync(join(sshd.dir, 'authorized_keys'), readFileSync(key + '.pub'));
});
after(async () => {
  useSecretStore(null);
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function filesUnder(root: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    out = statSync(p).isDirectory() ? out.concat(filesUnder(p)) : out.concat(p);
  }
  return out;
}

test('remember in the keychain: the passphrase is asked once, then taken from the keychain, never written to VARLAB_HOME', { timeout: 120_000 }, async () => {
  const keychain = createMemorySecretStore('encrypted');
  useSecretStore(keychain);
  const backend = createBackend({ transport: 'electron' });
  const asked: Prompt[] = [];
  // The UI's part: answer each question as a person would, ticking "remember" for the passphrase.
  backend.on('prompt', (p) => {
    asked.push(p);
    void backend.call('prompt.answer', { id: p.id, accept: true, ...(p.kind === 'passphrase' ? { secret: PASSPHRASE, remember: true } : { remember: true }) });
  });
  try {
    const info = await backend.call('app.info', {});
    assert.ok(info.ok && info.value.keychain === 'encrypted', 'the UI is told it may offer "remember"');
    // No known_hosts given: the unknown host key is accepted and remembered in varlab's own file,
    // so VARLAB_HOME has files written during the very connection that used the passphrase.
    const auth = { identity: key };
    const first = await backend.call('host.probe', { target: sshd.target, auth });
    assert.ok(first.ok, first.ok ? '' : first.message);
    assert.deepEqual(asked.map((p) => p.kind), ['host-key', 'passphrase']);
    assert.deepEqual(keychain.keys(), [`key:${key}`]);

    const second = await backend.call('host.probe', { target: sshd.target, auth });
    assert.ok(second.ok, second.ok ? '' : second.message);
    assert.equal(asked.length, 2, 'the second probe was not asked: the keychain answered');

    const home = process.env.VARLAB_HOME!;
    const files = filesUnder(home);
    assert.ok(files.length > 0, 'varlab wrote its own files (known hosts)');
    for (const f of files) assert.ok(!readFileSync(f, 'utf8').includes(PASSPHRASE), `${f} holds the passphrase`);
  } finally {
    await backend.dispose();
  }
});

test('a wrong kept passphrase is removed and the person asked next time', { timeout: 120_000 }, async () => {
  const keychain = createMemorySecretStore('encrypted');
  await keychain.set(`key:${key}`, 'not the passphrase');
  useSecretStore(keychain);
  const backend = createBackend({ transport: 'electron' });
  const asked: string[] = [];
  backend.on('prompt', (p) => {
    asked.push(p.kind);
    void backend.call('prompt.answer', { id: p.id, accept: true, secret: PASSPHRASE });
  });
  try {
    const auth = { identity: key, knownHosts: sshd.knownHostsFile };
    const first = await backend.call('host.probe', { target: sshd.target, auth });
    assert.ok(!first.ok && first.code === 'auth');
    assert.match(first.message, /kept in the keychain was refused and has been removed/);
    assert.deepEqual(asked, [], 'the kept one was tried first');
    assert.deepEqual(keychain.keys(), []);
    const second = await backend.call('host.probe', { target: sshd.target, auth });
    assert.ok(second.ok, second.ok ? '' : second.message);
    assert.deepEqual(asked, ['passphrase']);
    assert.deepEqual(keychain.keys(), [], 'answered without remember: nothing kept');
  } finally {
    await backend.dispose();
  }
});

/** A page of browser mode: its socket, the prompts it was sent, and a call. */
async function page(server: { port: number; token: string }) {
  const { WebSocket } = await import('ws');
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api?token=${server.token}`, { origin: `http://127.0.0.1:${server.port}` });
  await new Promise((ok, fail) => (ws.once('open', ok), ws.once('error', fail)));
  const prompts: Prompt[] = [];
  const waiting = new Map<number, (r: { ok: boolean; code?: string; message?: string }) => void>();
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    if (msg.event === 'prompt') prompts.push(msg.payload);
    else if (typeof msg.id === 'number') waiting.get(msg.id)?.(msg.result);
  });
  let n = 0;
  const call = (method: string, args: unknown) =>
    new Promise<{ ok: boolean; code?: string; message?: string }>((resolve) => {
      const id = ++n;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, args }));
    });
  return { ws, prompts, call };
}

const until = async (what: () => boolean, ms = 60_000) => {
  for (const end = Date.now() + ms; !what(); ) {
    if (Date.now() > end) throw new Error('waited too long');
    await new Promise((r) => setTimeout(r, 50));
  }
};

test('a question goes to the page that asked, is answered only by it, and one nobody answers ends with a message', { timeout: 120_000 }, async () => {
  useSecretStore(null);
  const { startServer } = await import('../../src/node/transport/websocket-server.js');
  const server = await startServer({ backend: createBackend({ transport: 'websocket', promptMs: 3_000 }) });
  const asker = await page(server);
  const other = await page(server);
  try {
    const auth = { identity: key, knownHosts: sshd.knownHostsFile };
    const probe = asker.call('host.probe', { target: sshd.target, auth });
    await until(() => asker.prompts.length === 1);
    const [asked] = asker.prompts;
    assert.equal(asked.kind, 'passphrase');
    // The other page is not told a passphrase is asked for, and cannot answer it.
    const stolen = await other.call('prompt.answer', { id: asked.id, accept: true, secret: 'guess' });
    assert.deepEqual([stolen.ok, stolen.code], [false, 'not-found']);
    assert.deepEqual(other.prompts, []);
    const answered = await asker.call('prompt.answer', { id: asked.id, accept: true, secret: PASSPHRASE });
    assert.equal(answered.ok, true);
    const done = await probe;
    assert.equal(done.ok, true, done.message);

    // Nobody answers: the probe ends with the reason after the prompt's time (3 s here), not never.
    const unanswered = await asker.call('host.probe', { target: sshd.target, auth });
    assert.equal(unanswered.ok, false);
    assert.match(unanswered.message!, /nobody answered "Passphrase for .*" within 3 s/);
    assert.equal(other.prompts.length, 0);
  } finally {
    asker.ws.close();
    other.ws.close();
    await server.close();
  }
});

test('the handshake timeout counts only the waits on the server: a passphrase typed after it has gone by still logs in', { timeout: 120_000 }, async () => {
  // A person slower than the timeout, as a loaded machine decrypting the key is: neither is the server's time.
  const TIMEOUT_MS = 5000;
  const spec = parseTarget(sshd.target, join(dir, 'no-ssh-config'));
  assert.equal(spec.kind, 'ssh');
  if (spec.kind !== 'ssh') return;
  const asked: string[] = [];
  const { client, hops } = await connectSsh(spec.endpoint, {
    auth: { identity: key, knownHosts: sshd.knownHostsFile },
    handshakeTimeoutMs: TIMEOUT_MS,
    prompt: async (p) => {
      asked.push(p.kind);
      await new Promise((r) => setTimeout(r, TIMEOUT_MS + 1000));
      return { accept: true, secret: PASSPHRASE };
    },
  });
  try {
    assert.deepEqual(asked, ['passphrase']);
    assert.deepEqual(hops, []);
  } finally {
    client.end();
  }
});
