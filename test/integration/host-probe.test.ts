// The host layer against a real OpenSSH sshd on 127.0.0.1: `varlab probe` as a user runs it,
// host keys (unknown, accepted, changed), an ~/.ssh/config alias through a ProxyJump, and a drop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { openTarget } from '../../src/node/host/index.js';
import { CLI } from '../fixtures/cli.js';

let sshd: Sshd;
let dir: string;

before(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), 'varlab-host-probe-'));
});
after(async () => {
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `varlab ARGS` as a child process, with its own varlab home and HOME (so ~/.ssh is the test's). */
function varlab(args: string[], env: Record<string, string> = {}) {
  const home = join(dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  const r = spawnSync(process.execPath, [...CLI, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, HOME: home, VARLAB_HOME: join(dir, 'varlab'), SSH_AUTH_SOCK: '', ...env },
    timeout: 60000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('varlab probe --json prints the host fingerprint over SSH', () => {
  const r = varlab(['probe', sshd.target, '--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const fp = JSON.parse(r.stdout) as HostFingerprint;
  assert.equal(fp.target, sshd.target);
  assert.equal(fp.kernel, execFileSync('uname', ['-sr'], { encoding: 'utf8' }).trim());
  assert.equal(fp.threads, Number(execFileSync('nproc', ['--all'], { encoding: 'utf8' }).trim()));
  assert.ok(fp.numaNodes.length >= 1, 'at least one NUMA node');
  assert.equal(fp.aslr, readFileSync('/proc/sys/kernel/randomize_va_space', 'utf8').trim());
  assert.equal(fp.mysqld?.flavor, 'mariadb');
  assert.equal(fp.tools.numactl, true);
  assert.equal(fp.sudoWithoutPassword, true, 'root needs no sudo');
});

test('without --json the probe is readable text', () => {
  const r = varlab(['probe', sshd.target, '--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^topology +\d+ socket\(s\), \d+ core\(s\), \d+ thread\(s\)$/m);
  assert.match(r.stdout, /^mysqld +mariadb /m);
});

test('an unknown host key without a terminal fails and names --accept-new; --accept-new remembers it', () => {
  const refused = varlab(['probe', sshd.target, '--identity', sshd.keyFile]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /can't be established.*SHA256:/);
  assert.ok(refused.stderr.includes(sshd.hostKeyFingerprint), 'shows the fingerprint');
  assert.match(refused.stderr, /--accept-new/);
  const accepted = varlab(['probe', sshd.target, '--identity', sshd.keyFile, '--accept-new', '--json']);
  assert.equal(accepted.code, 0, accepted.stderr);
  // Now in varlab's own known_hosts: no flag needed the next time.
  const again = varlab(['probe', sshd.target, '--identity', sshd.keyFile, '--json']);
  assert.equal(again.code, 0, again.stderr);
});

test('a changed host key is refused with a non-zero exit and a message that says so', () => {
  const otherKey = join(dir, 'other_host_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', otherKey]);
  const pub = readFileSync(otherKey + '.pub', 'utf8').split(' ').slice(0, 2).join(' ');
  const wrong = join(dir, 'wrong_known_hosts');
  writeFileSync(wrong, `[127.0.0.1]:${sshd.port} ${pub}\n`);
  // A fresh varlab home: a key accepted by an earlier test would count as known (as in OpenSSH, a match anywhere wins).
  const r = varlab(['probe', sshd.target, '--identity', sshd.keyFile, '--known-hosts', wrong, '--accept-new'], { VARLAB_HOME: join(dir, 'varlab-fresh') });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /host key of \[127\.0\.0\.1\]:\d+ has CHANGED/);
  assert.match(r.stderr, /ssh-keygen -R/);
  assert.equal(r.stdout, '');
});

test('without a usable key the login fails and says what was tried', () => {
  const r = varlab(['probe', sshd.target, '--known-hosts', sshd.knownHostsFile]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /root@127\.0\.0\.1:\d+: authentication failed \(tried: agent, key files, password\)\. Pass --identity KEY/);
});

test('an ~/.ssh/config alias reaches the host through a ProxyJump hop', () => {
  const config = ['Host jump', '  HostName 127.0.0.1', `  Port ${sshd.port}`, '  User root', `  IdentityFile ${sshd.keyFile}`, 'Host benchbox', '  HostName 127.0.0.1', `  Port ${sshd.port}`, '  User root', `  IdentityFile ${sshd.keyFile}`, '  ProxyJump jump', ''].join('\n');
  mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
  writeFileSync(join(dir, 'home', '.ssh', 'config'), config);
  const r = varlab(['probe', 'benchbox', '--known-hosts', sshd.knownHostsFile, '--json']);
  rmSync(join(dir, 'home', '.ssh', 'config'));
  assert.equal(r.code, 0, r.stderr);
  assert.equal((JSON.parse(r.stdout) as HostFingerprint).target, 'benchbox');
});

test('a dropped connection is reported at once through onDrop', async () => {
  const session = await openTarget(sshd.target, { auth: { identity: sshd.keyFile, knownHosts: sshd.knownHostsFile }, prompt: async () => ({ accept: false }) });
  const dropped = new Promise<Error>((resolve) => session.onDrop(resolve));
  assert.equal((await session.exec('echo hi')).stdout, 'hi\n');
  // Kill this connection's sshd child (the per-connection process), as a network failure would.
  const children = readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(sshd.pid);
    } catch {
      return false;
    }
  });
  assert.ok(children.length >= 1, 'the connection has its own sshd process');
  for (const pid of children) process.kill(Number(pid), 'SIGKILL');
  const err = await dropped;
  assert.match(err.message, /connection to ssh:\/\/root@127\.0\.0\.1:\d+ dropped/);
  await assert.rejects(session.exec('true'), /dropped/);
  await session.close();
});

test('an encrypted key file: the passphrase is asked through the prompter, and used', async () => {
  const key = join(dir, 'encrypted_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'correct horse', '-f', key]);
  appendFileSync(join(sshd.dir, 'authorized_keys'), readFileSync(key + '.pub'));
  const asked: string[] = [];
  const session = await openTarget(sshd.target, {
    auth: { identity: key, knownHosts: sshd.knownHostsFile },
    prompt: async (p) => {
      asked.push(p.kind);
      return { accept: true, secret: 'correct horse' };
    },
  });
  assert.equal((await session.exec('echo in')).stdout, 'in\n');
  await session.close();
  assert.deepEqual(asked, ['passphrase']);
});

test('ssh-agent: a key held by the agent logs in without --identity', async () => {
  const sock = join(dir, 'agent.sock');
  const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 200 && !existsSync(sock); i++) await new Promise((r) => setTimeout(r, 10));
    execFileSync('ssh-add', ['-q', sshd.keyFile], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
    const r = varlab(['probe', sshd.target, '--known-hosts', sshd.knownHostsFile, '--json'], { SSH_AUTH_SOCK: sock });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as HostFingerprint).target, sshd.target);
  } finally {
    agent.kill('SIGTERM');
  }
});
