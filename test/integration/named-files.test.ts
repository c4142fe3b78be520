// Files that a command line, the Hosts list or a journal names (a private key, a known_hosts file)
// are read bounded and without blocking (issue 24, item 5): /dev/zero, a FIFO or a file of more than
// 1 MB is refused by name at once, by the CLI and by browser mode; browser mode goes on answering
// (app.info) and SIGTERM; a request nobody can finish (a host-key question nobody answers) gets
// `timeout` at its deadline. The real sandbox sshd on 127.0.0.1, the real `npm run web` process.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { Result } from '../../src/common/api.js';
import { createBackend } from '../../src/node/backend.js';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import { CLI } from '../fixtures/cli.js';

let sshd: Sshd;
let dir: string;

before(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), 'varlab-named-'));
});
after(async () => {
  await sshd.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** `varlab ARGS` with its own VARLAB_HOME; the timeout only ends a stalled varlab so that the test can say so. */
function varlab(args: string[]): { code: number | null; stderr: string; signal: string | null } {
  const r = spawnSync(process.execPath, [...CLI, ...args], { env: { ...process.env, VARLAB_HOME: join(dir, 'home'), SSH_AUTH_SOCK: '' }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stderr: r.stderr ?? '', signal: r.signal };
}

test('varlab probe with /dev/zero, a FIFO or a 2 MB file as key or known_hosts: refused by name, not stalled', { timeout: 240_000 }, () => {
  const fifo = join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  const big = join(dir, 'big_key');
  writeFileSync(big, Buffer.alloc(2 << 20, 'A'));
  const cases: [string[], RegExp][] = [
    [['--identity', '/dev/zero', '--known-hosts', sshd.knownHostsFile], /the key file \/dev\/zero is not a regular file \(a character device\)/],
    [['--identity', fifo, '--known-hosts', sshd.knownHostsFile], /the key file .*fifo is not a regular file \(a FIFO\)/],
    [['--identity', big, '--known-hosts', sshd.knownHostsFile], /the key file .*big_key is 2097152 bytes; at most 1048576 are read/],
    [['--identity', sshd.keyFile, '--known-hosts', '/dev/zero'], /the known_hosts file \/dev\/zero is not a regular file \(a character device\)/],
  ];
  for (const [flags, message] of cases) {
    const r = varlab(['probe', sshd.target, ...flags]);
    assert.equal(r.signal, null, `varlab probe ${flags.join(' ')} stalled: ${r.stderr}`);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, message);
  }
});

test('browser mode: a request naming /dev/zero fails by name while app.info and SIGTERM are still answered', { timeout: 240_000 }, async () => {
  const home = join(dir, 'web-home');
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts', '--web', '--no-build'], { env: { ...process.env, VARLAB_HOME: home, SSH_AUTH_SOCK: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    for (let i = 0; i < 600 && !/open http/.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    const u = new URL(/open (http:\/\/\S+)/.exec(out)![1]);
    const ws = new WebSocket(`ws://127.0.0.1:${u.port}/api?token=${/token=([\w-]+)/.exec(u.hash)![1]}`, { origin: `http://127.0.0.1:${u.port}` });
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const waiting = new Map<number, (r: Result<unknown>) => void>();
    ws.on('message', (d) => {
      const m = JSON.parse(String(d)) as { id?: number; result?: Result<unknown> };
      if (m.id !== undefined) waiting.get(m.id)?.(m.result!);
    });
    let n = 0;
    const call = (method: string, args: object) =>
      new Promise<Result<unknown>>((resolve) => {
        waiting.set(++n, resolve);
        ws.send(JSON.stringify({ id: n, method, args }));
      });
    const probe = call('host.probe', { target: sshd.target, auth: { identity: '/dev/zero', knownHosts: sshd.knownHostsFile } });
    const info = await call('app.info', {});
    assert.equal(info.ok, true, 'app.info is answered while host.probe reads its key');
    const r = await probe;
    assert.equal(r.ok, false);
    assert.match(!r.ok ? r.message : '', /the key file \/dev\/zero is not a regular file/);
    const again = await call('host.probe', { target: sshd.target, auth: { identity: sshd.keyFile, knownHosts: '/dev/zero' } });
    assert.match(!again.ok ? again.message : 'answered ok', /the known_hosts file \/dev\/zero is not a regular file/);
    assert.equal((await call('app.info', {})).ok, true);
    ws.close();
    child.kill('SIGTERM');
    assert.equal(await exited, 0, out);
    assert.match(out, /SIGTERM: stopping/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('a request that cannot finish (a host-key question nobody answers) is answered timeout at its deadline', { timeout: 120_000 }, async () => {
  process.env.VARLAB_HOME = join(dir, 'deadline-home');
  const backend = createBackend({ transport: 'websocket', deadlineMs: () => 500 });
  try {
    // No known_hosts names this sshd: the backend asks the UI, and no UI is there to answer.
    const r = await backend.call('host.probe', { target: sshd.target, auth: { identity: sshd.keyFile } });
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.code, 'timeout');
    assert.match(!r.ok ? r.message : '', /^host\.probe did not answer within 1 s; it was given up here/);
    assert.equal((await backend.call('app.info', {} as never)).ok, true);
  } finally {
    await backend.dispose();
  }
});
