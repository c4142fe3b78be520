// A real mariadbd that varlab creates, starts, verifies and stops through a real sshd: tunables
// verified on the live process, a failed verification reported, start failures explained, the host
// put back after a cancel and after a crash, and a hostile level refused before anything runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSshd, type Sshd } from '../../scripts/testenv/sshd.js';
import type { Factor } from '../../src/common/experiment/types.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-host-sandbox-'));
// mariadbd runs as `mysql`, which must be able to reach the sandbox inside this folder.
chmodSync(dir, 0o755);
const record = join(dir, 'restore.tsv');
process.env.VARLAB_HOME = join(dir, 'varlab');
process.env.VARLAB_RESTORE_RECORD = record;
// Imported after the environment is set: the restore record path is read at load time.
const host = await import('../../src/node/host/index.js');

let sshd: Sshd;
let session: Awaited<ReturnType<typeof host.openTarget>>;
let profile: Awaited<ReturnType<typeof host.createSandbox>>;
let control: ReturnType<typeof host.createServerControl>;
const started: number[] = [];

const say = async () => ({ accept: false });
const f = (tunable: string, name?: string): Factor => ({ tunable, name, levels: [] });
const auth = () => ({ identity: sshd.keyFile, knownHosts: sshd.knownHostsFile });

before(async () => {
  sshd = await startSshd();
  session = await host.openTarget(sshd.target, { auth: auth(), prompt: say });
  profile = await host.createSandbox(session, { parent: dir });
  control = host.createServerControl(session, profile, { restoreRecord: record });
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
function exited(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

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
  assert.match(s.checks[1].observed, /@@innodb_adaptive_hash_index = 0/);
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

test('when mysqld cannot start, the error names the reason from the last lines of its error log', async () => {
  await assert.rejects(restart([f('variable', 'innodb_no_such_setting')], { innodb_no_such_setting: '1' }), (e: Error) => {
    assert.match(e.message, /exited during start-up/);
    assert.match(e.message, /unknown variable 'innodb-no-such-setting=1'/);
    return true;
  });
});

test('a level such as `on; touch /tmp/x` is refused before anything runs', () => {
  const marker = join(dir, 'x');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'sandbox', 'start', sshd.target, '--identity', sshd.keyFile, '--known-hosts', sshd.knownHostsFile, '--set', `aslr=on; touch ${marker}`],
    { encoding: 'utf8', env: process.env, timeout: 60000 },
  );
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /level "on; touch .*" is not valid for ASLR: expected on, off or off-host/);
  assert.equal(existsSync(marker), false, 'nothing ran');
});

/** THP is the host-wide setting this machine lets root write; skip (saying why) where it is not. */
const THP = '/sys/kernel/mm/transparent_hugepage/enabled';
function thpNow(): string | null {
  try {
    return /\[(\w+)\]/.exec(readFileSync(THP, 'utf8'))![1];
  } catch {
    return null;
  }
}
function thpWritable(): boolean {
  const now = thpNow();
  if (!now) return false;
  try {
    writeFileSync(THP, now);
    return true;
  } catch {
    return false;
  }
}
const thpSkip = thpWritable() ? false : `${THP} is not writable in this container, so no host-wide setting can be changed and restored here`;

test('after a cancelled experiment the host setting is back and the restore record is gone', { skip: thpSkip }, async () => {
  const original = thpNow()!;
  const other = original === 'never' ? 'madvise' : 'never';
  const s = await restart([f('thp')], { thp: other });
  assert.equal(s.checks[0].ok, true, s.checks[0].observed);
  assert.equal(thpNow(), other);
  assert.equal(readFileSync(record, 'utf8'), `${THP}\t${original}\n`, 'the original was saved on the host first');
  // Cancel: the engine calls restore().
  await control.restore();
  assert.equal(thpNow(), original);
  assert.equal(existsSync(record), false);
});

test('a neutral level puts the host setting back between restarts', { skip: thpSkip }, async () => {
  const original = thpNow()!;
  const other = original === 'never' ? 'madvise' : 'never';
  await restart([f('thp')], { thp: other });
  assert.equal(thpNow(), other);
  const s = await restart([f('thp')], { thp: 'unchanged' });
  assert.equal(thpNow(), original);
  assert.match(s.checks[0].observed, new RegExp(original));
  await control.restore();
});

test('after a crash, the next connection offers to restore and does', { skip: thpSkip }, async () => {
  const original = thpNow()!;
  const other = original === 'never' ? 'madvise' : 'never';
  await restart([f('thp')], { thp: other });
  assert.equal(thpNow(), other);
  // varlab "crashes": no restore. The next connection finds the record on the host and asks.
  const asked: string[] = [];
  const next = await host.openTarget(sshd.target, {
    auth: auth(),
    prompt: async (p) => {
      asked.push(`${p.kind}: ${p.message}`);
      return { accept: p.kind === 'confirm' };
    },
  });
  await next.close();
  assert.equal(asked.length, 1);
  assert.match(asked[0], /^confirm: A previous varlab run changed host settings/);
  assert.ok(asked[0].includes(`${THP} → ${original}`));
  assert.equal(thpNow(), original);
  assert.equal(existsSync(record), false);
});

test('stop signals mysqld and returns once the process has exited', async () => {
  const s = await restart([], {});
  await control.stop();
  assert.ok(exited(s.pid));
  assert.equal(execFileSync('sh', ['-c', `[ -S ${profile.socket} ] && echo socket || echo none`], { encoding: 'utf8' }).trim(), 'none');
});
