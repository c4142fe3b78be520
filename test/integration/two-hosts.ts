// Two hosts for the several-host integration tests: the sandbox sshd with its sandbox mariadbd, and a
// second sshd on another port with a sandbox mariadbd of its own (its own directory, port and socket;
// both on this machine). Each host has its own client key and known-hosts file, and neither key logs
// in to the other host.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { alive, exited, shortQuickstartCopy, startRunEnv, varlabSync, type RunEnv } from './run-env.js';

export interface TwoHosts {
  env: RunEnv;
  second: Sshd;
  /** Each host its own key and known-hosts file, in the order of the --targets. */
  authArgs: string[];
  /** The server profile registry (the second host's sandbox is registered there). */
  profiles: string;
  /** Both targets, the sandbox sshd's first. */
  hosts: string[];
}

/** Both hosts, started before a file's first test and stopped after its last. */
export function twoHostsForTests(): TwoHosts {
  const two = {} as TwoHosts;
  // One before hook starts both hosts in order: a second top-level hook was seen running before the
  // first one's environment was there (CI, under load).
  let secondDir = '';
  let secondArgs: string[] | undefined;
  /** The second sandbox's mariadbd pid file and data directory, to stop it in after() whatever `sandbox remove` did. */
  let secondMysqld: { pidFile: string; datadir: string } | undefined;

  before(async () => {
    const env = await startRunEnv();
    const second = await startSshd();
    two.env = env;
    two.second = second;
    two.hosts = [env.sshd.target, second.target];
    secondDir = mkdtempSync(join(tmpdir(), 'varlab-host2-'));
    execFileSync('chmod', ['755', secondDir]);
    secondArgs = ['--identity', second.keyFile, '--known-hosts', second.knownHostsFile];
    two.authArgs = ['--identity', env.sshd.keyFile, '--identity', second.keyFile, '--known-hosts', env.sshd.knownHostsFile, '--known-hosts', second.knownHostsFile];
    const made = varlabSync(['sandbox', 'create', second.target, ...secondArgs, '--dir', secondDir, '--json'], env.varlabHome);
    assert.equal(made.code, 0, made.stderr + made.stdout);
    two.profiles = join(env.varlabHome, 'profiles.json');
    const p = (JSON.parse(readFileSync(two.profiles, 'utf8')) as Record<string, { pidFile?: string; datadir: string }>)[second.target];
    secondMysqld = { pidFile: p.pidFile ?? join(p.datadir, 'mysqld.pid'), datadir: p.datadir };
    // The first host's key does not log in to the second host.
    const crossed = varlabSync(['probe', second.target, ...env.authArgs], env.varlabHome);
    assert.notEqual(crossed.code, 0, 'the first host key must not reach the second host');
  });

  after(async () => {
    // Whatever part of before() failed, the second sshd is stopped (it was left running when it threw).
    try {
      try {
        if (two.second && secondArgs) varlabSync(['sandbox', 'remove', two.second.target, ...secondArgs], two.env.varlabHome);
      } finally {
        // When `sandbox remove` failed (or never ran), its mariadbd would outlive the tests: stop it by its pid.
        if (secondMysqld) await stopMysqld(secondMysqld);
      }
    } finally {
      await two.second?.stop();
    }
    if (secondDir) rmSync(secondDir, { recursive: true, force: true });
    await two.env?.stop();
  });
  return two;
}

/**
 * Stop the mariadbd whose pid its pid file holds, if it still runs and is that sandbox's (its command
 * line names the data directory: a stale pid file may name a pid reused since): SIGTERM, then SIGKILL
 * after 60 s, and wait until it has exited.
 */
async function stopMysqld({ pidFile, datadir }: { pidFile: string; datadir: string }): Promise<void> {
  let pid = 0;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return; // no pid file: not running
  }
  const ours = () => {
    try {
      return alive(pid) && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(`--datadir=${datadir}`);
    } catch {
      return false;
    }
  };
  if (!ours()) return;
  for (const [signal, ms] of [['SIGTERM', 60_000], ['SIGKILL', 10_000]] as const) {
    try {
      process.kill(pid, signal);
    } catch {
      return; // gone
    }
    if (await exited(pid, ms)) return;
  }
  throw new Error(`mariadbd ${pid} of ${datadir} did not exit after SIGKILL`);
}

/** Adaptive hash index on/off (a per-server factor: both hosts share this machine), 2 restarts per cell. */
export function twoHostCopy(env: RunEnv, name: string): string {
  return shortQuickstartCopy(env, name, { factors: [{ tunable: 'ahi', levels: ['on', 'off'] }], restartsPerCell: 2, repetitions: 3, warmup: 1 }, (d) => {
    delete d.design.serverProfile;
  });
}
