// One design on several hosts (issue 14), through `varlab run --target A --target B` with real parts:
// the sandbox sshd and a second sshd on another port as the second host, each with its own sandbox
// mariadbd (its own directory, port and socket; both on this machine). The same design runs on both
// at once, each in its own order and journal; `analyze --json` and the CSV show the host as a factor;
// a host that fails (a server profile whose mysqld does not exist) does not stop the other. Each host
// has its own client key and known-hosts file, and neither key logs in to the other host: a run that
// connected every host with the first host's options fails. Detached on both hosts: each host's runner
// finishes, `attach` brings every execution of both once, `status` says one line per host, and `cancel`
// stops both and restores both. With stop when answered, each host is a block: it takes the rule's looks
// on its own rounds and stops by itself, its file results holding its rounds up to its own stop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { buildPlan, hostDesign } from '../../src/common/plan.js';
import { hostJournalPath } from '../../src/node/engine/journal.js';
import { alive, quickstartCopy, shortQuickstartCopy, varlabRun, varlabSync } from './run-env.js';
import { twoHostCopy, twoHostsForTests } from './two-hosts.js';
import { readJournalText, type JournalRecord } from '../../src/common/records.js';

const two = twoHostsForTests();

test('a two-host run: each host its own order and journal, the host a factor in analyze --json and the CSV', { timeout: 900_000 }, async () => {
  const { env, second, authArgs } = two;
  const file = twoHostCopy(env, 'twohosts');
  const hosts = [env.sshd.target, second.target];
  const run = varlabRun([file, '--target', hosts[0], '--target', hosts[1], ...authArgs], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  // Every event of the run names its host.
  assert.deepEqual([...new Set(run.events.filter((e) => e.type === 'restart-finished').map((e) => e.host))].sort(), [...hosts].sort());

  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.targets, hosts, 'the hosts are written into the design');
  for (const host of hosts) {
    const own = doc.results!.restarts.filter((r) => r.host === host);
    // Each host ran the whole plan, in the order of its own seed.
    const plan = buildPlan(hostDesign(doc.design, host));
    assert.deepEqual(
      own.map((r) => [r.seq, r.cell, r.status]),
      plan.map((p) => [p.seq, p.cell, 'ok']),
    );
    assert.ok(existsSync(hostJournalPath(file, host)), `the journal of ${host}`);
  }

  const analysis = varlabSync(['analyze', file, '--json'], env.varlabHome);
  assert.equal(analysis.code, 0, analysis.stderr);
  const a = JSON.parse(analysis.stdout) as { cells: { cell: string }[]; hosts?: { hosts: string[] } };
  for (const host of hosts) for (const level of ['on', 'off']) assert.ok(a.cells.some((c) => c.cell === `ahi=${level},host=${host}`), `cell ahi=${level},host=${host} in ${analysis.stdout.slice(0, 300)}`);
  assert.deepEqual(a.hosts?.hosts, hosts);

  const out = join(env.dir, 'twohosts-csv');
  const exported = varlabSync(['export', file, '--csv', out], env.varlabHome);
  assert.equal(exported.code, 0, exported.stderr);
  const rows = parse(readFileSync(join(out, 'executions.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
  assert.deepEqual([...new Set(rows.map((r) => r.host))].sort(), [...hosts].sort());
});

test('a host that fails does not stop the other; the summary names it and why', { timeout: 900_000 }, async () => {
  const { env, second, authArgs, profiles } = two;
  const saved = readFileSync(profiles, 'utf8');
  const registry = JSON.parse(saved) as Record<string, { mysqld: string }>;
  registry[second.target].mysqld = '/usr/sbin/no-such-mariadbd';
  writeFileSync(profiles, JSON.stringify(registry));
  try {
    const file = twoHostCopy(env, 'onefails');
    const run = varlabRun([file, '--target', env.sshd.target, '--target', second.target, ...authArgs], env.varlabHome);
    assert.equal(await run.exit, 1, run.stderr());
    const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
    const good = doc.results!.restarts.filter((r) => r.host === env.sshd.target);
    assert.deepEqual(good.map((r) => r.status), ['ok', 'ok', 'ok', 'ok'], 'the good host ran its whole plan');
    assert.equal(doc.results!.restarts.filter((r) => r.host === second.target && r.status === 'ok').length, 0);
    const summary = run.stderr().split('\n').find((l) => l.startsWith('varlab run: failed'));
    assert.ok(summary?.includes(`failed on ${second.target}`), run.stderr());
    assert.ok(summary?.includes('no-such-mariadbd') && summary.includes(`finished on ${env.sshd.target}`), run.stderr());
  } finally {
    writeFileSync(profiles, saved);
  }
});

test('stop when answered on two hosts: each host is a block of its own, takes its own looks on its own rounds and stops by itself', { timeout: 900_000 }, async () => {
  const { env, second, authArgs } = two;
  const file = shortQuickstartCopy(env, 'stoptwo', { factors: [{ tunable: 'ahi', levels: ['on', 'off'] }], restartsPerCell: 2, repetitions: 4, warmup: 1 }, (d) => {
    delete d.design.serverProfile;
    d.design.order = 'interleaved';
  });
  const hosts = [env.sshd.target, second.target];
  const run = varlabRun([file, '--target', hosts[0], '--target', hosts[1], ...authArgs, '--trust', '--until-answered', '--effect', '50', '--max-restarts', '5'], env.varlabHome);
  assert.equal(await run.exit, 0, run.stderr());
  // Each host's looks are its own: the events of every look and stop name their host.
  const looks = run.events.filter((e) => e.type === 'look');
  const stops = run.events.filter((e) => e.type === 'stopped-answered');
  assert.deepEqual([...new Set(looks.map((e) => e.host))].sort(), [...hosts].sort(), JSON.stringify(looks.map((e) => e.host)));
  assert.deepEqual(stops.map((e) => e.host).sort(), [...hosts].sort());

  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.stopping, { effect: 50, alpha: 0.05, power: 0.8, maxRestartsPerCell: 5 });
  const stopped = doc.results!.stopped!;
  assert.deepEqual(stopped.map((s) => s.host).sort(), [...hosts].sort(), JSON.stringify(stopped));
  for (const host of hosts) {
    const s = stopped.find((x) => x.host === host)!;
    assert.ok(s.round >= 3 && s.round <= 5, JSON.stringify(s));
    assert.match(s.because, new RegExp(`^(every comparison decided at round ${s.round}: \\d (equivalent|inconclusive|differs?)|the maximum of 5 rounds was reached)`));
    // The host's rounds up to its own stop, no more: it did not wait for the other host's look.
    const own = doc.results!.restarts.filter((r) => r.host === host);
    assert.equal(own.length, 2 * s.round, `${host}: ${own.length} restarts for a stop at round ${s.round}`);
    assert.deepEqual(own.map((r) => r.status), own.map(() => 'ok'));
    // Its journal holds its own stop, where the look that made it saw only this host's rounds.
    const records = journalRecords(hostJournalPath(file, host));
    assert.deepEqual(records.filter((r) => r.t === 'stopped-answered').map((r) => r.t === 'stopped-answered' && r.round), [s.round]);
  }
  // Stopped counts as finished on both: nothing is resumed.
  const again = varlabSync(['run', file, '--target', hosts[0], '--target', hosts[1], ...authArgs], env.varlabHome);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /already finished \(stopped when answered at round \d, \d: \d+ of at most 20 restarts\); nothing to run/);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface HostStatus {
  state: string;
  target: string;
  done: number;
  planned: number;
  hosts?: HostStatus[];
}

/** `varlab status FILE --json` until no host runs any more. */
async function untilEnded(file: string): Promise<HostStatus> {
  const { env } = two;
  for (;;) {
    const r = varlabSync(['status', file, '--json'], env.varlabHome);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const s = JSON.parse(r.stdout) as HostStatus;
    if (s.state !== 'running') return s;
    await sleep(1000);
  }
}

const journalRecords = (path: string): JournalRecord[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

test('detached on two hosts: each its own runner, connection and journal; attach brings every execution of both once', { timeout: 900_000 }, async () => {
  const { env, second, authArgs } = two;
  const file = twoHostCopy(env, 'detachedtwo');
  const hosts = [env.sshd.target, second.target];
  const started = varlabSync(['run', file, '--target', hosts[0], '--target', hosts[1], ...authArgs, '--detach'], env.varlabHome);
  assert.equal(started.code, 0, started.stderr + started.stdout);
  for (const host of hosts) assert.match(started.stdout, new RegExp(`^detached: run [0-9a-f-]{36} on ${host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(4 restarts, under setsid nohup`, 'm'));
  // Each host's journal says how that host was reached: its own key and known-hosts file (paths only).
  const own = { [hosts[0]]: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, [hosts[1]]: { identity: second.keyFile, knownHosts: second.knownHostsFile } };
  const groups = new Set<string>();
  for (const host of hosts) {
    const detached = journalRecords(hostJournalPath(file, host)).find((r) => r.t === 'detached');
    assert.ok(detached && detached.t === 'detached', `a detached record in ${host}'s journal`);
    assert.equal(detached.target, host);
    assert.deepEqual(detached.auth, own[host]);
    assert.deepEqual(detached.group?.hosts, hosts);
    groups.add(detached.group!.id);
    assert.doesNotMatch(readFileSync(hostJournalPath(file, host), 'utf8'), /PRIVATE KEY/);
  }
  assert.equal(groups.size, 1, 'both hosts belong to one run');

  // Status: one line per host, each naming where it is.
  const status = varlabSync(['status', file], env.varlabHome);
  assert.equal(status.code, 0, status.stderr);
  const lines = status.stdout.trim().split('\n');
  assert.equal(lines.length, 2, status.stdout);
  hosts.forEach((host, i) => assert.ok(lines[i].includes(host) && /^(detached on .*, running restart [1-4] of 4|finished on .*)$/.test(lines[i]), status.stdout));

  const end = await untilEnded(file);
  assert.equal(end.state, 'finished', JSON.stringify(end));
  assert.deepEqual(end.hosts?.map((h) => [h.target, h.state, h.done]), hosts.map((h) => [h, 'finished', 4]));

  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr);
  for (const host of hosts) assert.ok(attached.stderr.includes(`finished on ${host}: 4 of 4 restarts`), attached.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.design.targets, hosts);
  for (const host of hosts) {
    const restarts = doc.results!.restarts.filter((r) => r.host === host);
    const plan = buildPlan(hostDesign(doc.design, host));
    // The order of the host's own seed, every restart once, every execution once.
    assert.deepEqual(
      [...restarts].sort((a, b) => a.seq - b.seq).map((r) => [r.seq, r.cell, r.status]),
      plan.map((p) => [p.seq, p.cell, 'ok']),
    );
    for (const r of restarts) assert.deepEqual(r.queries.map((q) => q.values.length), [3, 3]);
    const executions = journalRecords(hostJournalPath(file, host)).filter((r) => r.t === 'execution');
    assert.equal(executions.length, 4 * 2 * 3, `${host}: nothing duplicated, nothing lost`);
    assert.equal(new Set(executions.map((e) => e.t === 'execution' && `${e.seq} ${e.query} ${e.rep}`)).size, executions.length);
  }
  // Attaching again brings nothing twice.
  const again = varlabSync(['attach', file], env.varlabHome);
  assert.equal(again.code, 0, again.stderr);
  for (const host of hosts) assert.equal(journalRecords(hostJournalPath(file, host)).filter((r) => r.t === 'execution').length, 4 * 2 * 3);

  const analysis = varlabSync(['analyze', file, '--json'], env.varlabHome);
  assert.equal(analysis.code, 0, analysis.stderr);
  const a = JSON.parse(analysis.stdout) as { cells: { cell: string }[]; hosts?: { hosts: string[] } };
  for (const host of hosts) for (const level of ['on', 'off']) assert.ok(a.cells.some((c) => c.cell === `ahi=${level},host=${host}`), analysis.stdout.slice(0, 300));
  assert.deepEqual(a.hosts?.hosts, hosts);
  // Finished on every host: a run of it is refused as finished, as for any run (each host's key given in the order of the file's hosts).
  assert.match(varlabSync(['run', file, ...authArgs], env.varlabHome).stdout, /already finished/);
});

test('detached on two hosts where one cannot be reached: the other runs, the one not started is named in run, status and attach', { timeout: 900_000 }, async () => {
  const { env, second } = two;
  const file = twoHostCopy(env, 'detachedonefails');
  const hosts = [env.sshd.target, second.target];
  // The second host is given the first host's key, which does not log in there (checked in before()).
  const wrongKey = ['--identity', env.sshd.keyFile, '--identity', env.sshd.keyFile, '--known-hosts', env.sshd.knownHostsFile, '--known-hosts', second.knownHostsFile];
  const started = varlabSync(['run', file, '--target', hosts[0], '--target', hosts[1], ...wrongKey, '--detach'], env.varlabHome);
  assert.equal(started.code, 1, started.stderr + started.stdout);
  assert.match(started.stdout, new RegExp(`^detached: run [0-9a-f-]{36} on ${hosts[0].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} `, 'm'));
  assert.doesNotMatch(started.stdout, new RegExp(`on ${hosts[1].replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} `));
  assert.ok(started.stderr.includes(`varlab run: not started on ${hosts[1]}: `), started.stderr);

  const status = varlabSync(['status', file], env.varlabHome);
  assert.ok(status.stdout.includes(`${hosts[1]}: not started`), status.stdout + status.stderr);
  const end = await untilEnded(file);
  assert.deepEqual(end.hosts?.map((h) => [h.target, h.state, h.done]), [[hosts[0], 'finished', 4]], JSON.stringify(end));

  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.ok(attached.stderr.includes(`finished on ${hosts[0]}: 4 of 4 restarts`), attached.stderr);
  assert.ok(attached.stderr.includes(`${hosts[1]}: its runner never started`), attached.stderr);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.results!.restarts.filter((r) => r.host === hosts[0]).map((r) => r.status), ['ok', 'ok', 'ok', 'ok']);
  assert.equal(doc.results!.restarts.filter((r) => r.host === hosts[1] && r.status === 'ok').length, 0);
});

test('varlab cancel stops a run detached on two hosts: each host stops mysqld and is restored', { timeout: 900_000 }, async () => {
  const { env, second, authArgs, profiles } = two;
  const file = quickstartCopy(env, 'cancelledtwo', (d) => {
    d.design.factors = [{ tunable: 'ahi', levels: ['on'] }];
    d.design.excludedCells = [];
    d.design.restartsPerCell = 3;
    d.design.idleSeconds = 600;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.target = env.sshd.target;
    delete d.design.serverProfile;
  });
  const hosts = [env.sshd.target, second.target];
  const started = varlabSync(['run', file, '--target', hosts[0], '--target', hosts[1], ...authArgs, '--detach'], env.varlabHome);
  assert.equal(started.code, 0, started.stderr + started.stdout);
  const dirs = [...started.stdout.matchAll(/its directory there: (\S+)\)$/gm)].map((m) => m[1]);
  assert.equal(dirs.length, 2, started.stdout);
  // Both runners idle (600 s) before their first start (I).
  for (let i = 0; i < 1800 && !dirs.every((d) => existsSync(join(d, 'journal')) && readFileSync(join(d, 'journal'), 'utf8').includes('\nI ')); i++) await sleep(100);
  const looked = varlabSync(['status', file, '--json'], env.varlabHome);
  assert.equal(looked.code, 0, looked.stderr + looked.stdout);
  const running = JSON.parse(looked.stdout) as HostStatus;
  assert.deepEqual(running.hosts?.map((h) => h.state), ['running', 'running'], JSON.stringify(running));

  const cancelled = varlabSync(['cancel', file], env.varlabHome);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  for (const host of hosts) assert.match(cancelled.stderr, new RegExp(`cancelled on ${host.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} after \\d of 3 restarts; mysqld stopped and the host restored`));
  const registry = JSON.parse(readFileSync(profiles, 'utf8')) as Record<string, { pidFile?: string; datadir: string }>;
  for (const host of hosts) {
    const p = registry[host];
    const pidFile = p.pidFile ?? join(p.datadir, 'mysqld.pid');
    assert.ok(!existsSync(pidFile) || !alive(Number(readFileSync(pidFile, 'utf8'))), `mysqld stopped on ${host}`);
    const state = readJournalText(readFileSync(hostJournalPath(file, host), 'utf8'));
    assert.equal(state.lastState, 'cancelled', host);
    assert.equal(state.detached?.ended, true, host);
  }
  for (const d of dirs) assert.equal(existsSync(d), false, `${d} removed`);
  const after = varlabSync(['status', file], env.varlabHome);
  assert.deepEqual(after.stdout.trim().split('\n').map((l) => l.split(':')[0]), ['cancelled on ssh', 'cancelled on ssh']);
});
