// The host layer through the API contract, as the UI calls it: host.probe on `local`, host.dryRun, the quickstart's port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createBackend } from '../../src/node/backend.js';
import { registerProfile } from '../../src/node/host/index.js';
import { randomSandboxPort } from '../../src/node/host/sandbox.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';

const quickstart = (): ExperimentDoc => JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8'));

test('host.probe on local answers with the fingerprint of this machine', async () => {
  const backend = createBackend({ transport: 'websocket' });
  const r = await backend.call('host.probe', { target: 'local' });
  await backend.dispose();
  assert.ok(r.ok, !r.ok ? r.message : '');
  if (!r.ok) return;
  assert.equal(r.value.target, 'local');
  assert.equal(r.value.aslr, readFileSync('/proc/sys/kernel/randomize_va_space', 'utf8').trim());
});

test('host.probe with a bad target fails with a message naming it', async () => {
  const backend = createBackend({ transport: 'websocket' });
  const r = await backend.call('host.probe', { target: 'ssh://bad host' });
  await backend.dispose();
  assert.deepEqual(r.ok ? null : r.code, 'invalid-argument');
  assert.match(!r.ok ? r.message : '', /not valid|expected \[user@\]host/);
});

test('host.dryRun lists every cell\'s commands for the registered profile, for the probed host, and says when there is none', async () => {
  const home = mkdtempSync(join(tmpdir(), 'varlab-host-api-'));
  const old = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = home;
  try {
    const backend = createBackend({ transport: 'websocket' });
    const doc = quickstart();
    doc.design.target = 'ssh://db.example.com';
    delete doc.design.serverProfile;
    const none = await backend.call('host.dryRun', { design: doc.design });
    assert.ok(none.ok);
    assert.match(none.ok ? none.value.problem ?? '' : '', /varlab sandbox create ssh:\/\/db\.example\.com/);
    await registerProfile('local', { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/sb/data', socket: '/srv/sb/s.sock', port: 23306, user: 'root', extraArgs: [], sudo: false });
    // The dry run asks the target what the run would ask it (its architecture, tools, files): here, this machine.
    const r = await backend.call('host.dryRun', { design: doc.design, target: 'local' });
    await backend.dispose();
    assert.ok(r.ok && !r.value.problem, JSON.stringify(r));
    if (!r.ok) return;
    assert.equal(r.value.cells.length, 16 - doc.design.excludedCells.length);
    const withAslrOff = r.value.cells.find((c) => c.cell.includes('aslr=off'))!;
    assert.match(withAslrOff.commands.join('\n'), new RegExp(`setarch ${process.arch === 'arm64' ? 'aarch64' : 'x86_64'} -R /usr/sbin/mariadbd`));
    assert.deepEqual(withAslrOff.levels.aslr, 'off');
  } finally {
    process.env.VARLAB_HOME = old;
    rmSync(home, { recursive: true, force: true });
  }
});

test('local.quickstart makes its sandbox on the port asked for, and refuses a port that is not one', { timeout: 240_000 }, async () => {
  const home = mkdtempSync(join(tmpdir(), 'varlab-host-api-'));
  const old = process.env.VARLAB_HOME;
  process.env.VARLAB_HOME = home;
  const backend = createBackend({ transport: 'websocket' });
  try {
    const bad = await backend.call('local.quickstart', { port: 80 });
    assert.ok(!bad.ok && bad.code === 'invalid-argument' && /port must be a whole number from 1024 to 65535, got 80/.test(bad.message), JSON.stringify(bad));
    const port = randomSandboxPort();
    const r = await backend.call('local.quickstart', { port, dir: join(home, 'experiments') });
    assert.ok(r.ok, !r.ok ? r.message : '');
    const list = await backend.call('host.list', {});
    assert.ok(list.ok);
    const local = list.value.find((h) => h.target === 'local');
    assert.equal(local?.profile?.port, port);
    assert.equal(local?.profile?.sandboxDir, r.value.sandboxDir);
    const removed = await backend.call('sandbox.remove', { target: 'local' });
    assert.ok(removed.ok && removed.value.profile === null, JSON.stringify(removed));
    assert.equal(existsSync(r.value.sandboxDir!), false);
  } finally {
    await backend.dispose();
    process.env.VARLAB_HOME = old;
    rmSync(home, { recursive: true, force: true });
  }
});
