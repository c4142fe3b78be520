// The server build as a factor, without a server: its levels, what it contributes to a restart (the
// build's binary on the build's data directory, the profile's pid file), the facts it reads and how
// they are judged, the profile rules for builds, consent, the detached runner's setup per data
// directory, the Designer's edits, and the check before a run's first restart that every build it
// starts is there to start. (With a real mariadbd: test/integration/run-builds.test.ts and
// run-builds-missing.test.ts.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Build, Design, ExperimentDoc, Factor, ServerProfile } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { levelProblem } from '../../src/common/catalog.js';
import { buildFromSetting, checkProfile } from '../../src/common/profile.js';
import { restartProcedure, verifyCell, verifyFailure } from '../../src/common/restart.js';
import { commandsNeedingConsent } from '../../src/common/trust.js';
import { buildNotes, parseExe } from '../../src/common/tunables/build.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { DEFAULT_HOST_PATHS, parseReply, restartScript } from '../../src/node/host/script.js';
import { addFactor, levelChoices, toggleLevel } from '../../src/browser/views/designer/edits.js';
import { buildPlan } from '../../src/common/plan.js';
import { importLines } from '../../src/node/detach/import.js';
import { checkRunBuilds, describeBuilds } from '../../src/node/host/builds.js';
import type { TargetSession } from '../../src/node/host/types.js';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SHA = 'ab'.repeat(32);
const builds: Build[] = [
  { name: 'A', mysqld: '/opt/a/bin/mariadbd', datadir: '/srv/sb/data-A', exe: '/opt/a/bin/mariadbd', sha256: SHA, version: '10.11.19-MariaDB (Debian 12)' },
  { name: 'slow', mysqld: '/opt/w/slow.sh', datadir: '/srv/sb/data-slow', exe: '/opt/a/bin/mariadbd', sha256: SHA },
];
const profile: ServerProfile = {
  kind: 'direct',
  mysqld: '/usr/sbin/mariadbd',
  datadir: '/srv/sb/data',
  socket: '/srv/sb/mysqld.sock',
  port: 23306,
  user: 'root',
  errorLog: '/srv/sb/error.log',
  pidFile: '/srv/sb/mysqld.pid',
  extraArgs: ['--skip-log-bin'],
  sudo: false,
  builds,
};
const host = { target: 'ssh://db', tools: {}, numaNodes: [], threads: 4, arch: 'x86_64' } as unknown as HostFingerprint;
const factor: Factor = { tunable: 'build', levels: ['A', 'slow'] };
const proc = (level: string, p = profile) => restartProcedure({ profile: p, factors: [factor], levels: { build: level }, host });
const script = (level: string) => restartScript({ proc: proc(level), profile, host, paths: DEFAULT_HOST_PATHS, recordDir: '/var/lib/varlab/x' }).text;
const facts = (exe: string) => ({ exe, 'variable:version': '10.11.19-MariaDB', 'variable:version_comment': 'Debian 12' });

