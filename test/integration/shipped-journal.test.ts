// A journal never chooses trust (issue 24, item 3). A file and its journal shipped from another
// machine name a key and an impostor's known_hosts file: `varlab status` and `attach` do not use
// them (this machine has no record of launching the run), say so, and check the host key against
// the user's own known_hosts and varlab's own, so the impostor (the sandbox sshd presenting another
// host key) is refused and nothing logs in. A journal naming /dev/zero is not read at all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostFingerprint } from '../../src/common/host.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { shipDetachedRun } from '../fixtures/shipped-run.js';
import { CLI } from '../fixtures/cli.js';

let sshd: Sshd;
let dir: string;
/** This machine: its own HOME (~/.ssh/known_hosts knows the real host key) and VARLAB_HOME. */
let home: string;
let varlabHome: string;
let host: HostFingerprint;

function varlab(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [...CLI, ...args], { env: { ...process.env, HOME: home, VARLAB_HOME: varlabHome, SSH_AUTH_SOCK: '' }, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

const logins = () => (sshd.log().match(/Accepted publickey/g) ?? []).length;

before(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), 'varlab-shipped-'));
  home = join(dir, 'home');
  varlabHome = join(dir, 'varlab-home');
  mkdirSync(join(home, '.ssh'), { recursive: true, mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'known_hosts'), `[127.0.0.1]:${sshd.port} ${sshd.hostKey('ed25519').publicKey}\n`);
  const probe = varlab(['probe', sshd.target, '--identity', sshd.keyFile, '--json']);
  assert.equal(probe.code, 0, probe.stderr);
  host = JSON.parse(probe.stdout) as HostFingerprint;
  // From now on the address answers with another host key: an impostor.
  await sshd.useHostKeys(['rsa']);
});
after(async () => {
  await sshd.stop();
  rmSync(dir, { recursive: true, force: true });
});

test("a shipped journal's impostor known_hosts does not let status or attach connect to the impostor", { timeout: 300_000 }, () => {
  const shipped = join(dir, 'shipped');
  mkdirSync(shipped);
  const impostorKnownHosts = join(shipped, 'known_hosts');
  writeFileSync(impostorKnownHosts, `[127.0.0.1]:${sshd.port} ${sshd.hostKey('rsa').publicKey}\n`);
  const run = shipDetachedRun({ dir: shipped, name: 'teammate', target: sshd.target, host, auth: { identity: sshd.keyFile, knownHosts: impostorKnownHosts } });
  const before = logins();
  for (const command of ['status', 'attach']) {
    const r = varlab([command, run.file]);
    assert.equal(r.code, 1, `${command}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, new RegExp(`this computer did not launch run ${run.runId} .*: the key ${sshd.keyFile} and the known_hosts file ${impostorKnownHosts} named by the journal ${run.journal} are not used; connecting to ${sshd.target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} with ~/.ssh/config and your default keys`));
    assert.match(r.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED/);
    assert.match(r.stderr, new RegExp(`records ssh-ed25519 key ${sshd.hostKey('ed25519').fingerprint.replace(/[+/]/g, '\\$&')} \\(${join(home, '.ssh', 'known_hosts')}:1\\)`));
  }
  assert.equal(logins(), before, 'nothing logged in to the impostor');
});

test('a shipped journal naming /dev/zero as key and known_hosts: not read, said, and the user chooses with --identity', { timeout: 300_000 }, () => {
  const shipped = join(dir, 'zero');
  const run = shipDetachedRun({ dir: shipped, name: 'zero', target: sshd.target, host, auth: { identity: '/dev/zero', knownHosts: '/dev/zero' } });
  const r = varlab(['status', run.file]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /the key \/dev\/zero and the known_hosts file \/dev\/zero named by the journal .* are not used/);
  assert.doesNotMatch(r.stderr, /not a regular file/);
  // The user's own choice is used (and a key named on the command line is still read bounded).
  const own = varlab(['status', run.file, '--identity', '/dev/zero']);
  assert.equal(own.code, 1);
  assert.doesNotMatch(own.stderr, /did not launch/);
  assert.match(own.stderr, /REMOTE HOST IDENTIFICATION HAS CHANGED|the key file \/dev\/zero is not a regular file/);
});
