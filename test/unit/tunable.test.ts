import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Factor, ServerProfile } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { TUNABLES } from '../../src/common/catalog.js';
import { restartProcedure, verifyCell, type RestartProcedure } from '../../src/common/restart.js';
import { cpuSet, policies, REGISTRY, sameValue } from '../../src/common/tunables/registry.js';
import { parseProbe } from '../../src/node/host/probe.js';
import { DEFAULT_HOST_PATHS, parseReply, restartScript, systemdDropIn } from '../../src/node/host/script.js';
import { startCause, startFailureRepeats } from '../../src/node/host/server.js';
import { procedureText } from '../../src/node/host/dryrun.js';

const profile: ServerProfile = {
  kind: 'direct',
  mysqld: '/usr/sbin/mariadbd',
  datadir: '/srv/sb/data',
  socket: '/srv/sb/mysqld.sock',
  port: 23306,
  osUser: 'mysql',
  user: 'root',
  errorLog: '/srv/sb/error.log',
  pidFile: '/srv/sb/mysqld.pid',
  extraArgs: ['--innodb-buffer-pool-size=512M', '--skip-log-bin'],
  sudo: false,
};

/** An arm64 database server with cpufreq boost, jemalloc in /usr/lib64, 8 CPUs on 2 NUMA nodes. */
const host: HostFingerprint = {
  target: 'ssh://db',
  probedAt: 0,
  hostname: 'db1',
  kernel: 'Linux 6.1',
  cpuModel: 'Neoverse-N1',
  sockets: 1,
  cores: 8,
  threads: 8,
  numaNodes: [
    { node: 0, cpus: '0-3', memoryMb: 1000 },
    { node: 1, cpus: '4-7', memoryMb: 1000 },
  ],
  aslr: '2',
  governor: 'schedutil',
  turbo: 'boost=1',
  thp: 'madvise',
  mysqld: null,
  sudoWithoutPassword: true,
  tools: { numactl: true, taskset: true, setarch: true, perf: false, sysbench: false },
  arch: 'aarch64',
  user: 'root',
  uid: 0,
  toolPaths: { numactl: '/usr/bin/numactl', taskset: '/usr/bin/taskset', setarch: '/usr/bin/setarch', systemctl: '/usr/bin/systemctl' },
  systemd: true,
  allocators: { jemalloc: '/usr/lib64/libjemalloc.so.2', tcmalloc: null },
};
const f = (tunable: string, name?: string): Factor => ({ tunable, name, levels: [] });
const proc = (levels: Record<string, string>, factors = Object.keys(levels).map((k) => f(k)), p = profile, h = host) => restartProcedure({ profile: p, factors, levels, host: h });
const text = (pr: RestartProcedure, p = profile) => restartScript({ proc: pr, profile: p, host, paths: DEFAULT_HOST_PATHS, recordDir: '/var/lib/varlab/x' }).text;

test('the catalog the designer shows is the registry itself: one object per tunable', () => {
  assert.equal(TUNABLES, REGISTRY);
  for (const t of REGISTRY) assert.ok(t.kind === 'tunable' || t.kind === 'step', t.id);
  assert.equal(REGISTRY.find((t) => t.id === 'preload')?.kind, 'step', 'preload is a restart step, not a pretend tunable');
});

test('a restart is a list of typed steps in a fixed order, from the levels and the probed host', () => {
  const p = restartProcedure({ profile, factors: [f('thp'), f('preload'), f('numa')], levels: { thp: 'never', preload: 'on', numa: 'interleave' }, host, schemas: ['tpch'], workload: true });
  assert.deepEqual(p.steps.map((s) => s.kind), ['stop', 'set', 'start', 'wait-ready', 'verify', 'preload', 'workload']);
  assert.deepEqual(p.steps.find((s) => s.kind === 'preload'), { kind: 'preload', schemas: ['tpch'] });
  const back = proc({ thp: 'unchanged', preload: 'off' });
  assert.deepEqual(back.steps.map((s) => s.kind), ['stop', 'restore', 'start', 'wait-ready', 'verify']);
});

test('the start command composes numactl, taskset and setarch (the probed architecture) around mysqld', () => {
  const script = text(proc({ aslr: 'off', ahi: 'off', numa: 'interleave', cpubind: '0,2' }));
  assert.match(script, /nohup numactl --interleave=all taskset -c 0,2 setarch aarch64 -R \/usr\/sbin\/mariadbd --no-defaults /);
  assert.match(script, /--innodb-adaptive-hash-index=OFF/);
  assert.match(script, /--user=mysql/);
  assert.ok(script.indexOf('kill -TERM') < script.indexOf('nohup'), 'stop comes first');
  assert.ok(script.indexOf('nohup') < script.indexOf('/proc/net/unix'), 'then the wait for the socket, on the target');
});

