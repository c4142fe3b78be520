// A shared file never makes varlab connect to the host it names unasked, not even for a dry run:
// `varlab run FILE --dry-run` of a file naming an SSH host the user did not choose prints what it can
// without connecting (the real sshd sees no connection) and says how to let it; with --connect (or
// --target naming the host) it reads the host and prints each cell's script; a host that fails is
// named, with the failure in words. No mariadbd: a dry run starts nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { CLI } from '../fixtures/cli.js';

let sshd: Sshd;
let dir: string;
/** A host that would fail if contacted: it resets every connection, and counts them. */
let resetter: Server;
let resets = 0;

before(async () => {
  sshd = await startSshd();
  dir = mkdtempSync(join(tmpdir(), 'varlab-dry-run-ask-'));
  mkdirSync(join(dir, 'home', '.ssh'), { recursive: true });
  mkdirSync(join(dir, 'varlab'));
  resetter = createServer((s: Socket) => {
    resets++;
    s.resetAndDestroy();
  });
  await new Promise<void>((r) => resetter.listen(0, '127.0.0.1', r));
});
after(async () => {
  await sshd?.stop();
  await new Promise((r) => resetter?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

/** `varlab ARGS` as a child process (not a terminal: nobody answers), with the test's own HOME and varlab home. */
function varlab(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Asynchronous: the resetting host above answers from this process's event loop.
    const child = spawn(process.execPath, [...CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: join(dir, 'home'), VARLAB_HOME: join(dir, 'varlab'), SSH_AUTH_SOCK: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A teammate's file: the quickstart naming `target`, with a server profile of its own for it, two cells. */
function teammateFile(name: string, target: string): string {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = target;
  doc.design.factors = [{ tunable: 'aslr', levels: ['on', 'off'] }];
  doc.design.serverProfile = { target, kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: join(dir, 'data'), socket: join(dir, 'mysqld.sock'), port: 23457, user: 'root', extraArgs: [], sudo: false };
  const path = join(dir, `${name}.varlab.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

const auth = () => ['--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile];
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** What sshd logged since `from` (it logs every login: `Accepted publickey for root from 127.0.0.1 …`). */
const loggedSince = (from: number) => sshd.log().slice(from);

test('a file naming an SSH host: the dry run does not connect unasked; --connect reads it and prints each cell\'s script', { timeout: 180_000 }, async () => {
  const file = teammateFile('teammate', sshd.target);
  await new Promise((r) => setTimeout(r, 500)); // sshd's log of the fixture's own start-up check, before the mark
  const mark = sshd.log().length;

  const dry = await varlab(['run', file, '--dry-run', ...auth()]);
  assert.equal(dry.code, 0, dry.stderr);
  // Everything it can say without the host: the consent list, the plan, the setup script, the cells.
  assert.match(dry.stdout, /would run these on .*not agreed to yet/);
  assert.match(dry.stdout, new RegExp(`: 10 restarts on ${escape(sshd.target)} \\(direct /usr/sbin/mariadbd, the file's profile\\), about`));
  assert.match(dry.stdout, /the setup script, in database varlab_quickstart/);
  assert.match(dry.stdout, /^aslr=on: restarts \d/m);
  assert.doesNotMatch(dry.stdout, /# one remote call on the target/, 'no script: the host was not read');
  // And one line saying it did not connect, and how to let it.
  assert.match(dry.stdout, new RegExp(`^dry run: nothing was run; did not connect to ${escape(sshd.target)}, the host the file names\\. .*run again with --connect$`, 'm'));
  await new Promise((r) => setTimeout(r, 500)); // sshd logs a connection at once; give it time to
  assert.doesNotMatch(loggedSince(mark), /127\.0\.0\.1|Accepted|Connection/, `sshd saw a connection:\n${loggedSince(mark)}`);

  // Asked for: it logs in (sshd says so: the check above can fail) and prints the script each cell's restart sends.
  const asked = await varlab(['run', file, '--dry-run', '--connect', ...auth()]);
  assert.equal(asked.code, 0, asked.stderr);
  assert.match(loggedSince(mark), /Accepted publickey for root from 127\.0\.0\.1/);
  for (const cell of ['aslr=on', 'aslr=off']) assert.match(asked.stdout, new RegExp(`== cell ${cell}: restarts \\d.*\\n# one remote call on the target:\\n`));
  assert.match(asked.stdout, /randomize_va_space/, "the ASLR cell's script sets it");
  assert.match(asked.stdout, /^dry run: nothing was run$/m);
  assert.doesNotMatch(asked.stdout, /did not connect/);

  // The host named on the command line is the user's choice: read without --connect.
  const named = await varlab(['run', file, '--target', sshd.target, '--dry-run', ...auth()]);
  assert.equal(named.code, 0, named.stderr);
  assert.match(named.stdout, /# one remote call on the target:/);

  // So is a host in the user's Hosts list (as the Hosts view's "Probe and add" keeps it).
  writeFileSync(join(dir, 'varlab', 'hosts.json'), JSON.stringify({ [sshd.target]: { addedAt: Date.now() } }));
  const listed = await varlab(['run', file, '--dry-run', ...auth()]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /# one remote call on the target:/);
  rmSync(join(dir, 'varlab', 'hosts.json'));
});

test('a host that fails: not contacted unasked; asked for, the failure names the host and says what failed', { timeout: 120_000 }, async () => {
  const port = (resetter.address() as { port: number }).port;
  const target = `ssh://root@127.0.0.1:${port}`;
  const file = teammateFile('resetting', target);

  const dry = await varlab(['run', file, '--dry-run']);
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, new RegExp(`did not connect to ${escape(target)}`));
  assert.equal(resets, 0, 'the host the file names was contacted');

  const asked = await varlab(['run', file, '--dry-run', '--connect']);
  assert.equal(asked.code, 2, asked.stdout);
  assert.equal(resets, 1, 'asked for, it connects');
  // Reset during the socket's connect or its first read, as the kernel has it: said the same way.
  assert.match(asked.stderr, new RegExp(`^varlab run: the dry run could not read ${escape(target)} \\(it connects to read its CPUs, NUMA nodes and mysqld\\): root@127\\.0\\.0\\.1:${port}: the connection was reset by the other side before SSH was set up \\((read|connect) ECONNRESET[^)]*\\): is it an SSH server on port ${port}`, 'm'));
});
