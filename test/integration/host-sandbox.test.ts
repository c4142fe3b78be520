// A real mariadbd that varlab creates, starts, verifies and stops through a real sshd: tunables
// verified on the live process, the profile's own options read back, a failed verification reported,
// start failures explained once, the dry run equal to what runs, and a hostile level refused before
// anything runs. (Host-wide settings and the restore record: host-restore.test.ts.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import type { Factor } from '../../src/common/experiment/types.js';
import type { RegisteredProfile } from '../../src/node/host/index.js';
import { processRuns } from '../../src/node/process.js';
import { CLI } from '../fixtures/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-host-sandbox-'));
// mariadbd runs as `mysql`, which must be able to reach the sandbox inside this folder.
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
const host = await import('../../src/node/host/index.js');

let sshd: Sshd;
let session: Awaited<ReturnType<typeof host.openTarget>>;
let profile: RegisteredProfile;
let control: ReturnType<typeof host.createServerControl>;
const started: number[] = [];

const say = async () => ({ accept: false });
const f = (tunable: string, name?: string): Factor => ({ tunable, name, levels: [] });
const auth = () => ({ identity: sshd.keyFile, knownHosts: sshd.knownHostsFile });

before(async () => {
  sshd = await startSshd();
  session = await host.openTarget(sshd.target, { auth: auth(), prompt: say });
  profile = (await host.createSandbox(session, { parent: dir, bufferPool: '512M', options: ['innodb_flush_log_at_trx_commit=2'] })).profile;
  control = host.createServerControl(session, profile);
});

