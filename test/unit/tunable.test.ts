import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Factor, ServerProfile } from '../../src/common/experiment/types.js';
import { planCommands, systemdDropIn, recipeFor, cellTunables } from '../../src/node/host/commands.js';
import { policies } from '../../src/node/host/tunables/numa.js';
import { cpuSet } from '../../src/node/host/tunables/cpubind.js';
import { sameValue } from '../../src/node/host/tunables/variable.js';
import { parseProbe } from '../../src/node/host/probe.js';

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
  extraArgs: [],
  sudo: false,
};
const f = (tunable: string, name?: string): Factor => ({ tunable, name, levels: [] });

test('the start command composes numactl, taskset and setarch around mysqld', () => {
  const cmds = planCommands(profile, [f('aslr'), f('ahi'), f('numa'), f('cpubind')], { aslr: 'off', ahi: 'off', numa: 'interleave', cpubind: '8' });
  const start = cmds.find((c) => c.startsWith('# start'))!;
  assert.match(start, /nohup numactl --interleave=all taskset -c 8 setarch "\$\(uname -m\)" -R \/usr\/sbin\/mariadbd --no-defaults /);
  assert.match(start, /--innodb-adaptive-hash-index=OFF/);
  assert.match(start, /--user=mysql/);
  assert.ok(cmds[0].startsWith('# stop mysqld'), 'stop comes first');
});

test('a level with shell syntax is refused before any command is built', () => {
  for (const [t, level] of [['aslr', 'on; touch /tmp/x'], ['cpubind', '0;reboot'], ['numa', 'bind:$(id)'], ['variable', "1' OR '1"]] as const) {
    assert.throws(() => planCommands(profile, [f(t, t === 'variable' ? 'innodb_io_capacity' : undefined)], { [t === 'variable' ? 'innodb_io_capacity' : t]: level }), /is not valid/);
  }
  assert.throws(() => planCommands(profile, [f('variable', 'x; rm')], { 'x; rm': '1' }), /server variable name/);
  assert.throws(() => planCommands(profile, [f('aslr')], {}), /no level given for factor aslr/);
});

test('a profile with an unsafe value is refused, naming the field', () => {
  assert.throws(() => planCommands({ ...profile, datadir: 'relative/dir' }, [], {}), /server profile datadir: expected an absolute path/);
  assert.throws(() => planCommands({ ...profile, extraArgs: ['; rm -rf /'] }, [], {}), /extraArgs/);
  assert.throws(() => planCommands({ ...profile, osUser: 'my sql' }, [], {}), /osUser/);
});

test('host-wide tunables save the original into the restore record before writing, and the neutral level puts it back', () => {
  const set = planCommands(profile, [f('thp')], { thp: 'never' }, { restoreRecord: '/var/tmp/rec.tsv' }).join('\n');
  assert.ok(set.indexOf('>> "$rec"') < set.indexOf("printf '%s\\n' never > \"$f\""), 'the original is saved first');
  const back = planCommands(profile, [f('thp')], { thp: 'unchanged' }, { restoreRecord: '/var/tmp/rec.tsv' }).join('\n');
  assert.match(back, /put thp back to the host's own setting/);
  assert.match(back, /case "\$f" in \/sys\/kernel\/mm\/transparent_hugepage\/enabled\)/);
});

test('sudo profiles run root commands through sudo -n', () => {
  const cmds = planCommands({ ...profile, sudo: true }, [f('governor')], { governor: 'performance' });
  assert.ok(cmds.every((c) => c.split('\n')[1].startsWith('sudo -n sh -c ')));
});

test('the systemd drop-in clears and wraps ExecStart', () => {
  const cell = cellTunables([f('aslr'), f('numa'), f('allocator')], { aslr: 'off', numa: 'bind:1', allocator: 'jemalloc' });
  const text = systemdDropIn({ ...profile, kind: 'systemd', service: 'mariadb' }, recipeFor(cell), 'x86_64');
  assert.equal(
    text,
    [
      '# Written by varlab for one restart; removed when the experiment ends.',
      '[Service]',
      'Environment=LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2',
      'ExecStart=',
      'ExecStart=/usr/bin/numactl --membind=1 /usr/bin/setarch x86_64 -R /usr/sbin/mariadbd $MYSQLD_OPTS',
      '',
    ].join('\n'),
  );
});

test('verification helpers: numa_maps policies, CPU lists, server values', () => {
  const maps = '55d0 interleave:0-1 file=/usr/sbin/mariadbd mapped=4\n7f00 interleave:0-1 anon=3\n7f10 default stack\n';
  assert.deepEqual([...policies(maps)], [['interleave:0-1', 2], ['default', 1]]);
  assert.deepEqual(cpuSet('0-2,5'), [0, 1, 2, 5]);
  assert.deepEqual(cpuSet('0,1,2,5'), cpuSet('0-2,5'));
  assert.ok(sameValue('OFF', '0'));
  assert.ok(sameValue('128M', '134217728'));
  assert.ok(!sameValue('ON', '0'));
});

test('the probe output is parsed into a fingerprint', () => {
  const fp = parseProbe('ssh://db', ['hostname=db1', 'kernel=Linux 6.1.0', 'cpumodel=Intel(R) Xeon(R) Gold 6230', 'threads=80', 'sockets=2', 'cores=40', 'numa=0 0-19,40-59 191000', 'numa=1 20-39,60-79 192000', 'aslr=2', 'governor=performance', 'turbo=no_turbo=1', 'thp=always [madvise] never', 'sudo=no', 'tool=numactl', 'tool=perf', 'mysqld=/usr/sbin/mysqld', 'mysqldversion=/usr/sbin/mysqld  Ver 8.0.36-28 for Linux on x86_64 (Percona Server (GPL), Release 28)', 'mysqld_datadir=/var/lib/mysql/'].join('\n'));
  assert.equal(fp.sockets, 2);
  assert.deepEqual(fp.numaNodes, [{ node: 0, cpus: '0-19,40-59', memoryMb: 187 }, { node: 1, cpus: '20-39,60-79', memoryMb: 188 }]);
  assert.equal(fp.thp, 'madvise');
  assert.equal(fp.mysqld?.flavor, 'percona');
  assert.equal(fp.mysqld?.version, '8.0.36-28');
  assert.equal(fp.sudoWithoutPassword, false);
  assert.deepEqual(fp.tools, { numactl: true, taskset: false, setarch: false, perf: true, sysbench: false });
});

test('every ASLR level first puts a host-wide randomize_va_space back: ASLR is never left off host-wide', () => {
  for (const level of ['on', 'off']) {
    const cmds = planCommands(profile, [f('aslr')], { aslr: level }).join('\n');
    assert.match(cmds, /put aslr back to the host's own setting/);
    assert.match(cmds, /case "\$f" in \/proc\/sys\/kernel\/randomize_va_space\)/);
  }
});
