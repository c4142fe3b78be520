// Host-wide tunables and the restore record, for real, on a temporary sysfs and /proc/sys tree that
// the host layer is pointed at (so these run wherever the tests run, with no skips): a real mariadbd
// restarted with THP, the governor of every CPU and turbo set; the originals saved first and put back
// on restore, by a neutral level, and after a crash; and a record another user planted refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Factor } from '../../src/common/experiment/types.js';
import { createSandbox, createServerControl, openTarget, removeSandbox, type RegisteredProfile, type TargetSession } from '../../src/node/host/index.js';
import { hostDir } from '../../src/node/host/restore.js';
import type { HostPaths } from '../../src/node/host/script.js';

const dir = mkdtempSync(join(tmpdir(), 'varlab-host-restore-'));
chmodSync(dir, 0o755);
process.env.VARLAB_HOME = join(dir, 'varlab');
const paths: HostPaths = { sys: join(dir, 'sys'), procSys: join(dir, 'procsys'), records: join(dir, 'records') };
const THP = join(paths.sys, 'kernel/mm/transparent_hugepage/enabled');
const GOV = [0, 1].map((c) => join(paths.sys, `devices/system/cpu/cpu${c}/cpufreq/scaling_governor`));
const BOOST = join(paths.sys, 'devices/system/cpu/cpufreq/boost');
const ASLR = join(paths.procSys, 'kernel/randomize_va_space');
const NOBODY = Number(execFileSync('id', ['-u', 'nobody']).toString().trim());

let session: TargetSession;
let profile: RegisteredProfile;
let control: ReturnType<typeof createServerControl>;
let record: string;
const f = (tunable: string): Factor => ({ tunable, levels: [] });
const read = (p: string) => readFileSync(p, 'utf8').trim();
const put = (p: string, text: string) => {
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text + '\n');
};

/** The host as the kernel left it: THP madvise, both CPUs on powersave, boost on, full ASLR. */
function freshTree() {
  rmSync(paths.records, { recursive: true, force: true });
  mkdirSync(paths.records, { mode: 0o755 });
  put(THP, 'always [madvise] never');
  for (const g of GOV) put(g, 'powersave');
  put(BOOST, '1');
  put(ASLR, '2');
}

before(async () => {
  freshTree();
  session = await openTarget('local', { prompt: async () => ({ accept: false }), paths });
  profile = (await createSandbox(session, { parent: dir })).profile;
  control = createServerControl(session, profile, { paths });
  record = join(hostDir(paths), 'restore.tsv');
});

