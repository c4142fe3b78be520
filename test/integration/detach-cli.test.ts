// Runs that outlive the laptop, as a user drives them (issue 14): `varlab run --detach` on the sandbox
// sshd returns at once and leaves no varlab process nor ssh session behind; the run goes on on the
// target (setsid nohup here: no systemd); `varlab attach` killed mid-way with its ssh session and
// attached again brings every execution of the target's journal into the file exactly once;
// `varlab status` says where it is; `varlab cancel` stops another detached run, whose target puts the
// host back (THP in a temporary host tree), stops mysqld and leaves no runner process (nor its lock
// refresher, which outlived it by up to 30 s).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/common/events.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText, type JournalRecord } from '../../src/common/records.js';
import { DocumentService } from '../../src/node/documents/service.js';
import { defaultHostLayer } from '../../src/node/engine/hostlayer.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { RunService } from '../../src/node/runs/service.js';
import { alive, exited, hostTree, keepCells, quickstartCopy, runEnvForTests, sshdSessions, varlabSync } from './run-env.js';
import { CLI } from '../fixtures/cli.js';

const env = runEnvForTests({ varlabHome: true });
const CELLS = ['aslr=on,ahi=on,preload=off,numa=default', 'aslr=off,ahi=off,preload=off,numa=default'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function small(name: string, edit: (d: ExperimentDoc) => void = () => {}): string {
  return quickstartCopy(env, name, (d) => {
    keepCells(d, CELLS);
    d.design.target = env.sshd.target;
    d.design.restartsPerCell = 2;
    d.design.workload.queries = d.design.workload.queries.slice(0, 2);
    d.design.workload.repetitions = 3;
    d.design.workload.warmup = 1;
    edit(d);
  });
}

/** Processes on this machine running varlab's CLI on this file (the runner on the target is /bin/sh runner.sh). */
function varlabProcesses(file: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
        return argv.some((a) => a.endsWith('src/cli/main.ts') || a.endsWith('bin/varlab.js')) && argv.includes(file);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A process's command line, its arguments joined by spaces ('' once it is gone). */
function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    return '';
  }
}

