// A throwaway OpenSSH sshd on 127.0.0.1 for integration tests and CI: its own host key, client key,
// config and port, under a temp dir. `npx tsx scripts/testenv/sshd.ts` starts one for manual use.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { localArgv } from '../../src/node/host/server-first.js';
import { processRuns as alive } from '../../src/node/process.js';

export interface Sshd {
  port: number;
  pid: number;
  dir: string;
  /** The client's private key (authorized for root). */
  keyFile: string;
  /** A known_hosts file holding this sshd's host key as `[127.0.0.1]:PORT`. */
  knownHostsFile: string;
  hostKeyFingerprint: string;
  hostPublicKey: string;
  target: string;
  /**
   * Serve with these host keys from now on (sshd re-reads its config on SIGHUP; open sessions stay):
   * e.g. ['rsa'] makes it an impostor presenting a key of another type than known_hosts records.
   */
  useHostKeys(types: HostKeyType[]): Promise<void>;
  /** A host key of this sshd (made on first use): `type base64` as known_hosts writes it, and its fingerprint. */
  hostKey(type: HostKeyType): { publicKey: string; fingerprint: string };
  /** What sshd has logged so far (-e: every connection, `Accepted publickey …` for each login). */
  log(): string;
  stop(): Promise<void>;
}

export type HostKeyType = 'ed25519' | 'rsa';

const SSHD = process.env.VARLAB_SSHD ?? '/usr/sbin/sshd';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('data', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface SshdOptions {
  /**
   * Started as a real host's sshd runs, with no parent but pid 1 (setsid --fork: the process that
   * starts it exits at once), not as a child of this process. Above a command on the target there is
   * then what a real host has: the command's shell, the session's sshd and the listening one. The
   * fidelity bench needs it: varlab's noise sample reads every process above its shell, and above a
   * child sshd are also this node process, npm and the shells that started them.
   */
  parentless?: boolean;
}

export async function startSshd(opts: SshdOptions = {}): Promise<Sshd> {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-sshd-'));
  const keygen = (file: string, comment: string, type: HostKeyType = 'ed25519') =>
    execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', comment, '-f', file]);
  const hostKeyFile = (type: HostKeyType) => {
    const file = join(dir, `host_${type}`);
    if (!existsSync(file)) keygen(file, 'varlab-test-host', type);
    return file;
  };
  const hostKey = hostKeyFile('ed25519');
  const keyFile = join(dir, 'client_ed25519');
  keygen(keyFile, 'varlab-test-client');
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(keyFile + '.pub'), { mode: 0o600 });
  const port = await freePort();
  const pidFile = join(dir, 'sshd.pid');
  const writeConfig = (hostKeys: string[]) => writeFileSync(
    join(dir, 'sshd_config'),
    [
      `ListenAddress 127.0.0.1`,
      `Port ${port}`,
      ...hostKeys.map((k) => `HostKey ${k}`),
      `PidFile ${pidFile}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PermitRootLogin prohibit-password`,
      `PasswordAuthentication no`,
      `KbdInteractiveAuthentication no`,
      `StrictModes no`,
      `UsePAM no`,
      `AllowTcpForwarding yes`,
      `AllowStreamLocalForwarding yes`,
      `ClientAliveInterval 5`,
      `Subsystem sftp internal-sftp`,
      '',
    ].join('\n'),
  );
  writeConfig([hostKey]);
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  // Under the ordinary policy, as a host's sshd runs, even while this process yields to a local server.
  const [file, ...args] = localArgv([...(opts.parentless ? ['setsid', '--fork'] : []), SSHD, '-D', '-e', '-f', join(dir, 'sshd_config')]);
  const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let log = '';
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  child.unref();
  (child.stderr as unknown as { unref?: () => void }).unref?.();
  let pid = child.pid!;
  const deadline = Date.now() + 10000;
  while (!(await accepts(port))) {
    // Parentless, the process started here is setsid's, which ends at once: sshd's pid is in its pid file.
    if (opts.parentless ? child.exitCode !== null && child.exitCode !== 0 : !alive(pid) || child.exitCode !== null) throw new Error(`sshd did not start: ${log.trim() || 'no output'}`);
    if (Date.now() > deadline) throw new Error(`sshd did not accept connections on 127.0.0.1:${port} within 10 s: ${log.trim()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  if (opts.parentless) {
    // Until it holds a pid: a file caught before sshd wrote it would give 0, and kill(0) signals our own group.
    const written = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0);
    while (!(written() > 0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    pid = written();
    if (!(pid > 0)) throw new Error(`sshd wrote no pid to ${pidFile} within 10 s: ${log.trim()}`);
  }
  const hostPublicKey = readFileSync(hostKey + '.pub', 'utf8').trim();
  const keyInfo = (type: HostKeyType) => {
    const [name, base64] = readFileSync(hostKeyFile(type) + '.pub', 'utf8').trim().split(/\s+/);
    return { publicKey: `${name} ${base64}`, fingerprint: 'SHA256:' + createHash('sha256').update(Buffer.from(base64, 'base64')).digest('base64').replace(/=+$/, '') };
  };
  const knownHostsFile = join(dir, 'known_hosts');
  writeFileSync(knownHostsFile, `[127.0.0.1]:${port} ${keyInfo('ed25519').publicKey}\n`);
  /** The key types sshd offers now, as ssh-keyscan sees them. */
  const offered = () => {
    const r = spawnSync('ssh-keyscan', ['-p', String(port), '-t', 'ed25519,rsa', '127.0.0.1'], { encoding: 'utf8', timeout: 5000 });
    return (r.stdout ?? '').split('\n').map((l) => l.split(/\s+/)[1]).filter(Boolean).sort();
  };
  return {
    port,
    pid,
    dir,
    keyFile,
    knownHostsFile,
    hostPublicKey,
    hostKeyFingerprint: keyInfo('ed25519').fingerprint,
    target: `ssh://root@127.0.0.1:${port}`,
    hostKey: keyInfo,
    log: () => log,
    async useHostKeys(types) {
      writeConfig(types.map(hostKeyFile));
      process.kill(pid, 'SIGHUP');
      const want = types.map((t) => (t === 'rsa' ? 'ssh-rsa' : `ssh-${t}`)).sort().join(' ');
      const until = Date.now() + 10000;
      while (offered().join(' ') !== want) {
        if (!alive(pid)) throw new Error(`sshd ended after SIGHUP: ${log.trim()}`);
        if (Date.now() > until) throw new Error(`sshd did not offer ${want} within 10 s (offers ${offered().join(' ') || 'nothing'}): ${log.trim()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      if (alive(pid)) process.kill(pid, 'SIGTERM');
      const until = Date.now() + 10000;
      while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const s = await startSshd();
  console.log(JSON.stringify({ target: s.target, port: s.port, pid: s.pid, keyFile: s.keyFile, knownHostsFile: s.knownHostsFile, hostKeyFingerprint: s.hostKeyFingerprint }, null, 2));
  console.log(`\nTry: npm run --silent varlab -- probe ${s.target} --identity ${s.keyFile} --known-hosts ${s.knownHostsFile}`);
  console.log('Ctrl-C stops it.');
  const stop = () => s.stop().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => {}, 1 << 30);
}