after(async () => {
  await control?.stop().catch(() => {});
  if (session && profile) await removeSandbox(session, profile).catch(() => {});
  await session?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('THP, the governor of every CPU and turbo are set, verified, saved first, and put back by restore()', async () => {
  freshTree();
  const s = await control.restart([f('thp'), f('governor'), f('turbo')], { thp: 'never', governor: 'performance', turbo: 'off' });
  assert.deepEqual(s.checks.map((c) => [c.tunable, c.level, c.ok]), [
    ['thp', 'never', true],
    ['governor', 'performance', true],
    ['turbo', 'off', true],
  ]);
  assert.equal(read(THP), 'never');
  assert.deepEqual(GOV.map(read), ['performance', 'performance']);
  assert.equal(read(BOOST), '0', 'cpufreq/boost: 0 is off');
  // The originals, one line per real file (never a pattern), in a directory only root can write.
  assert.deepEqual(read(record).split('\n').sort(), [`${THP}\tmadvise`, `${GOV[0]}\tpowersave`, `${GOV[1]}\tpowersave`, `${BOOST}\t1`].sort());
  assert.equal(statSync(join(record, '..')).mode & 0o777, 0o700);
  assert.equal(statSync(join(record, '..')).uid, 0);
  await control.restore();
  assert.equal(read(THP), 'madvise');
  assert.deepEqual(GOV.map(read), ['powersave', 'powersave']);
  assert.equal(read(BOOST), '1');
  assert.equal(existsSync(record), false, 'the record is gone once everything is back');
});

test('a THP file that holds one word, not the kernel\'s bracketed list, is saved as that word and put back', async () => {
  // What a container's stand-in or a test's private host file holds after a plain write (`madvise`).
  freshTree();
  put(THP, 'madvise');
  await control.restart([f('thp')], { thp: 'never' });
  assert.equal(read(THP), 'never');
  assert.equal(read(record), `${THP}\tmadvise`, 'the original is the word itself, not an empty value');
  await control.restore();
  assert.equal(read(THP), 'madvise');
  assert.equal(existsSync(record), false);
});

test('a neutral level puts the host setting back between restarts', async () => {
  freshTree();
  await control.restart([f('thp')], { thp: 'never' });
  assert.equal(read(THP), 'never');
  const s = await control.restart([f('thp')], { thp: 'unchanged' });
  assert.equal(read(THP), 'madvise');
  assert.match(s.checks[0].observed, /madvise/);
  assert.equal(existsSync(record), false);
});

test('ASLR off for the whole host is always put back by the other levels', async () => {
  freshTree();
  const off = await control.restart([f('aslr')], { aslr: 'off-host' });
  assert.equal(off.checks[0].ok, true, off.checks[0].observed);
  assert.equal(read(ASLR), '0');
  await control.restart([f('aslr')], { aslr: 'off' });
  assert.equal(read(ASLR), '2', 'setarch -R for mysqld alone; the host has its randomization back');
});

test('after a crash, the next connection offers to restore and does', async () => {
  freshTree();
  await control.restart([f('thp')], { thp: 'never' });
  // varlab "crashes": no restore. The next connection finds the record on the host and asks.
  const asked: string[] = [];
  const next = await openTarget('local', { paths, prompt: async (p) => (asked.push(`${p.kind}: ${p.message}`), { accept: p.kind === 'confirm' }) });
  await next.close();
  assert.equal(asked.length, 1);
  assert.match(asked[0], /^confirm: A previous varlab run changed host settings/);
  assert.ok(asked[0].includes(`${THP} → madvise`), asked[0]);
  assert.equal(read(THP), 'madvise');
  assert.equal(existsSync(record), false);
});

/** Run a shell command as `nobody`: another, unprivileged user of the target. */
const asNobody = (script: string) => execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'sh', '-c', script], { stdio: 'pipe' });

test('a record another user planted in advance is never replayed, and never offered', async () => {
  freshTree();
  // The record's parent is writable by everyone (as /var/tmp was): nobody plants a record for this host.
  chmodSync(paths.records, 0o1777);
  asNobody(`mkdir -m 700 ${hostDir(paths)} && printf '%s\\talways\\n' ${THP} > ${record}`);
  assert.equal(statSync(record).uid, NOBODY);
  await assert.rejects(control.restore(), /refusing the restore record: .* is not owned by uid 0 or is writable by others/);
  assert.equal(read(THP), 'always [madvise] never', 'the planted value was not written');
  const asked: string[] = [];
  (await openTarget('local', { paths, prompt: async (p) => (asked.push(p.message), { accept: true }) })).close();
  assert.deepEqual(asked, [], 'nothing is offered from a record root did not write');
  // And a set refuses to add to it rather than trust it later.
  await assert.rejects(control.restart([f('thp')], { thp: 'never' }), /refusing the restore record/);
  assert.equal(read(THP), 'always [madvise] never');

  // The parent is root's, but the profile's directory and record were left there by the other user earlier.
  chmodSync(paths.records, 0o755);
  chownSync(join(record, '..'), NOBODY, NOBODY);
  await assert.rejects(control.restore(), /refusing the restore record: .* is not owned by uid 0/);
  assert.equal(read(THP), 'always [madvise] never');
});

test('a record entry that names no file of a known tunable is not written, whoever wrote it', async () => {
  freshTree();
  const victim = join(dir, 'etc-passwd');
  writeFileSync(victim, 'root:x:0:0\n');
  await control.restart([f('thp')], { thp: 'never' });
  writeFileSync(record, `${readFileSync(record, 'utf8')}${victim}\toops\n${join(paths.sys, 'kernel/mm/transparent_hugepage/../../../../etc-passwd')}\toops\n`);
  await control.restore();
  assert.equal(readFileSync(victim, 'utf8'), 'root:x:0:0\n');
  assert.equal(read(THP), 'madvise', 'the allowed entry was restored');
  assert.equal(existsSync(record), false);
});