const records = (file: string): JournalRecord[] =>
  readFileSync(journalPath(file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

const detachedDir = (file: string) => readJournalText(readFileSync(journalPath(file), 'utf8')).detached!.dir;

/** `varlab status FILE --json`, until the run is no longer running. */
async function untilEnded(file: string): Promise<{ state: string; done: number; planned: number }> {
  for (;;) {
    const r = varlabSync(['status', file, '--json'], env.varlabHome);
    assert.equal(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout) as { state: string; done: number; planned: number };
    if (s.state !== 'running') return s;
    await sleep(1000);
  }
}

test('a detached run goes on with no varlab process on this side; attach, killed and attached again, brings every execution once', { timeout: 600_000 }, async () => {
  const file = small('detached');
  const sessionsBefore = sshdSessions(env.sshd.pid).length;
  const started = varlabSync(['run', file, '--detach', ...env.authArgs], env.varlabHome);
  assert.equal(started.code, 0, started.stderr);
  const id = /^detached: run ([0-9a-f-]{36}) on (\S+) \(4 restarts, under setsid nohup; its directory there: (\S+)\)$/m.exec(started.stdout);
  assert.ok(id, started.stdout);
  assert.equal(id[2], env.sshd.target);
  // varlab has exited (varlabSync waited for it) and its ssh session is gone: the run goes on by itself.
  for (let i = 0; i < 50 && sshdSessions(env.sshd.pid).length > sessionsBefore; i++) await sleep(100);
  // At most as many as before: a session of the set-up still closing when counted may go too (seen under load: 0 after 1 before).
  const sessionsAfter = sshdSessions(env.sshd.pid).length;
  assert.ok(sessionsAfter <= sessionsBefore, `no ssh session of varlab is left (${sessionsAfter} now, ${sessionsBefore} before the run)`);
  assert.deepEqual(varlabProcesses(file), [], 'no varlab process is left on this side');
  const detached = records(file).find((r) => r.t === 'detached');
  assert.ok(detached && detached.t === 'detached');
  assert.deepEqual(detached.auth, { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, 'the paths, never a secret');
  assert.equal(detached.dir, id[3]);
  assert.doesNotMatch(readFileSync(journalPath(file), 'utf8'), /PRIVATE KEY/);

  const status = varlabSync(['status', file], env.varlabHome);
  assert.equal(status.code, 0, status.stderr);
  assert.match(status.stdout, new RegExp(`^(detached on ${env.sshd.target.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}, running restart [1-4] of 4|finished on .*)\\n$`));

  // Attach, then kill it and its ssh session once some executions are in the local journal.
  const sessions = sshdSessions(env.sshd.pid);
  const child = spawn(process.execPath, [...CLI, 'attach', file, '--events', 'json'], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  const closed = new Promise((r) => child.on('close', r));
  for (let i = 0; i < 1200 && !/"type":"execution"/.test(out) && child.exitCode === null; i++) await sleep(100);
  const attachSessions = sshdSessions(env.sshd.pid).filter((p) => !sessions.includes(p));
  child.kill('SIGKILL');
  for (const p of attachSessions) {
    try {
      process.kill(p, 'SIGKILL');
    } catch (e) {
      // Gone already: on a quiet machine the run can end (and attach with it) before this line.
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
  await closed;
  assert.match(out, /"type":"run-started"/);

  const end = await untilEnded(file);
  assert.equal(end.state, 'finished', JSON.stringify(end));
  assert.equal(end.done, 4);
  const targetJournal = readFileSync(join(detachedDir(file), 'journal'), 'utf8');
  const timed = targetJournal.split('\n').filter((l) => l.startsWith('X '));
  assert.equal(timed.length, 4 * 2 * 3, 'the target timed every execution');

  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr);
  assert.match(attached.stderr, /finished on .*: 4 of 4 restarts; results saved into/);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results!.restarts.length, 4);
  for (const r of doc.results!.restarts) {
    assert.equal(r.status, 'ok', r.reason);
    assert.deepEqual(r.queries.map((q) => q.values.length), [3, 3]);
  }
  // Every execution of the target's journal once in the file and the local journal, with its value.
  const executions = records(file).filter((r): r is Extract<JournalRecord, { t: 'execution' }> => r.t === 'execution');
  assert.equal(executions.length, timed.length, 'nothing duplicated, nothing lost');
  assert.equal(new Set(executions.map((e) => `${e.seq} ${e.query} ${e.rep}`)).size, timed.length);
  const fileValues = doc.results!.restarts.flatMap((r) => r.queries.flatMap((q) => q.values)).length;
  assert.equal(fileValues, timed.length);
  // What the runner said is in the file (results.log), as an attached run's is, so the file reopened
  // shows it: each line once, though the first attach was killed mid-way.
  const said = doc.results!.log?.map((l) => l.message) ?? [];
  assert.equal(said.filter((m) => /^the runner started on \S+ \(pid \d+\)$/.test(m)).length, 1, said.join('\n'));
  assert.equal(said.filter((m) => m.startsWith(`mysqld on ${env.sshd.target} accepted the client's login`)).length, 1, said.join('\n'));
  assert.equal(said.filter((m) => /^setup (script ran|skipped)/.test(m)).length, 1, said.join('\n'));
  assert.equal(existsSync(detachedDir(file)), false, 'the run directory is removed once its journal is in the file');

  const after = varlabSync(['status', file], env.varlabHome);
  assert.match(after.stdout, /^finished on .*: 4 of 4 restarts\n$/);
  // Attached again, or cancelled, once everything is in and the target cleaned up: nothing to connect
  // for, even with this computer's launch record gone (issue 24): it says how the run ended, exit 0.
  assert.ok(records(file).some((r) => r.t === 'target-cleaned'), 'the clean-up is in the journal');
  rmSync(join(env.varlabHome, 'launched'), { recursive: true, force: true });
  const logins = () => (env.sshd.log().match(/Accepted publickey/g) ?? []).length;
  const before = logins();
  for (const cmd of ['attach', 'cancel']) {
    const again = varlabSync([cmd, file], env.varlabHome);
    assert.equal(again.code, 0, `${cmd}: ${again.stderr}`);
    assert.match(again.stderr, /finished on .*: 4 of 4 restarts; results saved into/, cmd);
    assert.doesNotMatch(again.stderr, /did not launch/, cmd);
  }
  assert.equal(logins(), before, 'no connection to the target');
  // Another run of it is refused as finished, as for any run.
  assert.match(varlabSync(['run', file, ...env.authArgs], env.varlabHome).stdout, /already finished/);
});

test('varlab cancel stops a detached run: the target stops mysqld, puts THP back and leaves no runner', { timeout: 600_000 }, async () => {
  const { paths, thp } = hostTree(env, 'host-tree');
  const file = small('cancelled', (d) => {
    d.design.factors = [{ tunable: 'thp', levels: ['never'] }];
    d.design.excludedCells = [];
    d.design.restartsPerCell = 3;
    d.design.idleSeconds = 600;
  });
  // Started in this process, through a host layer on the temporary tree (the CLI uses the real one).
  const service = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), host: defaultHostLayer(paths) });
  const started = await service.detach({ file, auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, consent: async () => {}, waitS: 120 });
  assert.equal(started.supervisor, 'setsid');
  // In the first restart's idle time (I), THP set, before the start.
  for (let i = 0; i < 1200 && !readFileSync(join(started.dir, 'journal'), 'utf8').includes('\nI '); i++) await sleep(100);
  assert.equal(readFileSync(thp, 'utf8').trim(), 'never', 'the first restart set THP');
  const running = varlabSync(['status', file], env.varlabHome);
  assert.match(running.stdout, /running restart 1 of 3/);
  // One run per target: an attached run of another file is refused while the runner holds the target.
  const other = await service.start({ file: small('refused'), auth: { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile }, consent: async () => {} });
  const refused = await other.done;
  assert.equal(refused.state, 'failed');
  assert.match(refused.message ?? '', /is busy: .*cancelled\.varlab\.json is running there/);

  const cancelled = varlabSync(['cancel', file], env.varlabHome);
  assert.equal(cancelled.code, 0, cancelled.stderr);
  assert.match(cancelled.stderr, /cancelled on .* after 0 of 3 restarts; mysqld stopped and the host restored/);
  assert.equal(readFileSync(thp, 'utf8').trim(), 'madvise', 'THP put back by the target');
  const pidFile = env.profile.pidFile ?? join(env.profile.datadir, 'mysqld.pid');
  assert.ok(!existsSync(pidFile) || !alive(Number(readFileSync(pidFile, 'utf8'))), 'mysqld stopped');
  assert.equal(await exited(started.pid!), true, 'no runner process is left');
  // Nor any process of it (its lock refresher lingered up to 30 s, sleeping, as "/bin/sh …/runner.sh").
  const ofRunner = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p) && cmdline(p).includes(`${started.dir}/runner.sh`));
  for (let i = 0; i < 50 && ofRunner().length; i++) await sleep(100);
  assert.deepEqual(ofRunner().map((p) => `${p}: ${cmdline(p)}`), [], 'no process runs the runner script 5 s after the cancel');
  const state = readJournalText(readFileSync(journalPath(file), 'utf8'));
  assert.equal(state.lastState, 'cancelled');
  assert.equal(state.detached?.ended, true);
  assert.match(varlabSync(['status', file], env.varlabHome).stdout, /^cancelled on /);
  assert.equal(existsSync(started.dir), false);
});

