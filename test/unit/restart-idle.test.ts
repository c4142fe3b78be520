// Issue 22, Deliver 3: the design's idle time is spent before the start with mysqld stopped (as the
// seeds keep it), after the host is set and before the page cache is dropped; an attached run and a
// detached one split the restart script around it, so that a cancel ends the idle at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Factor, ServerProfile } from '../../src/common/experiment/types.js';
import type { HostFingerprint } from '../../src/common/host.js';
import { restartProcedure } from '../../src/common/restart.js';
import { procedureText } from '../../src/node/host/dryrun.js';
import { DEFAULT_HOST_PATHS, restartScript } from '../../src/node/host/script.js';

const profile: ServerProfile = { kind: 'direct', mysqld: '/usr/sbin/mariadbd', datadir: '/srv/sb/data', socket: '/srv/sb/mysqld.sock', port: 23306, user: 'root', pidFile: '/srv/sb/mysqld.pid', extraArgs: [], sudo: false };
const host = { target: 'local', probedAt: 0, threads: 2, numaNodes: [], sudoWithoutPassword: true, tools: {}, toolPaths: { systemctl: '/usr/bin/systemctl' }, systemd: true, allocators: {}, arch: 'x86_64' } as unknown as HostFingerprint;
const factors: Factor[] = [
  { tunable: 'thp', levels: ['never'] },
  { tunable: 'dropcaches', levels: ['on'] },
];
const proc = (idleSeconds: number, p = profile) => restartProcedure({ profile: p, factors, levels: { thp: 'never', dropcaches: 'on' }, host, workload: true, idleSeconds });
const compile = (pr: ReturnType<typeof proc>, part?: 'down' | 'up', p = profile) => restartScript({ proc: pr, profile: p, host, paths: DEFAULT_HOST_PATHS, recordDir: '/var/lib/varlab/host', part }).text;

test('the idle step comes after the host is set and before the page cache is dropped and mysqld starts; none without idle time', () => {
  assert.deepEqual(proc(30).steps.map((s) => s.kind), ['stop', 'set', 'idle', 'drop-caches', 'start', 'wait-ready', 'verify', 'workload']);
  assert.deepEqual(proc(30).steps.find((s) => s.kind === 'idle'), { kind: 'idle', seconds: 30 });
  assert.deepEqual(proc(0).steps.map((s) => s.kind), ['stop', 'set', 'drop-caches', 'start', 'wait-ready', 'verify', 'workload']);
  // A service restarts itself at its start; with idle time it is stopped first, so that it idles stopped.
  const unit = { ...profile, kind: 'systemd' as const, service: 'mariadb' };
  assert.deepEqual(proc(0, unit).steps[0].kind, 'set');
  assert.deepEqual(proc(5, unit).steps.slice(0, 3).map((s) => s.kind), ['stop', 'set', 'idle']);
  assert.throws(() => proc(-1), /idle time -1/);
});

test('the restart script in two parts around the idle: down stops mysqld and sets the host, up drops the cache and starts it; whole, it sleeps between', () => {
  const pr = proc(2.5);
  const down = compile(pr, 'down');
  const up = compile(pr, 'up');
  const whole = compile(pr);
  assert.match(down, /kill -TERM/);
  assert.match(down, /set_file/);
  assert.doesNotMatch(down, /nohup|drop_caches|sleep 2\.5/);
  assert.match(up, /drop_caches[\s\S]*nohup/);
  assert.doesNotMatch(up, /kill -TERM|set_file|sleep 2\.5/);
  // One call (sandbox start, or a caller that does not spend the idle itself): the idle sleeps in it.
  assert.match(whole, /kill -TERM[\s\S]*set_file[\s\S]*sleep 2\.5 2>\/dev\/null \|\| sleep 3[\s\S]*drop_caches[\s\S]*nohup/);
  // The dry run shows what a run does: two calls, and the idle between them.
  const text = procedureText(pr, { sections: [], sudo: false, text: whole }, { down: { sections: [], sudo: false, text: down }, up: { sections: [], sudo: false, text: up } });
  assert.deepEqual(text.slice(0, 3).map((t) => t.split('\n')[0]), ['# one remote call on the target:', "# then, from varlab (a cancel ends it at once): wait 2.5 s with mysqld stopped (the design's idle time, the same before every start)", '# one remote call on the target:']);
});

test('run by the real sh, the whole script idles after the stop and before the start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'varlab-idle-'));
  try {
    // No mysqld to stop, no binary to start: the script stops at the start, after the idle.
    const p = { ...profile, mysqld: join(dir, 'no-mysqld'), pidFile: join(dir, 'pid') };
    const pr = restartProcedure({ profile: p, factors: [], levels: {}, host, idleSeconds: 1.2 });
    writeFileSync(join(dir, 's.sh'), compile(pr, undefined, p));
    const t0 = Date.now();
    let out = '';
    try {
      execFileSync('sh', [join(dir, 's.sh')], { encoding: 'utf8' });
    } catch (e) {
      out = String((e as { stdout: string }).stdout);
    }
    assert.ok(Date.now() - t0 >= 1200, `${Date.now() - t0} ms`);
    assert.match(out, /^@fail no-binary /m);
    assert.equal(readFileSync(join(dir, 's.sh'), 'utf8').includes('sleep 1.2'), true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
