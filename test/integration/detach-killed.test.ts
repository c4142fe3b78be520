// A dead runner is seen at once (issue 24, item 7). A detached runner killed by SIGKILL (what the OOM
// killer does) leaves no end in its journal, mysqld running, THP changed and the target's lock held.
// `varlab status` right after, or a new run of another file on the same host, sees that the runner is
// gone (its pid and start time in the lock and the run's directory), and ends its run there and then:
// its step stopped, mysqld stopped, THP put back from the restore record, the lock let go, and says
// so. The real sandbox sshd and mariadbd; the runner under setsid nohup (no systemd here); the host's
// files in a temporary tree.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText } from '../../src/common/records.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { RunService } from '../../src/node/runs/service.js';
import { alive, exited, hostTree, keepCells, quickstartCopy, runEnvForTests, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const auth = () => ({ identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile });

/** One cell that sets THP to never, then a long idle wait before its measurements: the runner sits in a step of its own. */
function waiting(name: string): string {
  return quickstartCopy(env, name, (d: ExperimentDoc) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.factors = [{ tunable: 'thp', levels: ['never'] }];
    d.design.excludedCells = [];
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 3;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
    d.design.idleSeconds = 600;
  });
}

/** Start a detached run through a host layer on the tree, and wait until its first restart has set THP. */
async function detachAndKill(service: RunService, file: string, thp: string) {
  // A launch waits for the runner's first login at most waitS, but not through the first restart's
  // idle time (600 s here, longer than the test may take): it returns once the runner has begun it.
  const started = await service.detach({ file, auth: auth(), consent: async () => {}, waitS: 900 });
  assert.ok(readFileSync(join(started.dir, 'journal'), 'utf8').includes('\nI '), 'returned in the idle time');
  assert.equal(started.supervisor, 'setsid');
  // In the first restart's idle time (I), THP set, before the start.
  for (let i = 0; i < 1200 && !readFileSync(join(started.dir, 'journal'), 'utf8').includes('\nI '); i++) await sleep(100);
  assert.equal(readFileSync(thp, 'utf8').trim(), 'never', 'the first restart set THP');
  const step = Number(readFileSync(join(started.dir, 'step.pid'), 'utf8'));
  assert.ok(alive(step), 'the runner waits in a step of its own (the idle time)');
  // The runner's lock refresher: a SIGKILL of the runner leaves it to notice within 30 s by itself.
  const refresher = Number(readFileSync(join(started.dir, 'refresh.pid'), 'utf8'));
  assert.ok(alive(refresher), 'the runner keeps its lock fresh');
  process.kill(started.pid!, 'SIGKILL');
  assert.equal(await exited(started.pid!), true);
  return { started, step, refresher };
}

const mysqldStopped = () => {
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  return !existsSync(pidFile) || !alive(Number(readFileSync(pidFile, 'utf8')));
};

test('a detached runner killed by SIGKILL: status right after says it is gone, stops mysqld, puts THP back and frees the target', { timeout: 600_000 }, async () => {
  const { paths, thp } = hostTree(env, 'tree-status');
  const file = waiting('killed');
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const { started, step, refresher } = await detachAndKill(service, file, thp);
  const lock = join(started.dir, '../../varlab-run.lock');
  const hostLock = join(paths.records, 'host', 'varlab-run.lock');
  assert.ok(existsSync(lock) && existsSync(hostLock), 'the killed runner left its locks (THP: the host\'s too)');

  // Right after: no waiting for the lock to go stale.
  const status = varlabSync(['status', file], env.varlabHome);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`^failed on \\S+: 0 of 3 restarts \\(the runner \\(pid ${started.pid}\\) is gone since \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z \\(its last journal line; killed\\?\\); no restart of it had finished; its mysqld is stopped and the host's settings are restored from the record\\); varlab attach brings the results into the file\\n$`));
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise', 'THP put back from the record');
  assert.ok(mysqldStopped(), 'mysqld stopped');
  assert.equal(await exited(step), true, "the runner's step is stopped");
  assert.equal(await exited(refresher, 2_000), true, "the runner's lock refresher is stopped, not left to notice within 30 s");
  assert.equal(existsSync(lock) || existsSync(hostLock), false, 'the locks are let go');

  // attach brings the end in, with the same words, and removes the run's directory, and then this
  // computer's record of launching it (nothing is left to reach).
  const launched = join(env.varlabHome, 'launched', `${started.runId}.json`);
  assert.ok(existsSync(launched), 'launch keeps its record');
  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 1, attached.stderr);
  assert.match(attached.stderr, /the run on .* failed after 0 of 3 restarts: the runner \(pid \d+\) is gone since .*restored from the record; results so far saved into/);
  const state = readJournalText(readFileSync(journalPath(file), 'utf8'));
  assert.equal(state.lastState, 'failed');
  assert.equal(state.detached?.ended, true);
  assert.equal(existsSync(started.dir), false, "the run's directory is removed once its end is in the file");
  assert.equal(existsSync(launched), false, 'the launch record is removed with it');
});

