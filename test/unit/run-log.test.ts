// What a run said (its log: varlab yielding the CPU to mysqld, the host busy before the run, the setup
// script…) is journaled and kept in the file's results, so a reopened finished file says it too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HostFingerprint } from '../../src/common/host.js';
import { eventOf, JournalFold, LOG_KEPT, recordOf, resultsFromJournal, severalHostsResults, type JournalRecord } from '../../src/common/records.js';
import { grownResults } from '../../src/common/experiment/carry.js';
import { checkExperiment } from '../../src/common/experiment/validate.js';
import { tinyQuickstart } from '../fixtures/tiny-quickstart.js';

const said = (at: number, message: string, level: 'info' | 'warn' | 'error' = 'info'): JournalRecord => ({ t: 'log', at, level, message });

test("a log event is a journal record, and the fold keeps the run's lines for its results", () => {
  const e = { type: 'log' as const, at: 5, level: 'warn' as const, message: 'the host is busy before the run: load average 5' };
  const r = recordOf(e)!;
  assert.deepEqual(r, { t: 'log', at: 5, level: 'warn', message: e.message });
  assert.deepEqual(eventOf(r, () => undefined), e);
  const fold = new JournalFold();
  fold.apply(r);
  fold.apply(said(6, "varlab's process yields the CPU to mysqld on this host while connected (SCHED_BATCH)"));
  const results = resultsFromJournal(fold.state());
  assert.deepEqual(
    results.log!.map((l) => l.message),
    [e.message, "varlab's process yields the CPU to mysqld on this host while connected (SCHED_BATCH)"],
  );
  assert.equal(resultsFromJournal(new JournalFold().state()).log, undefined, 'a run that said nothing adds no log');
});

test('a long log keeps its first and newest lines in the file, and says how many it left out', () => {
  const fold = new JournalFold();
  const n = LOG_KEPT.first + LOG_KEPT.last + 37;
  for (let i = 0; i < n; i++) fold.apply(said(i, `line ${i}`));
  const log = resultsFromJournal(fold.state()).log!;
  assert.equal(log.length, LOG_KEPT.first + 1 + LOG_KEPT.last);
  assert.equal(log[0].message, 'line 0');
  assert.match(log[LOG_KEPT.first].message, /^… 37 more lines \(the journal beside the file has every one\)$/);
  assert.equal(log.at(-1)!.message, `line ${n - 1}`);
});

test("the file's schema takes the log; several hosts tag each line; a grown run's log replaces the one before", () => {
  const doc = tinyQuickstart(1);
  const log = [{ at: 1_700_000_000_000, level: 'warn' as const, message: 'the host is busy before the run' }];
  const checked = checkExperiment({ ...doc, results: { restarts: [], log } });
  assert.deepEqual(checked.problems, []);
  assert.deepEqual(checked.doc!.results!.log, log);
  assert.deepEqual(checkExperiment({ ...doc, results: { restarts: [], log: [{ at: 1, level: 'loud', message: 'x' }] } }).doc, null);
  const both = severalHostsResults([
    { host: 'a', results: { restarts: [], log } },
    { host: 'b', results: { restarts: [] } },
  ]);
  assert.deepEqual(both.log, [{ ...log[0], host: 'a' }]);
  const grown = grownResults({ restarts: [], log }, { restarts: [], log: [{ at: 2, level: 'info', message: 'resuming' }] }, 2);
  assert.deepEqual(grown.log!.map((l) => l.message), ['resuming']);
  assert.deepEqual(grownResults({ restarts: [], log }, { restarts: [] }, 2).log, log, 'until the grown run says something, the file keeps what it held');
});

test("a run that did not finish keeps its end as the log's last line (why it stopped, even before its first restart); a finished run's end is no news", () => {
  const refused = 'root@127.0.0.1:1: connection refused (is sshd running on port 1?)';
  const fold = new JournalFold();
  fold.apply(said(5, "varlab's process yields the CPU to mysqld on this host while connected (SCHED_BATCH)"));
  fold.apply({ t: 'run-finished', at: 9, state: 'failed', message: refused });
  const log = resultsFromJournal(fold.state()).log!;
  assert.deepEqual(log.at(-1), { at: 9, level: 'error', message: `run failed: ${refused}` });
  assert.equal(log.length, 2);
  const cancelled = new JournalFold();
  cancelled.apply({ t: 'run-finished', at: 3, state: 'cancelled', message: 'cancelled' });
  assert.deepEqual(resultsFromJournal(cancelled.state()).log, [{ at: 3, level: 'warn', message: 'run cancelled' }]);
  const finished = new JournalFold();
  finished.apply({ t: 'run-finished', at: 3, state: 'finished' });
  assert.equal(resultsFromJournal(finished.state()).log, undefined);
  // A line longer than the file's schema takes is cut, so the results are still saved.
  const long = new JournalFold();
  long.apply({ t: 'run-finished', at: 3, state: 'failed', message: 'x'.repeat(30_000) });
  const doc = tinyQuickstart(1);
  const results = resultsFromJournal(long.state());
  assert.match(results.log![0].message, /^run failed: x+ … \(cut; the journal has it whole\)$/);
  assert.deepEqual(checkExperiment({ ...doc, results }).problems, []);
  // Resumed since (a new attempt begins with its host): the earlier attempt's end is not how the run ended.
  fold.apply({ t: 'host', at: 10, host: { target: 'local' } as unknown as HostFingerprint });
  fold.apply(said(11, 'resuming: 0 of 4 restarts done'));
  const resumed = resultsFromJournal(fold.state());
  assert.deepEqual(resumed.log!.at(-1), { at: 11, level: 'info', message: 'resuming: 0 of 4 restarts done' });
  assert.equal(resumed.log!.filter((l) => l.message.startsWith('run failed')).length, 0, JSON.stringify(resumed.log));
  assert.equal(resumed.finishedAt, undefined);
});
