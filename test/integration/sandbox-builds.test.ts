// One build at a time on a target's sandbox, with real parts (the sandbox sshd, copies of mariadbd,
// builds-env.ts): `varlab sandbox add-build` on a target without a sandbox makes one with the build;
// on the sandbox there it adds the build with its own data directory, made by it, the other builds and
// their data left as they are (before, adding a build took `sandbox create --replace` with every build
// again: every data directory made anew), and says when the new build is byte for byte another's; the
// two build a run measures; `remove-build` deletes one build's data directory and registration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildsEnvForTests } from './builds-env.js';
import { shortQuickstartCopy, varlabSync } from './run-env.js';

// Copies for A and B; no sandbox at the start.
const env = buildsEnvForTests('sandbox-builds', { register: [] });

const sandbox = (...args: string[]) => varlabSync(['sandbox', ...args.slice(0, 1), env.sshd.target, ...env.authArgs, ...args.slice(1)], env.home);
const systemTables = (datadir: string) => existsSync(join(datadir, 'mysql', 'global_priv.frm')) || existsSync(join(datadir, 'mysql', 'user.frm'));

test('add-build makes the sandbox when the target has none, then adds a build beside the other, its own data directory made by it; remove-build takes one away', { timeout: 600_000 }, async () => {
  // No sandbox yet: the same command makes one, with the build (what the Designer's hint says to run).
  const made = sandbox('add-build', '--dir', env.dir, '--build', `A=${env.binOf('A')}`);
  assert.equal(made.code, 0, made.stderr + made.stdout);
  assert.match(made.stdout, new RegExp(`^${env.sshd.target.replace(/[/.]/g, '\\$&')} had no sandbox: made one with the builds at `, 'm'), made.stdout);
  const first = env.profile();
  assert.deepEqual(first.builds?.map((b) => [b.name, b.exe]), [['A', env.binOf('A')]]);
  const a = first.builds![0];
  assert.ok(systemTables(a.datadir), `A's data directory ${a.datadir} was made`);
  // What A's data directory holds must outlive adding B (a --replace would have made it anew).
  writeFileSync(join(a.datadir, 'kept-by-add-build'), 'A');

  // The sandbox there: B added, A as it was. B is A's binary byte for byte (an A/A pair): said as a note.
  const added = sandbox('add-build', '--build', `B=${env.binOf('B')}`);
  assert.equal(added.code, 0, added.stderr + added.stdout);
  assert.match(added.stdout, /^added build B to the sandbox on .*: .* \(each its own data directory, made by that build\)$/m, added.stdout);
  assert.match(added.stdout, new RegExp(`^note: builds A and B are the same binary byte for byte \\(sha256 ${a.sha256.slice(0, 12)}…, at ${env.binOf('A')} and ${env.binOf('B')}\\): right for an A/A check`, 'm'), added.stdout);
  const second = env.profile();
  assert.equal(second.sandboxDir, first.sandboxDir, 'the same sandbox');
  assert.equal(second.port, first.port);
  assert.deepEqual(second.builds![0], a, "A's registration as it was");
  assert.equal(readFileSync(join(a.datadir, 'kept-by-add-build'), 'utf8'), 'A', "A's data directory as it was");
  const b = second.builds![1];
  assert.deepEqual([b.name, b.exe, b.sha256, b.datadir], ['B', env.binOf('B'), a.sha256, join(first.sandboxDir!, 'data-B')]);
  assert.match(b.version ?? '', /MariaDB/, 'B was started once and its live process read');
  assert.ok(systemTables(b.datadir), "B's data directory was made");

  // A name that is there already, and options that only a new sandbox takes, are refused; nothing changes.
  const again = sandbox('add-build', '--build', `B=${env.binOf('A')}`);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /build B is registered for .* already \(.*mariadbd-b\): remove it first \(varlab sandbox remove-build .* --build B, or in the Hosts view\)/, again.stderr);
  const port = sandbox('add-build', '--port', '23999', '--build', `C=${env.binOf('A')}`);
  assert.notEqual(port.code, 0);
  assert.match(port.stderr, /the sandbox at .* is kept as it is: --port applies only where there is no sandbox yet/, port.stderr);
  assert.deepEqual(env.profile(), second);

  // Both builds measure in one run.
  const file = shortQuickstartCopy(env.runEnv(), 'ab', { factors: [{ tunable: 'build', levels: ['A', 'B'] }], restartsPerCell: 1, repetitions: 2, warmup: 0 });
  const ran = varlabSync(['run', file, ...env.authArgs, '--trust'], env.home);
  assert.equal(ran.code, 0, ran.stderr + ran.stdout);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.results!.restarts.map((r) => [r.cell, r.status, r.checks.find((c) => c.tunable === 'build')?.ok]).sort(), [
    ['build=A', 'ok', true],
    ['build=B', 'ok', true],
  ]);

  // remove-build: B's data directory and registration go, A stays.
  const removed = sandbox('remove-build', '--build', 'B');
  assert.equal(removed.code, 0, removed.stderr + removed.stdout);
  assert.match(removed.stdout, /^removed build B from the sandbox on .*: its data directory .*data-B is deleted; builds registered now: A$/m, removed.stdout);
  assert.ok(!existsSync(b.datadir), "B's data directory is gone");
  assert.deepEqual(env.profile().builds, [a]);
  assert.equal(readFileSync(join(a.datadir, 'kept-by-add-build'), 'utf8'), 'A');
  const unknown = sandbox('remove-build', '--build', 'B');
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /no build "B" is registered for .* \(registered: A\)/, unknown.stderr);
});