test('the allocator comes from the probe: the library this host has', () => {
  assert.match(text(proc({ allocator: 'jemalloc' })), /nohup env LD_PRELOAD=\/usr\/lib64\/libjemalloc\.so\.2 \/usr\/sbin\/mariadbd/);
  assert.throws(() => proc({ allocator: 'tcmalloc' }), /allocator=tcmalloc cannot run on ssh:\/\/db: tcmalloc is not installed on this host/);
});

test('turbo, governor and THP say "not on this host" through the tunable, and use the host\'s file', () => {
  const plain = { ...host, governor: null, turbo: null, thp: null };
  assert.throws(() => proc({ turbo: 'off' }, undefined, profile, plain), /turbo=off cannot run on ssh:\/\/db: not on this host: it has neither intel_pstate\/no_turbo nor cpufreq\/boost/);
  assert.throws(() => proc({ governor: 'performance' }, undefined, profile, plain), /not on this host: it has no cpufreq scaling governor/);
  assert.throws(() => proc({ thp: 'never' }, undefined, profile, plain), /not on this host: the kernel has no transparent huge pages/);
  assert.doesNotThrow(() => proc({ turbo: 'unchanged', governor: 'unchanged' }, undefined, profile, plain), 'the neutral level needs nothing');
  assert.match(text(proc({ turbo: 'off' })), /set_file \/sys\/devices\/system\/cpu\/cpufreq\/boost 0 cat/);
  assert.match(text(proc({ turbo: 'off' }, undefined, profile, { ...host, turbo: 'no_turbo=0' })), /set_file \/sys\/devices\/system\/cpu\/intel_pstate\/no_turbo 1 cat/);
  assert.match(text(proc({ governor: 'performance' })), /for f in \/sys\/devices\/system\/cpu\/cpu\[0-9\]\*\/cpufreq\/scaling_governor; do .* set_file "\$f" performance cat/);
  assert.throws(() => proc({ numa: 'bind:3' }), /this host has no NUMA node 3/);
  assert.throws(() => proc({ cpubind: '0,9' }), /this host has CPUs 0-7; no CPU 9/);
});

test('a level with shell syntax is refused before any command is built', () => {
  for (const [t, level] of [['aslr', 'on; touch /tmp/x'], ['cpubind', '0;reboot'], ['numa', 'bind:$(id)'], ['variable', "1' OR '1"]] as const) {
    const key = t === 'variable' ? 'innodb_io_capacity' : t;
    assert.throws(() => proc({ [key]: level }, [f(t, t === 'variable' ? key : undefined)]), /is not valid/);
  }
  assert.throws(() => proc({ 'x; rm': '1' }, [f('variable', 'x; rm')]), /server variable name/);
  assert.throws(() => proc({}, [f('aslr')]), /no level given for factor aslr/);
});

test('a profile with an unsafe value is refused, naming the field', () => {
  assert.throws(() => proc({}, [], { ...profile, datadir: 'relative/dir' }), /server profile datadir: expected an absolute path/);
  assert.throws(() => proc({}, [], { ...profile, extraArgs: ['; rm -rf /'] }), /extraArgs/);
  assert.throws(() => proc({}, [], { ...profile, osUser: 'my sql' }), /osUser/);
});

