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

const dir = mkdtempSync(join(tmpdir(), 'varlab-consent-'));
const home = join(dir, 'home');
mkdirSync(home);
const marker = join(dir, 'ran');
// Port 1 on 127.0.0.1: nothing listens there, so a run that got past the consent fails to connect.
const TARGET = 'ssh://root@127.0.0.1:1';
after(() => rmSync(dir, { recursive: true, force: true }));

function varlab(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    // stdin is not a terminal: nobody can answer a question.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], { env: { ...process.env, VARLAB_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
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

test("a teammate's custom command without a terminal: exit 2, the command listed, --trust named, nothing run", { timeout: 120_000 }, async () => {
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

  // --trust agrees for this file and target: the run goes on (and fails at the closed port, later).
  const trusted = await varlab(['run', file, '--trust']);
  assert.match(trusted.stderr, /--trust: agreed to them for ssh:\/\/root@127\.0\.0\.1:1/);
  assert.notEqual(trusted.code, 0);
  assert.match(trusted.stderr, /127\.0\.0\.1/);
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
