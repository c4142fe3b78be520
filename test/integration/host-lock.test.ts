// One lock and one restore record per host (issue 24, item 8). Two server profiles on one host, the
// second reached under another name (ssh://root@localhost:PORT beside ssh://root@127.0.0.1:PORT, as an
// ssh-config alias would be): a run that changes host-wide settings (THP) has the host to itself, so
// a run on the other profile is refused by name, whatever it changes, and the record keeps the host's
// own original; runs that change only their own mysqld's settings go on at once on the two profiles,
// and say so. The real sandbox sshd and two sandbox mariadbds; the host's files in a temporary tree.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc, Factor, ServerProfile } from '../../src/common/experiment/types.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { RunService } from '../../src/node/runs/service.js';
import { alive, exited, hostTree, keepCells, quickstartCopy, runEnvForTests, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let other: { target: string; knownHosts: string; profile: ServerProfile } | undefined;
/** Made by the first test that needs it (the environment is started by then). */
function secondHost(): NonNullable<typeof other> {
  if (other) return other;
  // The same sshd under another name: its own known_hosts line, and a second sandbox registered for it.
  const port = /:(\d+)$/.exec(env.sshd.target)![1];
  const target = `ssh://root@localhost:${port}`;
  const knownHosts = join(env.dir, 'known_hosts_localhost');
  writeFileSync(knownHosts, readFileSync(env.sshd.knownHostsFile, 'utf8').replace(`[127.0.0.1]:${port}`, `[localhost]:${port}`));
  const dir = join(env.dir, 'second');
  mkdirSync(dir);
  const r = varlabSync(['sandbox', 'create', target, '--identity', env.sshd.keyFile, '--known-hosts', knownHosts, '--dir', dir, '--json'], env.varlabHome);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  other = { target, knownHosts, profile: JSON.parse(readFileSync(join(env.varlabHome, 'profiles.json'), 'utf8'))[target] as ServerProfile };
  assert.notEqual(other.profile.port, env.profile.port);
  return other;
}
after(async () => {
  // The second sandbox's server, if a failed test left it running.
  const pidFile = other?.profile.pidFile ?? join(other?.profile.datadir ?? '/nonexistent', 'mysqld.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8'));
    if (alive(pid)) process.kill(pid, 'SIGTERM');
    await exited(pid, 60_000);
  }
});

const THP: Factor = { tunable: 'thp', levels: ['never'] };
const AHI: Factor = { tunable: 'ahi', levels: ['off'] };

/** A one-cell design on `target` with these factors; `long`: a long idle wait, so it is still running when the other run comes. */
function design(name: string, target: string, factor: Factor, long: boolean): string {
  return quickstartCopy(env, name, (d: ExperimentDoc) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.factors = [factor];
    d.design.excludedCells = [];
    d.design.target = target;
    d.design.restartsPerCell = long ? 3 : 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.idleSeconds = long ? 600 : 0;
  });
}

const authOf = (target: string) => ({ identity: env.sshd.keyFile, knownHosts: target === other?.target ? other.knownHosts : env.sshd.knownHostsFile });

async function detached(service: RunService, file: string) {
  const started = await service.detach({ file, auth: authOf(env.sshd.target), consent: async () => {}, waitS: 120 });
  // In the first restart's idle time (I): the host set, before the start.
  for (let i = 0; i < 1200 && !readFileSync(join(started.dir, 'journal'), 'utf8').includes('\nI '); i++) await sleep(100);
  return started;
}

async function attached(service: RunService, file: string) {
  const logs: string[] = [];
  const run = await service.start({ file, auth: authOf(secondHost().target), consent: async () => {}, onEvent: (e) => e.type === 'log' && logs.push(e.message) });
  return { outcome: await run.done, logs };
}

test('a run that changes THP has the host to itself: a run on another profile, reached by another name, is refused by name, and the record keeps the original', { timeout: 600_000 }, async () => {
  const { paths, thp, record } = hostTree(env, 'tree-hostwide');
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const first = design('thp-first', env.sshd.target, THP, true);
  await detached(service, first);
  assert.equal(readFileSync(thp, 'utf8').trim(), 'never');
  assert.equal(readFileSync(record, 'utf8'), `${thp}\tmadvise\n`, "the host's record holds the original");

  const second = await attached(service, design('thp-second', secondHost().target, THP, false));
  assert.equal(second.outcome.state, 'failed');
  assert.match(second.outcome.message ?? '', /^ssh:\/\/root@localhost:\d+ is busy: \S+thp-first\.varlab\.json is running there \(.*\); this run changes host-wide settings \(Transparent huge pages\), and one run at a time changes them per host\. Wait for it to end or cancel it\.$/);
  const mysqldOnly = await attached(service, design('ahi-second', secondHost().target, AHI, false));
  assert.equal(mysqldOnly.outcome.state, 'failed');
  assert.match(mysqldOnly.outcome.message ?? '', /is busy: \S+thp-first\.varlab\.json is running there \(.*\); it changes host-wide settings there, which no other run may measure under\./);
  assert.equal(readFileSync(record, 'utf8'), `${thp}\tmadvise\n`, 'nothing recorded the changed value as the original');

  const cancelled = varlabSync(['cancel', first], env.varlabHome);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise', 'THP put back to the original');
  assert.equal(existsSync(record), false);
});

test('runs that change only their own mysqld go on at once on two profiles of one host, and say so; one that would change THP meanwhile is refused', { timeout: 600_000 }, async () => {
  const { paths, thp } = hostTree(env, 'tree-mysqld');
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const first = design('ahi-first', env.sshd.target, AHI, true);
  await detached(service, first);

  const second = await attached(service, design('ahi-both', secondHost().target, AHI, false));
  assert.equal(second.outcome.state, 'finished', second.outcome.message);
  assert.ok(
    second.logs.some((m) => /^\S+ahi-first\.varlab\.json runs on ssh:\/\/root@localhost:\d+ too, on another server profile; it and this run change only their own mysqld's settings, so both go on at once \(each may disturb the other's numbers\)$/.test(m)),
    second.logs.join('\n'),
  );
  const hostWide = await attached(service, design('thp-meanwhile', secondHost().target, THP, false));
  assert.equal(hostWide.outcome.state, 'failed');
  assert.match(hostWide.outcome.message ?? '', /is busy: \S+ahi-first\.varlab\.json is running there \(.*\); this run changes host-wide settings \(Transparent huge pages\), which would change them under it; a run that changes them has the host to itself\./);
  assert.equal(readFileSync(thp, 'utf8').trim(), 'always [madvise] never', 'THP was never changed');

  const cancelled = varlabSync(['cancel', first], env.varlabHome);
  assert.equal(cancelled.code, 0, cancelled.stderr);
});