test('a detached runner killed by SIGKILL: a run of another file on that host goes ahead at once and says what it found and did', { timeout: 600_000 }, async () => {
  const { paths, thp } = hostTree(env, 'tree-run');
  const killed = waiting('killed-then-other');
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const { started, refresher } = await detachAndKill(service, killed, thp);

  const other = quickstartCopy(env, 'other', (d) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 1;
    d.design.workload.queries = d.design.workload.queries.slice(0, 1);
    d.design.workload.repetitions = 2;
    d.design.workload.warmup = 0;
  });
  const logs: string[] = [];
  const run = await service.start({ file: other, auth: auth(), consent: async () => {}, onEvent: (e) => e.type === 'log' && logs.push(e.message) });
  const outcome = await run.done;
  assert.equal(outcome.state, 'finished', outcome.message);
  const said = logs.find((m) => m.startsWith('the detached run of '));
  assert.ok(said, logs.join('\n'));
  assert.match(said, new RegExp(`^the detached run of .*killed-then-other\\.varlab\\.json held \\S+, but the runner \\(pid ${started.pid}\\) is gone since .*; no restart of it had finished; its end is now in its journal there, its mysqld is stopped and the host's settings are restored from the record; \`varlab attach .*killed-then-other\\.varlab\\.json\` brings it into the file$`));
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise');
  assert.ok(mysqldStopped());
  assert.equal(await exited(refresher, 2_000), true, "the killed runner's lock refresher is stopped");
  const s = JSON.parse(varlabSync(['status', killed, '--json'], env.varlabHome).stdout) as { state: string; message: string };
  assert.equal(s.state, 'failed');
  assert.match(s.message, /is gone since/);
});

/** One cell that sets THP to never, and one execution of a query that lasts: the runner measures for a while. */
function measuring(name: string): string {
  return quickstartCopy(env, name, (d: ExperimentDoc) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.factors = [{ tunable: 'thp', levels: ['never'] }];
    d.design.excludedCells = [];
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 2;
    d.design.workload.queries = [{ name: 'long', sql: 'SELECT SLEEP(30)' }];
    d.design.workload.repetitions = 1;
    d.design.workload.warmup = 0;
  });
}

test('a detached runner killed while its mysqld is slow to stop: status says at once that its end is being made, attach waits for it and brings it in', { timeout: 600_000 }, async () => {
  const { paths, thp } = hostTree(env, 'tree-slow-stop');
  const file = measuring('killed-slow-stop');
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const started = await service.detach({ file, auth: auth(), consent: async () => {}, waitS: 300 });
  const journal = join(started.dir, 'journal');
  // Measuring: the timer is chosen (T) and the session of the first restart runs its long query.
  for (let i = 0; i < 3000 && !/^T /m.test(readFileSync(journal, 'utf8')); i++) await sleep(100);
  assert.match(readFileSync(journal, 'utf8'), /^T /m, 'the runner measures');
  assert.equal(readFileSync(thp, 'utf8').trim(), 'never', 'the restart set THP');
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  const mysqld = Number(readFileSync(pidFile, 'utf8'));
  assert.ok(alive(mysqld), 'mysqld runs');
  process.kill(started.pid!, 'SIGKILL');
  assert.equal(await exited(started.pid!), true);
  // A mysqld that does not end on SIGTERM for as long as it is held: a stop slower than anyone's wait.
  process.kill(mysqld, 'SIGSTOP');
  try {
    const status = varlabSync(['status', file], env.varlabHome);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, new RegExp(`^failed on \\S+: 0 of 2 restarts \\(the runner \\(pid ${started.pid}\\) is gone since \\S+ \\(its last journal line; killed\\?\\); no restart of it had finished; its end is being made on the target now: stopping its mysqld, then restoring the host's settings from the record\\); varlab attach brings the results into the file\\n$`));
    assert.ok(alive(mysqld), 'mysqld is still there (held)');
    assert.equal(readFileSync(thp, 'utf8').trim(), 'never', 'THP is put back after mysqld is stopped');
    // A run of another file on that host meanwhile is refused, and told why: the host is being put back.
    const other = quickstartCopy(env, 'other-while-ending', (d) => {
      keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
      d.design.target = env.sshd.target;
      d.design.restartsPerCell = 1;
    });
    const run = await service.start({ file: other, auth: auth(), consent: async () => {} });
    const refused = await run.done;
    assert.equal(refused.state, 'failed');
    assert.match(refused.message ?? '', /is busy: the detached run of \S*killed-slow-stop\.varlab\.json held it, but its runner \(pid \d+\) is gone; its end is being made on the target now: stopping its mysqld, then restoring the host's settings from the record\. Try again once that is done/);
  } finally {
    process.kill(mysqld, 'SIGCONT');
  }
  // attach follows the end being made, and brings it in once the host is put back.
  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 1, attached.stderr);
  assert.match(attached.stderr, /the run on .* failed after 0 of 2 restarts: the runner \(pid \d+\) is gone since .*; its mysqld is stopped and the host's settings are restored from the record; results so far saved into/);
  assert.ok(mysqldStopped(), 'mysqld stopped');
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise', 'THP put back from the record');
  assert.equal(existsSync(started.dir), false, "the run's directory is removed once its end is in the file");
});