test('host-wide tunables save the original into the restore record before writing, and the neutral level puts it back', () => {
  const set = text(proc({ thp: 'never' }));
  assert.ok(set.indexOf('>> "$rec"') < set.indexOf('printf \'%s\\n\' "$2" > "$1"'), 'the original is saved first');
  assert.match(set, /set_file \/sys\/kernel\/mm\/transparent_hugepage\/enabled never bracketed/);
  const back = text(proc({ thp: 'unchanged' }));
  assert.match(back, /# put thp back to the host's own setting/);
  assert.match(back, /for f in \/sys\/kernel\/mm\/transparent_hugepage\/enabled; do \[ -e "\$f" \] && set -- "\$@" "\$f"; done\nrestore_files "\$@"/);
});

test('every ASLR level but off-host first puts a host-wide randomize_va_space back: ASLR is never left off host-wide', () => {
  for (const level of ['on', 'off']) assert.match(text(proc({ aslr: level })), /# put aslr back to the host's own setting[^]*\/proc\/sys\/kernel\/randomize_va_space/);
  assert.match(text(proc({ aslr: 'off-host' })), /set_file \/proc\/sys\/kernel\/randomize_va_space 0 cat/);
});

test('a sudo profile runs the one script through sudo -n, and mysqld as the login user', () => {
  const p = { ...profile, sudo: true, osUser: undefined };
  const pr = proc({ governor: 'performance' }, undefined, p, { ...host, user: 'dba' });
  const s = restartScript({ proc: pr, profile: p, host: { ...host, user: 'dba' }, paths: DEFAULT_HOST_PATHS, recordDir: '/var/lib/varlab/x' });
  assert.equal(s.sudo, true);
  assert.match(s.text, /--user=dba/);
  assert.match(procedureText(pr, s)[0], /^# one remote call on the target:\n# runs as root: sudo -n sh -c SCRIPT, with SCRIPT:\n/);
});

test('the systemd drop-in wraps ExecStart with the probed tools, architecture and allocator', () => {
  const p = { ...profile, kind: 'systemd' as const, service: 'mariadb' };
  const start = proc({ aslr: 'off', numa: 'bind:1', allocator: 'jemalloc' }, undefined, p).steps.find((s) => s.kind === 'start')!;
  assert.equal(
    systemdDropIn(p, start as never, host),
    [
      '# Written by varlab for one restart; removed when the experiment ends.',
      '[Service]',
      'Environment=LD_PRELOAD=/usr/lib64/libjemalloc.so.2',
      'ExecStart=',
      'ExecStart=/usr/bin/numactl --membind=1 /usr/bin/setarch aarch64 -R /usr/sbin/mariadbd $MYSQLD_OPTS --innodb-buffer-pool-size=512M --skip-log-bin',
      '',
    ].join('\n'),
  );
  assert.throws(() => systemdDropIn(p, start as never, { ...host, toolPaths: {} }), /numactl was not found on ssh:\/\/db/);
});

test('verification: each level judged from the facts the script and the server sent back', () => {
  const pr = proc({ aslr: 'off', numa: 'interleave', cpubind: '0,2', thp: 'never', ahi: 'off' });
  const reply = parseReply(['noise', '@pid 4242', '@ready 812', '@fact personality 0040000', '@fact numa interleave:0-1 12', '@fact numa default 2', '@fact cpus 0,2', '@fact file:thp always madvise [never]'].join('\n'));
  assert.deepEqual([reply.pid, reply.readyMs], [4242, 812]);
  const verify = pr.steps.find((s) => s.kind === 'verify')!;
  assert.deepEqual(verify.kind === 'verify' && verify.options.map((o) => o.variable), ['innodb_buffer_pool_size']);
  const checks = restartProcedureChecks(pr, { ...reply.facts, 'variable:innodb_adaptive_hash_index': 'OFF' });
  assert.deepEqual(checks.map((c) => [c.tunable, c.ok]), [['aslr', true], ['numa', true], ['cpubind', true], ['thp', true], ['ahi', true]]);
  assert.match(checks[0].observed, /ADDR_NO_RANDOMIZE set/);
  const wrong = restartProcedureChecks(pr, { ...reply.facts, cpus: '0-7', 'variable:innodb_adaptive_hash_index': null });
  assert.deepEqual(wrong.filter((c) => !c.ok).map((c) => `${c.tunable}: ${c.observed}`), ['cpubind: Cpus_allowed_list 0-7', 'ahi: @@innodb_adaptive_hash_index = unknown variable']);
});

test('an option given twice is judged as mysqld takes it, by its last value: the earlier one is not "not in effect"', () => {
  const p = { ...profile, extraArgs: ['--performance-schema=ON', '--innodb-buffer-pool-size=512M', '--performance-schema=OFF'] };
  const verify = proc({ aslr: 'off' }, undefined, p).steps.find((s) => s.kind === 'verify')!;
  assert.deepEqual(verify.kind === 'verify' && verify.options.map((o) => `${o.variable}=${o.value}`), ['innodb_buffer_pool_size=512M', 'performance_schema=OFF']);
});

const restartProcedureChecks = (pr: RestartProcedure, facts: Record<string, string | null>) => verifyCell(pr, facts, host);

test('a start failure: the cause in one line, and whether it would repeat', () => {
  const refused = { fail: { kind: 'exited', message: 'mysqld (pid 9) exited during start-up' }, log: ['2026-11-24  0:16:02 0 [ERROR] /usr/sbin/mariadbd: unknown variable \'x=1\'', '2026-11-24  0:16:02 0 [ERROR] Aborting'] };
  assert.equal(startCause(refused), "/usr/sbin/mariadbd: unknown variable 'x=1'");
  assert.equal(startFailureRepeats(refused), true);
  const mysql8 = { fail: refused.fail, log: ['2026-11-24T00:16:02.123456Z 0 [ERROR] [MY-000067] [Server] unknown variable \'x=1\'.'] };
  assert.equal(startCause(mysql8), "unknown variable 'x=1'.");
  assert.equal(startCause({ fail: { kind: 'no-binary', message: '/opt/x does not exist' }, log: [] }), '/opt/x does not exist');
  assert.equal(startFailureRepeats({ fail: null, log: ['nohup: failed to run command \'/opt/x\': No such file or directory'] }), true);
  assert.equal(startFailureRepeats({ fail: null, log: ['[Note] shutting down'] }), false);
});

test('verification helpers: numa_maps policies, CPU lists, server values', () => {
  const maps = '55d0 interleave:0-1 file=/usr/sbin/mariadbd mapped=4\n7f00 interleave:0-1 anon=3\n7f10 default stack\n';
  assert.deepEqual([...policies(maps)], [['interleave:0-1', 2], ['default', 1]]);
  assert.deepEqual(cpuSet('0-2,5'), [0, 1, 2, 5]);
  assert.deepEqual(cpuSet('0,1,2,5'), cpuSet('0-2,5'));
  assert.ok(sameValue('OFF', '0'));
  assert.ok(sameValue('512M', '536870912'));
  assert.ok(!sameValue('ON', '0'));
});

test('the probe output is parsed into a fingerprint, tools and allocators with their paths', () => {
  const fp = parseProbe('ssh://db', ['hostname=db1', 'kernel=Linux 6.1.0', 'arch=x86_64', 'user=dba', 'uid=1000', 'cpumodel=Intel(R) Xeon(R) Gold 6230', 'threads=80', 'sockets=2', 'cores=40', 'numa=0 0-19,40-59 191000', 'numa=1 20-39,60-79 192000', 'aslr=2', 'governor=performance', 'turbo=no_turbo=1', 'thp=always [madvise] never', 'sudo=no', 'tool=numactl /usr/bin/numactl', 'tool=perf /usr/bin/perf', 'tool=systemctl /bin/systemctl', 'systemd=yes', 'alloc=jemalloc /usr/lib/x86_64-linux-gnu/libjemalloc.so.2', 'mysqld=/usr/sbin/mysqld', 'mysqldversion=/usr/sbin/mysqld  Ver 8.0.36-28 for Linux on x86_64 (Percona Server (GPL), Release 28)', 'mysqld_datadir=/var/lib/mysql/'].join('\n'));
  assert.equal(fp.sockets, 2);
  assert.deepEqual(fp.numaNodes, [{ node: 0, cpus: '0-19,40-59', memoryMb: 187 }, { node: 1, cpus: '20-39,60-79', memoryMb: 188 }]);
  assert.equal(fp.thp, 'madvise');
  assert.equal(fp.mysqld?.flavor, 'percona');
  assert.equal(fp.mysqld?.version, '8.0.36-28');
  assert.equal(fp.sudoWithoutPassword, false);
  assert.deepEqual(fp.tools, { numactl: true, taskset: false, setarch: false, perf: true, sysbench: false });
  assert.deepEqual([fp.arch, fp.user, fp.uid, fp.systemd], ['x86_64', 'dba', 1000, true]);
  assert.deepEqual(fp.toolPaths, { numactl: '/usr/bin/numactl', systemctl: '/bin/systemctl' });
  assert.deepEqual(fp.allocators, { jemalloc: '/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', tcmalloc: null });
});

test('a systemd profile restarts through its unit in the one script: drop-in, daemon-reload, restart, MainPID, wait', () => {
  const p = { ...profile, kind: 'systemd' as const, service: 'mariadb', errorLog: undefined };
  const script = text(proc({ numa: 'interleave' }, undefined, p), p);
  const order = ['/etc/systemd/system/mariadb.d/varlab.conf', 'systemctl daemon-reload', 'systemctl restart mariadb', 'systemctl show -p MainPID --value mariadb', '/proc/net/unix'].map((s) => script.indexOf(s));
  assert.ok(order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1])), `in order: ${order}`);
  assert.ok(!script.includes('kill -TERM'), 'systemd stops it itself');
  assert.match(script, /journalctl -u mariadb --since "\$since"/, 'a failed start shows the unit\'s new journal lines');
  assert.match(script, /ExecStart=\/usr\/bin\/numactl --interleave=all \/usr\/sbin\/mariadbd \$MYSQLD_OPTS/);
});