after(async () => {
  await control?.stop().catch(() => {});
  // Whatever happened above: no mariadbd of ours is left running.
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (session && profile) await host.removeSandbox(session, profile).catch(() => {});
  await session?.close();
  await sshd?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Exited: no such process, or a zombie its new parent has not reaped yet. */
const exited = (pid: number): boolean => !processRuns(pid);

async function restart(factors: Factor[], levels: Record<string, string>) {
  const s = await control.restart(factors, levels);
  started.push(s.pid);
  return s;
}

test('sandbox create registers a profile for the target with its own datadir, port and socket', async () => {
  const registered = await host.sandboxProfile(sshd.target);
  assert.equal(registered?.datadir, profile.datadir);
  assert.ok(profile.datadir.startsWith(dir));
  assert.ok(existsSync(join(profile.datadir, 'mysql')), 'the system tables exist');
  assert.notEqual(profile.port, 3306);
});

test('a restart with ASLR off, AHI off, NUMA interleave and CPU binding is verified on the live process', async () => {
  const s = await restart([f('aslr'), f('ahi'), f('numa'), f('cpubind')], { aslr: 'off', ahi: 'off', numa: 'interleave', cpubind: '0' });
  assert.deepEqual(s.checks.map((c) => [c.tunable, c.level, c.ok]), [
    ['aslr', 'off', true],
    ['ahi', 'off', true],
    ['numa', 'interleave', true],
    ['cpubind', '0', true],
  ]);
  // What the checks say matches what the kernel says about that pid.
  const personality = Number.parseInt(readFileSync(`/proc/${s.pid}/personality`, 'utf8'), 16);
  assert.equal(personality & 0x0040000, 0x0040000, 'ADDR_NO_RANDOMIZE is set');
  assert.match(readFileSync(`/proc/${s.pid}/numa_maps`, 'utf8'), / interleave:/);
  assert.match(readFileSync(`/proc/${s.pid}/status`, 'utf8'), /^Cpus_allowed_list:\s*0$/m);
  assert.match(s.checks[1].observed, /@@innodb_adaptive_hash_index = OFF/);
  const conn = await control.connect();
  const [rows] = await conn.query('SELECT @@innodb_adaptive_hash_index AS ahi, @@port AS port');
  await conn.end();
  assert.deepEqual(rows, [{ ahi: 0, port: profile.port }]);
});

test('the next restart stops the old process (waiting until it is gone) and starts with other levels', async () => {
  const before = started[started.length - 1];
  const s = await restart([f('aslr'), f('ahi'), f('numa'), f('cpubind')], { aslr: 'on', ahi: 'on', numa: 'default', cpubind: 'none' });
  assert.ok(exited(before), 'the previous mysqld has exited');
  assert.ok(s.checks.every((c) => c.ok), JSON.stringify(s.checks));
  assert.equal(Number.parseInt(readFileSync(`/proc/${s.pid}/personality`, 'utf8'), 16) & 0x0040000, 0);
});

test('preload reads every table and index of the schema and reports it', async () => {
  const conn = await control.connect();
  await conn.query('CREATE DATABASE IF NOT EXISTS w');
  await conn.query('CREATE TABLE w.t (a INT PRIMARY KEY, b INT, c INT, KEY kb (b), KEY kc (c))');
  await conn.query('INSERT INTO w.t VALUES (1,1,1),(2,2,2),(3,3,3)');
  await conn.query('CREATE TABLE w.u (x INT PRIMARY KEY)');
  const r = await host.preloadSchemas(conn, ['w']);
  await conn.end();
  assert.deepEqual({ tables: r.tables, indexes: r.indexes, rows: r.rows }, { tables: 2, indexes: 4, rows: 3 });
});

test('a verification that fails is reported with what was observed, never counted as ok', async () => {
  // The server clamps max_connections (to 100000, or lower by the open-files limit) and starts anyway.
  const s = await restart([f('variable', 'max_connections')], { max_connections: '100001' });
  assert.equal(s.checks[0].ok, false);
  assert.match(s.checks[0].observed, /^@@max_connections = \d+$/);
  assert.notEqual(s.checks[0].observed, '@@max_connections = 100001');
});

test('when mysqld cannot start, the cause comes first in one line, then only the new lines of its error log', async () => {
  const before = readFileSync(profile.errorLog!, 'utf8');
  await assert.rejects(restart([f('variable', 'innodb_no_such_setting')], { innodb_no_such_setting: '1' }), (e: Error & { code?: string }) => {
    const lines = e.message.split('\n');
    assert.match(lines[0], /^mysqld on ssh:\/\/\S+ did not start: \S*mariadbd: unknown variable 'innodb-no-such-setting=1'$/);
    assert.match(lines[1], /^New lines of .*error\.log:$/);
    assert.ok(lines.length <= 42, `at most the last 40 new lines: ${e.message}`);
    assert.match(before, /ready for connections/);
    assert.doesNotMatch(e.message, /ready for connections/, 'no line of an earlier start');
    assert.equal(e.message.split("unknown variable 'innodb-no-such-setting=1'").length, 3, 'said once as the cause, once in the log');
    assert.equal(e.code, 'start-failed', 'a refused option will be refused again: not a connection problem to retry');
    return true;
  });
});

test('a missing mysqld binary is said in one line and not retried', async () => {
  const c = host.createServerControl(session, { ...profile, mysqld: `${dir}/no-such-mariadbd` });
  await assert.rejects(c.restart([], {}), (e: Error & { code?: string }) => {
    assert.equal(e.message, `mysqld on ${sshd.target} did not restart: ${dir}/no-such-mariadbd does not exist or is not executable on this host`);
    assert.equal(e.code, 'start-failed');
    return true;
  });
});

test("the profile's own server options (a 512M buffer pool) are read back on the live server", async () => {
  const s = await restart([f('ahi')], { ahi: 'on' });
  assert.deepEqual(
    s.options.filter((o) => o.tunable === 'innodb_buffer_pool_size' || o.tunable === 'innodb_flush_log_at_trx_commit').map((o) => [o.tunable, o.level, o.ok, o.observed]),
    [
      ['innodb_buffer_pool_size', '512M', true, '@@innodb_buffer_pool_size = 536870912'],
      ['innodb_flush_log_at_trx_commit', '2', true, '@@innodb_flush_log_at_trx_commit = 2'],
    ],
  );
  assert.ok(s.options.every((o) => o.ok), JSON.stringify(s.options));
});

test('the dry run prints exactly the script a restart sends to the target, in one remote call', async () => {
  const sent: string[] = [];
  const recording: typeof session = { ...session, exec: (cmd, o) => (sent.push(cmd), session.exec(cmd, o)) };
  const c = host.createServerControl(recording, profile);
  const proc = await c.procedure([f('aslr'), f('numa'), f('cpubind')], { aslr: 'off', numa: 'interleave', cpubind: '0' });
  const printed = host.procedureText(proc, await c.script(proc)).join('\n');
  sent.length = 0;
  const s = await c.run(proc);
  started.push(s.pid);
  assert.equal(sent.length, 1, `one remote call for stop, start, wait and facts: ${sent.length}`);
  assert.ok(printed.includes(sent[0]), 'the dry run shows the very text that ran');
  assert.ok(s.checks.every((x) => x.ok), JSON.stringify(s.checks));
});

test('a level such as `on; touch /tmp/x` is refused before anything runs', () => {
  const marker = join(dir, 'x');
  const r = spawnSync(
    process.execPath,
    [...CLI, 'sandbox', 'start', sshd.target, '--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile, '--set', `aslr=on; touch ${marker}`],
    { encoding: 'utf8', env: process.env, timeout: 60000 },
  );
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /level "on; touch .*" is not valid for ASLR: expected on, off or off-host/);
  assert.equal(existsSync(marker), false, 'nothing ran');
});

test('stop signals mysqld and returns once the process has exited', async () => {
  const s = await restart([], {});
  await control.stop();
  assert.ok(exited(s.pid));
  assert.equal(execFileSync('sh', ['-c', `[ -S ${profile.socket} ] && echo socket || echo none`], { encoding: 'utf8' }).trim(), 'none');
});

test('a second create on the same target reuses the same sandbox, refuses a different one by name, and --replace makes a new one', async () => {
  const same = await host.createSandbox(session, { parent: dir, bufferPool: '512M', options: ['innodb_flush_log_at_trx_commit=2'] });
  assert.deepEqual([same.reused, same.profile.sandboxDir], [true, profile.sandboxDir]);
  await assert.rejects(host.createSandbox(session, { parent: dir, bufferPool: '1G' }), (e: Error & { code?: string }) => {
    assert.equal(e.code, 'busy');
    assert.equal(e.message, `${sshd.target} already has a sandbox at ${profile.sandboxDir} (port ${profile.port}, buffer pool 512M). Use it as it is, or replace it (--replace, or "Replace" in the Hosts view) to remove it and make a new one`);
    return true;
  });
  assert.ok(existsSync(profile.datadir), 'the refused create left the existing sandbox alone');
  const replaced = await host.createSandbox(session, { parent: dir, bufferPool: '1G', replace: true });
  assert.equal(replaced.replaced?.sandboxDir, profile.sandboxDir);
  assert.equal(existsSync(profile.sandboxDir!), false, 'the old sandbox is removed, not abandoned');
  assert.equal((await host.sandboxProfile(sshd.target))?.sandboxDir, replaced.profile.sandboxDir);
  profile = replaced.profile;
  control = host.createServerControl(session, profile);
});

test('sandbox create --dir D: a D that is missing or not a folder is said in words, a usage mistake (exit 2), and nothing is made', () => {
  const home = mkdtempSync(join(tmpdir(), 'varlab-sandbox-dir-'));
  try {
    const create = (d: string) =>
      spawnSync(process.execPath, [...CLI, 'sandbox', 'create', sshd.target, '--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile, '--dir', d], { encoding: 'utf8', env: { ...process.env, VARLAB_HOME: home } });
    const missing = join(dir, 'no-such-folder');
    const r = create(missing);
    // A usage mistake, as every other: exit 2.
    assert.equal(r.status, 2, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`the sandbox folder ${missing} does not exist on ${sshd.target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: make it first \\(mkdir -p ${missing}\\), or choose another with --dir`));
    assert.doesNotMatch(r.stderr, /mkdir: cannot create directory/, 'not the raw line of mkdir');
    assert.equal(existsSync(missing), false);
    const file = join(dir, 'a-file');
    execFileSync('touch', [file]);
    const f = create(file);
    assert.equal(f.status, 2, f.stdout + f.stderr);
    assert.match(f.stderr, /the sandbox folder \S+a-file on \S+ is not a folder: make one there, or choose another with --dir/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