/** The processes whose command line holds `text`: a run directory's runner.sh, a data directory's mysqld. */
function processesOf(text: string, program?: RegExp): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes(text) && (!program || program.test(cmd.split('\0')[0])) && alive(Number(name))) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

test('a detached runner killed while its restart starts mysqld: its end waits for that restart, then stops the mysqld it started and puts the host back', { timeout: 600_000 }, async () => {
  const { paths, thp } = hostTree(env, 'tree-mid-restart');
  const file = quickstartCopy(env, 'killed-mid-restart', (d: ExperimentDoc) => {
    keepCells(d, ['aslr=on,ahi=on,preload=off,numa=default']);
    d.design.factors = [{ tunable: 'thp', levels: ['never'] }];
    d.design.excludedCells = [];
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 2;
    d.design.workload.queries = [{ name: 'one', sql: 'SELECT 1' }];
    d.design.workload.repetitions = 1;
    d.design.workload.warmup = 0;
  });
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const started = await service.detach({ file, auth: auth(), consent: async () => {}, waitS: 300 });
  const journal = join(started.dir, 'journal');
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  const mariadbd = /mariadbd|mysqld/;
  const named = () => {
    try {
      return Number(readFileSync(pidFile, 'utf8'));
    } catch {
      return 0;
    }
  };
  // The first restart's mysqld: the pid its start said (F).
  let f: RegExpExecArray | null = null;
  for (let i = 0; i < 3000 && !(f = /^F \d+ 1 (\S+)/m.exec(readFileSync(journal, 'utf8'))); i++) await sleep(100);
  const first = Number(/^@pid (\d+)$/m.exec(Buffer.from(f![1], 'base64').toString('utf8'))?.[1]);
  assert.ok(first > 0, 'the first restart started mysqld');
  // The second restart's mysqld, held as soon as it is there (before it listens, and before its pid file names it).
  let second = 0;
  for (let i = 0; i < 60_000 && !second; i++) {
    second = processesOf(env.profile.datadir, mariadbd).find((p) => p !== first) ?? 0;
    if (!second) await new Promise((r) => setImmediate(r));
  }
  assert.ok(second, "the second restart's mysqld started");
  process.kill(second, 'SIGSTOP');
  // The runner's own processes (its restart script, a subshell of runner.sh), not the one making its end (runner.sh gone).
  const runnerLeft = () => processesOf(join(started.dir, 'runner.sh')).filter((p) => !readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0').includes('gone'));
  try {
    assert.notEqual(named(), second, 'held before its pid file names it');
    assert.equal(alive(first), false, "the first restart's mysqld is stopped");
    // The runner is killed in the middle of its restart script (waiting for mysqld to listen).
    process.kill(started.pid!, 'SIGKILL');
    assert.equal(await exited(started.pid!), true);
    assert.notDeepEqual(runnerLeft(), [], 'its restart script goes on without it');
    const status = varlabSync(['status', file], env.varlabHome);
    assert.equal(status.code, 0, status.stderr);
    // Its end waits for that restart (a mariadbd sent SIGTERM in the middle of its start-up may never end).
    assert.match(status.stdout, /^failed on \S+: 1 of 2 restarts \(the runner \(pid \d+\) is gone since .*; its end is being made on the target now: /);
  } finally {
    process.kill(second, 'SIGCONT');
  }
  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 1, attached.stderr);
  assert.match(attached.stderr, /the runner \(pid \d+\) is gone since .*; its mysqld is stopped and the host's settings are restored from the record; results so far saved into/);
  // The restart script ended before the end was made; the mysqld it started was stopped by it, not left to listen.
  assert.deepEqual(runnerLeft(), [], 'no restart script of the runner is left');
  assert.deepEqual(processesOf(env.profile.datadir, mariadbd), [], 'no mysqld left running');
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise', 'THP put back from the record');
  assert.equal(existsSync(started.dir), false, "the run's directory is removed");
});
