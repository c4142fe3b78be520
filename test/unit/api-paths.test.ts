// Browser mode's file access (src/node/api/paths.ts): the page holding the launch token names paths
// itself (there are no native dialogs, and it is the user's own agent), but varlab's own state and
// ~/.ssh are refused whatever names them, symlinks included; varlab's own documents folder is fine.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackend } from '../../src/node/backend.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-paths-'));
const home = join(dir, 'home');
mkdirSync(home);
process.env.VARLAB_HOME = home;
const backend = createBackend({ transport: 'websocket' });
after(async () => {
  await backend.dispose();
  rmSync(dir, { recursive: true, force: true });
});

test('browser mode: a typed path is read and written; varlab home and ~/.ssh are not, not even through a symlink', async () => {
  const sql = join(dir, 'q.sql');
  writeFileSync(sql, 'SELECT 2;');
  assert.deepEqual(await backend.call('experiment.readSql', { path: sql }), { ok: true, value: { name: 'q', sql: 'SELECT 2;' } });
  writeFileSync(join(home, 'consent.json'), '{}');
  for (const path of [join(home, 'consent.json'), join(home, 'profiles.json')]) {
    const r = await backend.call('export.writeFile', { path, base64: 'e30=' });
    assert.deepEqual([r.ok, !r.ok && r.code], [false, 'path-refused'], path);
  }
  assert.equal(existsSync(join(home, 'profiles.json')), false);
  symlinkSync(join(home, 'consent.json'), join(dir, 'innocent.sql'));
  const viaLink = await backend.call('experiment.readSql', { path: join(dir, 'innocent.sql') });
  assert.equal(!viaLink.ok && viaLink.code, 'path-refused');
  const ssh = await backend.call('experiment.readSql', { path: join(process.env.HOME ?? '/root', '.ssh', 'id_rsa') });
  assert.match(!ssh.ok ? ssh.message : '', /your SSH folder/);
  // The quickstart's folder inside VARLAB_HOME (tests, portable setups) is varlab's own documents folder.
  const ex = await backend.call('experiment.example', { name: 'quickstart' });
  assert.ok(ex.ok);
  const saved = await backend.call('experiment.save', { path: join(home, 'experiments', 'q.varlab.json'), doc: ex.value.doc });
  assert.equal(saved.ok, true, !saved.ok ? saved.message : '');
});
