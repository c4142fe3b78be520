// Plausible mistakes on the command line, as a new user makes them walking the README (walkcli,
// 2026-11-27): each is refused with exit 2, naming what is wrong and where, and never suggests a
// command line that would run what a hostile value holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../fixtures/cli.js';

let dir = '';
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-mistakes-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** `varlab ARGS` as a user runs it, with a varlab home of its own (no server profile registered). */
function varlab(...args: string[]) {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: 'utf8', env: { ...process.env, VARLAB_HOME: join(dir, 'home') } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const quickstart = () => {
  const path = join(dir, 'my.varlab.json');
  if (!existsSync(path)) writeFileSync(path, readFileSync('examples/quickstart.varlab.json', 'utf8'));
  return path;
};

test('run --target with shell text is refused as a host name, and no command line holding it is suggested', () => {
  const marker = join(dir, 'hit');
  for (const target of [`local;touch ${marker}`, `ssh://db1;touch ${marker}`]) {
    const r = varlab('run', quickstart(), '--target', target);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /--target: the host name ".*" is not valid; expected local, ssh:\/\/\[user@\]host\[:port\] or an ssh config alias/);
    // It once said "no server profile for local;touch …: … or run: varlab sandbox create local;touch …".
    assert.doesNotMatch(r.err, /sandbox create/);
  }
  assert.equal(existsSync(marker), false);
});

test('a mistyped option or command names the one meant', () => {
  const typo = varlab('run', quickstart(), '--untill-answered');
  assert.equal(typo.code, 2);
  // Node's own words were "Unknown option '--untill-answered'. To specify a positional argument starting
  // with a '-', place it at the end of the command after '--', as in '-- "--untill-answered"".
  assert.equal(typo.err, 'varlab run: unknown option --untill-answered; did you mean --until-answered?\nRun `varlab run --help` for usage.\n');
  assert.match(varlab('analyze', quickstart(), '--jsn').err, /^varlab analyze: unknown option --jsn; did you mean --json\?/);
  const far = varlab('plan', quickstart(), '--frobnicate');
  assert.equal(far.code, 2);
  assert.match(far.err, /^varlab plan: unknown option --frobnicate \(a FILE whose name starts with - goes after --\)\n/);
  const command = varlab('runn', quickstart());
  assert.equal(command.code, 2);
  assert.match(command.err, /^varlab: unknown command "runn"; did you mean run\? Commands: new, validate/);
});

test('status, attach and cancel of a file that is not there, or not JSON, say so (exit 2), not "start one with --detach"', () => {
  const missing = join(dir, 'nonexist.varlab.json');
  const notJson = join(dir, 'bad.varlab.json');
  writeFileSync(notJson, 'hello, not json\n');
  for (const command of ['status', 'attach', 'cancel']) {
    const gone = varlab(command, missing);
    assert.equal(gone.code, 2, gone.err);
    assert.equal(gone.err, `varlab ${command}: ${missing}: cannot read ${missing}: no such file\n`);
    const bad = varlab(command, notJson);
    assert.equal(bad.code, 2, bad.err);
    assert.match(bad.err, new RegExp(`^varlab ${command}: .*bad\\.varlab\\.json: \\(document\\): not valid JSON at line 1, column 1`));
  }
  // A good file without a detached run still says how to start one (exit 1: nothing to follow).
  const none = varlab('status', quickstart());
  assert.equal(none.code, 1);
  assert.match(none.err, /no detached run \(start one with `varlab run .*my\.varlab\.json --detach`\)/);
});

test('varlab --help names every template of new, as the README\'s table and new --help do', () => {
  const r = varlab('--help');
  assert.equal(r.code, 0);
  const line = r.out.split('\n').find((l) => l.trimStart().startsWith('new '));
  for (const template of ['dbt3', 'oltp_read_only', 'oltp_point_select', 'quickstart']) assert.ok(line?.includes(template), `${template} in: ${line}`);
});

test('a value outside a field\'s pattern is refused naming the field, the value and what the field accepts', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));
  const marker = join(dir, 'hit');
  doc.design.serverProfile = { target: 'local', kind: 'direct', mysqld: `/usr/sbin/mariadbd;touch ${marker}`, datadir: '/var/tmp/d', socket: '/var/tmp/d.sock', port: 3399, user: 'root', extraArgs: ['--password=s3cr3t;x', '-pHunter2;x'], sudo: false };
  const path = join(dir, 'hostile.varlab.json');
  writeFileSync(path, JSON.stringify(doc));
  const r = varlab('validate', path);
  assert.equal(r.code, 2);
  // It once said only "not an accepted value (letters, digits and a few safe characters only)": which
  // character of a long path was the matter was left to guess.
  assert.match(r.err, new RegExp(`^${path}: design\\.serverProfile\\.mysqld: "/usr/sbin/mariadbd;touch ${marker}" is not accepted: expected \\^/\\[A-Za-z0-9_\\./\\+-\\]\\{0,1000\\}\\$ \\(letters, digits and a few safe characters only\\)$`, 'm'));
  // A value that may be a password is not said back.
  assert.match(r.err, /design\.serverProfile\.extraArgs\[0\]: not accepted: expected /);
  assert.doesNotMatch(r.err, /s3cr3t/);
  // Nor a server option, which may hold one in a form without the word (-pSECRET).
  assert.match(r.err, /design\.serverProfile\.extraArgs\[1\]: not accepted: expected /);
  assert.doesNotMatch(r.err, /Hunter2/);
  assert.equal(existsSync(marker), false);
});

test('sandbox add-build and remove-build refuse what is not theirs before connecting: a --dry-run that would add the build all the same, a malformed build', () => {
  const dry = varlab('sandbox', 'add-build', 'local', '--build', 'B=/opt/b/mariadbd', '--dry-run');
  assert.equal(dry.code, 2, dry.err);
  assert.match(dry.err, /add-build takes no --dry-run/);
  const port = varlab('sandbox', 'remove-build', 'local', '--build', 'B', '--port', '23306');
  assert.equal(port.code, 2, port.err);
  assert.match(port.err, /remove-build takes no --port/);
  const path = varlab('sandbox', 'remove-build', 'local', '--build', 'B=/opt/b/mariadbd');
  assert.equal(path.code, 2, path.err);
  assert.match(path.err, /remove-build: expected one --build NAME \(the name it was registered with\)/);
  const none = varlab('sandbox', 'add-build', 'local');
  assert.equal(none.code, 2, none.err);
  assert.match(none.err, /add-build: expected one or more --build NAME=PATH/);
});
