// A link that drops while `varlab attach` follows a detached run that writes nothing (its runner held, as
// a long DBT-3 load or a slow query holds it): attach says so in one line and follows again by itself,
// from the offset its local journal holds. Twice: the ssh session killed (the link closes), then the
// session and the listening sshd stopped (the link goes silent, as after a NAT timeout or a laptop that
// slept, and the host answers nobody for a while: said too). The run is never cancelled; at its end the
// local journal and the file hold every restart and every execution exactly once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/common/events.js';
import type { ExperimentDoc } from '../../src/common/experiment/types.js';
import { readJournalText, type JournalRecord } from '../../src/common/records.js';
import { journalPath } from '../../src/node/engine/journal.js';
import { hold, release, releaseAll, runnerOf, targetJournal } from './hold.js';
import { oneCellCopy, runEnvForTests, sshdSessions, varlabEvents, varlabSync } from './run-env.js';

const env = runEnvForTests({ varlabHome: true });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const RESTARTS = 3;
const QUERIES = 2;
const REPS = 3;

const records = (file: string): JournalRecord[] =>
  readFileSync(journalPath(file), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

/** A log line the follower told (attach --events json prints every event). */
const said = (re: RegExp) => (e: RunEvent) => e.type === 'log' && re.test(e.message);
const count = (events: RunEvent[], re: RegExp) => events.filter(said(re)).length;

/** Signals a process of this test's sshd; one gone already is fine. */
function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

test('varlab attach follows a run that writes nothing again after its link drops (closed, then silent while the host answers nobody): said, never cancelled, every restart once in the file', { timeout: 600_000 }, async () => {
  const file = oneCellCopy(env, 'relink', { restarts: RESTARTS, queries: QUERIES, repetitions: REPS });
  const started = varlabSync(['run', file, '--detach', ...env.authArgs], env.varlabHome);
  assert.equal(started.code, 0, started.stderr);
  const dir = readJournalText(readFileSync(journalPath(file), 'utf8')).detached!.dir;
  const runner = runnerOf(dir);
  const stopped = new Set<number>();
  const theirs = sshdSessions(env.sshd.pid);
  const attach = varlabEvents('attach', [file], env.varlabHome);
  try {
    await attach.waitFor(said(/^attached to the detached run on /));
    // Its first restart finished (D 1), then held: the links drop between restarts brought in and restarts to come.
    const firstDone = () => targetJournal(dir).some((l) => l.startsWith('D ') && l.split(' ')[2] === '1');
    for (let i = 0; i < 1200 && !firstDone(); i++) await sleep(100);
    assert.ok(firstDone(), `the first restart finished on the target: ${targetJournal(dir).join('\n')}`);
    // The run writes nothing from here until it is let go below.
    hold(dir, runner);
    // Everything the held run wrote is here: from now on every read finds nothing new.
    const size = statSync(join(dir, 'journal')).size;
    for (let i = 0; i < 1200 && readJournalText(readFileSync(journalPath(file), 'utf8')).detached?.offset !== size; i++) await sleep(100);
    assert.equal(readJournalText(readFileSync(journalPath(file), 'utf8')).detached?.offset, size, 'the held run is all here');
    const sessions = () => sshdSessions(env.sshd.pid).filter((p) => !theirs.includes(p));

    // The link closes: the sshd serving attach killed.
    const first = sessions();
    assert.ok(first.length > 0, 'attach has its ssh session');
    for (const p of first) signal(p, 'SIGKILL');
    await attach.waitFor(said(/^link to \S+ lost at \d\d:\d\d:\d\d \(.+\); following again as soon as it answers \(the run goes on there\)$/));
    await attach.waitFor(said(new RegExp(`^following the run on \\S+ again since \\d\\d:\\d\\d:\\d\\d, \\d+ s after the link was lost \\(its journal is here up to byte ${size}\\)$`)));

    // The link goes silent and the host answers nobody: the session serving attach and the listening sshd
    // stopped (no FIN, no reply: only the SSH keepalives can tell). Tries to reach it again fail until the
    // listener goes on; after a while attach says it still tries, and how to follow the run later.
    const second = sessions().filter((p) => !first.includes(p));
    assert.ok(second.length > 0, 'attach has a new ssh session');
    stopped.add(env.sshd.pid);
    signal(env.sshd.pid, 'SIGSTOP');
    for (const p of second) {
      stopped.add(p);
      signal(p, 'SIGSTOP');
    }
    await attach.waitFor((e, all) => count(all, /^link to \S+ lost at /) === 2);
    await attach.waitFor(said(new RegExp(`^\\S+ has not answered since \\d\\d:\\d\\d:\\d\\d \\(\\d+ tr(y|ies), the last: .+\\); still trying, every 30 s\\. The run goes on there and keeps what it measures: stop following to stop trying, and \`varlab attach ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\` \\(or opening the file\\) follows it again later\\.$`)));
    signal(env.sshd.pid, 'SIGCONT');
    stopped.delete(env.sshd.pid);
    await attach.waitFor((e, all) => count(all, /^following the run on \S+ again since /) === 2);
    for (const p of second) {
      signal(p, 'SIGKILL');
      stopped.delete(p);
    }

    // Let go: the run goes on to its end, followed by the same attach.
    release(runner);
    const code = await attach.exit;
    assert.equal(code, 0, attach.stderr());
    assert.match(attach.stderr(), new RegExp(`finished on \\S+: ${RESTARTS} of ${RESTARTS} restarts; results saved into `));
    const all = attach.events;
    assert.equal(count(all, /^attached to the detached run on /), 1, 'attached once, followed again twice');
    assert.equal(count(all, /^link to \S+ lost at /), 2);
    assert.equal(count(all, /^following the run on \S+ again since /), 2);
    assert.equal(count(all, /^stopped following/), 0);
    assert.ok(!all.some((e) => e.type === 'log' && /cancel/.test(e.message)), 'the run is never cancelled');
    // What attach told: each execution once (nothing read twice after a loss, nothing missed).
    assert.equal(all.filter((e) => e.type === 'execution').length, RESTARTS * QUERIES * REPS);
  } finally {
    for (const p of stopped) signal(p, 'SIGCONT');
    release(runner);
    releaseAll();
    if (attach.child.exitCode === null) attach.child.kill('SIGTERM');
    // A run this test left going (attach gave up) is stopped there, so that nothing of it outlives the test.
    if ((await attach.exit) !== 0) varlabSync(['cancel', file], env.varlabHome);
  }

  // The file on disk: every restart, and every execution of each, exactly once.
  const doc = JSON.parse(readFileSync(file, 'utf8')) as ExperimentDoc;
  assert.deepEqual(doc.results!.restarts.map((r) => r.seq).sort(), Array.from({ length: RESTARTS }, (_, i) => i + 1));
  for (const r of doc.results!.restarts) {
    assert.equal(r.status, 'ok', r.reason);
    assert.deepEqual(
      r.queries.map((q) => q.values.length),
      Array(QUERIES).fill(REPS),
    );
  }
  const journal = records(file);
  const finished = journal.filter((r) => r.t === 'restart-finished').map((r) => r.t === 'restart-finished' && r.seq);
  assert.deepEqual(finished.sort(), Array.from({ length: RESTARTS }, (_, i) => i + 1), 'each restart ends once in the local journal');
  const executions = journal.filter((r): r is Extract<JournalRecord, { t: 'execution' }> => r.t === 'execution');
  assert.equal(executions.length, RESTARTS * QUERIES * REPS, 'nothing duplicated, nothing lost in the journal');
  assert.equal(new Set(executions.map((e) => `${e.seq} ${e.query} ${e.rep}`)).size, executions.length);
  // Lines about the link are this computer's following, not the run's: not in the file.
  assert.ok(!doc.results!.log?.some((l) => /^link to |^following the run on /.test(l.message)), JSON.stringify(doc.results!.log));
});