test("the app's way: run service detach and attach, batches as a live run's; closing the app only stops following", { timeout: 600_000 }, async () => {
  const file = small('app', (d) => {
    keepCells(d, CELLS.slice(0, 1));
    // The app closes while the run goes on: on a quiet machine both restarts were done within 3 s,
    // before the first execution had come back here, and closing found no run going on.
    d.design.idleSeconds = 5;
  });
  const auth = { identity: env.sshd.keyFile, knownHosts: env.sshd.knownHostsFile };
  const first: RunEvent[] = [];
  const app = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), onBatch: (b) => first.push(...b.events) });
  const started = await app.detach({ file, auth, consent: async () => {} });
  const status = await app.attach(file);
  assert.deepEqual(status.detached, { target: env.sshd.target, following: true });
  assert.equal(status.runId, started.runId);
  for (let i = 0; i < 1200 && !first.some((e) => e.type === 'execution'); i++) await sleep(100);
  assert.ok(first.some((e) => e.type === 'run-started'));
  // The app closes: the run goes on on its target.
  assert.match(await app.dispose(), /stopped following 1 detached run; it goes on on /);
  assert.match(varlabSync(['status', file], env.varlabHome).stdout, /^(detached on .*, running restart [12] of 2|finished on )/);

  const second: RunEvent[] = [];
  const again = new RunService({ documents: new DocumentService(), prompt: async () => ({ accept: false }), onBatch: (b) => second.push(...b.events) });
  await again.attach(file);
  let s = again.status()[0];
  for (let i = 0; i < 2400 && s.state === 'running'; i++, s = again.status()[0]) await sleep(100);
  assert.equal(s.state, 'finished');
  assert.equal(s.detached?.following, false);
  // What the run said before (brought in by the first follower) is in the second's batches too, as a late client of an attached run gets it.
  assert.ok(second.some((e) => e.type === 'log' && /^the runner started on \S+ \(pid \d+\)$/.test(e.message)), JSON.stringify(second.filter((e) => e.type === 'log')));
  const ended = second.find((e) => e.type === 'run-finished');
  assert.equal(ended?.type === 'run-finished' && ended.state, 'finished');
  // What the first follower brought in is history for the second; nothing is brought in twice.
  const executions = records(file).filter((r) => r.t === 'execution');
  assert.equal(executions.length, 2 * 2 * 3);
  assert.equal(new Set(executions.map((e) => e.t === 'execution' && `${e.seq} ${e.query} ${e.rep}`)).size, executions.length);
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.equal(doc.results!.restarts.length, 2);
  // The app saved what the runner said too (results.log), whichever of its followers brought it in.
  assert.ok(doc.results!.log?.some((l) => /^the runner started on \S+ \(pid \d+\)$/.test(l.message)), JSON.stringify(doc.results!.log));
  assert.equal(existsSync(started.dir), false);
});

