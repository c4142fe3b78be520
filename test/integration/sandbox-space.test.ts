// A sandbox folder with a space in its path is refused up front, naming the path: mariadb-install-db
// does not quote the paths it is given (its chown of the data directory splits at the space), so the
// create would fail half-way otherwise. The command line and the app's API say the same, and nothing
// is made in the folder or registered.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackend } from '../../src/node/backend.js';
import { CLI } from '../fixtures/cli.js';

let dir: string;
let spaced: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'varlab-space-'));
  spaced = join(dir, 'my sandboxes');
  mkdirSync(spaced);
  process.env.VARLAB_HOME = join(dir, 'home');
});
after(() => rmSync(dir, { recursive: true, force: true }));

const said = (what: string) => new RegExp(`${what} "${spaced.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}" has a space in it: a sandbox cannot be made there \\(mariadb-install-db cannot use`);

test('varlab sandbox create --dir with a space: exit 2, the path named, nothing made', () => {
  const r = spawnSync(process.execPath, [...CLI, 'sandbox', 'create', 'local', '--dir', spaced], { env: { ...process.env, VARLAB_HOME: join(dir, 'home') }, encoding: 'utf8' });
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, said('--dir'));
  assert.match(r.stderr, /Choose a folder whose path has no spaces, such as \/var\/tmp\./);
  assert.deepEqual(readdirSync(spaced), []);
  assert.equal(existsSync(join(dir, 'home', 'profiles.json')), false, 'no profile registered');
});

test("the app's sandbox.create with such a folder fails the same way before anything runs on the target", async () => {
  const backend = createBackend({ transport: 'websocket' });
  try {
    const r = await backend.call('sandbox.create', { target: 'local', parent: spaced });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.code, 'invalid-argument');
    assert.match(r.message, said('the sandbox folder'));
  } finally {
    await backend.dispose();
  }
  assert.deepEqual(readdirSync(spaced), []);
  assert.equal(existsSync(join(dir, 'home', 'profiles.json')), false, 'no profile registered');
});