test('a build level starts that build on its own data directory, with the profile pid file', () => {
  const text = script('slow');
  assert.match(text, /\nnohup \/opt\/w\/slow\.sh --no-defaults --datadir=\/srv\/sb\/data-slow --port=23306 --pid-file=\/srv\/sb\/mysqld\.pid /);
  assert.match(text, /\n\[ -d \/srv\/sb\/data-slow \] \|\| fail no-datadir/);
  assert.ok(!text.includes('--datadir=/srv/sb/data '), 'never the profile datadir');
  // The next restart's stop signals a build whose binary has another name, found by its executable.
  assert.match(text, /\*\) \[ -n "\$exes" \] && printf '%s\\n' "\$exes" \| grep -qxF -- "\$\(readlink "\/proc\/\$pid\/exe"/);
  assert.match(text, /say "fact exe \$\(sha256sum < "\/proc\/\$pid\/exe"/);
  const start = proc('A').steps.find((s) => s.kind === 'start');
  assert.deepEqual(start?.kind === 'start' && start.server, { name: 'A', mysqld: '/opt/a/bin/mariadbd', datadir: '/srv/sb/data-A' });
  // Version and comment are read with the other variables.
  const verify = proc('A').steps.find((s) => s.kind === 'verify');
  assert.deepEqual(verify?.kind === 'verify' && verify.facts, [{ kind: 'exe' }, { kind: 'variable', name: 'version' }, { kind: 'variable', name: 'version_comment' }]);
});

test('the live process is judged by its resolved exe and its digest; the version is recorded beside them', () => {
  const reply = parseReply(`@pid 42\n@ready 900\n@fact exe ${SHA} /opt/a/bin/mariadbd\n`);
  assert.deepEqual(parseExe(reply.facts.exe), { sha256: SHA, exe: '/opt/a/bin/mariadbd' });
  const ok = verifyCell(proc('slow'), facts(reply.facts.exe), host);
  // A wrapper script is known by the binary it execs.
  assert.deepEqual(ok, [{ tunable: 'build', level: 'slow', ok: true, observed: `exe /opt/a/bin/mariadbd sha256 ${SHA}; 10.11.19-MariaDB (Debian 12)` }]);
  const other = verifyCell(proc('A'), facts(`${SHA} /usr/sbin/mariadbd`), host)[0];
  assert.equal(other.ok, false);
  assert.match(other.observed, /exe \/usr\/sbin\/mariadbd .*expected \/opt\/a\/bin\/mariadbd/);
  const changed = verifyCell(proc('A'), facts(`${'cd'.repeat(32)} /opt/a/bin/mariadbd`), host)[0];
  assert.match(changed.observed, /the binary changed since the build was registered/);
  assert.match(verifyFailure([changed]) ?? '', /^build=A not in effect/);
  const deleted = verifyCell(proc('A'), facts(`${SHA} /opt/a/bin/mariadbd (deleted)`), host)[0];
  assert.equal(deleted.ok, false);
  assert.equal(verifyCell(proc('A'), facts('- '), host)[0].ok, false);
});

test('a level that names no registered build, or could reach a shell, is refused before anything runs', () => {
  assert.throws(() => proc('B'), /no build "B" is registered for ssh:\/\/db \(registered: A, slow\)/);
  assert.match(levelProblem('build', "A'; touch /tmp/x") ?? '', /not valid for Server build/);
  assert.throws(() => proc('A', { ...profile, builds: undefined }), /registered: none/);
});

test('builds in a profile: names, paths and digests checked, and no two share a data directory', () => {
  checkProfile(profile);
  assert.throws(() => checkProfile({ ...profile, builds: [builds[0], { ...builds[1], datadir: builds[0].datadir }] }), /data directory \/srv\/sb\/data-A is already another build's/);
  assert.throws(() => checkProfile({ ...profile, builds: [{ ...builds[0], datadir: profile.datadir }] }), /already another build's \(or the profile's\)/);
  assert.throws(() => checkProfile({ ...profile, builds: [builds[0], { ...builds[1], name: 'A' }] }), /build A is named twice/);
  assert.throws(() => checkProfile({ ...profile, builds: [{ ...builds[0], mysqld: '/opt/a/bin/mariadbd;reboot' }] }), /build A mysqld/);
  assert.throws(() => checkProfile({ ...profile, builds: [{ ...builds[0], sha256: 'x' }] }), /sha256: expected 64 hex digits/);
  assert.deepEqual(buildFromSetting('B=/opt/b/'), { name: 'B', path: '/opt/b' });
  assert.throws(() => buildFromSetting('/opt/b'), /expected NAME=PATH/);
  assert.throws(() => buildFromSetting('B=opt/b'), /--build B: expected an absolute path/);
});

test('a file that carries builds validates, and its consent names every binary they start', () => {
  const doc = JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc;
  doc.design.factors = [factor];
  doc.design.excludedCells = [];
  doc.design.serverProfile = { ...profile, target: doc.design.target };
  assert.deepEqual(checkExperiment(doc).problems, []);
  const p = commandsNeedingConsent(doc).find((i) => i.kind === 'server-profile')!;
  assert.match(p.command, /build A: starts \/opt\/a\/bin\/mariadbd, sha256 (ab){32}, datadir \/srv\/sb\/data-A/);
  // What a wrapper runs is the file's word until a restart's check reads the live process.
  assert.match(p.command, /build slow: starts \/opt\/w\/slow\.sh \(a wrapper: the file says it runs \/opt\/a\/bin\/mariadbd, checked once started\)/);
  assert.match(p.summary, /\(\/opt\/w\/slow\.sh is not mysqld or mariadbd itself: a custom start wrapper\)/);
  // A wrapper named mariadbd (the file says it runs another binary) is one too: its name hid it.
  doc.design.serverProfile.builds = [builds[0], { ...builds[1], mysqld: '/tmp/x/mariadbd' }];
  const named = commandsNeedingConsent(doc).find((i) => i.kind === 'server-profile')!;
  assert.match(named.summary, /\(\/tmp\/x\/mariadbd is not mysqld or mariadbd itself: a custom start wrapper\)/);
  doc.design.serverProfile.builds = [{ ...builds[0], datadir: 'relative' }];
  assert.match(checkExperiment(doc).problems.join('\n'), /design\.serverProfile\.builds\[0\]\.datadir/);
  doc.design.serverProfile.builds = [{ ...builds[0], datadir: '/srv/sb/../../etc' }];
  assert.match(checkExperiment(doc).problems.join('\n'), /design\.serverProfile\.builds: build A datadir: expected an absolute path without control characters or \.\./);
});

test('the Designer offers the registered builds as the levels of the build factor', () => {
  const d = { factors: [], excludedCells: [] } as unknown as Design;
  const added = addFactor(d, 'build', ['A', 'slow']);
  assert.deepEqual(added.factors, [{ tunable: 'build', levels: ['A', 'slow'] }]);
  const one = toggleLevel(added, 0, 'slow', ['A', 'slow']) as Design;
  assert.deepEqual(one.factors[0].levels, ['A']);
  const back = toggleLevel(one, 0, 'slow', ['A', 'slow']) as Design;
  assert.deepEqual(back.factors[0].levels, ['A', 'slow']);
  assert.deepEqual(levelChoices({ tunable: 'build', levels: ['old'] }, ['A']), ['A', 'old']);
});

test('a detached run says which build its setup script ran (or was skipped) on, as an attached run does', () => {
  const design: Design = (JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')) as ExperimentDoc).design;
  design.factors = [factor];
  design.restartsPerCell = 1;
  const plan = buildPlan(design);
  const lines = ['R 1001 1', 'U 1002 0 20 5300', 'R 1003 2', 'U 1004 1 0 0'];
  const got = importLines(lines.join('\n') + '\n', { design, plan, profile, host, target: 'ssh://db', open: [], timer: undefined });
  // It said "setup skipped: …" then "setup script ran (…)" with no build: two lines that read as one contradicting the other.
  assert.deepEqual(got.records.flatMap((r) => (r.t === 'log' ? [r.message] : [])), [
    `build ${plan[0].levels.build}: setup script ran (20 statements, 5.3 s)`,
    `build ${plan[1].levels.build}: setup skipped: table lineitem already exists in varlab_quickstart`,
  ]);
  // A design without a setup script (a one-liner's) says nothing of one, as an attached run says nothing.
  design.workload.setupSql = '';
  const none = importLines(lines.join('\n') + '\n', { design, plan, profile, host, target: 'ssh://db', open: [], timer: undefined });
  assert.deepEqual(none.records.filter((r) => r.t === 'log'), []);
});

test('registering builds that run the same executable says that a restart cannot tell them apart', () => {
  // A wrapper of B: the same executable as B.
  const b: Build = { name: 'B', mysqld: '/opt/b/mariadbd', datadir: '/srv/sb/data-B', exe: '/opt/b/mariadbd', sha256: 'cd'.repeat(32) };
  const h: Build = { name: 'H', mysqld: '/opt/h/handicap.sh', datadir: '/srv/sb/data-H', exe: '/opt/b/mariadbd', sha256: 'cd'.repeat(32) };
  const lines = describeBuilds([builds[0], b, h]);
  assert.equal(lines.length, 4, lines.join('\n'));
  assert.equal(lines[3], 'note: builds B and H run the same executable, /opt/b/mariadbd: the check of each restart cannot tell one from the other (only what the wrapper adds does)');
  assert.equal(describeBuilds([builds[0], b]).length, 2, 'two binaries: no note');
});

test('registering two builds that are the same binary byte for byte (one sha256 at two paths) says so: a note, right for A/A', () => {
  const b: Build = { name: 'B', mysqld: '/opt/b/mariadbd', datadir: '/srv/sb/data-B', exe: '/opt/b/mariadbd', sha256: SHA };
  const lines = describeBuilds([builds[0], b]);
  assert.deepEqual(lines.slice(2), [
    `note: builds A and B are the same binary byte for byte (sha256 ${SHA.slice(0, 12)}…, at /opt/a/bin/mariadbd and /opt/b/mariadbd): right for an A/A check; if one of them should be a patch, it was not rebuilt or its path is not the new binary's`,
  ]);
  // The Hosts view says the same notes (common, so the browser reads them from the profile).
  assert.deepEqual(buildNotes([builds[0], b]), lines.slice(2));
  // A build not started yet has no digest to compare.
  assert.deepEqual(buildNotes([builds[0], { ...b, sha256: '0'.repeat(64) }]), []);
});

/** A target whose shell is this machine's `sh` (or, for a sudo profile, says what a root shell would): every command it was given. */
function shellTarget(answer?: string): TargetSession & { commands: string[] } {
  const commands: string[] = [];
  const exec = async (command: string) => {
    commands.push(command);
    return answer !== undefined ? { code: 0, stdout: answer, stderr: '' } : { code: 0, stdout: execFileSync('sh', ['-c', command], { encoding: 'utf8' }), stderr: '' };
  };
  return { target: 'ssh://db', isLocal: false, exec, commands } as unknown as TargetSession & { commands: string[] };
}

const buildFactor: Factor[] = [{ tunable: 'build', levels: ['A', 'slow'] }];
const restartsOf = (design: Partial<Design>) => buildPlan({ ...JSON.parse(readFileSync('examples/quickstart.varlab.json', 'utf8')).design, factors: buildFactor, excludedCells: [], restartsPerCell: 1, ...design });

test('before the first restart, a build the plan starts whose binary is gone or not executable refuses the run, naming it, its path and the host', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-buildcheck-'));
  try {
    const [a, slow] = [join(dir, 'mariadbd'), join(dir, 'slow.sh')];
    writeFileSync(a, '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(slow, '#!/bin/sh\n', { mode: 0o644 });
    const p = { ...profile, builds: [{ ...builds[0], mysqld: a }, { ...builds[1], mysqld: slow }] };
    const session = shellTarget();
    await assert.rejects(
      checkRunBuilds(session, p, buildFactor, restartsOf({})),
      (e: Error) =>
        e.message ===
        `build slow: ${slow} does not exist or is not executable on ssh://db, so the run did not start there (nothing was measured or changed). ` +
          // One build again, the other and its data left as they are (it said: every build again, in a new sandbox).
          `Put the binary back (or make it executable), or register another under its name: varlab sandbox remove-build ssh://db --build slow, then varlab sandbox add-build ssh://db --build slow=PATH (or in the Hosts view)`,
    );
    assert.equal(session.commands.length, 1, 'one remote call');
    chmodSync(slow, 0o755);
    await checkRunBuilds(session, p, buildFactor, restartsOf({}));
    rmSync(a);
    // A build the restarts do not start (its cells excluded here; a resumed run's done ones) is not asked about.
    const onlySlow = shellTarget();
    await checkRunBuilds(onlySlow, p, buildFactor, restartsOf({ excludedCells: ['build=A'] }));
    assert.doesNotMatch(onlySlow.commands[0], /mariadbd/);
    const none = shellTarget();
    await checkRunBuilds(none, p, [{ tunable: 'ahi', levels: ['on', 'off'] }], restartsOf({ factors: [{ tunable: 'ahi', levels: ['on', 'off'] }] }));
    assert.deepEqual(none.commands, [], 'no build factor: nothing to ask');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the check of the builds runs as root under sudo (its exact text); a path that could reach a shell is refused before anything runs', async () => {
  const session = shellTarget('@missing slow\n');
  await assert.rejects(checkRunBuilds(session, { ...profile, sudo: true }, buildFactor, restartsOf({})), { message: /^build slow: \/opt\/w\/slow\.sh does not exist/ });
  assert.deepEqual(session.commands, [`sudo -n sh -c '# the builds this run starts are there to start\n[ -x /opt/a/bin/mariadbd ] || echo @missing A\n[ -x /opt/w/slow.sh ] || echo @missing slow\n'`]);
  const hostile = shellTarget('');
  await assert.rejects(checkRunBuilds(hostile, { ...profile, builds: [{ ...builds[0], mysqld: "/opt/a/$(touch /tmp/x)'" }] }, buildFactor, restartsOf({ excludedCells: ['build=slow'] })), /build A mysqld: expected an absolute path of letters, digits/);
  assert.deepEqual(hostile.commands, [], 'nothing reached the shell');
});

test('before the first restart, a build level the host does not register refuses the run in the same check, before any remote call, naming it, the host and its builds', async () => {
  const session = shellTarget('');
  const withC: Factor[] = [{ tunable: 'build', levels: ['A', 'slow', 'C'] }];
  const p = { ...profile, builds };
  await assert.rejects(
    checkRunBuilds(session, p, withC, restartsOf({ factors: withC })),
    (e: Error) =>
      e.message ===
      'no build "C" is registered for ssh://db (registered: A, slow), so the run did not start there (nothing was measured or changed); ' +
        'register it with varlab sandbox add-build ssh://db --build C=PATH (the builds it has stay as they are), or in the Hosts view',
  );
  assert.deepEqual(session.commands, [], 'refused before the binary check reaches the host');
  // The same words as a restart's procedure (and so the dry run) says them for that level.
  assert.throws(() => restartProcedure({ profile: p, factors: withC, levels: { build: 'C' }, host }), (e: Error) => e.message.endsWith('no build "C" is registered for ssh://db (registered: A, slow); register it with varlab sandbox add-build ssh://db --build C=PATH (the builds it has stay as they are), or in the Hosts view'));
  // Only the builds the remaining restarts start: C's cell excluded (or done), the binary check runs as before.
  const rest = shellTarget('');
  await checkRunBuilds(rest, p, withC, restartsOf({ factors: withC, excludedCells: ['build=C'] }));
  assert.equal(rest.commands.length, 1);
  // None registered at all: said so.
  await assert.rejects(checkRunBuilds(shellTarget(''), { ...profile, builds: undefined }, withC, restartsOf({ factors: withC })), { message: /^no builds "A", "slow" and "C" are registered for ssh:\/\/db \(registered: none\), so the run did not start there .*; register them with varlab sandbox add-build ssh:\/\/db --build A=PATH --build slow=PATH --build C=PATH, or in the Hosts view$/ });
});