test('Ctrl-C on varlab attach detaches this computer only: the run goes on, and the next attach brings it all in', { timeout: 600_000 }, async () => {
  const file = small('ctrlc', (d) => {
    keepCells(d, CELLS.slice(0, 1));
    // Still running when the Ctrl-C comes: at load 15 both restarts once ended first, and attach said "finished".
    d.design.idleSeconds = 5;
  });
  const started = varlabSync(['run', file, '--detach', ...env.authArgs], env.varlabHome);
  assert.equal(started.code, 0, started.stderr);
  const child = spawn(process.execPath, [...CLI, 'attach', file, '--events', 'json'], { env: { ...process.env, VARLAB_HOME: env.varlabHome }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  for (let i = 0; i < 1200 && !/"type":"restart-started"/.test(out) && child.exitCode === null; i++) await sleep(100);
  child.kill('SIGINT');
  assert.equal(await exit, 130, err);
  assert.match(err, /detached from .*: the run goes on there/);
  // The run was not cancelled: it goes on (or has finished) on the target.
  const s = JSON.parse(varlabSync(['status', file, '--json'], env.varlabHome).stdout) as { state: string };
  assert.ok(s.state === 'running' || s.state === 'finished', JSON.stringify(s));
  // The restart open in the local journal (brought in before the Ctrl-C) goes on, said after "attached".
  // (restart 1 idles 5 s after its start, so the Ctrl-C right after its start leaves it open here).
  const here = records(file);
  assert.ok(here.some((r) => r.t === 'restart-started' && !here.some((f) => f.t === 'restart-finished' && f.seq === r.seq)), 'a restart is open in the local journal');
  const attached = varlabSync(['attach', file], env.varlabHome);
  assert.equal(attached.code, 0, attached.stderr);
  const lines = attached.stderr.split('\n');
  const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
  assert.ok(at(/^attached to the detached run/) >= 0 && at(/^attached to the detached run/) < at(/running restart \d of 2/), attached.stderr);
  // What the first attach told (the runner's start) is not printed again.
  assert.match(out, /the runner started on /);
  assert.doesNotMatch(attached.stderr, /the runner started on /);
  const executions = records(file).filter((r) => r.t === 'execution');
  assert.equal(executions.length, 2 * 2 * 3);
  assert.equal(new Set(executions.map((e) => e.t === 'execution' && `${e.seq} ${e.query} ${e.rep}`)).size, executions.length);
});
