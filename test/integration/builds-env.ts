// One fixture for the tests of server builds with real parts: the sandbox sshd, a folder the `mysql`
// user can reach, and copies of /usr/sbin/mariadbd at paths of their own (`NAME` at
// DIR/name/mariadbd-name: each has a name of its own, so a stop before the next start must find the
// running one by its own path). Byte for byte the same binary: an A/A pair. The sandbox is made with
// `varlab sandbox create --build` for the builds asked (all copies unless told), its output kept.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HostProfile } from '../../src/common/api.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { varlabSync, type RunEnv } from './run-env.js';

export const MARIADBD = '/usr/sbin/mariadbd';

export interface BuildsEnv {
  sshd: Sshd;
  dir: string;
  home: string;
  authArgs: string[];
  /** The path of build NAME's copy of mariadbd. */
  binOf(name: string): string;
  /** `varlab sandbox create`'s output (null when no build was registered at the start). */
  created: { stdout: string; stderr: string } | null;
  /** The server profile registered for the sandbox sshd's target now. */
  profile(): HostProfile;
  /** As the run tests take it (run-env.ts). */
  runEnv(): RunEnv;
}

export interface BuildsEnvOptions {
  /** The builds to copy mariadbd for (default A and B). */
  copies?: string[];
  /** Of those, the builds the sandbox is made with (default: every copy; none: no sandbox is made). */
  register?: string[];
  /** More `--build NAME=PATH` settings, made in `dir` before the sandbox (a wrapper script). */
  more?: (dir: string, binOf: (name: string) => string) => string[];
  /**
   * Called once the fixture is made, in its own `before`: a file's other root-level `before` hooks may
   * run beside it, not after it (Node 20), so what a file takes from the fixture is taken here.
   */
  ready?: (env: BuildsEnv) => void;
}

/** The fixture, made before the file's first test and removed (with its sandbox) after its last. */
export function buildsEnvForTests(prefix: string, o: BuildsEnvOptions = {}): BuildsEnv {
  const copies = o.copies ?? ['A', 'B'];
  const env = {} as BuildsEnv;
  before(async () => {
    const sshd = await startSshd();
    const dir = mkdtempSync(join(tmpdir(), `varlab-${prefix}-`));
    // mariadbd runs as `mysql`, which must reach the copies and the sandbox inside this folder.
    chmodSync(dir, 0o755);
    const home = join(dir, 'home');
    mkdirSync(home);
    const binOf = (name: string) => join(dir, name.toLowerCase(), `mariadbd-${name.toLowerCase()}`);
    for (const b of copies) {
      mkdirSync(join(dir, b.toLowerCase()), { mode: 0o755 });
      copyFileSync(MARIADBD, binOf(b));
      chmodSync(binOf(b), 0o755);
    }
    const authArgs = ['--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile];
    const profile = () => JSON.parse(readFileSync(join(home, 'profiles.json'), 'utf8'))[sshd.target] as HostProfile;
    Object.assign(env, { sshd, dir, home, authArgs, binOf, created: null, profile });
    env.runEnv = () => ({ sshd, dir, varlabHome: home, profile: profile(), registered: true, authArgs, stop: async () => {} });
    const builds = [...(o.register ?? copies).map((b) => `${b}=${binOf(b)}`), ...(o.more?.(dir, binOf) ?? [])];
    if (builds.length) {
      const r = varlabSync(['sandbox', 'create', sshd.target, ...authArgs, '--dir', dir, ...builds.flatMap((b) => ['--build', b])], home);
      assert.equal(r.code, 0, r.stderr + r.stdout);
      env.created = { stdout: r.stdout, stderr: r.stderr };
    }
    o.ready?.(env);
  });
  after(async () => {
    if (env.sshd) varlabSync(['sandbox', 'remove', env.sshd.target, ...env.authArgs], env.home);
    await env.sshd?.stop();
    if (env.dir) rmSync(env.dir, { recursive: true, force: true });
  });
  return env;
}
