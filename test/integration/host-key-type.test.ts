// Host keys as OpenSSH treats them, against the real sandbox sshd: a known host that presents a key of
// another type is an impostor (refused as changed, with the old and new fingerprints), not a new host,
// even with --accept-new, and also when a run reconnects to it in the middle. A host that holds several
// keys is still recognised by the one known_hosts records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkHostKey } from '../../src/node/ssh/knownhosts.js';
import { assertComplete, countJournal } from './run-journal-check.js';
import { keepCells, quickstartCopy, runEnvForTests, sshdSessions, varlabRun, varlabSync } from './run-env.js';

const env = runEnvForTests();

const varlabKnownHosts = () => join(env.varlabHome, 'known_hosts');
const changedMessage = /REMOTE HOST IDENTIFICATION HAS CHANGED/;

/** Whatever varlab remembered on its own must not include the impostor's key. */
async function assertImpostorNotRemembered() {
  const rsa = env.sshd.hostKey('rsa').publicKey.split(' ')[1];
  assert.ok(!existsSync(varlabKnownHosts()) || !readFileSync(varlabKnownHosts(), 'utf8').includes(rsa), "the impostor's key was not added to varlab's known_hosts");
  const status = await checkHostKey([env.sshd.knownHostsFile, varlabKnownHosts()], '127.0.0.1', env.sshd.port, Buffer.from(rsa, 'base64'));
  assert.equal(status.status, 'changed');
}

test('a known host presenting an RSA key instead of its ed25519 key is refused as changed, even with --accept-new', async () => {
  await env.sshd.useHostKeys(['rsa']);
  try {
    const r = varlabSync(['probe', env.sshd.target, ...env.authArgs, '--accept-new'], env.varlabHome);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, changedMessage);
    assert.ok(r.stderr.includes(`ssh-rsa key ${env.sshd.hostKey('rsa').fingerprint}`), `names the new key: ${r.stderr}`);
    assert.ok(r.stderr.includes(`ssh-ed25519 key ${env.sshd.hostKey('ed25519').fingerprint}`), `names the recorded key: ${r.stderr}`);
    assert.ok(r.stderr.includes(`${env.sshd.knownHostsFile}:1`), 'says where the recorded key is');
    assert.match(r.stderr, /--accept-new only adds hosts with no recorded key/);
    assert.equal(r.stdout, '');
    await assertImpostorNotRemembered();
  } finally {
    await env.sshd.useHostKeys(['ed25519']);
  }
});

test('a host with both an ed25519 and an RSA key is recognised by whichever one known_hosts records', async () => {
  await env.sshd.useHostKeys(['ed25519', 'rsa']);
  try {
    const rsaOnly = join(env.dir, 'known_hosts_rsa');
    writeFileSync(rsaOnly, `[127.0.0.1]:${env.sshd.port} ${env.sshd.hostKey('rsa').publicKey}\n`);
    for (const knownHosts of [rsaOnly, env.sshd.knownHostsFile]) {
      const r = varlabSync(['probe', env.sshd.target, '--identity', env.sshd.keyFile, '--known-hosts', knownHosts, '--json'], join(env.dir, 'fresh-home'));
      assert.equal(r.code, 0, `${knownHosts}: ${r.stderr}`);
      assert.equal(JSON.parse(r.stdout).target, env.sshd.target);
    }
  } finally {
    await env.sshd.useHostKeys(['ed25519']);
  }
});

test('a run that reconnects mid-run to a host now presenting a key of another type stops with the key refused; the next run resumes and completes', { timeout: 300_000 }, async () => {
  const cells = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=on,numa=interleave'];
  const file = quickstartCopy(env, 'impostor', (d) => keepCells(d, cells));
  const args = [file, '--target', env.sshd.target, ...env.authArgs, '--accept-new', '--restarts', '2', '--repetitions', '3', '--warmup', '0'];
  const run = varlabRun(args, env.varlabHome);
  await run.waitFor((e) => e.type === 'execution' && e.seq === 2);
  // The impostor takes the address, and the connection drops: varlab must not reconnect to it.
  await env.sshd.useHostKeys(['rsa']);
  for (const pid of sshdSessions(env.sshd.pid)) process.kill(pid, 'SIGKILL');
  const code = await run.exit;
  assert.notEqual(code, 0, 'the run does not finish on the impostor');
  assert.match(run.stderr(), changedMessage);
  assert.ok(run.stderr().includes(env.sshd.hostKey('rsa').fingerprint), run.stderr());
  assert.ok(!run.events.some((e) => e.type === 'log' && /^reconnected/.test(e.message)), 'never reconnected');
  assert.ok(!run.events.some((e) => e.type === 'restart-finished' && e.seq > 2), 'nothing ran on the impostor');
  await assertImpostorNotRemembered();
  const journal = file.replace(/\.json$/, '.journal.jsonl');
  // The restart in progress when the link went (2, or 3 when 2 ended first: a restart is quick) is discarded, not kept short.
  const count = countJournal(journal);
  assert.equal(count.discarded.length, 1, JSON.stringify(count.discarded));
  assert.ok(count.discarded[0].seq >= 2 && !count.finished.has(count.discarded[0].seq), 'the interrupted restart is discarded, not kept short');

  // The real host is back: the same command resumes and completes the plan, nothing lost or repeated.
  await env.sshd.useHostKeys(['ed25519']);
  const again = varlabRun(args, env.varlabHome);
  assert.equal(await again.exit, 0, again.stderr());
  assertComplete(file, journal, 2, 3);
});
